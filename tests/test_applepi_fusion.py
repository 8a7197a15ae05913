"""Apple-π score fusion (E.1, E.3) and aggregation (E.4): golden numbers and the -1 rule."""

import pytest

from lawful.suites.applepi import fusion as Fu
from lawful.suites.applepi.fusion import OutputScore


def test_group_weights_are_the_papers():
    w = {k: [g.weight for g in gs] for k, gs in Fu.RUBRICS.items()}
    assert w == {
        "perception_text": [0.50, 0.30, 0.20],
        "perception_graphic": [0.10, 0.30, 0.30, 0.30],
        "formulation_text": [0.20, 0.30, 0.40, 0.10],
        "formulation_graphic": [0.10, 0.30, 0.30, 0.30],
        "deduction": [0.20, 0.20, 0.60],
    }


def test_group_mean_leaves_out_not_applicable():
    assert Fu.group_mean([1.0, -1, 0.5]) == 0.75
    assert Fu.group_mean([-1, -1]) == 0.0  # an empty group scores 0
    assert Fu.group_mean([]) == 0.0


def _deduction_judge():
    return {"gen_annotations_removed": 1.0, "object_consistency": 0.5, "visual_quality": 0.8,
            "motion_smoothness": 0.6, "physics_accuracy": 0.5}


def test_deduction_fusion_golden():
    obj = {"psnr": 0.9, "masked_psnr": 0.7, "spatial_iou": 0.4, "spatiotemporal_iou": 0.3,
           "weighted_spatial_iou": 0.2, "velocity_accuracy": -1}
    score, groups = Fu.fuse("deduction", _deduction_judge(), obj)
    # integrity (1+0.5)/2 = 0.75; fidelity (0.8+0.6+0.9+0.7)/4 = 0.75; physics (0.5+0.4+0.3+0.2)/4 = 0.35
    assert groups == pytest.approx({"integrity": 0.75, "fidelity": 0.75, "physics": 0.35})
    assert score == pytest.approx(0.2 * 0.75 + 0.2 * 0.75 + 0.6 * 0.35)  # 0.51


def test_perception_graphic_fusion_golden_with_not_applicable_arrows():
    judge = {"white_background": 1.0, "coord_axes": 1.0, "velocity_arrows": -1, "text_annotations": 0.5,
             "objects_only_from_gt": 1.0, "object_completeness": 0.5, "object_visual_match": 0.0,
             "object_position_match": 0.6}
    score, groups = Fu.fuse("perception_graphic", judge, {"segmentation_iou": 0.8})
    assert groups == pytest.approx({"background": 1.0, "annotation_removal": 0.75, "object_preservation": 0.5,
                                    "spatial": 0.7})
    assert score == pytest.approx(0.1 * 1.0 + 0.3 * 0.75 + 0.3 * 0.5 + 0.3 * 0.7)  # 0.685


def test_formulation_text_all_not_applicable_group_scores_zero():
    judge = {c: 1.0 for c in Fu.judge_criteria("formulation_text")}
    judge["option_correct"] = -1
    score, groups = Fu.fuse("formulation_text", judge, {})
    assert groups["option"] == 0.0
    assert score == pytest.approx(0.8)


def test_missing_judge_value_is_never_invented():
    j = _deduction_judge()
    del j["physics_accuracy"]
    score, info = Fu.fuse("deduction", j, {"psnr": 1, "masked_psnr": 1, "spatial_iou": 1, "spatiotemporal_iou": 1,
                                           "weighted_spatial_iou": 1, "velocity_accuracy": 1})
    assert score is None and info["missing"] == ["physics_accuracy"]


def test_objective_only_renormalises_over_measured_groups():
    obj = {"annotations_removed_px": 1.0, "object_presence": 0.5, "psnr": 1.0, "masked_psnr": 0.5,
           "spatial_iou": 0.8, "spatiotemporal_iou": 0.4, "weighted_spatial_iou": 0.6, "velocity_accuracy": -1}
    s, groups = Fu.fuse_objective("deduction", obj)
    assert groups == pytest.approx({"integrity": 0.75, "fidelity": 0.75, "physics": 0.6})
    assert s == pytest.approx(0.2 * 0.75 + 0.2 * 0.75 + 0.6 * 0.6)  # 0.66
    # integrity not applicable at all -> dropped, weights renormalised over 0.8
    obj.update(annotations_removed_px=-1, object_presence=-1)
    s2, g2 = Fu.fuse_objective("deduction", obj)
    assert "integrity" not in g2
    assert s2 == pytest.approx((0.2 * 0.75 + 0.6 * 0.6) / 0.8)
    # formulation-text without OCR: only presentation (weight 0.1) is measured, so there is no objective score
    # (the counterfactual's wrong option letter and formula scored 0.999 on presentation alone)
    s3, g3 = Fu.fuse_objective("formulation_text", {"white_background": 1.0, "three_text_lines": 1.0})
    assert s3 is None and g3["uncovered"] == ["option", "formula", "substitution"] and g3["covered_weight"] == 0.1
    # with OCR the content groups are covered: a wrong option letter costs its weight
    s4, _ = Fu.fuse_objective("formulation_text", {"white_background": 1.0, "three_text_lines": 1.0,
                                                   "option_letter_ocr": 0.0, "formula_text_ocr": 1.0,
                                                   "substitution_text_ocr": 1.0})
    assert s4 == pytest.approx(0.8)


def test_keyframe_judge_uses_position_match_for_smoothness():
    v = Fu.keyframe_judge_values([{"visual_quality": 1.0, "object_position_match": 0.4},
                                  {"visual_quality": 0.5, "object_position_match": 0.8}])
    assert v["visual_quality"] == 0.75
    assert v["motion_smoothness"] == pytest.approx(0.6)


def _o(case, task, pillar, sub, r, status, value):
    return OutputScore(case, task, pillar, "simulated", sub, r, status, value, {"m": value or 0.0})


def test_aggregation_golden():
    outs = [
        # case A (pillar P): deduction rollouts 0.9, invalid, 0.6 -> 0.5; perception_text 1.0
        _o("A", "T1", "P", "deduction", 0, "scored", 0.9), _o("A", "T1", "P", "deduction", 1, "invalid", None),
        _o("A", "T1", "P", "deduction", 2, "scored", 0.6), _o("A", "T1", "P", "perception_text", 0, "scored", 1.0),
        # case B (pillar Q): deduction 0.2; perception_text unmeasurable in every rollout -> no score
        _o("B", "T2", "Q", "deduction", 0, "scored", 0.2), _o("B", "T2", "Q", "perception_text", 0, "unmeasurable", None),
    ]
    cs = Fu.case_scores(outs)
    assert cs == pytest.approx({("A", "deduction"): 0.5, ("A", "perception_text"): 1.0, ("B", "deduction"): 0.2})
    e = Fu.aggregate(outs)
    assert e["subtracks"]["deduction"] == pytest.approx(0.35)  # Eq. 13: mean over cases
    assert e["subtracks"]["perception_text"] == pytest.approx(1.0)
    assert e["overall"] == pytest.approx((0.5 + 1.0 + 0.2) / 3)  # Eq. 14: mean over (case, subtrack)
    assert e["pillars"] == pytest.approx({"P": 0.75, "Q": 0.2})  # case-level means of the subset
    assert e["tasks"] == pytest.approx({"T1": 0.75, "T2": 0.2})
    assert (e["videos"], e["scored"], e["invalid"], e["unmeasurable"]) == (6, 4, 1, 1)
