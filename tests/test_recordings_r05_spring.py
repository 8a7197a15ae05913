"""R5 one mass on a vertical spring: cycles of a damped oscillation of known parameters, extraction on a drawn case,
the metric formulas, law ≫ each anti twin end to end, the case check at load, a mass partly or wholly out of frame."""

import json
import math

import numpy as np
import pytest

from lawful.case import CaseError, load_case
from lawful.perceive import noise
from lawful.runner.validate import validate_variant
from lawful.score.wmle import q
from lawful.suites.recordings._springs import spring_cycles, weighted_slope
from lawful.suites.recordings.r05_spring import A_EQUIL, A_GROWTH, A_PERIOD, A_RESID, MassSpring
from lawful.tracks import Tracks

K = noise.k_for()


def test_cycles_of_a_damped_oscillation_of_known_period_and_centre():
    rng = np.random.default_rng(3)
    t = np.arange(0, 6, 1 / 24)
    T, c, sig = 0.93, 180.0, 0.3
    y = c + 60 * np.exp(-0.15 * t) * np.cos(2 * math.pi * t / math.sqrt(1 - (0.15 * T / 2 / math.pi) ** 2) / T)
    wd = 2 * math.pi / T  # the damped frequency is what the turning points show
    y = c + 60 * np.exp(-0.15 * t) * np.cos(wd * t) + rng.normal(0, sig, len(t))
    cy = spring_cycles(t, y, sig)
    assert len(cy["P"]) >= 10
    assert np.all(np.abs(np.array(cy["P"]) - T) <= K * np.array(cy["P_se"]) + 1e-3)
    cse = math.sqrt(6) * sig / 4
    assert np.all(np.abs(np.array(cy["centres"]) - c) <= K * cse + 0.15)  # 0.15: the decay's curvature
    b, se = weighted_slope(cy["centre_t"], cy["centres"], [cse] * len(cy["centres"]))
    assert abs(b) <= K * se


def _tracks(task, case, law="true", sigma=0.3, seed=0, keep=None):
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    y = task._centre_y(case, t, law)
    rng = np.random.default_rng(seed)
    tracks = Tracks.from_positions(t, {"mass": (case.known["x"] + rng.normal(0, sigma, len(t)),
                                                y + rng.normal(0, sigma, len(t)))}, case.known["side_px"] / 2)
    if keep is not None:
        tracks.visible[~keep, 0] = False
        tracks.xy[~keep, 0] = np.nan
    return tracks


def test_extraction_on_a_drawn_case_recovers_period_and_release():
    task = MassSpring()
    case, _ = task.make_case(0, 1003)
    m = task.measure(case, _tracks(task, case, seed=2))
    truth = case.truth.quantities
    assert m.get("period_s") == pytest.approx(truth["period_s"], rel=0.005)
    rel = next(e for e in m.events if e.name == "release")
    assert rel.t == pytest.approx(truth["release_s"], abs=1.5 / case.fps)
    assert abs(m.get("equilibrium_drift_px")) <= K * m.get("equilibrium_drift_se_px")
    assert m.get("fit_rms_px") == pytest.approx(0.3, rel=0.3)
    s = task.metrics(case, m)
    assert set(s) == {"M1", "M2", "M3", "M4"} and min(v.value for v in s.values()) > 0.98, s


def test_metric_formulas():
    task = MassSpring()
    case, _ = task.make_case(0, 1000)
    m = task.measure(case, _tracks(task, case, seed=1))
    m.quantities.update(period_cv=0.05, period_cv_se=0.004, fit_rms_px=3.0, amplitude_px=80.0,
                        equilibrium_drift_px=-10.0, equilibrium_drift_se_px=0.5, amplitude_growth=0.4,
                        amplitude_growth_se=0.01)
    m.notes["noise_px"] = 0.5
    s = task.metrics(case, m)
    assert s["M1"].value == pytest.approx(q(0.05 - K * 0.004, A_PERIOD))
    assert s["M2"].value == pytest.approx(q((3.0 - K * 0.5) / 80.0, A_RESID))
    assert s["M3"].value == pytest.approx(q((10.0 - K * 0.5) / 80.0, A_EQUIL))
    assert s["M4"].value == pytest.approx(q(0.4 - K * 0.01, A_GROWTH))


@pytest.mark.parametrize("seed", [1000, 1002, 1004])  # chirp, growing, drift
def test_law_beats_every_anti_twin_end_to_end(seed):
    r = validate_variant("recordings", "spring", 0, seed)["columns"]["R5"]
    assert r["law"] >= 97 and r["law_C"] >= 80
    assert r["anti"] < 90 and r["law"] - r["anti"] > 10


def test_a_case_without_the_mass_fails_at_load_naming_it(tmp_path):
    c = {"schema_version": 2, "id": "s", "suite": "recordings", "task": "spring", "width": 640, "height": 360,
         "objects": [{"id": "block", "shape": "block", "color": [200, 30, 40], "box": [300, 100, 340, 140]}]}
    p = tmp_path / "c.json"
    p.write_text(json.dumps(c))
    with pytest.raises(CaseError, match="'mass'"):
        load_case(p)
    c["objects"][0]["id"] = "mass"
    p.write_text(json.dumps(c))
    assert load_case(p).objects[0].id == "mass"


def test_a_mass_that_never_moves_is_unmeasurable_not_a_violation():
    task = MassSpring()
    case, _ = task.make_case(0, 1001)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    rng = np.random.default_rng(0)
    y = np.full(len(t), task._centre_y(case, np.zeros(1), "true")[0]) + rng.normal(0, 0.3, len(t))
    tracks = Tracks.from_positions(t, {"mass": (np.full(len(t), case.known["x"]), y)}, 20)
    s = task.score(case, task.measure(case, tracks))["R5"]
    assert s.status == "scored" and s.extra["unresolved"]
    assert "release" in s.reason


def test_a_mass_dipping_out_of_frame_is_measured_on_what_stays_visible():
    """The lowest parts of each swing are cut off (not seen): the remaining turning points still give the period;
    with the mass gone after one swing the clip is unmeasurable rather than a violation."""
    task = MassSpring()
    case, _ = task.make_case(0, 1003)
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    y = task._centre_y(case, t, "true")
    eq = case.truth.quantities["equilibrium_px"]
    keep = y < eq + 0.6 * case.truth.quantities["amplitude_px"]  # the bottom of the early, large swings unseen
    assert (~keep).sum() > 10
    m = task.measure(case, _tracks(task, case, seed=4, keep=keep))
    assert m.get("period_s") == pytest.approx(case.truth.quantities["period_s"], rel=0.01)
    s = task.metrics(case, m)
    assert s["M1"].value > 0.95
    keep = t < case.known["hold_s"] + 0.6 * case.truth.quantities["period_s"]
    s = task.score(case, task.measure(case, _tracks(task, case, seed=4, keep=keep)))["R5"]
    assert s.extra["unresolved"] and s.extra["metric_status"]["M1"] == "operational_zero"
