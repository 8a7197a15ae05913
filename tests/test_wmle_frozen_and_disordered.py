"""Clips whose motion freezes or whose frames are out of order: C's ``order`` factor (zigzags), a pendulum's halt
(``swinging``) and P2's ground contact, on hand-made tracks whose truth is known."""

import math

import numpy as np
import pytest

from lawful.case import Case
from lawful.result import Measurement
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle._bounces import above_ground
from lawful.suites.wmle.common import count_zigzags, measure_consistency
from lawful.suites.wmle.p14_pendulum_length import PendulumLength
from lawful.tracks import Tracks

FPS = 24.0


def _ball(x, y=None, size=None):
    t = np.arange(len(x)) / FPS
    y = np.full(len(x), 200.0) if y is None else y
    tr = Tracks.from_positions(t, {"ball": (np.asarray(x, float), np.asarray(y, float))}, radius=10)
    tr.frames = np.arange(len(x))
    if size is not None:
        tr.meta["track_size"] = size
    return tr


# --- order: zigzags -------------------------------------------------------------------------------------------
def test_zigzags_count_double_turns_of_steps_beyond_two_mask_edges():
    tr = _ball([0, 6, 2, 8, 4, 10, 6])  # steps +6 -4 +6 -4 +6 -4: every run of three turns back twice
    seen = np.arange(7)
    assert count_zigzags(tr["ball"], seen, 3.0) == (4, 4)
    assert count_zigzags(tr["ball"], seen, 4.0) == (0, 0)  # the -4 steps are not beyond 4 px: no runs
    assert count_zigzags(tr["ball"], np.array([0, 1, 2, 4, 5, 6]), 3.0) == (0, 0)  # runs need consecutive samples
    assert count_zigzags(_ball([0, 5, 11, 18, 26, 35])["ball"], seen[:6], 3.0) == (0, 3)  # accelerating on: none


def test_a_mask_losing_part_of_itself_every_other_frame_is_no_zigzag():
    # studio Principia momentum_height: a block sliding 1.7 px a frame whose mask loses its top quarter in every
    # other frame, the centroid dropping 2.8 px each time (steps of 3.2-3.4 px turning back twice)
    n = 12
    x = 515 + 1.7 * np.arange(n)
    y = 221.6 + 2.8 * (np.arange(n) % 2)
    tr = _ball(x, y)
    seen = np.arange(n)
    assert count_zigzags(tr["ball"], seen, 3.0) == (n - 3, n - 3)  # a rigid object's area: every run zigzags
    area = np.where(np.arange(n) % 2, 515.0, 670.0)  # 27 x 25 px box
    tr.area[:, 0] = area
    tr.box[:, 0] = np.stack([x - 13, y - 12, x + 13, y + 12], axis=1)
    assert count_zigzags(tr["ball"], seen, 3.0) == (0, 0)  # 155 px² of 515 may move a centroid 5.5 px


def test_order_factor_is_one_minus_the_zigzag_share():
    x = 100 + 0.4 * np.arange(48.0) ** 2  # a fall along x: steps grow 0.8 px per sample
    assert measure_consistency(_ball(x), ["ball"], [], [], frame=(640, 360)).order == 1.0
    swapped = x[[i ^ 1 for i in range(48)]]  # neighbouring frames swapped
    chk = measure_consistency(_ball(swapped), ["ball"], [], [], frame=(640, 360))
    z, runs = chk.notes["zigzags"]["ball"]
    assert runs > 20 and z == runs and chk.order == 0.0 and chk.C == 0.0
    # the bound is two mask edges in tracked px: tracked at half size, steps of 6 case px are 3 tracked px
    hop = _ball([0, 6, 2, 8, 4, 10, 6, 12, 8, 14], size=(320, 180))
    assert measure_consistency(hop, ["ball"], [], [], frame=(640, 360)).order == 1.0
    chk = measure_consistency(_ball([0, 6, 2, 8, 4, 10, 6, 12, 8, 14]), ["ball"], [], [], frame=(640, 360))
    assert chk.order == 0.0


# --- a pendulum that halts ------------------------------------------------------------------------------------
def _bob(angle, L=200.0, pivot=(320.0, 34.0), noise=0.0, seed=0):
    t = np.arange(len(angle)) / FPS
    rng = np.random.default_rng(seed)
    x = pivot[0] + L * np.sin(angle) + noise * rng.standard_normal(len(t))
    y = pivot[1] + L * np.cos(angle) + noise * rng.standard_normal(len(t))
    tr = Tracks.from_positions(t, {"short": (x, y)}, radius=12)
    tr.frames = np.arange(len(t))
    return tr


def _halt_of(tr):
    sw = pk.measure_swing(tr, "short", 320.0)
    return sw, pk.halt(tr, "short", sw["cycles"])


def test_a_swing_frozen_mid_way_halts_at_the_freeze():
    t = np.arange(192) / FPS  # 8 s, period 1.25 s
    a = np.radians(12.0) * np.cos(2 * np.pi * t / 1.25)
    k = 101  # mid-swing: 0.9 of a period after the fourth cycle, moving fast
    a[k:] = a[k]
    sw, stop = _halt_of(_bob(a, noise=0.05))
    assert stop is not None and stop["index"] == k
    assert stop["share"] == pytest.approx(k / 191, abs=1e-12)
    assert stop["moved_px"] > 0.29 * 200 * math.sin(math.radians(12.0))
    b = np.radians(12.0) * np.cos(2 * np.pi * t / 1.25)
    b[90:] = b[90]  # frozen at a turning point (3 periods), off the centre line: as much a halt
    stop = _halt_of(_bob(b, noise=0.05))[1]
    assert stop["index"] == 90 and stop["share"] == pytest.approx(90 / 191, abs=1e-12)


def test_a_swing_that_dies_away_or_goes_on_does_not_halt():
    t = np.arange(192) / FPS
    # losing 65 % a cycle, within the noise band from 6.4 s: a rest longer than a cycle, entered from 0.39 px away
    a = np.radians(12.0) * np.exp(-t / 1.2) * np.cos(2 * np.pi * t / 1.25)
    sw, stop = _halt_of(_bob(a, noise=0.05))
    assert sw["cycles"] and stop is None
    assert _halt_of(_bob(np.radians(12.0) * np.cos(2 * np.pi * t / 1.25), noise=0.05))[1] is None
    b = np.radians(12.0) * np.cos(2 * np.pi * t / 1.25)
    b[170:] = b[170]  # frozen for 0.9 s, less than a cycle: not shown to have stopped
    assert _halt_of(_bob(b, noise=0.05))[1] is None


def test_the_halt_is_a_factor_of_c():
    t = np.arange(192) / FPS
    a = np.radians(12.0) * np.cos(2 * np.pi * t / 1.25)
    a[101:] = a[101]
    tr = _bob(a, noise=0.05)
    m = Measurement()
    pk.measure_swings(m, tr, {"short": (320.0, 34.0)}, ["short"])
    assert [e.name for e in m.events if e.name == "halt"] == ["halt"]
    factors = PendulumLength().extra_consistency(Case(id="c", suite="wmle", task="pendulum_length"), tr, m)
    assert factors == {"swinging": pytest.approx(101 / 191, abs=1e-12)}


# --- P2: a ball that stops in mid-air makes no ground contact --------------------------------------------------
def test_a_ball_stopping_above_the_ground_line_makes_no_contact():
    case = Case(id="c", suite="wmle", task="free_fall", known={"ground_y": 330.0})
    y = np.array([100.0, 110.0, 125.0, 145.0, 170.0, 200.0, 235.0, 275.0, 305.0])  # radius 10 from the area
    tr = _ball(np.full(9, 300.0), y)["ball"]
    assert above_ground(case, tr, y, 8) is None  # 305 + 10 + 30 reaches 330 - 10
    why = above_ground(case, tr, y, 5)  # stopped at 200: 200 + 10 + 30 leaves 90 px, more than the radius
    assert why is not None and "90 px above the ground line" in why
    assert above_ground(Case(id="c", suite="wmle", task="free_fall"), tr, y, 5) is None  # no ground line stated
