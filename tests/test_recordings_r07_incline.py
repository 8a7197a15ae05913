"""R7 incline: the predicted ratio, leg accelerations on tracks whose truth is known (hand-made with noise, and a
rendered clip), the rules (speeding up going up, sliding where μ ≥ tan θ), law against twin, a case without μ,
a block that never moves."""

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest

from lawful.case import CaseError, load_case
from lawful.perceive import noise
from lawful.perceive.track import track
from lawful.runner.validate import validate_variant
from lawful.score.wmle import q
from lawful.suites.windows import RES_PX
from lawful.suites.recordings._slides import predicted_ratio, slide
from lawful.suites.recordings.r07_incline import Incline
from lawful.suites.wmle.common import frame_times
from lawful.suites.wmle.p11_rough_incline_round_trip import slope_frame
from lawful.tracks import Tracks
from lawful.video import write_video

K = noise.k_for()


def _tracks(case, s, sigma=0.0, seed=0):
    """Tracks of the block whose centre is ``s`` px up the slope, plus Gaussian noise."""
    k = case.known
    t = frame_times(case)
    foot, u, n = slope_frame(k)
    c = foot[None] + s[:, None] * u[None] + 0.5 * k["block_h"] * n[None]
    c = c + np.random.default_rng(seed).normal(0, sigma, c.shape)
    tr = Tracks.empty(["block"], len(t), fps=case.fps)
    tr.t, tr.frames = t, np.arange(len(t))
    w, h = k["block_w"], k["block_h"]
    tr.xy[:, 0] = c
    tr.box[:, 0] = np.stack([c[:, 0] - w / 2, c[:, 1] - h / 2, c[:, 0] + w / 2, c[:, 1] + h / 2], axis=1)
    tr.area[:, 0] = w * h
    tr.visible[:] = True
    return tr


def _case(index, seed):
    task = Incline()
    case, _ = task.make_case(index, seed)
    return task, case


def test_predicted_ratio():
    th = math.radians(30.0)
    assert predicted_ratio(th, 0.2) == pytest.approx((0.5 - 0.2 * math.sqrt(3) / 2) / (0.5 + 0.2 * math.sqrt(3) / 2))
    assert predicted_ratio(th, math.tan(th)) == pytest.approx(0.0, abs=1e-12)  # at the friction angle nothing slides


@pytest.mark.parametrize("index,seed", [(0, 1000), (2, 1002), (3, 1003), (1, 1001)])
def test_accelerations_on_noisy_tracks(index, seed):
    """0.2 px noise: each leg's acceleration within k·se of the truth, θ from the path within 0.5°, law metrics
    near 1, the twin's well below."""
    task, case = _case(index, seed)
    meas = task.measure(case, _tracks(case, slide(case.known, frame_times(case), "true"), 0.2, seed))
    tq, kind = case.truth.quantities, case.known["kind"]
    assert meas.get("theta_deg") == pytest.approx(case.known["theta_deg"], abs=0.5)
    if kind != "down":
        assert abs(meas.get("up_a") - tq["a_up_px_s2"]) <= K * meas.get("up_se")
    if kind != "stay":
        assert abs(meas.get("down_a") - tq["a_down_px_s2"]) <= K * meas.get("down_se")
    else:
        assert meas.get("down_a") is None
    law = task.score(case, meas)["R7"]
    anti_tracks = _tracks(case, slide(case.known, frame_times(case), "anti"), 0.2, seed)
    anti = task.score(case, task.measure(case, anti_tracks))["R7"]
    assert law.metrics["P"] >= 97 and anti.metrics["P"] < law.metrics["P"] - 25


def test_speeding_up_going_up_scores_zero():
    task, case = _case(0, 1000)
    k = case.known
    t = frame_times(case)
    tau = np.clip(t - k["launch_s"], 0, None)
    t_top = 1.0
    up = k["start_px"] + 80 * tau + 0.5 * 150 * tau**2  # speeds up going up (no push can do that) …
    top = k["start_px"] + 80 * t_top + 75 * t_top**2
    s = np.where(tau <= t_top, up, top - 0.5 * 200 * (tau - t_top) ** 2)  # … then turns and slides down
    sc = task.metrics(case, task.measure(case, _tracks(case, np.maximum(s, k["stop_px"]), 0.1)))
    assert sc["M1"].value == 0.0 and "no deceleration going up" in sc["M1"].reason


def test_descent_from_rest_needs_a_scale():
    """A descent alone is compared with g only when known.px_per_m is given; without it M1 is undefined."""
    task, case = _case(3, 1003)
    assert case.known["kind"] == "down"
    tr = _tracks(case, slide(case.known, frame_times(case), "true"), 0.2)
    assert task.metrics(case, task.measure(case, tr))["M1"].value >= 0.97
    del case.known["px_per_m"]
    sc = task.metrics(case, task.measure(case, tr))
    assert sc["M1"].status == "undefined" and sc["M2"].value >= 0.97 and sc["M3"].status == "undefined"


def test_slides_although_friction_holds_it():
    """μ ≥ tan θ: the twin slides back down; M1 and M3 fail by their rules / the descent over the rise."""
    task, case = _case(1, 1001)
    assert case.known["kind"] == "stay" and case.known["mu"] > math.tan(math.radians(case.known["theta_deg"]))
    sc = task.metrics(case, task.measure(case, _tracks(case, slide(case.known, frame_times(case), "anti"), 0.2)))
    assert sc["M1"].value == 0.0 and sc["M3"].value < q(0.5, 0.10)


def _accel_bound(t, idx):
    """Worst-case error of a quadratic fit's acceleration from a centroid bias of at most RES_PX per sample."""
    X = np.vander(t[idx] - t[idx].mean(), 3, increasing=True)
    return 2 * RES_PX * float(np.abs(np.linalg.pinv(X)[2]).sum())


def test_rendered_clip_against_truth():
    """lawful's own render, tracked from H.264: ratio a_d/a_u within k·se1 plus the legs' worst-case relative
    error from centroids biased by up to RES_PX; P ≥ 97."""
    task, case = _case(0, 1000)
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "law.mp4"
        write_video(p, list(task.render(case, "true")), fps=case.fps)
        meas = task.measure(case, track(p, case, task.plan))
    sc = task.score(case, meas)["R7"]
    assert sc.status == "scored" and sc.metrics["P"] >= 97
    m1 = task.metrics(case, meas)["M1"]
    ratio, r_star = m1.components["ratio"], case.truth.quantities["r_star"]
    t = frame_times(case)
    bias = sum(_accel_bound(t, np.arange(int(meas.get(f"{leg}_i0")), int(meas.get(f"{leg}_i1")) + 1))
               / meas.get(f"{leg}_a") for leg in ("up", "down"))
    assert abs(ratio / r_star - 1) <= K * m1.components["se"] + bias
    assert meas.get("theta_deg") == pytest.approx(case.known["theta_deg"], abs=0.5)


def test_law_beats_twin_end_to_end():
    r = validate_variant("recordings", "incline", 2, 1002)
    (row,) = r["columns"].values()
    assert row["law"] >= 97 and row["anti"] < row["law"] - 25


def test_missing_mu_fails_at_load(tmp_path):
    case, _ = Incline().make_case(0, 3)
    data = json.loads(case.model_dump_json(exclude={"truth"}))
    del data["known"]["mu"]
    f = tmp_path / "c.json"
    f.write_text(json.dumps(data))
    with pytest.raises(CaseError, match=r"known\.mu is missing"):
        load_case(f)


def test_block_that_never_moves_is_unmeasurable():
    task, case = _case(0, 1000)
    t = frame_times(case)
    meas = task.measure(case, _tracks(case, np.full(len(t), case.known["start_px"]), 0.2))
    s = task.score(case, meas)["R7"]
    assert s.status == "scored" and s.extra["unresolved"]
    assert all(v == "operational_zero" for v in s.extra["metric_status"].values())


def test_known_angle_overrides_the_path():
    """known.angle_deg (a slope measured on the set) replaces the path's angle in r*: 3° more changes M1's e1
    by exactly the predicted ratio's change."""
    task, case = _case(0, 1000)
    tr = _tracks(case, slide(case.known, frame_times(case), "true"), 0.0)
    th = case.known["theta_deg"]
    case.known["angle_deg"] = th + 3.0
    meas = task.measure(case, tr)
    assert meas.get("theta_deg") == pytest.approx(th + 3.0)
    assert meas.get("path_theta_deg") == pytest.approx(th, abs=1e-3)
    mu = case.known["mu"]
    e1 = task.metrics(case, meas)["M1"].residual
    want = case.truth.quantities["r_star"] / predicted_ratio(math.radians(th + 3.0), mu) - 1  # exact tracks
    assert e1 == pytest.approx(want, abs=1e-6)
