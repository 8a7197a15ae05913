"""P5 equal-mass collision: momentum metric, extraction on analytic motion, end to end."""

import numpy as np
import pytest

from lawful.suites.wmle.p05_equal_mass_collision import EqualMassCollision, momentum_metric
from lawful.suites.wmle.validate import validate_variant
from lawful.tracks import Tracks

def _tracks(t, objects, r=10.0):
    return Tracks.from_positions(t, objects, radius=r)


def _analytic(law="true"):
    """Case 0 of seed 5 and its analytic motion: ``(task, case, known, t, x_red, x_blue, y)``."""
    task = EqualMassCollision()
    case, _ = task.make_case(0, 5)
    k = case.known
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    xr, xb = task._x(case, t, law)
    return task, case, k, t, xr, xb, k["ground_y"] - k["radius_px"]


def test_momentum_formula():
    assert momentum_metric(10.0, 0.0, 10.0).value == pytest.approx(1.0, abs=1e-12)
    m = momentum_metric(10.0, 2.0, 11.0)
    assert m.residual == pytest.approx(0.3, abs=1e-12) and m.value == pytest.approx(1 / (1 + 0.3 / 0.1), abs=1e-6)


@pytest.mark.parametrize("law", ["true", "anti"])
def test_extraction_on_analytic_collision(law):
    task, case, k, t, xr, xb, y = _analytic(law)
    m = task.measure(case, _tracks(t, {"red_ball": (xr, y), "blue_ball": (xb, y)}, k["radius_px"]))
    assert m.get("collision_s") == pytest.approx(k["collision_s"], abs=0.01)
    e1 = 0.0 if law == "true" else k["anti_momentum_ratio"] - 1
    assert task.metrics(case, m)["M1"].residual == pytest.approx(e1, abs=1e-6)


def test_reference_beats_twin_end_to_end():
    r = validate_variant("equal_mass_collision", 0, 11)
    assert r["ref_P"] >= 95 and r["ref_C"] >= 80
    assert r["anti_P"] < r["ref_P"] - 5


def test_velocities_come_from_windows_around_the_contact():
    """The striker is pushed up to speed in the first 0.4 s and the struck ball rebounds off a wall 0.6 s
    after the contact; with noise of 0.3 px. Fits from frame 0 or to the clip's end would take in the push
    and the rebound (the old extraction: v1 low, v2' far off); windows grown from the contact take neither."""
    task = EqualMassCollision()
    case, _ = task.make_case(0, 5)
    fps, n, v, tc = 24.0, 72, 240.0, 1.5
    t = np.arange(n) / fps
    push = 0.4
    xr = np.where(t < push, 100 + 0.5 * v / push * t**2, 100 + 0.5 * v * push + v * (t - push))
    x_contact = 100 + 0.5 * v * push + v * (tc - push)
    xr = np.minimum(xr, x_contact)  # stops at the contact
    t_wall = tc + 0.6
    xb = np.where(t < tc, x_contact + 20, x_contact + 20 + v * (t - tc))
    xb = np.where(t > t_wall, x_contact + 20 + v * 0.6 - 0.7 * v * (t - t_wall), xb)
    rng = np.random.default_rng(1)
    xr, xb = xr + rng.normal(0, 0.3, n), xb + rng.normal(0, 0.3, n)
    m = task.measure(case.model_copy(update={"duration": n / fps}),
                     _tracks(t, {"red_ball": (xr, 200.0), "blue_ball": (xb, 200.0)}, 10.0))
    assert m.get("collision_s") == pytest.approx(tc, abs=0.5 / fps)
    assert m.get("v1_before_px_s") == pytest.approx(v, rel=0.02)
    assert abs(m.get("v1_after_px_s")) < 0.02 * v
    assert m.get("v2_after_px_s") == pytest.approx(v, rel=0.02)
    assert task.metrics(case, m)["M1"].value > 0.95


def test_a_frozen_clip_has_no_collision():
    """A still video has exact centroids (noise 0): a codec's 0.01-px flicker of the struck ball is not a push."""
    task, case, k, t, xr, xb, y = _analytic()
    xb_still = np.full_like(t, xb[0])
    xb_still[4:] += 0.01
    m = task.measure(case, _tracks(t, {"red_ball": (np.full_like(t, xr[0]), y), "blue_ball": (xb_still, y)}, k["radius_px"]))
    assert m.get("collision_s") is None
    assert "never moved beyond 0.10 px" in m.notes["unresolved"]


def test_a_step_of_the_resting_ball_is_a_new_rest_not_the_contact():
    """Flat P5 seed 1003: the struck ball's resting centroid stepped by 0.2 px at frame 13 (the codec; 0.01-px
    steadiness before and after) and stayed there: a sustained departure beyond its 0.1-px floor that moves no
    further, read as the contact (at frame 0, its line being flat) and the law clip was unmeasurable. A departure
    that does not go on is a new resting level; the contact is where the ball does move off."""
    task, case, k, t, xr, xb, y = _analytic()
    xb = xb.copy()
    xb[13:] -= 0.2
    m = task.measure(case, _tracks(t, {"red_ball": (xr, y), "blue_ball": (xb, y)}, k["radius_px"]))
    assert m.get("collision_s") == pytest.approx(k["collision_s"], abs=0.01)
    assert m.notes["rest_steps"] == [13]
    assert task.metrics(case, m)["M1"].value > 0.99


@pytest.mark.parametrize("amp", [0.6, 1.2])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_wobbling_centroid_does_not_cut_the_window_short(amp, seed):
    """Studio P5 seed 8700: the struck ball rolled past backdrop stripes of a near colour and its centroid wobbled
    smoothly, +-0.5 px over 6.5 samples, which 5-sample quadratics do not see (its noise read 0.07-0.12 px): the
    window ended after 5 samples at 96.7 % of the speed (M1 0.85). A wobble of 0.6 or 1.2 px here gave M1 0.67-0.99
    and 0.46. Within the noise the track shows over 15 samples, the window takes the whole free motion."""
    task, case, k, t, xr, xb, y = _analytic()
    i = np.arange(len(t))
    after = t > k["collision_s"]
    rng = np.random.default_rng(seed)
    wob = np.where(after, amp * np.sin(2 * np.pi * i / 6.5 + rng.uniform(0, 2 * np.pi)), 0.0) + rng.normal(0, 0.1, len(t))
    m = task.measure(case, _tracks(t, {"red_ball": (xr + rng.normal(0, 0.1, len(t)), y), "blue_ball": (xb + wob, y)},
                                   k["radius_px"]))
    w = m.notes["windows"]["v2_after"]
    assert w[1] - w[0] + 1 >= 0.9 * np.count_nonzero(t > k["collision_s"] + 1.5 / case.fps)
    assert task.metrics(case, m)["M1"].value > 0.99
