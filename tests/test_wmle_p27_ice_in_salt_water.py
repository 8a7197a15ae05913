"""P27 ice in salt water: M1/M2 rules on known numbers, extraction on hand-made readings, a 1-px rise
rendered (unresolved), and the reference and its twin end to end."""

import numpy as np
import pytest

from lawful.perceive import noise
from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.suites.wmle.p27_ice_in_salt_water import IceInSaltWater, level_change_uncertainty, level_rise, \
    solid_melted
from lawful.tracks import Tracks
from lawful.video import write_video


def test_metric_rules():
    m = level_rise(6.0, 1.5, 120.0)
    assert m.value == 1.0 and m.residual == pytest.approx(0.05)
    m = level_rise(-6.0, 1.5, 120.0)
    assert m.value == 0.0 and m.status == "measured"  # the level fell: a measured violation
    m = level_rise(1.0, 1.5, 120.0)
    assert m.status == "operational_zero" and "uncertainty" in m.reason
    assert level_change_uncertainty(0.3, 0.4) == pytest.approx(noise.k_for() * 0.5)
    assert level_change_uncertainty(0.05, 0.05) == 1.0  # one pixel is the floor
    assert solid_melted(900.0, 0.0, False).value == 1.0
    assert solid_melted(900.0, 300.0, False).value == pytest.approx(2 / 3)
    assert solid_melted(900.0, 30.0, True).value == 0.0  # residual ice seen at the end
    assert solid_melted(0.0, 0.0, False).status == "operational_zero"


def _tracks(left, right, ice_area, sigma=0.3):
    T = len(left)
    tr = Tracks.empty([], T, fps=24.0)
    tr.regions["level_left"] = RegionSeries.from_values("level_left", "level", sigma=sigma, row=left)
    tr.regions["level_right"] = RegionSeries.from_values("level_right", "level", sigma=sigma, row=right)
    a = np.full((T, 4), np.nan)
    a[:, 0] = ice_area
    tr.regions["ice"] = RegionSeries.from_values("ice", "blobs", area=a, x=a)
    return tr


def test_extraction_on_hand_made_readings():
    task = IceInSaltWater()
    case, _ = task.make_case(0, 21)
    # 50 samples: initial window 5, terminal 10
    left = np.r_[np.full(10, 180.0), np.linspace(180, 172, 20), np.full(20, 172.0)]
    right = left + 0.5
    right[-4:] = np.nan  # one band unread at the end: the other carries the level
    ice = np.r_[np.full(10, 4000.0), np.linspace(4000, 0, 20), np.full(20, np.nan)]
    m = task.measure(case, _tracks(left, right, ice))
    assert m.get("y_before_px") == pytest.approx(180.25) and m.get("y_after_px") == pytest.approx(172.0, abs=0.3)
    assert m.get("E_initial_px2") == 4000.0 and m.get("E_terminal_px2") == 0.0
    assert not m.notes["residual_ice_confirmed"]
    # the window's sigma: the mean of two bands (0.3/√2 each) before, mixed after; floor of 1 px not reached
    assert m.get("delta_y_px") == pytest.approx(noise.k_for() * np.hypot(0.3 / np.sqrt(2), 0.3 / np.sqrt(2)), rel=0.3)
    got = task.metrics(case, m)
    assert got["M1"].value == 1.0 and got["M2"].value == 1.0
    assert got["M1"].residual == pytest.approx((m.get("y_before_px") - m.get("y_after_px")) /
                                               (case.known["bottom_y"] - 180.25))
    # ice left at the end, seen through the terminal window (its last 10 samples): M2 = 0
    ice2 = ice.copy()
    ice2[-10:] = 50.0
    got = task.metrics(case, task.measure(case, _tracks(left, right, ice2)))
    assert got["M2"].value == 0.0 and "residual" in got["M2"].reason
    # "ice" read in the last 3 samples but not in 4 of the 7 before them: not a solid left at the end (specks of
    # brine whose colour drifted within the threshold come and go); scored by the evidence ratio, not overridden
    ice3 = ice.copy()
    ice3[-10:] = [50.0, np.nan, 900.0, np.nan, np.nan, 40.0, np.nan, 60.0, 2000.0, 30.0]
    m3 = task.measure(case, _tracks(left, right, ice3))
    assert not m3.notes["residual_ice_confirmed"] and m3.get("E_terminal_px2") == 35.0
    assert task.metrics(case, m3)["M2"].value == pytest.approx(1 - 35.0 / 4000.0)


def test_a_one_pixel_rise_is_unresolved(tmp_path):
    task = IceInSaltWater()
    case, _ = task.make_case(0, 1005)
    case.known["rise_px"] = 1.0
    path = write_video(tmp_path / "onepx.mp4", task.render(case, "true"), case.fps)
    sc = evaluate_video(case, path, task).scores["P27"]
    assert sc.extra["metric_status"]["M1"] == "operational_zero"
    assert sc.residuals["M1.dy_px"] == pytest.approx(1.0, abs=0.3) and sc.residuals["M1.delta_px"] >= 1.0
    assert sc.metrics["M2"] == 1.0  # the ice still melted away


def test_reference_and_twin_end_to_end(tmp_path):
    task = IceInSaltWater()
    case, _ = task.make_case(0, 1006)
    case.known["anti_mode"] = "falls"
    sc = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc[law] = evaluate_video(case, path, task).scores["P27"]
        assert sc[law].metrics["C"] == 100.0
    rise = case.known["rise_px"]
    assert sc["true"].residuals["M1.dy_px"] == pytest.approx(rise, abs=0.3)
    assert sc["true"].metrics["P"] == 100.0
    assert sc["anti"].residuals["M1.dy_px"] == pytest.approx(-rise, abs=0.3) and sc["anti"].metrics["M1"] == 0.0
    assert sc["anti"].metrics["M2"] == 1.0 and sc["anti"].metrics["P"] == 50.0  # only the level law is broken


def _pieces(per_sample):
    """A ``blobs`` reading from ``[(area, x0, y0, x1, y1), ...]`` per sample (up to 4 pieces)."""
    T = len(per_sample)
    vals = {k: np.full((T, 4), np.nan) for k in ("area", "x", "x0", "y0", "x1", "y1")}
    for i, pieces in enumerate(per_sample):
        for j, (a, x0, y0, x1, y1) in enumerate(pieces):
            for k, v in zip(("area", "x", "x0", "y0", "x1", "y1"), (a, (x0 + x1) / 2, x0, y0, x1, y1)):
                vals[k][i, j] = v
    return RegionSeries.from_values("ice", "blobs", **vals)


def test_residual_ice_is_one_piece_that_stays():
    from lawful.suites.wmle._ice import one_piece

    window = np.ones(8, bool)
    # a 20 x 20 piece drifting 1 px a sample, a speck beside it: one solid
    assert one_piece(_pieces([[(400, 100 + k, 200, 120 + k, 220), (12, 300, 200, 304, 203)] for k in range(8)]), window)
    # slivers 4 px tall along one row, the largest 40 px away from the last each sample (studio P27 seed 7100)
    slivers = [[(90, 100 + 40 * (k % 3), 206, 130 + 40 * (k % 3), 210), (30, 400, 206, 410, 208)] for k in range(8)]
    assert not one_piece(_pieces(slivers), window)
    assert one_piece(_pieces(slivers), np.r_[np.zeros(7, bool), True])  # one sample: nothing to overlap
    task = IceInSaltWater()
    case, _ = task.make_case(0, 21)
    left = np.r_[np.full(10, 180.0), np.linspace(180, 172, 20), np.full(20, 172.0)]
    tr = _tracks(left, left + 0.5, np.zeros(50))
    tr.regions["ice"] = _pieces([[(4000, 150, 190, 230, 240)]] * 10 + [[(4000 - 130 * k, 150, 190, 230, 240)]
                                                                      for k in range(30)] + slivers + slivers[:2])
    m = task.measure(case, tr)  # read in all 10 terminal samples, but not one piece: scored by its area ratio
    assert not m.notes["residual_ice_confirmed"] and m.get("E_terminal_px2") == 120.0
    assert task.metrics(case, m)["M2"].value == pytest.approx(1 - 120.0 / 4000.0)
