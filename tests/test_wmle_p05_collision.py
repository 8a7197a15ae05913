"""P5 equal-mass collision: momentum metric, extraction on analytic motion, end to end."""

import numpy as np
import pytest

from lawful.suites.wmle.p05_equal_mass_collision import EqualMassCollision, momentum_metric
from lawful.suites.wmle.validate import validate_variant
from lawful.tracks import Tracks

def _tracks(t, objects, r=10.0):
    return Tracks.from_positions(t, objects, radius=r)


def test_momentum_formula():
    assert momentum_metric(10.0, 0.0, 10.0).value == pytest.approx(1.0, abs=1e-12)
    m = momentum_metric(10.0, 2.0, 11.0)
    assert m.residual == pytest.approx(0.3, abs=1e-12) and m.value == pytest.approx(1 / (1 + 0.3 / 0.1), abs=1e-6)


@pytest.mark.parametrize("law", ["true", "anti"])
def test_extraction_on_analytic_collision(law):
    task = EqualMassCollision()
    case, _ = task.make_case(0, 5)
    k = case.known
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    xr, xb = task._x(case, t, law)
    y = k["ground_y"] - k["radius_px"]
    m = task.measure(case, _tracks(t, {"red_ball": (xr, y), "blue_ball": (xb, y)}, k["radius_px"]))
    assert m.get("collision_s") == pytest.approx(k["collision_s"], abs=0.01)
    e1 = 0.0 if law == "true" else k["anti_momentum_ratio"] - 1
    assert task.metrics(case, m)["M1"].residual == pytest.approx(e1, abs=1e-6)


def test_reference_beats_twin_end_to_end():
    r = validate_variant("equal_mass_collision", 0, 11)
    assert r["ref_P"] >= 95 and r["ref_C"] >= 80
    assert r["anti_P"] < r["ref_P"] - 5
