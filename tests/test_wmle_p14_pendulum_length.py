"""P14 period vs length: M1/M2 formulas, cycle variability on hand-made tracks, end to end."""

import math

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import cv, geometric_mean, q
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle.p14_pendulum_length import PendulumLength, cycle_regularity, length_scaling
from lawful.tracks import Tracks
from lawful.video import write_video

FPS = 240.0


def _bobs(t, swings):
    """Bobs of radius 12 px swinging at angles ``a`` [T] on strings of ``L`` px from pivots (px, 34)."""
    tr = Tracks.from_positions(t, {oid: (px + L * np.sin(a), 34 + L * np.cos(a))
                                   for oid, (px, L, a) in swings.items()}, radius=12)
    tr.frames = np.arange(len(t))
    return tr


def _phase_swing(t, half_cycles, amp):
    """Angle ``amp cos(2π Φ(t))`` whose centre crossings fall exactly at the given half-cycle boundaries:
    Φ is piecewise linear, a quarter cycle to the first crossing, then ``half_cycles`` (s) per half."""
    knots_t = np.concatenate([[0.0], half_cycles[0] / 2 + np.concatenate([[0.0], np.cumsum(half_cycles)])])
    knots_phi = np.concatenate([[0.0], 0.25 + 0.5 * np.arange(len(half_cycles) + 1)])
    return amp * np.cos(2 * np.pi * np.interp(t, knots_t, knots_phi))


def test_metric_formulas():
    m = length_scaling(0.7, 1.0, 1.0, 2.0)
    assert m.residual == pytest.approx(abs(0.49 / 0.5 - 1), abs=1e-12)
    assert m.value == pytest.approx(1 / (1 + 0.02 / 0.20), abs=1e-12)
    cs, cl = [1.0, 1.1, 0.9], [2.0, 2.0]
    c_s = float(np.std(cs) / np.mean(cs))
    m = cycle_regularity(cs, cl)
    assert m.value == pytest.approx(math.sqrt(1 / (1 + c_s / 0.20) * 1.0), abs=1e-12)
    assert cycle_regularity([1.0], cl).status == "operational_zero"


def test_full_cycles_are_same_direction_crossing_gaps():
    assert pk.full_cycles([0.1, 0.6, 1.2, 1.7]) == pytest.approx([1.1, 1.1])


def test_hand_made_swings_with_uneven_cycles():
    t = np.arange(int(8 * FPS)) / FPS
    amp = math.radians(12)
    short_halves = np.array([0.6, 0.6, 0.65, 0.65] * 4)  # runs past the clip's end
    long_halves = np.full(11, 0.85)
    task = PendulumLength()
    case, _ = task.make_case(0, 3)
    for p, x in zip(case.known["pendulums"], (180.0, 460.0)):
        p["pivot_x"] = x
    tr = _bobs(t, {"short": (180.0, 130.0, _phase_swing(t, short_halves, amp)),
                   "long": (460.0, 260.0, _phase_swing(t, long_halves, amp))})
    m = task.measure(case, tr)
    got = task.metrics(case, m)
    crossings = 0.3 + np.concatenate([[0.0], np.cumsum(short_halves)])
    crossings = crossings[crossings < 8.0]
    cycles_s = crossings[2:] - crossings[:-2]
    assert m.notes["cycles_short"] == pytest.approx(list(cycles_s), abs=1e-9)
    T_s, T_l = float(np.mean(cycles_s)), 1.7
    assert got["M1"].value == pytest.approx(q((T_s / T_l) ** 2 / 0.5 - 1, 0.20), abs=1e-6)
    expected_m2 = geometric_mean([q(cv(cycles_s), 0.20), q(0.0, 0.20)])
    assert got["M2"].value == pytest.approx(expected_m2, abs=1e-6)


def test_reference_and_twin_end_to_end(tmp_path):
    task = PendulumLength()
    case, _ = task.make_case(2, 1002)
    case = case.model_copy(update={"duration": 5.0})
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P14"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 80
    assert P["true"] >= 95
    assert P["anti"] < 80


def test_lengths_from_the_pivots_the_case_states():
    """A bob seen a little inside its arc at the bottom of the swing (motion blur on a curved path, up to
    3 px at the centre) moves the pivot row fitted to a 12° swing by px; the case's stated pivots give the
    first-frame lengths exactly, and only a case without them falls back to the fit."""
    t = np.arange(int(6 * FPS)) / FPS
    amp = math.radians(12)
    task = PendulumLength()
    case, _ = task.make_case(0, 3)
    for p, x in zip(case.known["pendulums"], (180.0, 460.0)):
        p["pivot_x"], p["pivot_y"] = x, 34.0
    swings = {"short": (180.0, 130.0, amp * np.cos(2 * np.pi * t / 0.72)),
              "long": (460.0, 260.0, amp * np.cos(2 * np.pi * t / 1.02))}
    # drawn towards the pivot where it moves fastest
    tr = Tracks.from_positions(t, {oid: (px + L * np.sin(a), 34 + L * np.cos(a) - 3.0 * (1 - (a / amp) ** 2))
                                   for oid, (px, L, a) in swings.items()}, radius=12)
    tr.frames = np.arange(len(t))
    m = task.measure(case, tr)
    assert m.notes["lengths_from"] == "stated pivots"
    assert m.get("length_short_px") == pytest.approx(130.0, abs=0.05)
    assert m.get("length_long_px") == pytest.approx(260.0, abs=0.05)
    for p in case.known["pendulums"]:
        del p["pivot_x"], p["pivot_y"]
    fitted = task.measure(case, tr)
    assert "lengths_from" not in fitted.notes
    assert abs(fitted.get("length_long_px") - 260.0) > 1.0  # what the stated pivots are for
