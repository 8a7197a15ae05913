"""P1 bounce heights: metric formulas, extraction on an analytic bounce, reference vs twin end to end."""

import math

import numpy as np
import pytest

from lawful.score.wmle import geometric_mean, q
from lawful.suites.wmle.p01_bounce_height_decay import BounceHeightDecay, bounce_metrics
from lawful.suites.wmle.validate import validate_variant
from lawful.tracks import Tracks
from lawful.world.physics import bounce_trajectory

def _tracks(t, objects, r=10.0):
    return Tracks.from_positions(t, objects, radius=r)


def test_constant_restitution_scores_one():
    m = bounce_metrics([100.0, 64.0, 40.96], [1.0, 0.8, 0.64])
    assert m["M1"].value == pytest.approx(1.0, abs=1e-12) and m["M2"].value == pytest.approx(1.0, abs=1e-12)


def test_timing_disagreement_formula():
    h, dt = np.array([100.0, 81.0, 64.0]), np.array([1.0, 1.0, 1.0])
    eh = np.sqrt(h[1:] / h[:-1])
    e1 = np.mean(np.abs(eh - 1.0))
    m = bounce_metrics(h, dt)
    assert m["M1"].residual == pytest.approx(e1, abs=1e-12)
    assert m["M1"].value == pytest.approx(math.sqrt(1 / (1 + e1 / 0.18)), abs=1e-6)  # G(q(e1), q(0)=1)
    c = np.std(eh) / np.mean(eh)
    assert m["M2"].value == pytest.approx(geometric_mean([1.0, q(c, 0.35)]), abs=1e-6)


def test_energy_gain_penalised_and_single_ratio_m2():
    m = bounce_metrics([100.0, 121.0], [1.0, 1.1])  # e_h* = 1.1 = e_t*: agree, but energy gained
    assert m["M1"].value == pytest.approx(math.sqrt(q(0.1, 0.15)), abs=1e-6)
    assert m["M2"].value == pytest.approx(q(0.21, 0.15), abs=1e-6)  # c needs two estimates: q(e2) alone


def test_extraction_on_analytic_bounce():
    task = BounceHeightDecay()
    case, _ = task.make_case(0, 3)
    k = case.known
    t = np.arange(int(case.duration * 24)) / 24.0
    y = k["ground_y"] - k["radius_px"] - bounce_trajectory(k["h0_m"], k["restitution"], 9.81, t) * k["px_per_m"]
    m = task.measure(case, _tracks(t, {"ball": (k["x"], y)}, k["radius_px"]))
    assert len(m.notes["heights"]) >= 4
    assert m.get("restitution_height") == pytest.approx(k["restitution"], abs=2e-3)
    assert m.get("restitution_timing") == pytest.approx(k["restitution"], abs=2e-3)
    assert m.notes["C"] == pytest.approx(100.0)


def test_single_motion_rule():
    task = BounceHeightDecay()
    case, _ = task.make_case(0, 3)
    t = np.arange(48) / 24.0
    y = 60 + np.minimum(200.0, 300 * t**2)  # falls and stays down: no rebound
    m = task.measure(case, _tracks(t, {"ball": (300.0, y)}, 12.0))
    s = task.metrics(case, m)
    assert s["M1"].value == 0.1 and s["M2"].value == 0.1



def test_a_bouncing_ball_lost_in_flight_is_not_a_single_motion():
    """A 3-frame exposure lost a bouncing studio ball for up to 6 samples at a time, then followed a still
    look-alike: no rebound was resolved and the single-motion rule scored the law clip 10. Unseen for longer
    than a contact can hide it (3 samples here), the rebounds cannot be counted: unresolved, not the rule."""
    task = BounceHeightDecay()
    case, _ = task.make_case(0, 3)
    k = case.known
    t = np.arange(int(case.duration * 24)) / 24.0
    y = k["ground_y"] - k["radius_px"] - bounce_trajectory(k["h0_m"], k["restitution"], 9.81, t) * k["px_per_m"]
    x = np.full(len(t), float(k["x"]))
    lost = (t > 0.15) & (t < 1.3) & (np.arange(len(t)) % 4 != 0)  # seen one sample in four while it bounces
    y[lost], x[lost] = np.nan, np.nan
    x[t >= 1.3], y[t >= 1.3] = k["x"] + 70.0, k["ground_y"] - 30.0  # then a still look-alike
    tr = _tracks(t, {"ball": (x, y)}, k["radius_px"])
    tr.visible[lost, 0] = False
    m = task.measure(case, tr)
    assert m.notes["trackable"] and m.notes["moved"] and len(m.notes["heights"]) < 2
    s = task.metrics(case, m)
    assert s["M1"].status == s["M2"].status == "operational_zero" and "3 samples in a row" in s["M1"].reason


def test_reference_beats_twin_end_to_end():
    r = validate_variant("bounce_height_decay", 0, 11)
    assert r["ref_P"] >= 95 and r["ref_C"] >= 80
    assert r["anti_P"] < r["ref_P"] - 5


def test_a_held_trembling_ball_is_dropped_at_its_release():
    """Held 0.6 s by a trembling hand (0.8 px, above the old 0.5-px start rule) before the drop: the drop arc
    starts at the detected release, so the first impact and the restitution are as without the hold."""
    task = BounceHeightDecay()
    case, _ = task.make_case(0, 3)
    k = case.known
    hold, fps = 0.6, 24.0
    t = np.arange(int((case.duration + hold) * fps)) / fps
    fall = bounce_trajectory(k["h0_m"], k["restitution"], 9.81, np.maximum(t - hold, 0.0))
    y = k["ground_y"] - k["radius_px"] - fall * k["px_per_m"]
    y = y + np.where(t < hold, 0.8 * np.sin(2 * np.pi * 5 * t), 0.0)
    m = task.measure(case.model_copy(update={"duration": len(t) / fps}), _tracks(t, {"ball": (k["x"], y)},
                                                                                   k["radius_px"]))
    first = m.notes["impact_times"][0]
    assert first == pytest.approx(hold + math.sqrt(2 * k["h0_m"] / 9.81), abs=0.2 / fps)
    assert m.get("restitution_height") == pytest.approx(k["restitution"], abs=3e-3)
