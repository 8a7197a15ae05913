"""P24 freezing expansion: M1/M2 on known numbers, extraction on hand-made readings, law vs twin end to end."""

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.suites.wmle.p24_freezing_expansion import FreezingExpansion, height_expansion, width_stability
from lawful.tracks import Tracks
from lawful.video import write_video


def test_metric_formulas():
    m = height_expansion(100.0, 100.0 * 1000 / 917)
    assert m.residual == pytest.approx(0.0, abs=1e-12) and m.value == pytest.approx(1.0)
    m = height_expansion(100.0, 100.0)  # no expansion
    assert m.residual == pytest.approx(1 - 1000 / 917) and m.value == pytest.approx(1 / (1 + (1000 / 917 - 1)))
    m = height_expansion(100.0, 150.0)
    assert m.value == pytest.approx(1 / (1 + abs(1.5 - 1000 / 917)))
    assert width_stability(120.0, 120.0).value == 1.0
    assert width_stability(120.0, 150.0).residual == pytest.approx(0.25)
    assert width_stability(120.0, 150.0).value == pytest.approx(0.8)
    assert width_stability(0.5, 1.0).residual == pytest.approx(0.5)  # max(W_initial, 1 px)
    assert height_expansion(None, 100.0).status == "operational_zero"


def _tracks(surface, left_x1, right_x0):
    T = len(surface)
    tr = Tracks.empty([], T, fps=24.0)
    tr.regions["surface"] = RegionSeries.from_values("surface", "level", sigma=0.3, row=surface)
    tr.regions["walls"] = RegionSeries.from_values(
        "walls", "blobs", x0=np.stack([np.asarray(left_x1) - 3, right_x0], 1),
        x1=np.stack([left_x1, np.asarray(right_x0) + 3], 1), area=np.full((T, 2), 30.0))
    return tr


def test_extraction_on_hand_made_readings():
    task = FreezingExpansion()
    case, _ = task.make_case(0, 11)
    y_b = case.known["bottom_y"]
    T = 40
    h = np.r_[np.full(10, 150.0), np.linspace(150, 163.5, 15), np.full(15, 163.5)]
    surface = y_b - h
    surface[2] = np.nan  # one unread sample in the initial window
    left, right = np.full(T, 200.0), np.r_[np.full(30, 320.0), np.full(10, 326.0)]
    m = task.measure(case, _tracks(surface, left, right))
    assert m.get("H_water_px") == pytest.approx(150.0) and m.get("H_ice_px") == pytest.approx(163.5)
    assert m.get("W_initial_px") == pytest.approx(120.0) and m.get("W_final_px") == pytest.approx(126.0)
    got = task.metrics(case, m)
    assert got["M1"].residual == pytest.approx(163.5 / 150 - 1000 / 917)
    assert got["M2"].residual == pytest.approx(0.05) and got["M2"].value == pytest.approx(1 / 1.05)
    assert m.notes["C_checks"]["readable_surface"] == pytest.approx(39 / 40)
    # no surface readings in the terminal window: M1 unresolved, M2 still measured
    surface[-12:] = np.nan
    got = task.metrics(case, task.measure(case, _tracks(surface, left, right)))
    assert got["M1"].status == "operational_zero" and got["M2"].status == "measured"


def test_reference_and_twin_end_to_end(tmp_path):
    task = FreezingExpansion()
    case, _ = task.make_case(0, 1001)
    sc = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc[law] = evaluate_video(case, path, task).scores["P24"]
        assert sc[law].metrics["C"] == 100.0
    q = case.truth.quantities
    assert sc["true"].residuals["M1.H_water"] == pytest.approx(q["H_water_px"], abs=0.5)
    assert sc["true"].residuals["M1.H_ice"] == pytest.approx(q["H_ice_px"], abs=0.5)
    assert sc["true"].residuals["M2.W_initial"] == pytest.approx(q["W_px"], abs=1.0)
    assert abs(sc["true"].residuals["M1"]) < 0.01 and sc["true"].residuals["M2"] == 0.0
    assert sc["anti"].residuals["M1"] == pytest.approx(q["anti_e1"], abs=0.01)
    assert sc["true"].metrics["P"] > 99.0 > 96.5 > sc["anti"].metrics["P"]
