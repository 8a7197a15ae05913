"""P19 concurrent shadows: M1/M2 on known numbers, hand-made shadow axes, rendered reference and twin."""

import math

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p19_concurrent_shadows import (
    NAMES, ConcurrentShadows, concurrence_metric, intersection_spread_metric, shadows_frame,
)
from lawful.tracks import Tracks
from lawful.video import write_video

D = math.hypot(640, 360)


def _axes(common, angles_deg, dist=90.0):
    out = []
    for a in angles_deg:
        d = np.array([math.cos(math.radians(a)), math.sin(math.radians(a))])
        out.append((np.asarray(common, float) + dist * d, d))
    return out


def test_metric_formulas():
    m = concurrence_metric([7.0, 8.0, 9.0], D)
    assert m.residual == pytest.approx(8.0 / D) and m.value == pytest.approx(q(8.0 / D, 0.05))
    m = intersection_spread_metric([1.0, 1.0, 1.0], D)
    assert m.residual == pytest.approx(1.0 / D)
    assert concurrence_metric([], D).status == "operational_zero"


def test_shadows_frame_on_known_lines():
    rms, spread, x = shadows_frame(_axes((300, 170), (10, 80, 150, 230)))
    assert rms == pytest.approx(0, abs=1e-9) and spread == pytest.approx(0, abs=1e-9)
    assert x == pytest.approx([300, 170])
    # the four sides of a square of side 10 about (300, 170): every axis 5 px from the common point
    sq = [((305, 170), (0, 1)), ((295, 170), (0, 1)), ((300, 175), (1, 0)), ((300, 165), (1, 0))]
    rms, spread, x = shadows_frame([(np.array(p, float), np.array(d, float)) for p, d in sq])
    assert rms == pytest.approx(5.0) and x == pytest.approx([300, 170])
    assert spread == pytest.approx(5.0)  # four corners (±5, ±5): std 5 on each axis


def test_extract_from_region_readings():
    task = ConcurrentShadows()
    case, _ = task.make_case(0, 5)
    T = 4
    tr = Tracks.empty([], T, fps=24.0)
    for nm, (p, d) in zip(NAMES, _axes((320, 180), (5, 77, 149, 221))):
        tr.regions[nm] = RegionSeries.from_values(nm, "line", x=np.full(T, p[0]), y=np.full(T, p[1]),
                                                  angle=np.full(T, math.atan2(d[1], d[0])))
    m = task.measure(case, tr)
    got = task.metrics(case, m)
    assert got["M1"].value == pytest.approx(1.0) and got["M2"].value == pytest.approx(1.0)
    assert m.notes["common_point"][0] == pytest.approx([320, 180], abs=1e-6)


def test_reference_and_twin_end_to_end(tmp_path):
    task = ConcurrentShadows()
    case, _ = task.make_case(0, 1005)
    case = case.model_copy(update={"duration": 0.5})
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P19"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 95
    assert P["true"] >= 97
    assert P["anti"] < 75
