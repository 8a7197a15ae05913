"""C's ``reading_order``: frames out of order seen in region readings (levels, profiles), and a
level's ``band`` (a surface seen as a strip), on hand-made readings whose truth is known."""

import math

import numpy as np
import pytest

from lawful.perceive import region_kinds
from lawful.perceive.regions import Probe, RegionSeries
from lawful.suites.wmle.common import measure_consistency
from lawful.suites.wmle.consistency import reading_steps, zigzags
from lawful.tracks import Tracks

FPS = 24.0
T = 72
SWAP = [i ^ 1 if (i ^ 1) < T else i for i in range(T)]  # neighbouring frames swapped


def _slosh(t):
    """A level's row swinging 40 px about row 170 with a period of 1.25 s, dying away (a U-tube's liquid)."""
    return 170 + 40 * np.exp(-1.2 * t) * np.cos(2 * np.pi * t / 1.25)


def _level(rows, sigma=0.3, band=1.0):
    rows = np.asarray(rows, float)
    return RegionSeries.from_values("arm", "level", sigma=sigma, row=rows, contrast=np.full(len(rows), 60.0),
                                    band=np.broadcast_to(np.asarray(band, float), rows.shape).copy())


def _checks(**regions):
    tr = Tracks.empty([], T, fps=FPS)
    tr.regions = dict(regions)
    return measure_consistency(tr, [], [], [], frame=(640, 360))


def test_zigzags_are_runs_of_three_big_steps_turning_back_twice():
    s = np.array([[6.0], [-4.0], [6.0], [-4.0], [6.0]])
    assert zigzags(s, np.ones(5, bool)) == (3, 3)
    assert zigzags(s, np.array([True, True, False, True, True])) == (0, 0)  # a small step breaks every run
    assert zigzags(np.array([[1.0], [2.0], [3.0], [-1.0]]), np.ones(4, bool)) == (0, 2)  # one turn: no zigzag


def test_a_sloshing_level_in_order_has_no_zigzag_and_swapped_frames_are_all_zigzags():
    rows = _slosh(np.arange(T) / FPS)
    chk = _checks(arm=_level(rows))
    z, runs = chk.notes["reading_zigzags"]["arm"]
    assert runs > 5 and z == 0 and chk.reading_order == 1.0 and chk.C == 100.0
    chk = _checks(arm=_level(rows[SWAP]))
    z, runs = chk.notes["reading_zigzags"]["arm"]
    assert runs > 5 and z == runs and chk.reading_order == 0.0 and chk.C == 0.0


def test_a_level_flipping_across_its_band_is_no_zigzag():
    # at the top of its swing the surface is a 7-px strip and the best step lands on either side of it
    rows = _slosh(np.arange(T) / FPS)
    flip = rows + 6.5 * (np.arange(T) % 2)
    assert _checks(arm=_level(flip, band=1.0)).reading_order < 0.5  # read as a sharp edge: it zigzags
    chk = _checks(arm=_level(flip, band=7.0))
    assert chk.notes["reading_zigzags"]["arm"][0] == 0 and chk.reading_order == 1.0


def test_steps_within_the_stated_error_are_no_runs():
    rows = 170 + 2.0 * (np.arange(T) % 2)  # 2 px flicker of a still level
    assert _checks(arm=_level(rows, sigma=0.3, band=0.0)).reading_order == 0.0  # beyond k·σ·√2 = 1.4 px
    assert _checks(arm=_level(rows, sigma=0.5, band=0.0)).notes["reading_zigzags"]["arm"] == [0, 0]  # within 2.3


def test_a_profile_swapped_zigzags_on_its_mean_top():
    t = np.arange(T) / FPS
    top = 330 - 96 * t[:, None] + 0.1 * np.arange(40)[None, :]  # a pile rising 4 px a frame (beyond 2 × 1.5)
    top[:, :5] = np.nan  # columns never read
    pile = RegionSeries.from_values("pile", "profile", sigma=np.nan, top=top)
    assert _checks(pile=pile).notes["reading_zigzags"]["pile"] == [0, T - 3]
    chk = _checks(pile=RegionSeries.from_values("pile", "profile", sigma=np.nan, top=top[SWAP]))
    assert chk.reading_order == 0.0


def test_lines_brightness_and_blobs_are_not_checked():
    flicker = 100 + 20 * (np.arange(T) % 2)  # a lamp's exposure flicker
    lamp = RegionSeries.from_values("lamp", "brightness", sigma=0.1, luma=flicker)
    beam = RegionSeries.from_values("beam", "line", sigma=0.1, angle=0.2 + 0.05 * (np.arange(T) % 2),
                                    angle_sd=np.full(T, 0.001))  # a still shadow's direction scattering
    drops = RegionSeries.from_values("drops", "blobs", sigma=np.nan, x=(100 + 9.0 * (np.arange(T) % 2))[:, None],
                                     y=np.full((T, 1), 50.0))
    chk = _checks(lamp=lamp, beam=beam, drops=drops)
    assert chk.reading_order == 1.0 and "reading_zigzags" not in chk.notes
    assert reading_steps(beam, 1.5) is None


def test_the_interval_bounds_the_steps():
    rows = _slosh(np.arange(T) / FPS)
    rows[:40] = rows[:40][SWAP[:40]]  # swapped up to sample 40
    tr = Tracks.empty([], T, fps=FPS)
    tr.regions = {"arm": _level(rows)}
    after = measure_consistency(tr, [], [], [], interval=(40, T), frame=(640, 360))
    assert after.reading_order == 1.0
    assert measure_consistency(tr, [], [], [], frame=(640, 360)).reading_order < 1.0


# --- the band ---------------------------------------------------------------------------------------------------
def _surface(edge: float, strip: int = 0, h=60, w=16):
    """Air (200) over water (145); ``strip`` rows above the water are a surface strip at 168 (a tilted surface
    seen edge-on); the air's share of the edge row is area-sampled."""
    img = np.zeros((h, w, 3), np.float32)
    for y in range(h):
        share = np.clip(edge - (y - 0.5), 0, 1)
        below = 168.0 if edge <= y < edge + strip else 145.0
        img[y] = share * 200.0 + (1 - share) * below
    return img


@pytest.mark.parametrize("edge", [24.0, 24.5, 25.3])
def test_band_of_a_sharp_surface_is_at_most_one_row(edge):
    img = _surface(edge)
    p = Probe("s", "level", (0, 0, img.shape[1] - 1, img.shape[0] - 1))
    mask = np.ones(img.shape[:2], bool)
    vals, _ = region_kinds._level(p, img, mask, region_kinds._learn(p, img, mask))
    assert vals["band"] <= 1 and vals["row"] == pytest.approx(edge, abs=0.05)


def test_band_of_a_surface_strip_is_its_width():
    img = _surface(24.0, strip=7)
    p = Probe("s", "level", (0, 0, img.shape[1] - 1, img.shape[0] - 1))
    mask = np.ones(img.shape[:2], bool)
    vals, _ = region_kinds._level(p, img, mask, region_kinds._learn(p, img, mask))
    assert vals["band"] == 7
    assert 24.0 - 0.5 <= vals["row"] <= 31.0 + 0.5  # somewhere across the strip
    assert math.isfinite(vals["contrast"])
