"""P21 communicating vessels: M1/M2 formulas, terminal levels, extraction from hand-made readings, end to end."""

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p21_communicating_vessels import (
    CommunicatingVessels, level_difference, residual_motion, terminal_levels,
)
from lawful.tracks import Tracks
from lawful.video import write_video


def test_metric_formulas():
    m = level_difference(180.0, 170.0, 360.0)
    assert m.residual == pytest.approx(10 / 360) and m.value == pytest.approx(1 / (1 + 10 / 360))
    m = residual_motion(0.5, -2.0, 360.0)
    assert m.residual == pytest.approx(2 / 360) and m.value == pytest.approx(q(2 / 360, 1.0))
    assert level_difference(None, 170.0, 360.0).status == "operational_zero"


def test_terminal_levels_medians_and_slopes():
    f = np.arange(100)
    yl = 150.0 + 0.02 * f  # drifting down 0.02 px per frame
    yr = np.full(100, 160.0)
    ok = np.ones(100, bool)
    r = terminal_levels(f, yl, yr, ok, ok)
    assert r["n"] == 25
    assert r["median_left"] == pytest.approx(150.0 + 0.02 * 87, abs=1e-9)  # median of frames 75..99
    assert r["slope_left"] == pytest.approx(0.02) and r["slope_right"] == pytest.approx(0.0, abs=1e-12)
    ok_r = ok.copy()
    ok_r[76:] = False  # only one overlapping terminal sample
    assert "reason" in terminal_levels(f, yl, yr, ok, ok_r)


def _tracks(yl, yr):
    T = len(yl)
    tr = Tracks.empty([], T, fps=24.0)
    tr.t = np.arange(T) / 24.0
    tr.regions = {"arm_left": RegionSeries.from_values("arm_left", "level", 0.05, row=yl),
                  "arm_right": RegionSeries.from_values("arm_right", "level", 0.05, row=yr)}
    return tr


def test_extraction_from_hand_made_readings():
    task = CommunicatingVessels()
    case, _ = task.make_case(0, 1000)
    T = 120
    t = np.arange(T) / 24.0
    yl = 170.0 - 30 * np.exp(-t) * np.cos(5 * t)
    yr = 182.0 + 0.1 * np.exp(-t) * np.cos(5 * t)
    yl[::10] = np.nan  # a tenth of the left readings missing
    m = task.measure(case, _tracks(yl, yr))
    got = task.metrics(case, m)
    term = slice(90, 120)
    ok = np.isfinite(yl[term])
    e1 = (np.median(yl[term][ok]) - np.median(yr[term][ok])) / 360.0
    assert got["M1"].residual == pytest.approx(e1, abs=1e-9) and e1 == pytest.approx(-12 / 360, abs=2e-3)
    assert got["M2"].value > 0.999
    assert m.notes["C_checks"]["readable_left"] == pytest.approx(0.9)
    assert m.notes["C"] == pytest.approx(90.0)
    assert task.metrics(case, task.measure(case, _tracks(np.full(T, np.nan), yr)))["M1"].status == "operational_zero"


def test_reference_and_twin_end_to_end(tmp_path):
    task = CommunicatingVessels()
    case, _ = task.make_case(1, 1001)
    out = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        out[law] = evaluate_video(case, path, task).scores["P21"]
        assert out[law].metrics["C"] == pytest.approx(100.0)
    assert out["true"].metrics["P"] >= 99.5
    assert abs(out["true"].residuals["M1"]) * 360 < 0.5  # equal levels within half a pixel
    # the twin's level difference is read to within a pixel of what was drawn
    assert out["anti"].residuals["M1"] == pytest.approx(case.truth.quantities["anti_e1"], abs=1 / 360)
    assert out["anti"].metrics["P"] < out["true"].metrics["P"] - 1
