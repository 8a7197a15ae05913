"""P25 ice melting in fresh water: M1/M2 formulas, windows, hand-made readings, rendered reference vs twin."""

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p25_ice_melt_fresh import IceMeltFresh, level_change, width_change, windows
from lawful.tracks import Tracks
from lawful.video import write_video


def test_metric_formulas():
    m = level_change(190.0, 180.0, 260.0)
    assert m.residual == pytest.approx(10 / 260) and m.value == pytest.approx(q(10 / 260, 0.05))
    m = width_change(257.0, 259.0)
    assert m.residual == pytest.approx(2 / 257) and m.value == pytest.approx(1 / (1 + 2 / 257 / 0.05))
    assert level_change(None, 180.0, 260.0).status == "operational_zero"
    before, after = windows(120)
    assert before.sum() == 10 and after.sum() == 18 and before[:10].all() and after[-18:].all()


def _tracks(T, y, ice_area, walls, y_right=None):
    tr = Tracks.empty([], T, fps=24.0)
    tr.regions = {b: RegionSeries.from_values(b, "level", 0.2, row=v)
                  for b, v in (("water_left", y), ("water_right", y if y_right is None else y_right))}
    tr.regions["ice"] = RegionSeries.from_values("ice", "blobs", np.nan, area=ice_area[:, None])
    tr.regions["walls"] = RegionSeries.from_values("walls", "blobs", np.nan, x0=walls[:, [0, 2]], x1=walls[:, [1, 3]])
    return tr


def test_extraction_from_hand_made_readings():
    task = IceMeltFresh()
    case, _ = task.make_case(0, 1000)
    T = 120
    y = np.full(T, 190.0)
    y[60:] = 186.0  # the level rose 4 px
    ice = np.where(np.arange(T) < 90, 400.0, np.nan)
    walls = np.tile([100.5, 103.5, 357.5, 360.5], (T, 1))
    walls[-5:, 2] = 359.5  # the right wall moved out 2 px at the very end (5 of the 18 after-samples)
    m = task.measure(case, _tracks(T, y, ice, walls))
    got = task.metrics(case, m)
    H = case.known["vessel"][3] - case.known["vessel"][1]
    assert got["M1"].residual == pytest.approx(4 / H)
    assert got["M2"].residual == pytest.approx(0.0)  # the median of the after window is still 254
    assert m.notes["C"] == pytest.approx(100.0)
    ice_stays = np.full(T, 400.0)
    got = task.metrics(case, task.measure(case, _tracks(T, y, ice_stays, walls)))
    assert got["M1"].status == "operational_zero" and "still" in got["M1"].reason


def test_bands_that_disagree_by_the_metric_scale_leave_the_level_unread():
    """Studio P25 seed 8700: one band read a dark backdrop shape's top edge 56 px above the surface in every sample;
    averaged with the other, the level moved 26 px as the ice melted. The open water either side is one surface:
    samples whose bands lie more than 0.05 of the vessel's height apart are not read, and C says what share do."""
    task = IceMeltFresh()
    case, _ = task.make_case(0, 1000)
    T, H = 120, case.known["vessel"][3] - case.known["vessel"][1]
    y = np.full(T, 190.0)
    ice = np.where(np.arange(T) < 90, 400.0, np.nan)
    walls = np.tile([100.5, 103.5, 357.5, 360.5], (T, 1))
    right = y - 0.06 * H  # apart in every sample: nothing read, C 0
    m = task.measure(case, _tracks(T, y, ice, walls, right))
    assert "too few readable levels" in m.notes["unresolved"] and m.notes["C"] == pytest.approx(0.0)
    right = np.where(np.arange(T) % 4 == 0, y - 0.06 * H, y - 0.04 * H)  # a quarter apart; within the scale, the mean
    m = task.measure(case, _tracks(T, y, ice, walls, right))
    assert m.notes["C_checks"]["levels_agree"] == pytest.approx(0.75)
    assert m.get("level_before_px") == pytest.approx(190.0 - 0.02 * H)


def test_reference_and_twin_end_to_end(tmp_path):
    task = IceMeltFresh()
    case, _ = task.make_case(1, 1001)
    case = case.model_copy(update={"fps": 12.0})  # half the frames: the windows still hold ≥ 5
    out = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        out[law] = evaluate_video(case, path, task).scores["P25"]
        assert out[law].metrics["C"] == pytest.approx(100.0)
    H = case.known["vessel"][3] - case.known["vessel"][1]
    assert out["true"].metrics["P"] >= 99 and abs(out["true"].residuals["M1"]) * H < 0.3
    assert out["anti"].residuals["M1"] == pytest.approx(case.truth.quantities["anti_e1"], abs=0.5 / H)
    assert out["anti"].metrics["P"] < 85


def test_a_lone_end_sighting_is_not_ice_two_in_a_row_are():
    from lawful.suites.wmle._ice import melt_seen

    ok = np.zeros(40, bool)
    ok[:10] = True
    before, after = np.arange(40) < 10, np.arange(40) >= 30
    lone = ok.copy()
    lone[35] = True  # one frame's ice-coloured artefact
    assert melt_seen(lone, before, after) == ""
    pair = lone.copy()
    pair[36] = True
    assert melt_seen(pair, before, after) == "ice still seen at the end"
    assert melt_seen(np.zeros(40, bool), before, after) == "no ice seen at the start"


def test_a_wall_seen_beside_a_patch_of_backdrop_is_one_wall(tmp_path):
    """Seed 7200: in the first samples the walls strip selects a patch of the grey backdrop beside the left wall as
    well, and with the wall that made the two largest blobs, both on the left: the inside width read 0.2 px before
    the melt, M2 was 0 and the lawful clip scored 50. One wall each side (``pick="walls"``) reads the glass's
    width before and after."""
    task = IceMeltFresh()
    case, _ = task.make_case(0, 7200)
    case = case.model_copy(update={"fps": 12.0})
    path = write_video(tmp_path / "true.mp4", task.render(case, "true"), case.fps)
    ev = evaluate_video(case, path, task)
    inside = case.known["vessel"][2] - case.known["vessel"][0]
    assert ev.scores["P25"].metrics["P"] >= 99
    for when in ("before", "after"):
        assert ev.evidence["quantities"][f"width_{when}_px"] == pytest.approx(inside, abs=1.0)


def test_walls_blurred_out_of_their_colour_still_give_the_width(tmp_path):
    """Flat seed 8400 under ``lawful validate``'s defocus: the walls (3 px) blur out of their colour, nothing of it
    was selected, C read 0 (``readable_walls``) and the lawful clip scored 0. Each wall's valley still holds its
    centre: the walls are read in every sample and the width before and after agree."""
    from lawful.world import perturb

    task = IceMeltFresh()
    case, _ = task.make_case(0, 8400)
    case = case.model_copy(update={"fps": 12.0})
    frames = perturb.defocus(list(task.render(case, "true")), 0.003)
    path = write_video(tmp_path / "blur.mp4", iter(frames), case.fps)
    sc = evaluate_video(case, path, task).scores["P25"]
    assert sc.extra["C_checks"]["readable_walls"] == 1.0 and sc.metrics["C"] == 100.0
    assert sc.residuals["M2"] < 0.002 and sc.metrics["P"] >= 97
