"""P29 eddy braking: M1/M2 indicators, extraction on hand-made slides, end to end (law high, twin low)."""

import math

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.suites.wmle.p29_eddy_braking import EddyBraking, arrival_ratio, speed_ratio
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world.em import eddy_travel

FPS = 24.0


def test_metric_formulas():
    m = arrival_ratio(30.0, 14.0, 0.0)
    assert m.residual == pytest.approx(31 / 15) and m.value == 1.0
    m = arrival_ratio(14.0, 14.0, 2.0)
    assert m.residual == pytest.approx(1.0) and m.value == 0.0  # a tie is no later arrival
    assert speed_ratio(40.0, 160.0).value == 1.0 and speed_ratio(40.0, 160.0).residual == pytest.approx(0.25)
    assert speed_ratio(170.0, 160.0).value == 0.0
    assert arrival_ratio(None, 14.0, 0.0).status == "operational_zero"


def test_eddy_travel_reaches_terminal_speed():
    t = np.array([0.0, 0.01, 5.0, 5.01])
    s = eddy_travel(t, 200.0, 0.2)
    assert s[1] == pytest.approx(0.5 * 200 * 0.01**2, rel=0.02)  # starts like a free slide
    assert (s[3] - s[2]) / 0.01 == pytest.approx(200 * 0.2, rel=1e-3)  # then at accel * tau


def _slides(s_magnet, s_block):
    """Tracks of two bodies sliding along a 30-degree line by the given distances [T] (px)."""
    n = len(s_magnet)
    t = np.arange(n) / FPS
    u = np.array([math.cos(math.radians(30)), math.sin(math.radians(30))])
    pos = {"magnet": (100 + s_magnet * u[0], 80 + s_magnet * u[1]),
           "block": (380 + s_block * u[0], 80 + s_block * u[1])}
    return Tracks.from_positions(t, pos, radius=9.0)


def test_hand_made_slides_give_the_known_arrivals_and_speeds():
    t = np.arange(84) / FPS
    s_m = eddy_travel(t, 150.0, 0.2)  # terminal 30 px/s
    s_c = np.minimum(eddy_travel(t, 150.0, None), 240.0)
    task = EddyBraking()
    case, _ = task.make_case(0, 1000)
    m = task.measure(case, _slides(s_m, s_c))
    d = 0.8 * s_m.max()
    assert m.get("common_displacement_px") == pytest.approx(d, rel=1e-9)
    assert m.get("arrival_frame_magnet") == int(np.flatnonzero(s_m >= d)[0])
    assert m.get("arrival_frame_block") == int(np.flatnonzero(s_c >= d)[0])
    # block speed over 0.4d..d on s = 75 t^2: exact mean speed from the crossing times (linear interpolation
    # between samples is within 1 % here)
    t_lo, t_hi = math.sqrt(0.4 * d / 75), math.sqrt(d / 75)
    assert m.get("speed_block_px_s") == pytest.approx(0.6 * d / (t_hi - t_lo), rel=0.01)
    got = task.metrics(case, m)
    assert got["M1"].value == 1.0 and got["M2"].value == 1.0
    # the same slides with the roles swapped: the "magnet" is the faster one
    m2 = task.measure(case, _slides(s_c, s_m))
    got2 = task.metrics(case, m2)
    assert got2["M1"].value == 0.0 and got2["M2"].value == 0.0
    assert m.notes["C"] == pytest.approx(100.0)


def test_a_magnet_that_never_moves_is_unresolved():
    t = np.arange(60) / FPS
    task = EddyBraking()
    case, _ = task.make_case(0, 1000)
    m = task.measure(case, _slides(np.zeros(60), eddy_travel(t, 150.0, None)))
    got = task.metrics(case, m)
    assert got["M1"].status == "operational_zero" and "noise" in got["M1"].reason


def test_reference_and_twin_end_to_end(tmp_path):
    task = EddyBraking()
    case, _ = task.make_case(0, 1004)
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P29"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 80
    assert P["true"] == 100.0 and P["anti"] == 0.0
