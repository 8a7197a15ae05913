"""Styles and the object palette."""

import colorsys

import numpy as np

from lawful.world.appearance import OBJECT_PALETTE, Style, object_colors, saturation, style_variant


def test_default_and_deterministic_variants():
    assert style_variant(None) == Style()
    assert style_variant(7) == style_variant(7)
    assert len({style_variant(s) for s in range(12)}) == 12
    assert len({(style_variant(s).texture, style_variant(s).ground_texture) for s in range(15)}) == 15


def test_scene_colours_low_saturation():
    for seed in [None, *range(60)]:
        st = style_variant(seed)
        for c in (st.backdrop_top, st.backdrop_bottom, st.ground_color, st.ground_edge, st.ramp_color):
            assert saturation(c) <= 0.25 + 1e-9, (seed, c)
        assert abs(np.hypot(*st.light_dir) - 1) < 1e-9 and st.light_dir[1] < 0  # light from above


def test_palette_saturated_and_distinct():
    assert len(OBJECT_PALETTE) >= 8
    hues = []
    for c in OBJECT_PALETTE:
        h, s, v = colorsys.rgb_to_hsv(*(x / 255 for x in c))
        assert s >= 0.75 and v >= 0.6
        hues.append(h * 360)
    for i in range(len(hues)):
        for j in range(i + 1, len(hues)):
            assert abs((hues[i] - hues[j] + 180) % 360 - 180) >= 20


def test_object_colors_distinct_and_deterministic():
    a = object_colors(5, 4)
    assert a == object_colors(5, 4) and len(set(a)) == 4 and set(a) <= set(OBJECT_PALETTE)
    assert object_colors(None, 3) == OBJECT_PALETTE[:3]
    assert len({tuple(object_colors(s, 3)) for s in range(10)}) > 3
