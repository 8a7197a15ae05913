"""P22 floating ice column: M1/M2 formulas, settled readings, extraction from hand-made readings, end to end."""

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p22_floating_ice import (
    BANDS, FloatingIce, settled_readings, submerged_fraction, waterline_agreement,
)
from lawful.tracks import Tracks
from lawful.video import write_video


def test_metric_formulas():
    m = submerged_fraction(0.88)
    assert m.residual == pytest.approx(0.037) and m.value == pytest.approx(q(0.037, 0.10))
    m = waterline_agreement(2.0, 250.0)
    assert m.residual == pytest.approx(0.008) and m.value == pytest.approx(1 / (1 + 0.008 / 0.05))
    assert submerged_fraction(None).status == "operational_zero"


def _rows(T=60, top=100.0, bottom=280.0, yl=115.0, yr=115.0):
    return {"water_left": np.full(T, yl), "water_right": np.full(T, yr), "ice_top": np.full(T, top),
            "ice_bottom": np.full(T, bottom)}


def test_settled_readings():
    rows = _rows(yl=114.0, yr=116.0)
    rows["ice_top"][:40] = 60.0  # still bobbing before the settled third
    r = settled_readings(rows, {k: np.ones(60, bool) for k in BANDS})
    assert r["ratio"] == pytest.approx(165 / 180) and r["gap"] == pytest.approx(2.0) and r["n"] == 20
    ok = {k: np.ones(60, bool) for k in BANDS}
    ok["ice_bottom"][44:] = False
    assert "reason" in settled_readings(rows, ok)


def test_extraction_from_hand_made_readings():
    task = FloatingIce()
    case, _ = task.make_case(0, 1000)
    T = 60
    rows = _rows(T, top=100.0, bottom=280.0, yl=117.0, yr=118.0)
    rows["water_left"][5] = np.nan
    tr = Tracks.empty([], T, fps=24.0)
    tr.regions = {k: RegionSeries.from_values(k, "level", 0.05, row=v) for k, v in rows.items()}
    m = task.measure(case, tr)
    got = task.metrics(case, m)
    ratio = (280 - 117.5) / 180
    assert got["M1"].residual == pytest.approx(abs(ratio - 0.917), abs=1e-9)
    v = case.known["vessel"]
    assert got["M2"].residual == pytest.approx(1.0 / (v[2] - v[0]), abs=1e-9)
    assert m.notes["C"] == pytest.approx(100 * (T - 1) / T)


def test_reference_and_twin_end_to_end(tmp_path):
    task = FloatingIce()
    case, _ = task.make_case(2, 1002)
    out = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        out[law] = evaluate_video(case, path, task).scores["P22"]
        assert out[law].metrics["C"] == pytest.approx(100.0)
    assert out["true"].metrics["P"] >= 98.5
    assert out["true"].residuals["M1"] < 0.005
    assert out["anti"].residuals["M1"] == pytest.approx(case.truth.quantities["anti_e1"], abs=0.005)
    assert out["anti"].metrics["P"] < 80
