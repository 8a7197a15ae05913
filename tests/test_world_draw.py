"""World renderer: determinism, styles, colour fidelity, caching, shadows, markers."""

import math

import cv2
import numpy as np
import pytest

from lawful.world.appearance import OBJECT_PALETTE, style_variant
from lawful.world.draw import Block, Bob, Cone, Cylinder, Scene, Sphere, Spring, String

W, H, GROUND = 160, 120, 100


def _scene(seed=None):
    sc = Scene(W, H, style_variant(seed))
    sc.ground(GROUND)
    sc.ramp([(5, GROUND), (60, GROUND), (5, 60)])
    sc.support(80, 150, 10)
    return sc


def _items():
    return [Sphere(40, 40, 9, (220, 40, 40)), Block(100, 85, 20, 14, 0.3, (40, 90, 225)),
            Cylinder(130, 88, 12, (40, 175, 60), 1.0), Cone(70, 80, 8, 20, 0.0, (135, 45, 210)),
            String((110, 10), (110, 50)), Bob(110, 50, 6, (240, 215, 20)), Spring((140, 10), (140, 60), 6, 5)]


def _hue_deg(pixels_rgb: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(pixels_rgb.reshape(-1, 1, 3).astype(np.float32) / 255, cv2.COLOR_RGB2HSV)
    return hsv[:, 0, 0]


def _circ_diff(a, b):
    return abs((a - b + 180) % 360 - 180)


def _circ_mean(deg):
    r = np.deg2rad(deg)
    return np.rad2deg(np.arctan2(np.sin(r).mean(), np.cos(r).mean())) % 360


def test_same_seed_same_pixels():
    a = _scene(3).frame(_items())
    b = _scene(3).frame(_items())
    assert a.dtype == np.uint8 and a.shape == (H, W, 3)
    assert np.array_equal(a, b)


def test_style_variants_look_different():
    frames = [_scene(s).frame([]).astype(np.float32) for s in range(12)]
    for i in range(12):
        for j in range(i + 1, 12):
            assert np.abs(frames[i] - frames[j]).mean() > 3.0, (i, j)


def test_static_layer_is_low_saturation():
    for seed in [None, *range(12)]:
        img = _scene(seed).frame([])
        s = cv2.cvtColor(img, cv2.COLOR_RGB2HSV)[..., 1] / 255.0
        assert np.percentile(s, 99.5) <= 0.27, seed


@pytest.mark.parametrize("color", OBJECT_PALETTE)
def test_objects_keep_their_hue(color):
    target = _hue_deg(np.array(color, np.uint8))[0]
    for seed in (None, 4):
        sc = Scene(W, H, style_variant(seed)).ground(GROUND)
        for item, inside in [
            (Sphere(80, 60, 20, color), lambda dx, dy: dx * dx + dy * dy < 19**2),
            (Bob(80, 60, 20, color), lambda dx, dy: dx * dx + dy * dy < 19**2),
            (Block(80, 60, 40, 30, 0.0, color), lambda dx, dy: (abs(dx) < 19) & (abs(dy) < 14)),
            (Cylinder(80, 60, 20, color, 0.5), lambda dx, dy: dx * dx + dy * dy < 19**2),
            (Cylinder(80, 60, 20, color, 0.5, hollow=True), lambda dx, dy: dx * dx + dy * dy < 19**2),
            (Cone(80, 60, 20, 40, 0.0, color), lambda dx, dy: (abs(dx) < 20 * (dy + 20) / 40 - 1.5) & (dy < 19)),
        ]:
            img = sc.frame([item])
            yy, xx = np.mgrid[:H, :W]
            px = img[inside(xx - 80, yy - 60)]
            assert _circ_diff(_circ_mean(_hue_deg(px)), target) < 10, (type(item).__name__, color)


def test_sphere_pixels_centred_on_its_centre():
    sc = _scene(None)
    base = sc.frame([]).astype(int)
    img = sc.frame([Sphere(70.3, 50.6, 10, (40, 90, 225))]).astype(int)
    w = (np.abs(img - base).sum(-1) > 60).astype(float)  # object mask
    yy, xx = np.mgrid[:H, :W]
    assert abs((w * xx).sum() / w.sum() - 70.3) < 0.25
    assert abs((w * yy).sum() / w.sum() - 50.6) < 0.25


def test_static_layer_cached_and_invalidated():
    sc = _scene(1)
    a = sc.frame(_items())
    sc.frame([])
    assert sc.static_builds == 1
    assert not np.array_equal(a, sc.static_layer)  # drawing never writes into the cache
    sc.marker_line((120, GROUND), (120, 70))
    sc.frame([])
    assert sc.static_builds == 2


def test_contact_shadow_only_near_ground():
    sc = _scene(None)
    base = sc.frame([]).astype(int)
    ground_rows = slice(GROUND + 1, GROUND + 6)
    resting = sc.frame([Sphere(100, GROUND - 10, 10, (220, 40, 40))]).astype(int)
    darker = (base - resting)[ground_rows, 90:111].sum(-1)
    assert darker.mean() > 20
    shadow = resting[ground_rows, 95:106].astype(np.uint8)
    s = cv2.cvtColor(shadow, cv2.COLOR_RGB2HSV)[..., 1] / 255.0
    assert s.max() < 0.3
    high = sc.frame([Sphere(100, GROUND - 45, 10, (220, 40, 40))]).astype(int)
    assert np.array_equal(high[GROUND - 2:], base[GROUND - 2:])


def test_cylinder_marker_points_along_angle():
    color = (40, 175, 60)
    sc = Scene(W, H, style_variant(None))
    for angle in (0.0, 1.0, 2.5, -2.0):
        img = sc.frame([Cylinder(80, 60, 25, color, angle)]).astype(float)
        ux, uy = math.cos(angle), math.sin(angle)
        on = img[round(60 + 14 * uy), round(80 + 14 * ux)]
        off = img[round(60 - 14 * uy), round(80 - 14 * ux)]
        assert np.abs(on - off).sum() > 150, angle


def test_hollow_cylinder_has_dark_inside_same_hue():
    color = (245, 120, 20)
    img = Scene(W, H, style_variant(None)).frame([Cylinder(80, 60, 25, color, 0.0, hollow=True)])
    centre = img[56:65, 76:85].reshape(-1, 3).astype(float)
    rim = img[60 - 21, 78:83].reshape(-1, 3).astype(float)
    assert centre.sum(1).mean() < 0.6 * rim.sum(1).mean()
    assert _circ_diff(_circ_mean(_hue_deg(centre.astype(np.uint8))), _hue_deg(np.array(color, np.uint8))[0]) < 10


def test_block_quarter_turn_swaps_sides():
    sc = Scene(W, H, style_variant(None))
    base = sc.frame([]).astype(int)

    def mask(item):
        return np.abs(sc.frame([item]).astype(int) - base).sum(-1) > 40

    turned = mask(Block(80, 60, 40, 16, math.pi / 2, (220, 40, 40)))
    ys, xs = np.nonzero(turned)
    assert 14 <= xs.max() - xs.min() + 1 <= 18 and 38 <= ys.max() - ys.min() + 1 <= 42


def test_cone_apex_up_and_rotates():
    sc = Scene(W, H, style_variant(None))
    base = sc.frame([]).astype(int)
    up = np.abs(sc.frame([Cone(80, 60, 15, 40, 0.0, (135, 45, 210))]).astype(int) - base).sum(-1) > 40
    width = up.sum(1)
    assert width[45] < 6 < width[75]  # narrow near the apex (y = 40), wide near the base (y = 80)
    down = np.abs(sc.frame([Cone(80, 60, 15, 40, math.pi, (135, 45, 210))]).astype(int) - base).sum(-1) > 40
    assert down.sum(1)[45] > 20 > down.sum(1)[75]


def test_string_and_spring_are_drawn():
    sc = Scene(W, H, style_variant(None))
    base = sc.frame([]).astype(int)
    img = sc.frame([String((40, 10), (40, 100)), Spring((100, 10), (100, 110), coils=8, radius=10)]).astype(int)
    diff = np.abs(img - base).sum(-1)
    assert diff[55, 39:42].max() > 150 and diff[55, :30].max() == 0
    cols = np.nonzero(diff[20:100, 80:121].max(0) > 60)[0]
    assert 18 <= cols.max() - cols.min() <= 26  # coil spans about 2 * radius


def test_offscreen_and_partial_items_are_safe():
    sc = _scene(2)
    img = sc.frame([Sphere(-50, -50, 10, (220, 40, 40)), Block(W - 2, 40, 30, 30, 0.4, (40, 90, 225)),
                    Cylinder(3, H - 3, 15, (40, 175, 60), 0.0, hollow=True), Cone(W + 100, 0, 5, 5, 0, (1, 2, 3))])
    assert img.shape == (H, W, 3)


def test_backdrop_has_trackable_corners():
    for seed in range(5):  # one of each backdrop texture
        sc = Scene(320, 180, style_variant(seed)).ground(160)
        gray = cv2.cvtColor(sc.static_layer, cv2.COLOR_RGB2GRAY)
        corners = cv2.goodFeaturesToTrack(gray[:150], 200, 0.01, 8)
        assert corners is not None and len(corners) >= 15, (seed, style_variant(seed).texture)
