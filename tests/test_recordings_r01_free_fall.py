"""R1 free fall with air drag: the law's formula, the fit on noisy falls of known parameters, the metric formulas,
extraction on a drawn case, law ≫ each anti twin end to end, the case check at load, unmeasurable clips."""

import json
import math

import numpy as np
import pytest

from lawful.case import CaseError, load_case
from lawful.perceive import noise
from lawful.runner.validate import validate_variant
from lawful.score.wmle import q
from lawful.suites.recordings._falls import (
    PERSPECTIVE_MAX, acceleration_metric, fit_drag_fall, fit_metric, gravity_metric, rest_metric,
)
from lawful.suites.recordings.r01_free_fall import A_ACC, A_FIT, A_G, A_REST, ANTI_KINDS, FreeFallDrag
from lawful.tracks import Tracks
from lawful.world.scenes.recordings import drag_fall, fall_of, image_of

K = noise.k_for()


def test_drag_fall_is_the_parabola_without_drag_and_reaches_terminal_speed():
    t = np.linspace(0, 2, 201)
    assert np.allclose(drag_fall(t, 5.0, 0.5, 9.81, 0.0), 5.0 + 0.5 * 9.81 * np.maximum(t - 0.5, 0) ** 2)
    assert np.allclose(drag_fall(t, 0.0, 0.0, 9.81, 1e-5), 0.5 * 9.81 * t**2, atol=1e-6)
    y = drag_fall(np.array([10.0, 10.001]), 0.0, 0.0, 9.81, 9.81 / 8.0)  # v_t = 8 m/s
    assert (y[1] - y[0]) / 0.001 == pytest.approx(8.0, rel=1e-4)
    # dy/dt = v_t·tanh(κ s): at s = 0.3 s
    s, kap = 0.3, 9.81 / 8.0
    v = (drag_fall(np.array([s + 1e-6]), 0, 0, 9.81, kap) - drag_fall(np.array([s - 1e-6]), 0, 0, 9.81, kap)) / 2e-6
    assert v[0] == pytest.approx(8.0 * math.tanh(kap * s), rel=1e-6)


@pytest.mark.parametrize("kappa", [0.0, 0.8, 1.6])
def test_the_fit_recovers_release_acceleration_and_drag_within_its_noise(kappa):
    rng = np.random.default_rng(7)
    sigma = 0.4
    t = np.arange(0, 1.0, 1 / 120)
    y = drag_fall(t, 80.0, 0.2, 7000.0, kappa) + rng.normal(0, sigma, len(t))
    use = t < 0.9
    for lam_max in (0.0, PERSPECTIVE_MAX):  # drag alone; drag with a camera model when drag cannot explain it
        f = fit_drag_fall(t[use], y[use], (0.1, 0.25), 0.7, sigma, lam_max=lam_max)
        assert abs(f["g"] - 7000.0) <= K * f["se_g"]
        assert abs(f["t0"] - 0.2) <= K * f["se_t0"] + 1e-4
        assert f["rms"] == pytest.approx(sigma, rel=0.2)
        if f["lam"] == 0.0:
            assert abs(f["kappa"] - kappa) < 0.15


def test_a_camera_whose_scale_grows_downwards_is_fitted_not_held_against_the_fall():
    """A drag-free fall seen with the image scale 1/(1-0.15)^2 = 1.38 times larger at the floor: the image
    acceleration grows by ~80 %, which drag cannot give; the camera model takes it up."""
    rng = np.random.default_rng(3)
    sigma, D = 0.3, 1500.0
    t = np.arange(0, 0.9, 1 / 120)
    u = drag_fall(t, 0.0, 0.15, 2 * D / 0.7**2, 0.0)
    y = 80.0 + image_of(u, -0.15, D) + rng.normal(0, sigma, len(t))
    use = t <= 0.85
    alone = fit_drag_fall(t[use], y[use], (0.05, 0.2), 0.7, sigma, lam_max=0.0)
    assert alone["kappa"] < 1e-6 and alone["rms"] > 5 * K * sigma
    f = fit_drag_fall(t[use], y[use], (0.05, 0.2), 0.7, sigma)
    assert f["rms"] == pytest.approx(sigma, rel=0.25) and f["lam"] < 0
    assert abs(f["t0"] - 0.15) <= K * f["se_t0"] + 1e-4
    d = np.linspace(0, 900, 7)
    assert np.allclose(fall_of(image_of(d, -0.15, D), -0.15, D), d)


def test_drag_cannot_stand_for_a_growing_acceleration_or_a_constant_speed():
    t = np.arange(0, 1.0, 1 / 120)
    s = np.maximum(t - 0.2, 0)
    for y in (80 + 4000 * s**3, 80 + 1500 * s):
        f = fit_drag_fall(t, y, (0.1, 0.25), 0.8, 0.3)
        assert f["rms"] / np.ptp(y) > 0.005  # half the M1 scale or more, far beyond k·σ


def test_metric_formulas():
    m = fit_metric(3.0, 0.5, 600.0, A_FIT)
    e = (3.0 - K * 0.5) / 600.0
    assert m.residual == pytest.approx(e) and m.value == pytest.approx(q(e, A_FIT))
    assert fit_metric(1.0, 0.5, 600.0, A_FIT).value == 1.0  # noise explains it
    m = rest_metric(-120.0, 10.0, 1000.0, A_REST)
    e = (120.0 - K * 10.0) / 1000.0
    assert m.residual == pytest.approx(e) and m.value == pytest.approx(q(e, A_REST))
    acc, se = np.array([1000.0, 900.0, 1100.0]), np.array([10.0, 10.0, 10.0])
    m = acceleration_metric(acc, se, 1000.0, A_ACC)
    e = (200.0 - K * math.hypot(10, 10)) / 1000.0
    assert m.residual == pytest.approx(e) and m.value == pytest.approx(q(e, A_ACC))
    assert acceleration_metric(np.array([1000.0, 800.0, 600.0]), se, 900.0, A_ACC).value == 1.0  # drag: falls, fine
    m = acceleration_metric(np.array([1000.0, 0.0, -400.0]), se, 900.0, A_ACC)
    assert m.components["upward"] == pytest.approx((400 - K * 10) / 900)
    assert gravity_metric(9.4, 10.6, 0.05, 0.1, A_G).value == 1.0
    m = gravity_metric(10.5, 11.0, 0.1, 0.1, A_G)  # faster than free fall: drag cannot do that
    e = (10.5 - 9.81 - K * 0.1) / 9.81
    assert m.residual == pytest.approx(e) and m.value == pytest.approx(q(e, A_G))
    assert gravity_metric(9.0, 8.0, 0.0, 0.0, A_G).residual == pytest.approx((9.81 - 9.0) / 9.81)


def _measure(case, y, sigma=0.0, seed=0, r=14.0):
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    y = y + np.random.default_rng(seed).normal(0, sigma, len(t)) if sigma else y
    task = FreeFallDrag()
    return task, task.measure(case, Tracks.from_positions(t, {"ball": (case.known["x"], y)}, r))


@pytest.mark.parametrize("tilted", [False, True])
def test_extraction_on_a_drawn_fall_with_drag(tilted):
    """Seed 1002: v_t 14.4 m/s; drawn camera perspective +0.11 (scale shrinking downwards) or none."""
    task = FreeFallDrag()
    case, _ = task.make_case(0, 1002)
    k = case.known
    if not tilted:
        k["perspective"] = 0.0
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    _, m = _measure(case, task._y(case, t, "true"), sigma=0.3, seed=3)
    assert abs(m.get("release_time_s") - k["hold_s"]) <= K * m.notes["se_t0_s"] + 1e-3
    assert m.get("fall_time_s") == pytest.approx(k["fall_time_s"], abs=1 / case.fps)
    assert m.get("g_lo_m_s2") <= 9.81 + K * m.notes["g_lo_se"] and m.get("g_hi_m_s2") >= 9.81 - K * m.notes["g_hi_se"]
    if not tilted:  # the image is the fall: its initial acceleration and terminal speed are the drawn ones
        D = k["ground_y"] - k["radius_px"] - k["top_y"]
        assert abs(m.get("g_px_s2") - k["g"] * D / k["fall_height_m"]) <= K * m.notes["se_g_px_s2"]
        assert m.get("terminal_speed_m_s") == pytest.approx(k["vt_m_s"], rel=0.15)
    s = task.metrics(case, m)
    assert min(v.value for v in s.values()) > 0.98, {k: v.value for k, v in s.items()}
    assert set(s) == {"M1", "M2", "M3", "M4"}


@pytest.mark.parametrize("seed", [1000, 1001, 1002])
def test_law_beats_every_anti_twin_end_to_end(seed):
    r = validate_variant("recordings", "free_fall", 0, seed)["columns"]["R1"]
    assert r["law"] >= 97 and r["law_C"] >= 80
    assert r["anti"] < 60, ANTI_KINDS[seed % 3]


def test_a_case_with_a_ceiling_but_no_ball_size_fails_at_load_naming_the_field(tmp_path):
    c = {"schema_version": 2, "id": "ff", "suite": "recordings", "task": "free_fall", "width": 200, "height": 800,
         "objects": [{"id": "ball", "shape": "sphere", "color": [200, 30, 40], "box": [10, 10, 40, 40]}],
         "known": {"floor_to_ceiling_m": 2.3}}
    p = tmp_path / "c.json"
    p.write_text(json.dumps(c))
    with pytest.raises(CaseError, match="diameter_m"):
        load_case(p)
    c["objects"][0]["known"] = {"diameter_m": 0.04}
    p.write_text(json.dumps(c))
    assert load_case(p).known["floor_to_ceiling_m"] == 2.3
    c["objects"][0]["id"] = "bal"
    p.write_text(json.dumps(c))
    with pytest.raises(CaseError, match="'ball'"):
        load_case(p)


def test_a_ball_that_never_falls_is_unmeasurable_not_a_violation():
    task = FreeFallDrag()
    case, _ = task.make_case(0, 1000)
    _, m = _measure(case, np.full(case.n_frames, case.known["top_y"]), sigma=0.3)
    s = task.score(case, m)["R1"]
    assert s.status == "scored" and s.extra["unresolved"]
    assert set(s.extra["metric_status"].values()) == {"operational_zero"}
    assert "never released" in s.reason


def test_a_fall_leaving_the_picture_has_no_gravity_metric_but_scores_its_motion():
    """No contact seen (the ball leaves the frame): M4 is undefined, M1-M3 still score the lawful fall."""
    task = FreeFallDrag()
    case, _ = task.make_case(0, 1001)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    y = task._y(case, t, "true")
    keep = t < case.known["hold_s"] + 0.8 * case.known["fall_time_s"]
    y = y + np.random.default_rng(2).normal(0, 0.3, len(y))
    tracks = Tracks.from_positions(t, {"ball": (case.known["x"], y)}, 14.0)
    tracks.visible[~keep, 0] = False
    tracks.xy[~keep, 0] = np.nan
    m = task.measure(case, tracks)
    s = task.metrics(case, m)
    assert s["M4"].status == "undefined"
    assert all(s[k].value > 0.95 for k in ("M1", "M2", "M3")), {k: v.value for k, v in s.items()}
