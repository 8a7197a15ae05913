"""Blob extents to a fraction of a pixel (``edges="subpixel"``): two walls whose inner edges cut pixels part-way,
under pixel noise, read where the edges are, while pixel extents step a whole pixel at a time."""

import cv2
import numpy as np
import pytest

from lawful.perceive import region_kinds
from lawful.perceive.regions import Probe

WALL, WATER = np.array([77, 83, 80], float), np.array([150, 172, 196], float)


def _strip(left_edge: float, right_edge: float, rng, h=14, w=140, sd=3.0):
    """Walls over ``x < left_edge`` (from x = 12) and ``x > right_edge`` (to x = w - 12), pixel centres at integers,
    each pixel the area mix of wall and water, plus Gaussian noise."""
    x = np.arange(w)
    cover = np.clip(left_edge - (x - 0.5), 0, 1) * (x >= 12) + np.clip((x + 0.5) - right_edge, 0, 1) * (x < w - 12)
    img = WATER + cover[:, None] * (WALL - WATER)
    return np.clip(np.broadcast_to(img, (h, w, 3)) + rng.normal(0, sd, (h, w, 3)), 0, 255).astype(np.float32)


def _read(img, edges):
    p = Probe("walls", "blobs", (0, 0, img.shape[1] - 1, img.shape[0] - 1), color=tuple(WALL.astype(int)), count=2,
              fit="none", edges=edges)
    mask = np.ones(img.shape[:2], bool)
    vals, _ = region_kinds._blobs(p, img, mask, region_kinds._learn(p, img, mask))
    return vals["x1"][0], vals["x0"][1]


@pytest.mark.parametrize("left, right", [(40.4, 101.8), (33.0, 120.25), (50.5, 90.5)])
def test_inner_edges_read_to_a_tenth_of_a_pixel(left, right):
    rng = np.random.default_rng(7)
    for _ in range(5):
        x1, x0 = _read(_strip(left, right, rng), "subpixel")
        assert x1 == pytest.approx(left, abs=0.1) and x0 == pytest.approx(right, abs=0.1)


def test_subpixel_edges_follow_a_wall_that_moves_within_a_pixel():
    """A wall shaken by a fraction of a pixel: pixel extents stay or jump a whole pixel, sub-pixel ones follow."""
    rng = np.random.default_rng(3)
    pixel, sub = [], []
    for shift in np.linspace(0.0, 0.9, 10):
        img = _strip(40.3 + shift, 101.3 + shift, rng)
        pixel.append(_read(img, "pixel")[0])
        sub.append(_read(img, "subpixel")[0])
    assert set(np.round(np.array(pixel) % 1, 6)) == {0.5} and np.ptp(pixel) == 1.0
    assert np.allclose(sub, 40.3 + np.linspace(0.0, 0.9, 10), atol=0.1)


def _walls(img, pick):
    p = Probe("walls", "blobs", (0, 0, img.shape[1] - 1, img.shape[0] - 1), color=tuple(WALL.astype(int)), count=2,
              fit="none", edges="subpixel", pick=pick)
    mask = np.ones(img.shape[:2], bool)
    vals, _ = region_kinds._blobs(p, img, mask, region_kinds._learn(p, img, mask))
    return vals


def test_walls_pick_one_wall_each_side_past_a_split_wall_and_a_stone():
    """The left wall shows as two pieces (a backdrop patch of nearly its colour beside it, a gap between), both
    larger than the thin right wall, and a dark stone sinks through the water between: the two largest blobs are
    both on the left (an inside width of a few px), while ``pick="walls"`` reads the left wall's inner edge and the
    right wall's."""
    rng = np.random.default_rng(5)
    img = _strip(40.4, 120.3, rng, w=140).copy()
    img[:, 30:32] = WATER  # the left wall (x 12-40) cut in two: an 18-px piece and the 9-px wall next to the water ...
    img[4:10, 70:76] = WALL  # ... and a stone in the water, 6 x 6 px
    largest = _walls(img, "largest")
    assert largest["x1"][1] < 45  # both of the two largest on the left: a width of nothing
    vals = _walls(img, "walls")
    assert vals["x1"][0] == pytest.approx(40.4, abs=0.1) and vals["x0"][1] == pytest.approx(120.3, abs=0.1)
    assert vals["area"][1] < vals["area"][0]  # the right wall is the smallest of the three walls' pieces


def test_walls_pick_leaves_a_side_without_a_wall_empty():
    rng = np.random.default_rng(6)
    img = _strip(40.4, 200.0, rng, w=140)  # no right wall in the strip
    vals = _walls(img, "walls")
    assert vals["x1"][0] == pytest.approx(40.4, abs=0.1) and np.isnan(vals["x0"][1])
    with pytest.raises(ValueError, match="two blobs"):
        Probe("walls", "blobs", (0, 0, 9, 9), color=(1, 2, 3), count=3, pick="walls")


BACKDROP = np.array([229, 222, 222], float)


def _thin_walls(left: float, right: float, thick: float, blur: float, rng, h=16, w=140, sd=2.0):
    """Backdrop, a wall ``thick`` px wide centred on ``left``, water, a wall centred on ``right``, backdrop: each
    pixel the area mix, then a Gaussian defocus of ``blur`` px along the rows (0: none) and noise."""
    x = np.arange(w, dtype=float)

    def cover(c):  # share of pixel x inside [c - thick/2, c + thick/2]
        return np.clip(np.minimum(x + 0.5, c + thick / 2) - np.maximum(x - 0.5, c - thick / 2), 0, 1)

    inside = np.clip(x - left, 0, 1) * np.clip(right - x, 0, 1) > 0
    base = np.where(inside[:, None], WATER, BACKDROP)
    wall = np.maximum(cover(left), cover(right))[:, None]
    row = base + wall * (WALL - base)
    img = np.broadcast_to(row, (h, w, 3)).astype(np.float32)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), sigmaX=blur, sigmaY=0.1)
    return np.clip(img + rng.normal(0, sd, img.shape), 0, 255).astype(np.float32)


@pytest.mark.parametrize("left, right", [(30.3, 110.6), (25.0, 121.75), (41.5, 90.2)])
def test_walls_blurred_out_of_their_colour_are_read_at_their_centres(left, right):
    """Walls 2 px thick under a defocus of 2.2 px (flat P25 seed 8400 blurred: its walls' colour selection was empty,
    and the lawful clip scored 0): no blob of the wall colour; each wall's ``mid`` is its valley's centre, which the
    blurred step from backdrop to water beside it pulls towards the water (the side nearer the wall's colour) by half
    a pixel, in every sample alike; a wall moved by 0.4 px moves its ``mid`` by that."""
    rng = np.random.default_rng(11)
    for _ in range(4):
        vals = _walls(_thin_walls(left, right, 2.0, 2.2, rng), "walls")
        assert np.isnan(vals["x0"]).all()  # nothing of the wall's colour is left
        assert 0.3 < vals["mid"][0] - left < 0.7 and 0.3 < right - vals["mid"][1] < 0.7
    a = _walls(_thin_walls(left, right, 2.0, 2.2, rng, sd=0.5), "walls")["mid"]
    b = _walls(_thin_walls(left, right + 0.4, 2.0, 2.2, rng, sd=0.5), "walls")["mid"]
    assert b[1] - a[1] == pytest.approx(0.4, abs=0.05) and b[0] == pytest.approx(a[0], abs=0.05)


def test_sharp_walls_mids_and_no_wall_no_reading():
    """Sharp walls 3 px thick: blobs and ``mid`` (their centres to a tenth of a pixel); water alone, no wall: no
    reading, rather than a valley of noise."""
    rng = np.random.default_rng(12)
    vals = _walls(_thin_walls(30.3, 110.6, 3.0, 0.0, rng), "walls")
    assert vals["mid"][0] == pytest.approx(30.3, abs=0.1) and vals["mid"][1] == pytest.approx(110.6, abs=0.1)
    assert vals["x1"][0] > vals["mid"][0] > vals["x0"][0] and vals["x1"][1] > vals["mid"][1] > vals["x0"][1]
    water = np.clip(np.broadcast_to(WATER, (16, 140, 3)) + rng.normal(0, 2.0, (16, 140, 3)), 0, 255).astype(np.float32)
    p = Probe("walls", "blobs", (0, 0, 139, 15), color=tuple(WALL.astype(int)), count=2, fit="none", edges="subpixel",
              pick="walls")
    mask = np.ones((16, 140), bool)
    learnt = region_kinds._learn(p, _thin_walls(30.3, 110.6, 3.0, 0.0, rng), mask)  # learnt where the walls were
    assert region_kinds._blobs(p, water, mask, learnt) is None


def test_a_patch_of_the_walls_colour_in_the_water_is_not_the_wall():
    """Shaded water of nearly the wall's colour crossing the strip between the walls (studio P24 seed 8900: taken for
    the right wall in its first samples, 54 px inside it, and the vessel read half as wide as it is; the lawful clip
    scored 75.9 with C 100): a blob on a side is a piece of the wall only where it reaches halfway down that side's
    valley (a glass wall split by a highlight: both pieces do)."""
    rng = np.random.default_rng(13)
    img = _thin_walls(30.3, 110.6, 3.0, 0.0, rng).copy()
    img[:, 84:89] = 0.4 * WALL + 0.6 * WATER + rng.normal(0, 2.0, (16, 5, 3))  # 22 px inside the right wall, in the
    # wall colour's selection but less than halfway down the wall's valley from the water
    vals = _walls(img, "walls")
    assert vals["mid"][1] == pytest.approx(110.6, abs=0.1)
    assert vals["x0"][0] < vals["mid"][0] < vals["x1"][0] and vals["x0"][1] < vals["mid"][1] < vals["x1"][1]
    assert vals["x0"][1] > 107  # the wall's own inner edge; the patch's is at 83.5
