"""P4 oblique projectile: H/R metric (full and partial arc), uniformity metric, extraction, end to end."""

import numpy as np
import pytest

from lawful.score.wmle import geometric_mean, q
from lawful.suites.wmle.p04_oblique_projectile import (
    ObliqueProjectile, apex_range_metric, excess_cv, interval_velocities, projectile_uniformity_metric,
)
from lawful.suites.wmle.validate import validate_variant
from lawful.tracks import Tracks

def _tracks(t, objects, r=10.0):
    return Tracks.from_positions(t, objects, radius=r)


def test_apex_range_formula_and_partial_arc():
    m = apex_range_metric(110.0, 400.0)
    assert m.residual == pytest.approx(0.025, abs=1e-12) and m.value == pytest.approx(q(0.025, 0.10), abs=1e-6)
    m = apex_range_metric(110.0, None, x_apex=200.0)
    assert m.residual == pytest.approx(110 / 400 - 0.25, abs=1e-12)
    assert apex_range_metric(110.0, None, None).status == "operational_zero"


def test_uniformity_formula():
    c_vx, c_dvy, u = 0.08, 0.09, 0.01
    expect = geometric_mean([q(c_vx, 0.1), q(c_dvy, 0.1), q(u, 0.05)])
    assert projectile_uniformity_metric(c_vx, c_dvy, u).value == pytest.approx(expect, abs=1e-6)


def test_interval_velocities_are_exact_on_a_parabola_with_a_sample_missing():
    """A line's least-squares slope on samples of y = a t² + b t is the velocity at its returned time, even
    when an interval lost a sample (equal sample groups would shift their centre by half a frame)."""
    t = np.delete(np.arange(30) / 24.0, [4, 17])
    a, b = 600.0, -500.0
    slopes, times, se = interval_velocities(t, a * t * t + b * t, 3, 0.5)
    assert slopes == pytest.approx(2 * a * times + b, abs=1e-6)
    full = np.arange(30) / 24.0
    _, _, se_full = interval_velocities(full, full, 3, 0.5)
    assert se_full == pytest.approx(0.5 / np.sqrt([np.sum((c - c.mean()) ** 2) for c in np.split(full, [10, 20])]))


def test_excess_cv_removes_the_noise_and_keeps_a_real_spread():
    """Slopes that differ only by noise of known standard error: the raw CV is about that noise, the excess CV
    averages near 0; values 10 % apart (CV 0.0816 for three) keep their CV beside the same noise."""
    rng = np.random.default_rng(3)
    se = np.full(3, 2.0)
    raw, ex = zip(*(excess_cv(100 + rng.normal(0, 2.0, 3), np.eye(3), se) for _ in range(400)))
    assert np.mean(raw) > 0.012 and np.mean(ex) < 0.006
    spread = np.array([90.0, 100.0, 110.0])
    ex = [excess_cv(spread + rng.normal(0, 2.0, 3), np.eye(3), se)[1] for _ in range(400)]
    assert np.mean(ex) == pytest.approx(np.std(spread) / 100, rel=0.1)


def test_blurred_outliers_do_not_break_the_velocity_profile():
    """Studio P4 seed 1001 (1080p): 7 of 27 flight samples lost the blurred ball's lower half and read 3-6 px
    high. They are gross errors of the y(t) parabola, left out; the rest gives the noise-free profile."""
    task = ObliqueProjectile()
    case, _ = task.make_case(0, 5)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    x, y = task._xy(case, t, "true")
    rng = np.random.default_rng(4)
    x, y = x + rng.normal(0, 0.3, len(t)), y + rng.normal(0, 0.3, len(t))
    flying = np.flatnonzero((t > case.known["hold_s"] + 0.1) & (t < case.known["hold_s"] + case.known["flight_time_s"] - 0.1))
    hit = flying[[2, 5, 6, 11, -3]]
    y[hit] -= 5.0
    m = task.measure(case, _tracks(t, {"ball": (x, y)}, case.known["radius_px"]))
    assert sorted(np.round(np.array(m.notes["gross_errors"]) * case.fps).astype(int)) == sorted(np.round(t[hit] * case.fps).astype(int))
    s = task.metrics(case, m)
    assert s["M1"].residual == pytest.approx(0.0, abs=0.003)
    assert s["M2"].value > 0.97


@pytest.mark.parametrize("law, e1", [("true", 0.0), ("anti", 0.10)])
def test_extraction_on_analytic_flight(law, e1):
    task = ObliqueProjectile()
    case, _ = task.make_case(0, 5)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    x, y = task._xy(case, t, law)
    m = task.measure(case, _tracks(t, {"ball": (x, y)}, case.known["radius_px"]))
    s = task.metrics(case, m)
    assert s["M1"].residual == pytest.approx(e1, abs=1e-4)
    assert s["M2"].value > 0.999


def test_reference_beats_twin_end_to_end():
    r = validate_variant("oblique_projectile", 0, 11)
    assert r["ref_P"] >= 95 and r["ref_C"] >= 80
    assert r["anti_P"] < r["ref_P"] - 5
