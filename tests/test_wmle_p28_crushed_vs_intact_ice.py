"""P28 crushed vs intact ice: the lead indicator's run rules, extraction on hand-made levels, a lead of at
most 1 px rendered (no qualifying lead), and the reference and its twin end to end."""

import numpy as np
import pytest

from lawful.perceive import noise
from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.suites.wmle.common import frame_times
from lawful.suites.wmle.p28_crushed_vs_intact_ice import CrushedVsIntactIce, lead_indicator, melt_fractions, runs
from lawful.tracks import Tracks
from lawful.video import write_video

DT = 1 / 24


def test_runs_and_lead_rules():
    assert runs(np.array([1, 1, 0, 1, 0, 0, 1, 1, 1], bool)) == [(0, 2), (3, 4), (6, 9)]
    t = np.arange(24) * DT
    u = np.full(24, 0.004)
    hi = np.full(24, 0.20)
    hc = hi.copy()
    hc[5:11] += 0.01  # 6 samples = 0.25 s ahead by more than 0.008
    assert lead_indicator(t, hc, hi, u, u, 0.005).value == 1.0
    hc[10] = 0.20  # 5 samples: too short, but 1 s of joint evidence: a measured 0
    m = lead_indicator(t, hc, hi, u, u, 0.005)
    assert m.value == 0.0 and m.status == "measured" and m.components["lead_s"] == pytest.approx(5 * DT)
    hc[5:11] = 0.20 + 0.007  # ahead, but not beyond the summed uncertainties
    assert lead_indicator(t, hc, hi, u, u, 0.005).value == 0.0
    assert lead_indicator(t, hc, hi, u * 0.1, u * 0.1, 0.005).value == 1.0  # 0.007 > the 1-px floor 0.005
    # gaps are not interpolated: a lead broken by an unread sample, and joint runs under 0.5 s: unresolved
    hc[5:11] = 0.21
    hc[8] = np.nan
    hc[::10] = np.nan
    m = lead_indicator(t, hc, hi, u, u, 0.005)
    assert m.status == "operational_zero" and m.components["readable_run_s"] < 0.5


def _tracks(rows_c, rows_i, sigma=0.3):
    T = len(rows_c)
    tr = Tracks.empty([], T, fps=24.0)
    for side, rows in (("crushed", rows_c), ("intact", rows_i)):
        for b in ("left", "right"):
            tr.regions[f"{side}_{b}"] = RegionSeries.from_values(f"{side}_{b}", "level", sigma=sigma, row=rows)
    return tr


def test_extraction_on_hand_made_levels():
    task = CrushedVsIntactIce()
    case, _ = task.make_case(0, 31)
    y_b = case.known["vessels"]["crushed"][3]
    H = y_b - case.known["vessels"]["crushed"][1]
    T = 48
    base = y_b - 25.0 - np.linspace(0, 20, T)
    m = task.measure(case, _tracks(base - np.r_[np.zeros(10), np.full(38, 4.0)], base))
    got = task.metrics(case, m)["M1"]
    assert got.value == 1.0 and got.components["lead_s"] == pytest.approx(38 * DT)
    assert m.get("max_lead_px") == pytest.approx(4.0)
    u = noise.k_for() * 0.3 / np.sqrt(2) / H  # two bands averaged
    assert m.notes["uncertainties"]["crushed"][0] == pytest.approx(u, rel=1e-4)
    got = task.metrics(case, task.measure(case, _tracks(base, base)))["M1"]
    assert got.value == 0.0 and got.status == "measured"
    assert m.notes["C_checks"]["readable_crushed"] == 1.0


def _score(task, case, law, tmp_path, name):
    path = write_video(tmp_path / f"{name}.mp4", task.render(case, law), case.fps)
    return evaluate_video(case, path, task).scores["P28"]


def test_a_one_pixel_lead_does_not_qualify(tmp_path):
    """The seed: a lead must exceed the summed uncertainties; a 1-px lead over ≥ 0.5 s of joint readings is 0."""
    task = CrushedVsIntactIce()
    case, _ = task.make_case(0, 1007)
    case.duration = 3.0
    k = case.known
    f_c, f_b = melt_fractions(frame_times(case), k["melt_start_s"], k["edge_speed_px_s"], k["edge_px"]["crushed"],
                              k["edge_px"]["intact"])
    k["rise_px"] = 1.0 / float(np.max(f_c - f_b))  # the crushed side leads by 1 px at most
    sc = _score(task, case, "true", tmp_path, "onepx")
    assert sc.metrics["M1"] == 0.0 and "no lead" in sc.extra["metric_reasons"]["M1"]
    assert sc.residuals["M1"] * (k["vessels"]["crushed"][3] - k["vessels"]["crushed"][1]) == pytest.approx(1.0, abs=0.4)


def test_reference_and_twin_end_to_end(tmp_path):
    task = CrushedVsIntactIce()
    case, _ = task.make_case(0, 1008)
    law, anti = (_score(task, case, lw, tmp_path, lw) for lw in ("true", "anti"))
    assert law.metrics["C"] == 100.0 and law.metrics["P"] == 100.0 and law.residuals["M1.lead_s"] > 2.0
    assert anti.metrics["C"] == 100.0 and anti.metrics["P"] == 0.0 and anti.residuals["M1.lead_s"] == 0.0
