"""P34 solid vs slotted plate: M1 rule, cycle counting on damped closed forms, extraction, end to end."""

import math

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.suites.wmle.p34_plate_damping import (
    PlateDamping, count_cycles, cycle_order, half_swing_extrema,
)
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world import physics_more as pm

FPS = 240.0


def test_metric_rule():
    assert cycle_order(1, 3).value == 1.0
    assert cycle_order(3, 3).value == 0.0
    m = cycle_order(2, 0)
    assert m.value == 0.0 and m.status == "measured" and "N_slotted = 0" in m.reason
    assert cycle_order(None, 3).status == "operational_zero"


@pytest.mark.parametrize("zeta, expected", [(0.25, 1), (0.02, 5), (0.6, 0)])
def test_cycles_of_the_closed_form(zeta, expected):
    # same-side peaks fall by peak_decrement(ζ); extrema above 10 % of θ0 are counted:
    # ζ = 0.25: 1, .44, .20, .09 → 3 events → 1 cycle; ζ = 0.02 over 5 periods: 11 events → 5 positive pairs
    L = 0.4
    w0 = math.sqrt(9.81 / L)
    Td = 2 * math.pi / (w0 * math.sqrt(1 - zeta**2))
    t = np.arange(0, 5.3 * Td, 1 / FPS)  # the extremum at 5 Td closed by the crossing at 5.25 Td
    th = pm.damped_small_angle(t, L, 20.0, zeta)
    ex = half_swing_extrema(th)
    assert count_cycles(ex, 2.0) == expected


def test_truncated_half_swing_is_no_event():
    t = np.arange(0, 2.6, 1 / FPS)
    th = 20 * np.cos(2 * np.pi * t)  # ends at 2.6 s, inside a half-swing that began at 2.25 s
    ex = half_swing_extrema(th)
    assert len(ex) == 5  # release, then extrema closed by crossings at 0.25 … 2.25 s
    assert ex[-1][0] == int(round(2.0 * FPS))


def _plate_tracks(case, t, zetas):
    pos = {}
    for p in case.known["pendulums"]:
        th = p["side"] * pm.damped_small_angle(t, p["length_m"], math.radians(p["amplitude_deg"]), zetas[p["id"]])
        pos[p["id"]] = (p["pivot_x"] + p["length_px"] * np.sin(th), p["pivot_y"] + p["length_px"] * np.cos(th))
    tr = Tracks.from_positions(t, pos, radius=20.0)
    tr.frames = np.arange(len(t))
    return tr


def test_hand_made_tracks():
    task = PlateDamping()
    case, _ = task.make_case(0, 5)
    t = np.arange(0, 4.0, 1 / FPS)
    m = task.measure(case, _plate_tracks(case, t, {"solid": 0.25, "slotted": 0.02}))
    assert m.get("cycles_solid") == 1 and m.get("cycles_slotted") >= 2
    assert task.metrics(case, m)["M1"].value == 1.0
    m = task.measure(case, _plate_tracks(case, t, {"solid": 0.25, "slotted": 0.25}))
    assert task.metrics(case, m)["M1"].value == 0.0
    short = np.arange(0, 1.5, 1 / FPS)  # a common window under 2 s is unresolved
    m = task.measure(case, _plate_tracks(case, short, {"solid": 0.25, "slotted": 0.02}))
    assert task.metrics(case, m)["M1"].status == "operational_zero"


def test_reference_and_twin_end_to_end(tmp_path):
    task = PlateDamping()
    case, _ = task.make_case(0, 1004)
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P34"]
        assert sc.metrics["C"] >= 80
        P[law] = sc.metrics["P"]
    assert P["true"] == 100 and P["anti"] == 0
