"""P38 viscous settling: M1 formula, the terminal-speed window on hand-made falls, extraction, end to end."""

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p38_viscous_settling import ViscousSettling, settling_ratio, terminal_window
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world import physics_more as pm

FPS = 24.0


def test_metric_formula():
    m = settling_ratio(2.25 * 30.0, 30.0, 15.0, 10.0)  # (v ratio 2.25) / (r ratio 1.5)² = 1
    assert m.residual == pytest.approx(0.0, abs=1e-12) and m.value == pytest.approx(1.0)
    m = settling_ratio(45.0, 30.0, 15.0, 10.0)  # speed ∝ r: e1 = 1.5 / 2.25 − 1
    assert m.residual == pytest.approx(1 / 3, abs=1e-12) and m.value == pytest.approx(q(1 / 3, 1.0), abs=1e-12)
    assert settling_ratio(40.0, 30.0, 10.5, 10.0).status == "operational_zero"  # radius ratio 1.05 < 1.1
    assert settling_ratio(None, 30.0, 15.0, 10.0).status == "operational_zero"


def _fall(t, hold, v, y0, y_floor, tau=0.0):
    return np.minimum(y0 + pm.stokes_fall(t - hold, v, tau), y_floor)


def test_window_is_the_terminal_fall_not_the_rests():
    t = np.arange(120) / FPS
    rng = np.random.default_rng(0)
    y = _fall(t, 0.4, 90.0, 50.0, 300.0, tau=0.05) + rng.normal(0, 0.05, len(t))
    w = terminal_window(t, y, 0.05)
    assert w is not None
    t_floor = 0.4 + 250 / 90 + 0.05
    assert t[w["i0"]] >= 0.4 + 0.1 and t[w["i1"]] <= t_floor  # after the transient, before the floor
    assert w["speed"] == pytest.approx(90.0, abs=4 * w["se"])
    assert w["i1"] - w["i0"] > 40


def test_window_ties_prefer_the_earlier():
    t = np.arange(60) / FPS
    y = np.where(t < 1.25, 40 * t, 40 * 1.25 + 80 * (t - 1.25))  # two constant-speed pieces, 30 samples each
    w = terminal_window(t, y, 0.02)
    assert w["speed"] == pytest.approx(40.0, abs=1e-6)


def test_hand_made_tracks():
    task = ViscousSettling()
    case, _ = task.make_case(0, 7)
    t = np.arange(int(case.duration * FPS)) / FPS
    # speeds 60 and 20 px/s for the radii the case states: e1 = |3 / ratio² − 1|
    ratio = case.object("large").known["radius_px"] / case.object("small").known["radius_px"]
    tr = Tracks.from_positions(t, {"small": (200.0, _fall(t, 0.3, 20.0, 60.0, 330.0)),
                                   "large": (400.0, _fall(t, 0.3, 60.0, 60.0, 330.0))})
    m = task.measure(case, tr)
    got = task.metrics(case, m)["M1"]
    e1 = abs(3.0 / ratio**2 - 1)
    assert got.residual == pytest.approx(e1, abs=1e-6)
    assert got.value == pytest.approx(q(e1, 1.0), abs=1e-6)


def test_reference_and_twin_end_to_end(tmp_path):
    task = ViscousSettling()
    case, _ = task.make_case(0, 1003)
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P38"]
        assert sc.metrics["C"] >= 80
        P[law] = sc.metrics["P"]
    assert P["true"] >= 97
    assert P["anti"] < 85
