"""A tiny dataset in the release layout, written on disk by hand (a real-world-style case with
``gt_video``) and by lawful (a simulated case), read back and scored; broken predictions are listed."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from lawful.suites.applepi import build as B
from lawful.suites.applepi import dataset as D
from lawful.suites.applepi import models as M
from lawful.suites.applepi import predictions as P
from lawful.suites.applepi.infographic import ORANGE, draw_arrow
from lawful.suites.applepi.run import evaluate_predictions
from lawful.video import write_video

W, H = 192, 112
FPS, DUR = 24.0, 1.0
R_PX, SPEED_PX = 9, 48.0  # ball radius and speed in pixels (per second)
D_M = 0.3  # annotated diameter: metres per pixel = 0.3 / 18


def _png(path: Path, rgb: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))


def _real_world_case(root: Path) -> dict:
    """A recorded-style case: a red ball rolling right at constant speed, GT as a video plus masks."""
    rel = "cases/NewtonsFirstLaw/UniformLinearMotion/000101"
    d = root / rel
    n = int(DUR * FPS)
    yy, xx = np.mgrid[:H, :W]
    bg = np.zeros((H, W, 3), np.uint8)
    bg[...] = np.linspace(150, 205, H, dtype=np.uint8)[:, None, None]
    bg[90:] = (120, 110, 100)
    frames, masks = [], []
    for k in range(n + 1):
        cx = 30 + SPEED_PX * k / FPS
        m = (xx - cx) ** 2 + (yy - 80) ** 2 <= R_PX**2
        f = bg.copy()
        f[m] = (210, 40, 40)
        frames.append(f)
        masks.append(m)
    write_video(d / "gt_video.mp4", frames, FPS)
    _png(d / "rgb/0000.png", frames[0])
    masks = np.stack(masks)
    for sub in ("mask", "instance_segmentation", "instantaneous_velocity"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    np.savez_compressed(d / "mask/maps.npz", maps=masks)
    np.savez_compressed(d / "instance_segmentation/maps.npz", maps=masks.astype(np.uint8))
    ann = np.full((H, W, 3), 255, np.uint8)
    cv2.putText(ann, "d = 0.3", (50, 60), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (20, 20, 20), 1, cv2.LINE_AA)
    cv2.arrowedLine(ann, (30, 80), (60, 80), (25, 35, 110), 2, cv2.LINE_AA)
    ann_mask = (ann < 200).any(-1)
    annotated = frames[0].copy()
    annotated[ann_mask] = ann[ann_mask]
    _png(d / "initial_state/rgb_0000.png", annotated)
    _png(d / "initial_state/rgb_0000_white_bg.png", ann)
    obj = np.full((H, W, 3), 255, np.uint8)
    obj[masks[0]] = frames[0][masks[0]]
    _png(d / "initial_state/rgb_0000_white_bg_obj.png", obj)
    np.save(d / "initial_state/mask_0000.npy", masks[0])
    k_star = 12  # t* = 0.5 s
    fs = frames[k_star].copy()
    c = (30 + SPEED_PX * k_star / FPS, 80)
    draw_arrow(fs, c, (c[0] + 40, c[1]), ORANGE, 4, 10)
    _png(d / "instantaneous_velocity/velocity_annotated.png", fs)
    np.save(d / "instantaneous_velocity/mask.npy", masks[k_star])
    meta = {
        "schema_version": "1.0", "case_id": "ULM_real_000101", "physics_type": "UniformLinearMotion",
        "is_realworld": True, "annotation": f"Environment: μ = 0.0 / RedBall: d = {D_M}, m = 0.2, v_0 = 0.8",
        "input_image": "initial_state/rgb_0000.png", "clean_first_frame": "rgb/0000.png",
        "annotations_only_reference": "initial_state/rgb_0000_white_bg.png",
        "objects_only_reference": "initial_state/rgb_0000_white_bg_obj.png",
        "future_state_reference": "instantaneous_velocity/velocity_annotated.png", "target_time": 0.5,
        "physics_duration": DUR, "gt_frames_dir": None, "gt_video": "gt_video.mp4", "gt_fps": FPS,
        "gt_total_frames": n + 1, "deduction_timestamps": [0.25, 0.5, 0.75],
        "formula_info": {"choices": ["A. x = x_0 + v_0 t", "B. x = x_0 + 1/2 v_0 t^2", "C. v = v_0 - g t",
                                     "D. x = v_0 / t"], "correct_letter": "A", "correct_formula": "x = x_0 + v_0 t"},
    }
    (d / "metadata.json").write_text(json.dumps(meta, ensure_ascii=False))
    return {"case_id": meta["case_id"], "path": rel, "split": "test"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("orchard")
    entries = [_real_world_case(root),
               B.write_case(root, "FreeFall", 1, seed=3, width=W, height=H, duration=1.0, dense_maps=True)]
    B.write_dataset_index(root, entries)
    return root


def test_reads_both_kinds_of_case(tiny):
    ds = D.Dataset(tiny)
    real, sim = list(ds)
    assert real.is_realworld and real.n_gt_phys == 24 and real.pillar == "NewtonsFirstLaw"
    assert real.formula_info["choices"]["A"] == "x = x_0 + v_0 t"
    assert real.gt_frames([5])[5].shape == (H, W, 3)  # decoded from gt_video
    # real recordings: scale from the annotated diameter, velocity from the GT masks
    assert real.metres_per_pixel(1, 5) == pytest.approx(D_M / (2 * np.sqrt((real.instances()[0] == 1).sum() / np.pi)))
    v = real.velocity(1, 10)
    assert v[0] == pytest.approx(SPEED_PX * real.metres_per_pixel(1, 10), rel=0.03) and abs(v[1]) < 0.02
    # simulated case written by lawful, read through the release files: velocity maps + camera agree with lawful.json
    assert not sim.is_realworld and sim.n_gt_phys == 24 and sorted(sim.meta) == sorted(D.METADATA_KEYS)
    sim_no_ext = D.GTCase(tiny, sim.entry)
    sim_no_ext.ext = None
    k = 6
    for oid in sim.object_ids:
        assert sim_no_ext.velocity(oid, k) == pytest.approx(sim.velocity(oid, k), abs=0.01)
        assert sim_no_ext.metres_per_pixel(oid, k) == pytest.approx(sim.metres_per_pixel(oid, k), rel=1e-3)


def test_scores_predictions_in_release_layout(tiny, tmp_path):
    ds = D.Dataset(tiny)
    pred = tmp_path / "pred_ref"
    M.write_submission(pred, "reference")
    for c in ds:
        M.write_predictions("reference", c, pred)
    sec = evaluate_predictions(tiny, pred, tmp_path / "run", progress=False, ocr=False, workers=1)
    e = sec["models"]["reference"]
    assert sec["validation"]["reference"]["ok"]
    assert e["invalid"] == 0 and e["cases"] == 2 and set(e["sources"]) == {"real", "simulated"}
    assert e["overall"] > 0.9
    real = e["task_metrics"]["UniformLinearMotion"]
    assert real["deduction/velocity_accuracy"] > 0.9  # tracked in m/s via the annotated size
    assert real["deduction/spatiotemporal_iou"] > 0.85
    assert real["formulation_graphic/arrow_direction"] > 0.95
    # static scores far lower on the same cases
    spred = tmp_path / "pred_static"
    for c in ds:
        M.write_predictions("static", c, spred)
    st = evaluate_predictions(tiny, spred, tmp_path / "run", model="static", progress=False, ocr=False, workers=1)
    assert st["models"]["static"]["overall"] < e["overall"] - 0.4


def test_broken_predictions_are_listed_not_fatal(tiny, tmp_path):
    ds = D.Dataset(tiny)
    pred = tmp_path / "broken"
    for c in ds:
        M.write_predictions("reference", c, pred, protocol="image")
    real, sim = list(ds)
    # one missing rollout, one corrupt PNG, one deduction folder without a requested keyframe
    (pred / "perception_text" / sim.entry["path"] / "rollout_02.png").unlink()
    (pred / "perception_graphic" / real.entry["path"] / "rollout_00.png").write_bytes(b"\x89PNG garbage")
    kf = pred / "deduction" / sim.entry["path"] / "rollout_01"
    next(kf.glob("frame_001_*.png")).unlink()
    rep = P.validate(pred, ds)
    assert rep.expected == 2 * 5 * 3 and len(rep.missing) == 1 and len(rep.unreadable) == 2
    assert "perception_text rollout_02" in rep.missing[0]
    sec = evaluate_predictions(tiny, pred, tmp_path / "run2", model="broken", progress=False, ocr=False, workers=1)
    e = sec["models"]["broken"]
    # Formulation-Text without OCR or a judge has no objective score: its 6 outputs are unmeasurable
    assert e["invalid"] == 3 and e["unmeasurable"] == 6 and e["scored"] == 21
    assert not sec["validation"]["broken"]["ok"]
    # an invalid rollout scores 0: that case-subtrack drops to 2/3 of the reference's value
    assert 0.0 < e["subtracks"]["perception_text_objective"] < 1.0


def test_judge_values_switch_to_the_papers_fusion(tiny, tmp_path):
    from lawful.store import Store
    from lawful.suites.applepi import fusion as Fu
    from lawful.suites.applepi.fused import apply_judge
    from lawful.suites.applepi.run import SUBTRACKS, aggregate_rows

    ds = D.Dataset(tiny)
    pred = tmp_path / "pred"
    for c in ds:
        M.write_predictions("reference", c, pred, num_rollouts=1)
    with Store(tmp_path / "r.sqlite") as st:
        sec = evaluate_predictions(tiny, pred, tmp_path, model="reference", progress=False, workers=1, store=st)
        assert sec["models"]["reference"]["scoring"].startswith("objective-only")
        # a judge that filled every criterion with 0.5, except one -1 (not applicable)
        values = {}
        for c in ds:
            for sub in SUBTRACKS:
                crit = {k: 0.5 for k in Fu.judge_criteria(sub)}
                values[(c.case_id, "reference", 0, sub)] = crit
        values[(ds.entries[0]["case_id"], "reference", 0, "deduction")]["physics_accuracy"] = -1
        assert apply_judge(st, values) == 2 * 5
        rows = st.scores("applepi")
        fused = {(r["case_id"], r["col"]): r for r in rows if r["col"] in SUBTRACKS}
        r = fused[(ds.entries[1]["case_id"], "deduction")]
        m = r["score"]["metrics"]
        phys = np.mean([0.5, m["spatial_iou"], m["spatiotemporal_iou"], m["weighted_spatial_iou"], m["velocity_accuracy"]])
        fid = np.mean([0.5, 0.5, m["psnr"], m["masked_psnr"]])
        assert r["value"] == pytest.approx(0.2 * 0.5 + 0.2 * fid + 0.6 * phys)
        r0 = fused[(ds.entries[0]["case_id"], "deduction")]  # physics_accuracy -1 is left out of its group
        m0 = r0["score"]["metrics"]
        phys0 = np.mean([v for k, v in m0.items() if k in ("spatial_iou", "spatiotemporal_iou", "weighted_spatial_iou",
                                                            "velocity_accuracy") and v != -1])
        assert r0["score"]["extra"]["groups"]["physics"] == pytest.approx(phys0)
        sec2 = aggregate_rows(rows, ["reference"])
        assert sec2["models"]["reference"]["scoring"].startswith("judged")
        assert set(sec2["models"]["reference"]["subtracks"]) == set(SUBTRACKS)


def test_physics_iq_motion_masks_option(tmp_path):
    # motion masks work at a quarter of the GT resolution with 5x5 morphology: use a larger frame
    root = tmp_path / "ds"
    B.write_dataset_index(root, [B.write_case(root, "ProjectileMotion", 1, seed=1, width=384, height=224,
                                              duration=1.5, dense_maps=False)])
    ds = D.Dataset(root)
    res = {}
    for model in ("reference", "static"):
        pred = tmp_path / model
        for c in ds:
            M.write_predictions(model, c, pred, num_rollouts=1)
        sec = evaluate_predictions(root, pred, tmp_path / "run", model=model, progress=False, workers=1,
                                   motion_masks=True)
        res[model] = sec["models"][model]["metrics"]
    for k in ("spatial_iou_motion", "spatiotemporal_iou_motion", "weighted_spatial_iou_motion"):
        assert res["reference"][f"deduction/{k}"] > 0.9
        assert res["static"][f"deduction/{k}"] < 0.5  # a frozen clip has no motion
