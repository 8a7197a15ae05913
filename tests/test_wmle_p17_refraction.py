"""P17 refraction at an air–water interface: M1/M2 on known numbers, hand-made readings, rendered reference and twin."""

import math

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p17_refraction import Refraction, contact_gap_metric, refraction_frame, snell_metric
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world import optics


def _lines(xc, row, th_i_deg, n, shift=0.0):
    """Incident (down-right onto ``(xc, row)``) and refracted lines for index ``n``; the refracted one
    moved ``shift`` px along the surface."""
    ti = math.radians(th_i_deg)
    tr = optics.snell(ti, 1.0, n)
    di, dr = np.array([math.sin(ti), math.cos(ti)]), np.array([math.sin(tr), math.cos(tr)])
    return (np.array([xc, row]) - 80 * di, di), (np.array([xc + shift, row]) + 60 * dr, dr)


def test_metric_formulas():
    m = snell_metric([1.40, 1.41, 1.39])
    assert m.residual == pytest.approx(1.40 - 1.333) and m.value == pytest.approx(q(1.40 - 1.333, 0.12))
    m = contact_gap_metric([2.0, 2.0, 2.0], 400.0)
    assert m.residual == pytest.approx(0.005) and m.value == pytest.approx(q(0.005, 0.025))
    assert snell_metric([1.3]).status == "operational_zero"


def test_refraction_frame_on_known_lines():
    inc, ref = _lines(300.0, 190.0, 45.0, 1.333)
    ratio, gap = refraction_frame(inc, ref, 190.0)
    assert ratio == pytest.approx(1.333, abs=1e-9) and gap == pytest.approx(0, abs=1e-9)
    inc, ref = _lines(300.0, 190.0, 45.0, 2.0, shift=4.0)
    ratio, gap = refraction_frame(inc, ref, 190.0)
    assert ratio == pytest.approx(2.0, abs=1e-9) and gap == pytest.approx(4.0, abs=1e-9)


def test_extract_from_region_readings():
    task = Refraction()
    case, _ = task.make_case(0, 5)
    T = 5
    tr = Tracks.empty([], T, fps=24.0)
    for name, (p, d) in zip(("incident", "refracted"), _lines(300.0, 190.0, 50.0, 1.0, shift=2.0)):
        tr.regions[name] = RegionSeries.from_values(name, "line", x=np.full(T, p[0]), y=np.full(T, p[1]),
                                                    angle=np.full(T, math.atan2(d[1], d[0])))
    tr.regions["surface"] = RegionSeries.from_values("surface", "level", row=[190.0] * 4 + [np.nan])
    m = task.measure(case, tr)
    got = task.metrics(case, m)
    W = case.known["container_width_px"]
    assert got["M1"].residual == pytest.approx(1.0 - 1.333, abs=1e-9)
    assert got["M2"].residual == pytest.approx(2.0 / W, abs=1e-9)
    assert m.notes["C_checks"]["readable_surface"] == pytest.approx(0.8)


def test_reference_and_twin_end_to_end(tmp_path):
    task = Refraction()
    case, _ = task.make_case(0, 1004)
    case = case.model_copy(update={"duration": 0.5})
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P17"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 95
    assert P["true"] >= 97
    assert P["anti"] < 70
