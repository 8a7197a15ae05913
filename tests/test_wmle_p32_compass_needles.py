"""P32 compass needles: M1 formula, directions from hand-made needle tracks, end to end (law high, twin low)."""

import math

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.suites.wmle.p32_compass_needles import CompassNeedles, opposition, separation_deg
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world.em import settle

FPS = 24.0


def test_metric_formula():
    assert opposition(180.0).value == pytest.approx(1.0)
    assert opposition(0.0).value == pytest.approx(0.0)
    assert opposition(90.0).value == pytest.approx(0.5)
    assert opposition(120.0).value == pytest.approx((1 - math.cos(2 * math.pi / 3)) / 2)
    assert opposition(150.0, n_valid=1).status == "operational_zero"
    assert separation_deg(np.radians(170.0), np.radians(-170.0)) == pytest.approx(20.0)


def _needles(case, a_left, a_right, hide_last=0):
    """North-half centroids 15 px from each dial's centre at directions (deg) [T]."""
    t = np.arange(len(a_left)) / FPS
    pos = {}
    for b, a in (("left", a_left), ("right", a_right)):
        c = case.known["dials"][b]
        pos[b] = (c[0] + 15 * np.cos(np.radians(a)), c[1] + 15 * np.sin(np.radians(a)))
    tr = Tracks.from_positions(t, pos, radius=6.0)
    if hide_last:
        tr.visible[-hide_last:, 1] = False
        tr.xy[-hide_last:, 1] = np.nan
    return tr


def test_hand_made_needles():
    task = CompassNeedles()
    case, _ = task.make_case(0, 1000)
    t = np.arange(84) / FPS
    left = settle(t, 0.7, 10.0, -80.0, 0.8, 0.3)
    right = settle(t, 0.7, 10.0, 110.0, 0.8, 0.3)
    m = task.measure(case, _needles(case, left, right))
    got = task.metrics(case, m)
    d = float(np.median(separation_deg(np.radians(left[-5:]), np.radians(right[-5:]))))
    assert got["M1"].residual == pytest.approx(d, abs=1e-6)
    assert got["M1"].value == pytest.approx((1 - math.cos(math.radians(d))) / 2, abs=1e-9)
    assert {e.name for e in m.events} == {"rotation_left", "rotation_right"}
    # four of the final five samples unreadable: operational zero, and C reads it
    m = task.measure(case, _needles(case, left, right, hide_last=4))
    assert task.metrics(case, m)["M1"].status == "operational_zero"
    assert m.notes["C_checks"]["readable"] == pytest.approx(1 / 5)


def test_reference_and_twin_end_to_end(tmp_path):
    task = CompassNeedles()
    case, _ = task.make_case(0, 1007)
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P32"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 80
    assert P["true"] >= 97 and P["anti"] <= 5
