"""world/optics: Snell/TIR and reflection against closed forms, projective helpers, drawing read back exactly."""

import math

import numpy as np
import pytest

from lawful.perceive.regions import Probe, Reader
from lawful.world import optics


def test_snell_critical_angle_and_vector_forms():
    th = math.radians(30)
    assert optics.snell(th, 1.0, 1.333) == pytest.approx(math.asin(0.5 / 1.333), abs=1e-12)
    assert optics.critical_angle(1.333, 1.0) == pytest.approx(math.asin(1 / 1.333), abs=1e-12)
    assert math.isnan(optics.snell(math.radians(60), 1.333, 1.0))  # 1.333 sin 60° = 1.15 > 1
    assert math.isnan(optics.critical_angle(1.0, 1.333))
    d = np.array([math.sin(th), math.cos(th)])  # downwards through a horizontal surface (normal +y)
    r = optics.refract(d, [0, -1], 1.0, 1.333)
    assert math.asin(abs(r[0])) == pytest.approx(optics.snell(th, 1.0, 1.333), abs=1e-12) and r[1] > 0
    assert optics.refract([math.sin(1.0), math.cos(1.0)], [0, 1], 1.333, 1.0) is None  # 57° > 48.6°
    assert optics.reflect([1, 1], [0, -3]) == pytest.approx([1, -1])


def test_cross_ratio_is_projective():
    assert optics.cross_ratio([0, 1, 2, 3]) == pytest.approx(4 / 3)
    s = np.array([0.1, 0.35, 0.6, 0.9])
    pts = np.array([[50, 300], [250, 80]]) [0] + s[:, None] * np.array([200, -220])
    H = np.array([[1.05, 0.1, 3.0], [-0.04, 0.95, 8.0], [4e-4, -3e-4, 1.0]])
    t, rms = optics.collinear_positions(optics.apply_homography(H, pts))
    assert rms < 1e-9
    assert optics.cross_ratio(t) == pytest.approx(optics.cross_ratio(s), rel=1e-9)
    assert (t[1] - t[0]) / (t[3] - t[2]) != pytest.approx((s[1] - s[0]) / (s[3] - s[2]), rel=1e-3)  # ratios do not


def test_concurrence_and_pairwise_intersections():
    p0 = np.array([5.0, 7.0])
    dirs = np.array([[math.cos(a), math.sin(a)] for a in (0.1, 0.9, 2.0, 2.6)])
    pts = p0 + dirs * np.array([[30.0], [-12.0], [50.0], [8.0]])
    x, rms = optics.concurrence(pts, dirs)
    assert x == pytest.approx(p0, abs=1e-9) and rms < 1e-9
    inter = optics.pairwise_intersections(pts, dirs)
    assert inter.shape == (6, 2) and np.abs(inter - p0).max() < 1e-9
    # the four sides of a square of side 2 about the origin: common point the centre, every distance 1
    x, rms = optics.concurrence([[1, 0], [-1, 0], [0, 1], [0, -1]], [[0, 1], [0, 1], [1, 0], [1, 0]])
    assert x == pytest.approx([0, 0], abs=1e-12) and rms == pytest.approx(1.0)
    assert optics.point_line_distance([3, 4], [0, 0], [1, 0]) == pytest.approx(4.0)
    assert optics.line_angle_deg(math.radians(170), math.radians(10)) == pytest.approx(20.0)


def test_clip_segment():
    a, b = optics.clip_segment((-10, 5), (30, 5), 0, 0, 20, 10)
    assert a == pytest.approx((0, 5)) and b == pytest.approx((20, 5))
    a, b = optics.clip_segment((-10, -10), (30, 30), 0, 0, 20, 10)
    assert a == pytest.approx((0, 0)) and b == pytest.approx((10, 10))
    assert optics.clip_segment((-10, 20), (30, 20), 0, 0, 20, 10) is None


def test_clip_polygon_to_frame():
    poly = optics.clip_polygon([(-50, -50), (100, -50), (100, 100), (-50, 100)], 64, 36)
    xs, ys = zip(*poly)
    assert min(xs) == 0 and max(xs) == 63 and min(ys) == 0 and max(ys) == 35
    assert optics.clip_polygon([(-50, -50), (-10, -50), (-10, -10)], 64, 36) == []


def test_beam_centre_line_and_polygon_coverage_are_exact():
    img = np.full((120, 200, 3), 200, np.uint8)
    a = math.radians(23.0)
    p0, p1 = np.array([20.3, 30.7]), np.array([20.3 + 160 * math.cos(a), 30.7 + 160 * math.sin(a)])
    optics.draw_beam(img, p0, p1, (240, 40, 30))
    r = Reader([Probe("b", "line", (30, 20, 170, 110), color=(240, 40, 30))], (200, 120), 1.0, 1.0, False)
    r.add(img)
    got = r.read(None)["b"]
    assert abs(got["angle"][0] - a) < math.radians(0.05)
    dist = optics.point_line_distance([got["x"][0], got["y"][0]], p0, p1 - p0)
    assert dist < 0.05
    canvas = np.zeros((40, 40, 3), np.uint8)
    optics.fill_polygon(canvas, [(5.25, 5.5), (25.75, 5.5), (25.75, 20.25), (5.25, 20.25)], (255, 255, 255))
    assert canvas[..., 0].astype(float).sum() / 255 == pytest.approx(20.5 * 14.75, abs=1.0)
    tri = np.zeros((40, 40, 3), np.uint8)
    optics.fill_polygon(tri, [(3.0, 30.0), (33.0, 4.0), (33.0, 30.0)][::-1], (255, 255, 255))  # either winding
    assert tri[..., 0].astype(float).sum() / 255 == pytest.approx(0.5 * 30 * 26, abs=2.0)
