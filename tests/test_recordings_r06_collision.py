"""R6 collision: the metrics' formulas, velocities and contact time on tracks whose truth is known (hand-made with
measured noise, and a rendered clip), law against twin, a case without a mass, clips with no collision."""

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
from lawful.suites.recordings._carts import IDS, energy_metric, momentum_metric, steady_metric
from lawful.suites.recordings.r06_collision import A_ENERGY, A_MOMENTUM, A_STEADY, Collision
from lawful.suites.windows import RES_PX
from lawful.suites.wmle.common import FPS, frame_times
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world.scenes.recordings import cart_collision

K = noise.k_for()


def _tracks(case, x, sigma=0.0, seed=0, visible=None):
    """Tracks of the two carts with centres ``x [2, T]`` (unmirrored track coordinate) plus Gaussian noise."""
    k = case.known
    t = frame_times(case)
    rng = np.random.default_rng(seed)
    tr = Tracks.empty(list(IDS), len(t), fps=case.fps)
    tr.t, tr.frames = t, np.arange(len(t))
    for j in range(2):
        xx = (case.width - x[j] if k["mirror"] else x[j]) + rng.normal(0, sigma, len(t))
        y = k["ground_y"] - k["heights"][j] / 2 + rng.normal(0, sigma, len(t))
        w, h = k["widths"][j], k["heights"][j]
        tr.xy[:, j, 0], tr.xy[:, j, 1] = xx, y
        tr.box[:, j] = np.stack([xx - w / 2, y - h / 2, xx + w / 2, y + h / 2], axis=1)
        tr.area[:, j] = w * h
        tr.visible[:, j] = (xx - w / 2 > 2) & (xx + w / 2 < case.width - 3) if visible is None else visible[j]
    return tr


def _case(seed):
    task = Collision()
    case, _ = task.make_case(0, seed)
    return task, case, np.array([o.known["mass_kg"] for o in case.objects])


def test_formulas():
    m1 = momentum_metric([2.0, 1.0], [10.0, 0.0], [5.0, 10.0], [0, 0], [0, 0], A_MOMENTUM)  # conserved: 20 = 10 + 10
    assert m1.value == 1.0 and m1.residual == pytest.approx(0.0)
    m1 = momentum_metric([2.0, 1.0], [10.0, 0.0], [5.0, 13.0], [0.1, 0.1], [0.1, 0.1], A_MOMENTUM)
    se = math.sqrt(4 * 0.02 + 0.02) / 20
    assert m1.residual == pytest.approx(3 / 20) and m1.components["se"] == pytest.approx(se)
    assert m1.value == pytest.approx(q(3 / 20 - K * se, 0.10))
    # restitution 0.5 with momentum conserved: no energy created
    m2 = energy_metric([2.0, 1.0], [10.0, 0.0], [5.0, 10.0], [0, 0], [0, 0], A_ENERGY)
    assert m2.components["restitution"] == pytest.approx(0.5) and m2.value == 1.0
    # super-elastic: c = (16 - 2) / 10 = 1.4, KE 100 -> 4 + 128 = 132
    m2 = energy_metric([2.0, 1.0], [10.0, 0.0], [2.0, 16.0], [0, 0], [0, 0], A_ENERGY)
    assert m2.residual == pytest.approx(0.4) and m2.components["ke_ratio"] == pytest.approx(1.32)
    assert m2.value == pytest.approx(q(0.4, 0.10))
    # passing through (rear body faster afterwards): c = -1
    assert energy_metric([1.0, 1.0], [10.0, 0.0], [10.0, 0.0], [0, 0], [0, 0], A_ENERGY).residual == pytest.approx(1.0)
    # M3: slowing down is friction (allowed); speeding up by 20 px/s over a window, closing speed 100 -> 0.2
    slow = {"w": {"v": 50.0, "se": 0.1, "acc": -20.0, "se_acc": 0.0, "span": 1.0}}
    fast = {"w": {"v": 50.0, "se": 0.1, "acc": 20.0, "se_acc": 0.0, "span": 1.0}}
    assert steady_metric(slow, 100.0, A_STEADY).value == 1.0
    assert steady_metric(fast, 100.0, A_STEADY).residual == pytest.approx(0.2)


@pytest.mark.parametrize("seed", [0, 1, 4, 9])
def test_velocities_and_contact_on_noisy_tracks(seed):
    """Hand-made tracks of the simulated carts with 0.15 px noise: every velocity within k·se of the truth, the
    contact within a tenth of a frame; the twin's momentum far off."""
    task, case, m = _case(seed)
    sim = cart_collision(case.known, m, frame_times(case), "true", FPS)
    meas = task.measure(case, _tracks(case, sim["x"], sigma=0.15, seed=seed))
    assert "unresolved" not in meas.notes
    assert meas.get("collision_s") == pytest.approx(sim["t_c"], abs=0.1 / case.fps)
    tq = case.truth.quantities
    for o in IDS:
        for w in ("before", "after"):
            got, se = meas.get(f"{o}_{w}_v_px_s"), meas.get(f"{o}_{w}_se_px_s")
            assert abs(got - tq[f"{o}_{w}_px_s"]) <= K * se, (o, w, got, tq[f"{o}_{w}_px_s"], se)
    sc = task.metrics(case, meas)
    assert min(s.value for s in sc.values()) >= 0.97
    x_anti = cart_collision(case.known, m, frame_times(case), "anti", FPS)["x"]
    anti = task.metrics(case, task.measure(case, _tracks(case, x_anti, sigma=0.15, seed=seed)))
    assert anti["M1"].value < 0.3  # the twin's momentum is off by 20 % or more


def _slope_bound(t, idx, tc):
    """Worst-case error of a quadratic fit's slope at ``tc`` from a centroid bias of at most RES_PX per sample."""
    X = np.vander(t[idx] - tc, 3, increasing=True)
    w = np.linalg.pinv(X)[1]
    return RES_PX * float(np.abs(w).sum())


def test_rendered_clip_against_truth():
    """lawful's own render, tracked from H.264: velocities within k·se plus the slope error a centroid bias of
    RES_PX can make; all metrics near 1."""
    task, case, m = _case(1004)
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "law.mp4"
        write_video(p, list(task.render(case, "true")), fps=case.fps)
        meas = task.measure(case, track(p, case, task.plan))
    sc = task.score(case, meas)["R6"]
    assert sc.status == "scored" and sc.metrics["P"] >= 97 and sc.metrics["C"] >= 80
    tq, t = case.truth.quantities, frame_times(case)
    tc = meas.get("collision_s")
    assert tc == pytest.approx(case.truth.events["collision"], abs=0.25 / case.fps)
    for o in IDS:
        for w in ("before", "after"):
            got, se = meas.get(f"{o}_{w}_v_px_s"), meas.get(f"{o}_{w}_se_px_s")
            i0, i1 = meas.notes["windows"][f"{o}_{w}"]
            bound = K * se + _slope_bound(t, np.arange(i0, i1 + 1), tc)
            assert abs(got - tq[f"{o}_{w}_px_s"]) <= bound, (o, w, got, tq[f"{o}_{w}_px_s"], bound)


def test_law_beats_twin_end_to_end():
    r = validate_variant("recordings", "collision", 1, 1001)
    (row,) = r["columns"].values()
    assert row["law"] >= 97 and row["anti"] < row["law"] - 30


def test_missing_mass_fails_at_load(tmp_path):
    case, _ = Collision().make_case(0, 3)
    data = json.loads(case.model_dump_json(exclude={"truth"}))
    del data["objects"][1]["known"]["mass_kg"]
    f = tmp_path / "c.json"
    f.write_text(json.dumps(data))
    with pytest.raises(CaseError, match=r"objects\.cart_2\.known\.mass_kg is missing"):
        load_case(f)


def test_bodies_that_never_meet_are_unmeasurable():
    task, case, m = _case(2)
    t = frame_times(case)
    x = np.stack([100 + 60 * t, np.full_like(t, 500.0)])  # the first cart rolls but never reaches the second
    meas = task.measure(case, _tracks(case, x, sigma=0.1))
    sc = task.metrics(case, meas)
    assert all(s.status == "operational_zero" for s in sc.values()) and "never meet" in sc["M1"].reason
    s = task.score(case, meas)["R6"]
    assert s.status == "scored" and s.extra["unresolved"]  # unmeasurable, not a violation


def test_bodies_passing_through_each_other_fail_energy():
    """The striker runs through the resting body and the body moves off, a ghost collision: restitution < 0."""
    task, case, m = _case(5)
    t = frame_times(case)
    k = case.known
    x2 = k["x0"][1] + np.zeros_like(t)
    tc = 1.2
    x1 = x2[0] - (k["widths"][0] + k["widths"][1]) / 2 + 200 * (t - tc)
    x2 = np.where(t < tc, x2, x2 + 40 * (t - tc))  # the struck body moves off slowly; the striker keeps going
    vis = [np.ones(len(t), bool), np.ones(len(t), bool)]
    meas = task.measure(case, _tracks(case, np.stack([x1, x2]), sigma=0.1, visible=vis))
    sc = task.metrics(case, meas)
    c = sc["M2"].components["restitution"]
    assert c == pytest.approx((40 - 200) / 200, abs=0.02) and sc["M2"].value < q(0.7, 0.10)


def test_contact_spanning_samples_in_slow_motion():
    """120 fps, bumpers in contact for 50 ms (6 samples, a constant force): the windows leave the contact out
    (within the growth tolerance), momentum conserved within noise, restitution as simulated."""
    from lawful.case import Case, ObjectSpec

    fps, m, w, v1, e, tc, dur = 120.0, np.array([0.774, 0.274]), [50.0, 36.0], 180.0, 0.8, 1.0, 0.05
    t = np.arange(int(2.0 * fps)) / fps
    va = np.array([m[0] * v1 - m[1] * e * v1, m[0] * v1 + m[0] * e * v1]) / m.sum()
    case = Case(id="slowmo", suite="recordings", task="collision", width=640, height=360, fps=fps, duration=2.0,
                objects=[ObjectSpec(id=o, shape="block", box=(0, 0, 10, 10), known={"mass_kg": float(mm)})
                         for o, mm in zip(IDS, m)])
    tr = Tracks.empty(list(IDS), len(t), fps=fps)
    tr.t, tr.frames = t, np.arange(len(t))
    rng = np.random.default_rng(1)
    tau = np.clip(t - tc, 0, dur)
    for j, (vb, x0) in enumerate([(v1, 100.0), (0.0, 100.0 + v1 * tc + (w[0] + w[1]) / 2)]):
        x = (x0 + vb * np.minimum(t, tc) + vb * tau + 0.5 * (va[j] - vb) / dur * tau**2
             + va[j] * np.clip(t - tc - dur, 0, None))
        x, y = x + rng.normal(0, 0.15, len(t)), 200 + rng.normal(0, 0.15, len(t))
        tr.xy[:, j, 0], tr.xy[:, j, 1] = x, y
        tr.box[:, j] = np.stack([x - w[j] / 2, y - 10, x + w[j] / 2, y + 10], axis=1)
        tr.area[:, j], tr.visible[:, j] = w[j] * 20, True
    task = Collision()
    meas = task.measure(case, tr)
    sc = task.metrics(case, meas)
    assert tc <= meas.get("collision_s") <= tc + dur
    assert sc["M1"].value == 1.0 and sc["M2"].value == 1.0
    assert sc["M2"].components["restitution"] == pytest.approx(e, abs=0.02)


@pytest.mark.parametrize("seed,kind", [(17, "end stop"), (33, "leaves the frame")])
def test_after_window_ends_at_the_end_stop_or_the_frame_edge(seed, kind):
    """The struck cart reverses at the end stop, or leaves the view: its after-window ends before that sample
    and the velocities stay right."""
    task, case, m = _case(seed)
    sim = cart_collision(case.known, m, frame_times(case), "true", FPS)
    x2 = sim["x"][1]
    if kind == "end stop":
        step = np.diff(x2)
        end = int(np.flatnonzero((step[:-1] > 0) & (step[1:] < 0))[0]) + 1  # last sample before it turns round
    else:
        end = int(np.flatnonzero(x2 + case.known["widths"][1] / 2 > case.width - 3)[0]) - 1
    meas = task.measure(case, _tracks(case, sim["x"], sigma=0.15, seed=seed))
    assert meas.notes["windows"]["cart_2_after"][1] <= end < len(x2) - 1
    got, se = meas.get("cart_2_after_v_px_s"), meas.get("cart_2_after_se_px_s")
    assert abs(got - case.truth.quantities["cart_2_after_px_s"]) <= K * se
    assert min(s.value for s in task.metrics(case, meas).values()) >= 0.97
