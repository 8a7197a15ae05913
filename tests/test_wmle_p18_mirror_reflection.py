"""P18 reflection at a plane mirror: M1/M2 on known numbers, hand-made line readings, rendered reference and twin."""

import math

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p18_mirror_reflection import (
    MirrorReflection, contact_metric, reflection_angle_metric, reflection_frame,
)
from lawful.tracks import Tracks
from lawful.video import write_video

D = math.hypot(640, 360)


def _ray(c, angle_from_normal_deg, side, length=100.0):
    """A line (point, direction) from contact ``c`` up and to ``side`` at the given angle (mirror along x)."""
    a = math.radians(angle_from_normal_deg)
    d = np.array([side * math.sin(a), -math.cos(a)])
    return np.asarray(c, float) + length * d, d


def test_metric_formulas():
    m = reflection_angle_metric([20.0, 21.0, 19.0])
    assert m.residual == pytest.approx(20.0) and m.value == pytest.approx(q(20.0, 90.0))
    m = contact_metric([3.0, 4.0, 5.0], D)
    assert m.residual == pytest.approx(4.0 / D) and m.value == pytest.approx(q(4.0 / D, 1.0))
    assert reflection_angle_metric([1.0, 2.0]).status == "operational_zero"


def test_reflection_frame_on_known_lines():
    c = np.array([300.0, 250.0])
    mirror = (np.array([300.0, 253.0]), np.array([1.0, 0.0]))  # strip centre 3 px below the face
    rms = 6.0 / math.sqrt(12)  # a uniform 6 px strip
    th_i, th_r, err = reflection_frame(_ray(c, 40, -1), _ray(c, 40, 1), mirror, rms)
    assert th_i == pytest.approx(40) and th_r == pytest.approx(40) and err == pytest.approx(0, abs=1e-9)
    p, d = _ray(c, 60, 1)
    th_i, th_r, err = reflection_frame(_ray(c, 40, -1), (p + 3.0 * np.array([-d[1], d[0]]), d), mirror, rms)
    assert th_r == pytest.approx(60) and err == pytest.approx(3.0, abs=1e-9)


def test_extract_from_region_readings():
    task = MirrorReflection()
    case, _ = task.make_case(0, 5)
    T = 6
    tr = Tracks.empty([], T, fps=24.0)
    c = np.array([320.0, 280.0])
    lines = {"incident": _ray(c, 35, -1), "reflected": _ray(c, 50, 1), "mirror": (c + [0, 3], np.array([1.0, 0]))}
    for name, (p, d) in lines.items():
        a = np.full(T, math.atan2(d[1], d[0]))
        tr.regions[name] = RegionSeries.from_values(name, "line", x=np.full(T, p[0]), y=np.full(T, p[1]), angle=a,
                                                    rms=np.full(T, 6 / math.sqrt(12)))
    tr.regions["reflected"].ok[0] = False
    m = task.measure(case, tr)
    got = task.metrics(case, m)
    assert got["M1"].residual == pytest.approx(15.0, abs=1e-6) and got["M2"].residual == pytest.approx(0, abs=1e-9)
    assert m.notes["C_checks"]["readable_reflected"] == pytest.approx(5 / 6)


def test_reference_and_twin_end_to_end(tmp_path):
    task = MirrorReflection()
    case, _ = task.make_case(0, 1003)
    case = case.model_copy(update={"duration": 0.5})
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P18"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 95
    assert P["true"] >= 99
    assert P["anti"] < 92
