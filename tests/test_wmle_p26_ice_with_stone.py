"""P26 ice with a stone: the indicator and its resolution, a 1-px change left unresolved, reference vs twin."""

import numpy as np
import pytest

from lawful.perceive import noise
from lawful.perceive.regions import Reader
from lawful.runner.evaluate import evaluate_video
from lawful.suites.wmle._ice import level_change_uncertainty as resolution, window_sigma
from lawful.suites.wmle.p26_ice_with_stone import IceWithStone, level_drop
from lawful.tracks import Tracks
from lawful.video import write_video


def test_indicator_and_resolution():
    assert level_drop(-5.0, 1.4, 130.0).value == 1.0
    assert level_drop(-5.0, 1.4, 130.0).residual == pytest.approx(-5 / 130)
    assert level_drop(5.0, 1.4, 130.0).value == 0.0 and level_drop(5.0, 1.4, 130.0).status == "measured"
    assert level_drop(-1.2, 1.4, 130.0).status == "operational_zero"
    assert resolution(0.3, 0.4) == pytest.approx(max(1.0, noise.k_for() * 0.5))
    assert resolution(0.01, 0.01) == 1.0
    rows = np.array([10.0, 10.0, 10.0, 11.0, 9.0])
    assert window_sigma(rows, np.array([0.2])) == pytest.approx(0.2)
    assert window_sigma(np.array([1.0, 2, 3, 4, 5]), np.array([0.2])) == pytest.approx(1.4826)


def _read(task, case, law):
    """Tracks holding only the task's region readings of the rendered frames (no codec)."""
    frames = list(task.render(case, law))
    r = Reader(task.probes(case), (case.width, case.height), 1.0, 1.0, margin=False)
    for f in frames:
        r.add(f)
    tr = Tracks.empty([], len(frames), fps=case.fps)
    tr.regions = r.read(None)
    return tr


def test_a_one_pixel_drop_is_unresolved_and_a_few_pixels_are_scored():
    task = IceWithStone()
    case, _ = task.make_case(0, 1000)
    case = case.model_copy(update={"fps": 12.0})  # half the frames: the windows still hold ≥ 5
    got = task.metrics(case, task.measure(case, _read(task, case, "true")))
    assert got["M1"].value == 1.0 and got["M1"].components["d_px"] == pytest.approx(-case.known["level_drop_px"],
                                                                                      abs=0.1)
    case.known["level_drop_px"] = 1.0
    got = task.metrics(case, task.measure(case, _read(task, case, "true")))
    assert got["M1"].status == "operational_zero" and "resolution" in got["M1"].reason
    assert got["M1"].components["d_px"] == pytest.approx(-1.0, abs=0.1)


def test_reference_and_twin_end_to_end(tmp_path):
    task = IceWithStone()
    case, _ = task.make_case(2, 1002)
    case = case.model_copy(update={"fps": 12.0})  # half the frames: the windows still hold ≥ 5
    out = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        out[law] = evaluate_video(case, path, task).scores["P26"]
        assert out[law].metrics["C"] == pytest.approx(100.0)
    assert out["true"].metrics["P"] == 100.0 and out["anti"].metrics["P"] == 0.0
    assert out["anti"].residuals["M1"] > 0 and out["anti"].extra["metric_status"]["M1"] == "measured"


def _bands(case, left_after, right_after, ice_after=(), T=60):
    """Tracks with two water bands at row 180 before and ``*_after`` after the melt (noise 0.05 px), and the ice
    seen in the first half plus at the samples ``ice_after``."""
    from lawful.perceive.regions import RegionSeries

    rng = np.random.default_rng(0)
    tr = Tracks.empty([], T, fps=case.fps)
    for name, y1 in (("water_left", left_after), ("water_right", right_after)):
        rows = np.where(np.arange(T) < T // 2, 180.0, y1) + rng.normal(0, 0.05, T)
        tr.regions[name] = RegionSeries.from_values(name, "level", sigma=0.1, row=rows, contrast=np.full(T, 25.0))
    area = np.where(np.arange(T) < T // 2, 3000.0, np.nan)
    area[list(ice_after)] = 25.0
    tr.regions["ice"] = RegionSeries.from_values("ice", "blobs", area=area[:, None])
    return tr


def test_a_lone_ice_sighting_and_a_stale_band_leave_the_drop_scored():
    """CRF 35 (studio P26, index 0): a 25-px ice-coloured blob in one end frame, and one band whose surface the
    codec kept at the old row. One end sighting is not ice; a band that resolves no change says nothing."""
    task = IceWithStone()
    case, _ = task.make_case(0, 1000)
    from lawful.suites.wmle.p25_ice_melt_fresh import windows

    first = int(np.flatnonzero(windows(60)[1])[3])
    tr = _bands(case, 183.0, 180.4, ice_after=[first])
    got = task.metrics(case, task.measure(case, tr))["M1"]
    assert got.value == 1.0 and got.components["d_px"] == pytest.approx(-3.0, abs=0.05)
    tr = _bands(case, 183.0, 183.0, ice_after=[first, first + 1])  # ice in two neighbouring samples: seen
    assert "ice still seen" in task.metrics(case, task.measure(case, tr))["M1"].reason
    tr = _bands(case, 183.0, 177.0)  # one band falls, the other rises: unresolved, never a guess
    got = task.metrics(case, task.measure(case, tr))["M1"]
    assert got.status == "operational_zero" and "opposite signs" in got.reason
