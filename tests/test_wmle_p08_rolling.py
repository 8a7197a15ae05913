"""P8 solid-sphere rolling: metric formulas, revolution-averaged rates, extraction with angles, end to end."""

import numpy as np
import pytest

from lawful.score.wmle import q
from lawful.suites.wmle.p08_solid_sphere_rolling import (
    SolidSphereRolling, revolution_rates, rolling_slip_metric, rolling_slope_metric,
)
from lawful.suites.wmle.validate import validate_variant
from lawful.tracks import Tracks

def _tracks(t, objects, r=10.0):
    return Tracks.from_positions(t, objects, radius=r)


def test_metric_formulas():
    m = rolling_slope_metric(-22.0, 20.0)
    assert m.residual == pytest.approx(0.1, abs=1e-12) and m.value == pytest.approx(q(0.1, 0.25), abs=1e-6)
    v, w = np.array([10.0, 10.0, 10.0]), np.array([0.5, 0.4, 0.45])
    e2 = np.median(np.abs(v - w * 20.0) / v)
    m = rolling_slip_metric(v, w, 20.0)
    assert m.residual == pytest.approx(e2, abs=1e-12) and m.value == pytest.approx(q(e2, 0.35), abs=1e-6)


def test_revolution_rates_cancel_orientation_bias():
    t = np.arange(80) / 24.0
    phi = 14.0 * t  # rad, 0.58 rad per frame
    v, w = revolution_rates(t, 20.0 * phi, phi + 0.25 * np.sin(phi))
    inner = slice(12, -12)
    assert np.allclose(w[inner], 14.0, rtol=0.01)
    assert np.allclose(v[inner], 280.0, rtol=1e-9)


@pytest.mark.parametrize("law", ["true", "anti"])
def test_extraction_on_analytic_rolling(law):
    task = SolidSphereRolling()
    case, _ = task.make_case(0, 5)
    r = case.known["radius_px"]
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    xy, phi = task._state(case, t, law)
    tr = _tracks(t, {"ball": (xy[:, 0], xy[:, 1])}, r)
    tr.angle[:, 0] = np.mod(phi, 2 * np.pi)
    m = task.measure(case, tr)
    assert m.get("radius_px") == pytest.approx(r, abs=1e-9)
    e1 = 0.0 if law == "true" else 1 / case.known["anti_spin_factor"] - 1
    assert task.metrics(case, m)["M1"].residual == pytest.approx(e1, abs=0.01)


def test_reference_beats_twin_end_to_end():
    r = validate_variant("solid_sphere_rolling", 0, 11)
    assert r["ref_P"] >= 95 and r["ref_C"] >= 80
    assert r["anti_P"] < r["ref_P"] - 5



@pytest.mark.parametrize("stuck", [False, True])
def test_a_marker_angle_that_does_not_pin_the_slope_leaves_m1_unresolved(stuck):
    """A small ball's marker under CRF 35 gave angles that did not follow its turn: the slope came out -2.4 px/rad
    (95 % interval -24 to 13) for a true 11.2, and the law clip scored P 28.6. Here a feature that does not turn
    (a highlight taken for the marker, read within 0.3 rad) against the true marker read with 0.05 rad of noise."""
    task = SolidSphereRolling()
    case, _ = task.make_case(0, 5)
    r = case.known["radius_px"]
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    xy, phi = task._state(case, t, "true")
    tr = _tracks(t, {"ball": (xy[:, 0], xy[:, 1])}, r)
    rng = np.random.default_rng(3)
    tr.angle[:, 0] = rng.uniform(1.0, 1.6, len(t)) if stuck else np.mod(phi + rng.normal(0.0, 0.05, len(t)), 2 * np.pi)
    m = task.measure(case, tr)
    if not stuck:
        assert "unresolved" not in m.notes
        assert task.metrics(case, m)["M1"].residual == pytest.approx(0.0, abs=0.01)
    else:
        assert m.get("displacement_per_radian_px") is None and "95 % interval" in m.notes["unresolved"]
        m1 = task.metrics(case, m)["M1"]
        assert m1.status == "operational_zero" and m1.reason == m.notes["unresolved"]
