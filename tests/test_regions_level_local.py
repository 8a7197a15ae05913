"""A level read where a medium's colour changes with height (a backdrop seen through a glass): the sub-pixel
step is taken against each medium as the rows next to it show it, not as the band's far rows do."""

import numpy as np
import pytest

from lawful.perceive import region_kinds
from lawful.perceive.regions import Probe


def _band(edge: float, top_air, near_air, water, h=80, w=20):
    """Rows 0..h-1; air above ``edge`` (px, pixel centres at integers) fading from ``top_air`` to ``near_air``
    over the band's upper rows and ``near_air`` over the 12 rows above the edge; water below; the edge row is
    area-sampled."""
    img = np.zeros((h, w, 3), np.float32)
    for y in range(h):
        air = np.asarray(top_air, float) + (np.asarray(near_air, float) - top_air) * min(y / (edge - 12), 1.0)
        share = np.clip(edge - (y - 0.5), 0, 1)  # the air's share of row y
        img[y] = share * air + (1 - share) * np.asarray(water, float)
    return img


# the two open-water bands of a studio P22 scene (portrait): far air, near air, water (RGB); the near air is
# 0.22 and -0.48 of the way from the far air to the water (read 0.6 px and 1.3 px off before)
BANDS = [((181, 135, 180), (162, 136, 176), (96, 139, 162)), ((117.5, 130, 124.5), (139.8, 135, 121.4), (71, 119.5, 131))]


@pytest.mark.parametrize("edge", [37.3, 41.75])
@pytest.mark.parametrize("media", BANDS)
def test_level_is_exact_when_the_upper_medium_changes_with_height(edge, media):
    img = _band(edge, *media)
    p = Probe("s", "level", (0, 0, img.shape[1] - 1, img.shape[0] - 1))
    mask = np.ones(img.shape[:2], bool)
    (vals, _sigma) = region_kinds._level(p, img, mask, region_kinds._learn(p, img, mask))
    assert vals["row"] == pytest.approx(edge, abs=0.02)  # the boundary, pixel centres at integers


def test_level_unchanged_on_uniform_media():
    img = _band(30.4, (200, 200, 190), (200, 200, 190), (40, 90, 200))
    p = Probe("s", "level", (0, 0, img.shape[1] - 1, img.shape[0] - 1))
    mask = np.ones(img.shape[:2], bool)
    vals, _ = region_kinds._level(p, img, mask, region_kinds._learn(p, img, mask))
    assert vals["row"] == pytest.approx(30.4, abs=1e-3)


def _shadowed_band(edge: float, h=214, w=24, stripes=0.0):
    """A studio P25 band (seed 6000, colours as read there): grey backdrop, a shadow over the 18 rows above the
    surface, water brighter than the darker water of the bottom 36 rows (from which the water's colour is learned);
    ``stripes``: an alternating offset (grey levels) on the rows next to the surface."""
    air, shadow, water, floor = (150, 151, 156), (136, 137, 142), (140, 160, 193), (147, 156, 183)
    img = np.zeros((h, w, 3), np.float32)
    for y in range(h):
        above = np.asarray(shadow if y > edge - 18 else air, float)
        below = np.asarray(floor if y >= h - 36 else water, float)
        share = np.clip(edge - (y - 0.5), 0, 1)
        img[y] = share * above + (1 - share) * below
        if abs(y - edge) < 12 and abs(y - edge) > 2:
            img[y] += stripes * (1 if y % 2 else -1)
    return img


@pytest.mark.parametrize("edge", [60.4, 97.3])
def test_level_read_next_to_the_surface_where_the_band_is_more_than_two_media(edge, monkeypatch):
    img = _shadowed_band(edge)
    p = Probe("s", "level", (0, 0, img.shape[1] - 1, img.shape[0] - 1))
    mask = np.ones(img.shape[:2], bool)
    state = region_kinds._learn(p, img, mask)
    vals, sigma = region_kinds._level(p, img, mask, state)
    assert vals["row"] == pytest.approx(edge, abs=0.02) and sigma < 0.5
    monkeypatch.setattr(region_kinds, "_local_noise", lambda f, k: None)  # the whole band alone is not two media
    assert region_kinds._level(p, img, mask, state) is None


def test_level_not_read_where_the_rows_next_to_the_step_are_not_two_media():
    img = _shadowed_band(97.3, stripes=20.0)
    p = Probe("s", "level", (0, 0, img.shape[1] - 1, img.shape[0] - 1))
    mask = np.ones(img.shape[:2], bool)
    assert region_kinds._level(p, img, mask, region_kinds._learn(p, img, mask)) is None
