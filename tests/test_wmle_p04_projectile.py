"""P4 oblique projectile: H/R metric (full and partial arc), uniformity metric, extraction, end to end."""

import numpy as np
import pytest

from lawful.score.wmle import geometric_mean, q
from lawful.suites.wmle.p04_oblique_projectile import ObliqueProjectile, apex_range_metric, projectile_uniformity_metric
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
    vx, dvy, u = [10.0, 11.0, 9.0, 10.0], [5.0, 6.0], 0.01
    expect = geometric_mean([q(np.std(vx) / np.mean(vx), 0.1), q(np.std(dvy) / np.mean(dvy), 0.1), q(u, 0.05)])
    assert projectile_uniformity_metric(vx, dvy, u).value == pytest.approx(expect, abs=1e-6)


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
