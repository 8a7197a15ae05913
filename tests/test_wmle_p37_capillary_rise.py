"""P37 capillary rise: the indicator and its resolution, extraction on hand-made levels, a 1-px difference
rendered (unresolved), and the reference and its twin end to end."""

import numpy as np
import pytest

from lawful.perceive import noise
from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.suites.wmle.p37_capillary_rise import CapillaryRise, resolution, rise_order
from lawful.tracks import Tracks
from lawful.video import write_video


def test_indicator_and_resolution():
    assert rise_order(40.0, 1.5).value == 1.0 and rise_order(40.0, 1.5).status == "measured"
    m = rise_order(-40.0, 1.5)
    assert m.value == 0.0 and m.status == "measured"  # the wide tube higher: a measured violation
    m = rise_order(1.2, 1.5)
    assert m.status == "operational_zero" and "resolution" in m.reason
    # stated sigmas 0.3 and 0.4 px → 0.5 px; a still difference has no spread: δ = k · 0.5
    assert resolution([0.3] * 5, [0.4] * 5, [10.0] * 5) == pytest.approx(noise.k_for() * 0.5)
    # tiny sigmas: one pixel is the floor
    assert resolution([0.01] * 5, [0.01] * 5, [10.0] * 5) == 1.0
    # a jittering difference: its robust spread rules
    d = np.array([10.0, 12.0, 10.0, 12.0, 10.0, 12.0])
    assert resolution([0.1] * 6, [0.1] * 6, d) == pytest.approx(noise.k_for() * 1.4826 * 1.0)


def _tracks(res, narrow, wide, sigma=0.3):
    T = len(res)
    tr = Tracks.empty([], T, fps=24.0)
    tr.regions["reservoir"] = RegionSeries.from_values("reservoir", "level", sigma=sigma, row=res)
    tr.regions["tube_narrow"] = RegionSeries.from_values("tube_narrow", "level", sigma=sigma, row=narrow)
    tr.regions["tube_wide"] = RegionSeries.from_values("tube_wide", "level", sigma=sigma, row=wide)
    return tr


def test_extraction_on_hand_made_levels():
    task = CapillaryRise()
    case, _ = task.make_case(0, 7)
    T = 40
    res = np.full(T, 250.0)
    narrow = 250.0 - np.minimum(np.arange(T) * 10.0, 120.0)
    wide = 250.0 - np.minimum(np.arange(T) * 5.0, 48.0)
    narrow[-3] = np.nan  # an unread sample drops out of the pairs
    m = task.measure(case, _tracks(res, narrow, wide))
    assert m.get("d_px") == pytest.approx(72.0)
    assert m.get("h_narrow_px") == pytest.approx(120.0) and m.get("h_wide_px") == pytest.approx(48.0)
    assert m.notes["terminal_samples"] == 9  # last quarter (10) less the unread one
    assert m.get("resolution_px") == pytest.approx(noise.k_for() * 0.3 * np.sqrt(2))
    assert task.metrics(case, m)["M1"].value == 1.0
    assert m.notes["C_checks"]["readable_narrow"] == pytest.approx(39 / 40)
    # the wide tube higher: measured 0
    m = task.measure(case, _tracks(res, wide, narrow))
    assert task.metrics(case, m)["M1"].value == 0.0 and task.metrics(case, m)["M1"].status == "measured"
    # too few paired terminal samples: unresolved
    narrow[-10:] = np.nan
    got = task.metrics(case, task.measure(case, _tracks(res, narrow, wide)))["M1"]
    assert got.status == "operational_zero"


def _score(task, case, law, tmp_path, name):
    path = write_video(tmp_path / f"{name}.mp4", task.render(case, law), case.fps)
    return evaluate_video(case, path, task).scores["P37"]


def test_a_one_pixel_difference_is_unresolved(tmp_path):
    task = CapillaryRise()
    case, _ = task.make_case(0, 1002)
    h = case.known["h_px"]
    case.known["h_px"] = {"narrow": h["wide"] + 1.0, "wide": h["wide"]}
    case.known["tau_s"] = {"narrow": 0.1, "wide": 0.1}
    case.duration = 2.5  # both columns settle at once: a short clip will do
    sc = _score(task, case, "true", tmp_path, "onepx")
    assert sc.extra["metric_status"]["M1"] == "operational_zero" and sc.extra["unresolved"]
    d, delta = sc.residuals["M1.d_px"], sc.residuals["M1.resolution_px"]
    assert abs(d) <= delta and delta > 1.0
    assert abs(d - 1.0) < 0.75  # the band reads the meniscus' mean row: the wide tube's deeper curve shifts it


def test_reference_and_twin_end_to_end(tmp_path):
    task = CapillaryRise()
    case, _ = task.make_case(0, 1003)
    law, anti = (_score(task, case, lw, tmp_path, lw) for lw in ("true", "anti"))
    assert law.metrics["C"] == 100.0 and law.metrics["P"] == 100.0
    assert law.residuals["M1.d_px"] == pytest.approx(case.truth.quantities["d_px"], abs=2.0)
    assert anti.metrics["P"] == 0.0 and anti.extra["metric_status"]["M1"] == "measured"
