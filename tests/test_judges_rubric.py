"""Rubric files: every shipped rubric loads, counts and weights are the seeds', selection, prompts, fusion."""

from __future__ import annotations

import json

import pytest

from lawful.case import Case
from lawful.judges.rubric import RubricError, load_rubric, parse_rubric, rubric_names

EXPECTED = {  # criteria counts: PhyGround 3 + 13, Apple-pi E.1/E.3 JSON keys, Principia 8 phenomena
    "phyground-general": 3, "phyground-law": 13, "applepi-perception-text": 18,
    "applepi-perception-graphic": 8, "applepi-formulation-text": 11, "applepi-formulation-graphic": 9,
    "applepi-deduction": 5, "applepi-deduction-keyframe": 5, "principia-detect": 8,
    "wmle-consistency": 1, "wmle-direct": 1,
}
WEIGHTS = {
    "applepi-perception-text": [0.50, 0.30, 0.20],
    "applepi-perception-graphic": [0.10, 0.30, 0.30, 0.30],
    "applepi-formulation-text": [0.20, 0.30, 0.40, 0.10],
    "applepi-formulation-graphic": [0.10, 0.30, 0.30, 0.30],
    "applepi-deduction": [0.20, 0.20, 0.60],
}


def test_every_rubric_loads_with_expected_counts():
    assert set(rubric_names()) == set(EXPECTED)
    for name, n in EXPECTED.items():
        r = load_rubric(name)
        assert len(r.criteria) == n, name
        assert r.id == f"{name}@{r.version}"


@pytest.mark.parametrize("name,weights", WEIGHTS.items())
def test_applepi_group_weights(name, weights):
    assert [g.weight for g in load_rubric(name).groups] == weights


def test_applepi_group_membership_e1():
    r = load_rubric("applepi-perception-text")
    g = {x.name: x.criteria for x in r.groups}
    assert set(g["content"]) == {"text_content_match", "text_readability", "no_extra_annotations"}
    assert set(g["layout"]) == {"text_position_match", "axes_position_match", "axes_angle_match",
                                "velocity_position_match"}
    assert len(g["style"]) == 11
    d = {x.name: (x.criteria, x.objective) for x in load_rubric("applepi-deduction").groups}
    assert d["physics"] == (("physics_accuracy",), ("spatial_iou", "spatiotemporal_iou", "weighted_spatial_iou",
                                                      "velocity_accuracy"))


def test_phyground_law_domains():
    r = load_rubric("phyground-law")
    by = {}
    for c in r.criteria:
        by.setdefault(c.domain, []).append(c.key)
        assert 2 <= len(c.sub_questions) <= 4
    assert {k: len(v) for k, v in by.items()} == {"solid_body": 6, "fluid": 5, "optical": 2}


def test_selection_per_case():
    case = Case(id="c1", suite="phyground", task="scene", criteria=["gravity", "Collision"])
    law = load_rubric("phyground-law")
    assert [[c.key for c in call] for call in law.calls_for(case)] == [["gravity"], ["collision"]]
    assert len(load_rubric("phyground-general").calls_for(case)) == 3
    assert not load_rubric("principia-detect").applies(case)
    pr = Case(id="p1", suite="principia", task="rotational_inertia")
    assert [c.key for c in load_rubric("principia-detect").criteria_for(pr)] == ["inertia"]
    ap = load_rubric("applepi-deduction")
    assert len(ap.calls_for(Case(id="a", suite="applepi", task="FreeFall"))) == 1
    assert not ap.applies(Case(id="a", suite="applepi", task="FreeFall", known={"subtrack": "perception-text"}))


def test_prompt_renders_with_expected_outcome_and_checklist():
    case = Case(id="c1", suite="phyground", task="scene", prompt="A ball rolls off a table.",
                criteria=["gravity"], known={"expected_outcome": "It falls to the floor and bounces."})
    r = load_rubric("phyground-law")
    text = r.render(case, [r.criterion("gravity")])
    assert "A ball rolls off a table." in text and "It falls to the floor and bounces." in text
    assert "Gravity" in text and r.criterion("gravity").sub_questions[0] in text
    assert '{"gravity": <an integer from 1 to 5>}' in text
    with pytest.raises(KeyError):  # Formulation-Text needs the correct answer from the case
        load_rubric("applepi-formulation-text").render(case, list(load_rubric("applepi-formulation-text").criteria))


def test_fusion_golden_deduction():
    """E.3: 0.2·mean(ann, cons) + 0.2·mean(vq, ms, psnr, mpsnr) + 0.6·mean(phys, sIoU, stIoU, wIoU, vel)."""
    r = load_rubric("applepi-deduction")
    judged = {"gen_annotations_removed": 1.0, "object_consistency": 0.5, "visual_quality": 0.8,
              "motion_smoothness": 0.6, "physics_accuracy": 0.2}
    obj = {"psnr": 0.5, "masked_psnr": 0.3, "spatial_iou": 0.4, "spatiotemporal_iou": 0.1,
           "weighted_spatial_iou": 0.3, "velocity_accuracy": 0.5}
    out = r.fuse(judged, obj)
    assert out["groups"] == pytest.approx({"integrity": 0.75, "fidelity": 0.55, "physics": 0.3})
    assert out["score"] == pytest.approx(0.2 * 0.75 + 0.2 * 0.55 + 0.6 * 0.3)  # 0.44


def test_fusion_not_applicable_and_empty_group():
    r = load_rubric("applepi-perception-graphic")
    judged = {"white_background": 1.0, "coord_axes": 0.5, "velocity_arrows": -1.0, "text_annotations": 1.0,
              "objects_only_from_gt": None, "object_completeness": None, "object_visual_match": None,
              "object_position_match": 0.4}
    out = r.fuse(judged, {"segmentation_iou": 0.6})
    # annotation removal averages 0.5 and 1.0 (−1 left out); object preservation is empty → 0
    assert out["groups"] == pytest.approx({"background": 1.0, "annotation_removal": 0.75,
                                           "object_preservation": 0.0, "spatial": 0.5})
    assert out["score"] == pytest.approx(0.1 * 1.0 + 0.3 * 0.75 + 0.3 * 0.0 + 0.3 * 0.5)


def test_fusion_keyframe_proxy():
    r = load_rubric("applepi-deduction-keyframe")
    judged = {"gen_annotations_removed": 1, "object_consistency": 1, "visual_quality": 0.5,
              "object_position_match": 0.25, "physics_accuracy": 0.5}
    out = r.fuse(judged, {})
    assert out["groups"]["fidelity"] == pytest.approx((0.5 + 0.25) / 2)


def test_bad_rubric_files_fail_with_one_line(tmp_path):
    data = json.loads(json.dumps(load_rubric("applepi-deduction").model_dump(mode="json")))
    data["groups"][0]["weight"] = 0.3
    with pytest.raises(RubricError, match="weights must sum to 1"):
        parse_rubric(data)
    data = json.loads(json.dumps(load_rubric("phyground-law").model_dump(mode="json")))
    data["scale"]["max"] = 10
    with pytest.raises(RubricError, match="output_schema"):
        parse_rubric(data)
    with pytest.raises(RubricError, match="did you mean 'phyground-law'"):
        load_rubric("phyground-laws")
    p = tmp_path / "mine.json"
    p.write_text(json.dumps(load_rubric("wmle-consistency").model_dump(mode="json")))
    assert load_rubric(p).name == "wmle-consistency"




# words that state what the law predicts (the outcome), which the paper's questions never do
OUTCOME_WORDS = ("must", "should", "square root", "ratio", "proportional", "farther", "further", "shorter",
                 "longer", "later", "earlier", "slower", "faster", "same time", "relation", "satisf", "invariant",
                 "constant")


def test_principia_detect_names_only_the_phenomenon():
    """Seed 002 B.2: each prompt names the phenomenon (and what is held equal), never the result."""
    r = load_rubric("principia-detect")
    assert r.version == "2.0.0"
    texts = [c.question for c in r.criteria] + [r.template, r.system, *r.scale.anchors.values()]
    for t in texts:
        hits = [w for w in OUTCOME_WORDS if w in t.lower()]
        assert not hits, (hits, t)
    q = {c.key: c.question.lower() for c in r.criteria}
    assert "bounce" in q["restitution"] and "first bounce" in q["restitution"]
    assert "horizontally" in q["projectile"] and "period" in q["pendulum"]
    assert r.frames.fps is None and r.frames.max_frames is None  # the full video, no 32-frame cap
