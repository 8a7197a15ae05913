"""P3 complementary-angle throws: metric formulas, projectile extraction on analytic arcs, end to end."""

import numpy as np
import pytest

from lawful.score.wmle import geometric_mean, q
from lawful.suites.wmle.p03_complementary_angle_throws import (
    ComplementaryAngleThrows, complementary_fit_metric, complementary_range_metric,
)
from lawful.suites.wmle._projectile import projectile_arc
from lawful.suites.wmle.validate import validate_variant
from lawful.tracks import Tracks
from lawful.world.scenes.throws import complementary_throws_xy

def _tracks(t, objects, r=10.0):
    return Tracks.from_positions(t, objects, radius=r)


def test_range_metric_formula():
    m = complementary_range_metric(400.0, 320.0)
    assert m.residual == pytest.approx(0.25, abs=1e-12)
    assert m.value == pytest.approx(1 / (1 + 0.25 / 0.15), abs=1e-6)


def test_fit_metric_formula():
    m = complementary_fit_metric(0.1, 0.2, 500.0, 400.0)
    assert m.value == pytest.approx(geometric_mean([q(0.1, 0.3), q(0.2, 0.3), q(0.25, 0.2)]), abs=1e-6)


def test_projectile_arc_recovers_range_apex_and_speed():
    t = np.arange(60) / 24.0
    s = np.clip(t - 0.25, 0, 1.5)
    vx, vy, g = 300.0, 360.0, 480.0  # px/s, px/s², y up in the formula
    x, y = 50 + vx * s, 320 - (vy * s - 0.5 * g * s * s)
    arc = projectile_arc(t, x, y, np.ones(60, bool), radius=10.0)
    assert arc.range == pytest.approx(vx * 2 * vy / g, rel=1e-6)
    assert arc.height == pytest.approx(vy**2 / (2 * g), rel=1e-6)
    assert arc.speed == pytest.approx(np.hypot(vx, vy), rel=1e-6)
    assert arc.rms == pytest.approx(0.0, abs=1e-6)


def test_a_ball_rolling_on_after_landing_is_not_still_flying():
    """Studio P3 seed 1001 (1080p): after touching down the 30-degree ball rolls on with its blurred centroid
    4 px above its resting height, over the airborne margin; those samples had joined the flight (range
    898 px instead of 720, fit RMS 16 px). The fall stops speeding up at the landing, which ends the flight."""
    t = np.arange(50) / 24.0
    s = np.clip(t - 0.25, 0, None)
    vx, vy, g = 400.0, 240.0, 900.0
    t_land = 2 * vy / g
    x = 50 + vx * s
    y = 900 - (vy * s - 0.5 * g * s * s)
    rolling = s > t_land
    y[rolling] = 896.0  # rolling on, read 4 px high
    y += np.random.default_rng(2).normal(0, 0.3, len(t))
    arc = projectile_arc(t, x, y, np.ones(len(t), bool), radius=14.0)
    assert arc.range == pytest.approx(vx * t_land, rel=0.01)
    assert arc.rms < 1.0
    assert arc.t_land == pytest.approx(0.25 + t_land, abs=0.01)


def test_extraction_on_analytic_throws():
    task = ComplementaryAngleThrows()
    case, _ = task.make_case(0, 5)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    (x30, y30), (x60, y60) = complementary_throws_xy(case.known, t, "true")
    m = task.measure(case, _tracks(t, {"ball_30": (x30, y30), "ball_60": (x60, y60)}, case.known["radius_px"]))
    assert m.get("range_30_px") == pytest.approx(case.known["range_px"], rel=1e-4)
    assert m.get("range_60_px") == pytest.approx(case.known["range_px"], rel=1e-4)
    s = task.metrics(case, m)
    assert s["M1"].value > 0.999 and s["M2"].value > 0.999


def test_reference_beats_twin_end_to_end():
    r = validate_variant("complementary_angle_throws", 0, 11)
    assert r["ref_P"] >= 95 and r["ref_C"] >= 80
    assert r["anti_P"] < r["ref_P"] - 5


def test_excess_rms_removes_the_noise_and_keeps_a_bend():
    """On a steep 60°-like arc: pure centroid noise of known sigma leaves (on average) almost no excess,
    where the vertical RMS would be inflated by the slope; a real bend of known size survives."""
    import math

    import numpy as np

    from lawful.suites.wmle._projectile import excess_rms, projectile_arc

    t = np.arange(40) / 30.0
    x = 100 + 200 * t
    y = 250 - 600 * t + 0.5 * 900 * t**2  # launch upward, lands after ~1.33 s
    rng = np.random.default_rng(1)
    ex, vert = [], []
    for _ in range(50):
        xn, yn = x + rng.normal(0, 0.5, len(t)), y + rng.normal(0, 0.5, len(t))
        arc = projectile_arc(t, xn, yn, np.ones(len(t), bool))
        ex.append(excess_rms(arc, 0.5, 0.5))
        vert.append(arc.rms)
    assert np.mean(vert) > 0.7  # the slope amplifies the horizontal noise
    assert np.mean(ex) < 0.15
    slope = (-600 + 900 * t) / 200.0
    b = 3.0 * np.sin(2 * math.pi * 2 * t / t[-1])  # two wobbles of 3 px (RMS 2.1) across the path
    nx, ny = -slope / np.sqrt(1 + slope**2), 1 / np.sqrt(1 + slope**2)
    arc = projectile_arc(t, x + b * nx, y + b * ny, np.ones(len(t), bool))
    assert 1.5 < excess_rms(arc, 0.5, 0.5) < 2.5


def test_gross_errors_drop_lone_slips_and_keep_a_bent_path():
    """Two samples 5 px off an exact parabola with 0.3 px noise are gross errors, and only they; so are the last
    three when they read 5 px high (studio P3 seed 1001: a blurred ball over the floor loses its shaded lower
    half; least squares bends towards such a run at the end, the trimmed start does not); a path bent
    everywhere by a 3 px wobble (a violation, not a slip) loses no sample."""
    import math

    from lawful.suites.wmle._projectile import gross_errors

    t = np.arange(30) / 24.0
    x = 100 + 300 * t
    y = 400 - 500 * t + 0.5 * 800 * t * t + np.random.default_rng(5).normal(0, 0.3, len(t))
    y[[7, 19]] -= 5.0
    assert list(np.flatnonzero(gross_errors(t, x, y))) == [7, 19]
    y[-3:] -= 5.0
    assert list(np.flatnonzero(gross_errors(t, x, y))) == [7, 19, 27, 28, 29]
    y = 400 - 500 * t + 0.5 * 800 * t * t + 3.0 * np.sin(2 * math.pi * 2 * t / t[-1])
    assert not gross_errors(t, x, y).any()
