"""P13 finite-amplitude periods: r* computed, M1/M2 formulas, hand-made nonlinear swings, end to end."""

import math

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p13_finite_amplitude import (
    R_STAR, FiniteAmplitude, amplitude_period_increase, amplitude_ratio_error, elliptic_period_ratio,
)
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world.physics import pendulum_angle

FPS = 240.0


def _agm_K(k: float) -> float:
    """Complete elliptic integral of the first kind (modulus k) by the arithmetic-geometric mean."""
    a, b = 1.0, math.sqrt(1 - k * k)
    for _ in range(40):
        a, b = (a + b) / 2, math.sqrt(a * b)
    return math.pi / (2 * a)


def test_r_star_is_computed_from_the_elliptic_integral():
    independent = _agm_K(math.sin(math.radians(15))) / _agm_K(math.sin(math.radians(7.5)))
    assert R_STAR == pytest.approx(independent, abs=1e-13)
    assert R_STAR == pytest.approx(1.0130520869, abs=1e-10)
    assert elliptic_period_ratio(10, 10) == pytest.approx(1.0, abs=1e-15)


def test_metric_formulas():
    m = amplitude_ratio_error(1.01)
    assert m.residual == pytest.approx(abs(1.01 - R_STAR), abs=1e-12)
    assert m.value == pytest.approx(1 / (1 + abs(1.01 - R_STAR) / 0.05), abs=1e-12)
    assert amplitude_period_increase(1.01).value == pytest.approx(0.01 / (R_STAR - 1), abs=1e-12)
    assert amplitude_period_increase(1.02).value == 1.0  # clipped
    assert amplitude_period_increase(0.99).value == 0.0
    assert amplitude_ratio_error(None).status == "operational_zero"


def _bobs(t, swings):
    """Bobs of radius 12 px swinging at angles ``a`` [T] on strings of ``L`` px from pivots (px, 34)."""
    tr = Tracks.from_positions(t, {oid: (px + L * np.sin(a), 34 + L * np.cos(a))
                                   for oid, (px, L, a) in swings.items()}, radius=12)
    tr.frames = np.arange(len(t))
    return tr


@pytest.mark.parametrize("large_time_scale", [1.0, None])
def test_hand_made_nonlinear_swings(large_time_scale):
    """Exact nonlinear swings (r = r*), or the 30° swing replayed at 0.98 of the 15° period."""
    t = np.arange(int(7 * FPS)) / FPS
    L_m, g = 0.5, 9.81
    T15 = 4 * math.sqrt(L_m / g) * _agm_K(math.sin(math.radians(7.5)))
    T30 = T15 * R_STAR
    scale = 1.0 if large_time_scale else T30 / (0.98 * T15)
    small = pendulum_angle(t, L_m, math.radians(15), g)
    large = pendulum_angle(t * scale, L_m, math.radians(30), g)
    task = FiniteAmplitude()
    case, _ = task.make_case(0, 3)
    for p, x in zip(case.known["pendulums"], (180.0, 460.0)):
        p["pivot_x"] = x
    m = task.measure(case, _bobs(t, {"small": (180.0, 210.0, small), "large": (460.0, 210.0, large)}))
    got = task.metrics(case, m)
    r = R_STAR if large_time_scale else 0.98
    assert m.get("period_ratio") == pytest.approx(r, abs=1e-7)
    assert got["M1"].value == pytest.approx(q(r - R_STAR, 0.05), abs=1e-6)
    assert got["M2"].value == pytest.approx(min(1.0, max(0.0, (r - 1) / (R_STAR - 1))), abs=1e-5)


def test_reference_and_twin_end_to_end(tmp_path):
    task = FiniteAmplitude()
    case, _ = task.make_case(0, 1000)
    case = case.model_copy(update={"duration": 5.0})
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P13"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 80
    assert P["true"] >= 95
    assert P["anti"] < 50
