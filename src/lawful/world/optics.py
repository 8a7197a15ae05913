"""Optics and projective geometry for the WMLE optics tasks (P16–P20): laws, line geometry, drawing.

Laws and geometry (pure functions, tested against closed forms):

- :func:`snell` (refraction angle, NaN beyond the critical angle), :func:`critical_angle`,
  :func:`reflect`, :func:`refract` (direction vectors);
- :func:`cross_ratio` of four collinear positions, :func:`collinear_positions` (PCA line, ordered
  positions along it, perpendicular RMS), :func:`apply_homography`;
- lines as ``(point, direction)``: :func:`intersect`, :func:`concurrence` (least-squares common point
  and the RMS of the lines' distances to it), :func:`pairwise_intersections`, :func:`point_line_distance`;
- :func:`clip_polygon` (a convex polygon cut to the frame), :func:`clip_segment`, :func:`line_angle_deg`.

Drawing (anti-aliased, in place on ``uint8`` RGB images; pixel centres at integer coordinates):
:func:`draw_beam` (a laser beam: a solid core of given width with a symmetric glow, so the fitted
centre line is the drawn one), :func:`fill_polygon` (area-coverage fill of a convex polygon with an optional soft edge,
e.g. a shadow's penumbra), :func:`draw_disc`, :func:`draw_glow` (a lamp's halo).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

# ----------------------------------------------------------------------------- laws


def snell(theta_i: float, n1: float, n2: float) -> float:
    """Refraction angle (rad, from the normal) for incidence ``theta_i`` from index ``n1`` into ``n2``;
    NaN when ``n1 sin θi > n2`` (total internal reflection)."""
    s = n1 * math.sin(theta_i) / n2
    return math.asin(s) if abs(s) <= 1.0 else math.nan


def critical_angle(n1: float, n2: float) -> float:
    """Incidence (rad) beyond which light going from ``n1`` into ``n2 < n1`` is totally reflected."""
    if n2 >= n1:
        return math.nan
    return math.asin(n2 / n1)


def reflect(d: Sequence[float], normal: Sequence[float]) -> np.ndarray:
    """Direction ``d`` mirrored at a surface of normal ``normal`` (any length): ``d - 2 (d·n) n``."""
    d, n = np.asarray(d, float), np.asarray(normal, float)
    n = n / np.linalg.norm(n)
    return d - 2.0 * (d @ n) * n


def refract(d: Sequence[float], normal: Sequence[float], n1: float, n2: float) -> np.ndarray | None:
    """Unit direction of a ray ``d`` after crossing a surface (normal on either side) from ``n1`` into
    ``n2`` (vector Snell law); None under total internal reflection."""
    d = np.asarray(d, float) / np.linalg.norm(d)
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    c = -float(d @ n)
    if c < 0:  # the normal must face the incoming ray
        n, c = -n, -c
    r = n1 / n2
    k = 1.0 - r * r * (1.0 - c * c)
    if k < 0:
        return None
    return r * d + (r * c - math.sqrt(k)) * n


# ----------------------------------------------------------------------------- projective geometry


def cross_ratio(t: Sequence[float]) -> float:
    """``χ = (t3 − t1)(t4 − t2) / ((t3 − t2)(t4 − t1))`` of four ordered positions on a line."""
    t1, t2, t3, t4 = (float(v) for v in t)
    den = (t3 - t2) * (t4 - t1)
    return (t3 - t1) * (t4 - t2) / den if den != 0 else math.nan


def collinear_positions(points: np.ndarray) -> tuple[np.ndarray, float]:
    """Positions along the principal line of ``points`` ``[N, 2]`` (sorted ascending, origin at the
    centroid) and the RMS perpendicular distance of the points to that line."""
    p = np.asarray(points, float)
    c = p.mean(0)
    _, _, vt = np.linalg.svd(p - c)
    u, v = vt[0], vt[1]
    t = (p - c) @ u
    return np.sort(t), float(np.sqrt(np.mean(((p - c) @ v) ** 2)))


def apply_homography(H: np.ndarray, pts) -> np.ndarray:
    """Points ``[N, 2]`` mapped by the 3 × 3 homography ``H``."""
    p = np.atleast_2d(np.asarray(pts, float))
    q = np.c_[p, np.ones(len(p))] @ np.asarray(H, float).T
    return q[:, :2] / q[:, 2:3]


def intersect(p: Sequence[float], d: Sequence[float], q: Sequence[float], e: Sequence[float]) -> np.ndarray | None:
    """Intersection of the lines ``p + s d`` and ``q + u e``; None when parallel."""
    A = np.array([[d[0], -e[0]], [d[1], -e[1]]], float)
    if abs(np.linalg.det(A)) < 1e-12 * (np.linalg.norm(d) * np.linalg.norm(e) + 1e-300):
        return None
    s, _ = np.linalg.solve(A, np.asarray(q, float) - np.asarray(p, float))
    return np.asarray(p, float) + s * np.asarray(d, float)


def point_line_distance(x: Sequence[float], p: Sequence[float], d: Sequence[float]) -> float:
    """Perpendicular distance of point ``x`` to the line through ``p`` along ``d``."""
    d = np.asarray(d, float) / np.linalg.norm(d)
    w = np.asarray(x, float) - np.asarray(p, float)
    return float(abs(w[0] * d[1] - w[1] * d[0]))


def concurrence(points: np.ndarray, dirs: np.ndarray) -> tuple[np.ndarray | None, float]:
    """Least-squares common point of lines ``points[k] + s dirs[k]`` and the RMS of their distances to it."""
    p, d = np.asarray(points, float), np.asarray(dirs, float)
    d = d / np.linalg.norm(d, axis=1, keepdims=True)
    nrm = np.stack([-d[:, 1], d[:, 0]], 1)
    A = nrm
    b = np.sum(nrm * p, 1)
    if np.linalg.matrix_rank(A) < 2:
        return None, math.nan
    x, *_ = np.linalg.lstsq(A, b, rcond=None)
    return x, float(np.sqrt(np.mean((A @ x - b) ** 2)))


def pairwise_intersections(points: np.ndarray, dirs: np.ndarray) -> np.ndarray:
    """Intersections ``[K, 2]`` of every pair of lines (parallel pairs left out)."""
    out = []
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            x = intersect(points[i], dirs[i], points[j], dirs[j])
            if x is not None:
                out.append(x)
    return np.asarray(out, float).reshape(-1, 2)


def line_angle_deg(a: float, b: float) -> float:
    """Acute angle (degrees, 0–90) between two undirected lines of image angles ``a`` and ``b`` (rad)."""
    d = abs((a - b) % math.pi)
    return math.degrees(min(d, math.pi - d))


def clip_segment(p0, p1, x0: float, y0: float, x1: float, y1: float):
    """The part of segment ``p0``–``p1`` inside the box ``[x0, x1] × [y0, y1]`` (Liang–Barsky); None if none."""
    (ax, ay), (bx, by) = p0, p1
    dx, dy = bx - ax, by - ay
    lo, hi = 0.0, 1.0
    for p, qv in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
        if p == 0:
            if qv < 0:
                return None
            continue
        r = qv / p
        if p < 0:
            lo = max(lo, r)
        else:
            hi = min(hi, r)
        if lo > hi:
            return None
    return (ax + lo * dx, ay + lo * dy), (ax + hi * dx, ay + hi * dy)


def clip_polygon(poly, width: int, height: int) -> list[tuple[float, float]]:
    """A convex polygon cut to the frame ``[0, width-1] × [0, height-1]``, as ``[(x, y), …]``."""
    frame = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float32)
    p = np.asarray(poly, np.float32).reshape(-1, 2)
    if cv2.contourArea(p, oriented=True) < 0:
        p = p[::-1]
    area, out = cv2.intersectConvexConvex(np.ascontiguousarray(p), frame)
    if out is None or area <= 0:
        return []
    return [(round(float(x), 2), round(float(y), 2)) for x, y in out.reshape(-1, 2)]


# ----------------------------------------------------------------------------- drawing

CHUNK = 32.0  # px of beam drawn per window


def _win(img: np.ndarray, x0: float, y0: float, x1: float, y1: float):
    h, w = img.shape[:2]
    c0, r0 = max(int(math.floor(x0)), 0), max(int(math.floor(y0)), 0)
    c1, r1 = min(int(math.ceil(x1)) + 1, w), min(int(math.ceil(y1)) + 1, h)
    return None if c0 >= c1 or r0 >= r1 else (c0, r0, c1, r1)


def _over(img: np.ndarray, win, alpha: np.ndarray, color) -> None:
    c0, r0, c1, r1 = win
    roi = img[r0:r1, c0:c1]
    m = alpha > 1e-3  # only the pixels drawn on
    px = roi[m].astype(np.float32)
    px += (np.asarray(color, np.float32) - px) * np.minimum(alpha[m], 1.0)[:, None]
    roi[m] = np.clip(px + 0.5, 0, 255).astype(np.uint8)


def segment_distance(xs: np.ndarray, ys: np.ndarray, p0, p1) -> np.ndarray:
    """Distance of pixel centres ``(xs, ys)`` (broadcastable) to the segment ``p0``–``p1``."""
    (x0, y0), (x1, y1) = p0, p1
    dx, dy = x1 - x0, y1 - y0
    L2 = max(dx * dx + dy * dy, 1e-12)
    s = np.clip(((xs - x0) * dx + (ys - y0) * dy) / L2, 0.0, 1.0)
    return np.hypot(xs - x0 - s * dx, ys - y0 - s * dy)


def draw_beam(img: np.ndarray, p0, p1, color, width: float = 2.5, glow: float = 0.35,
              glow_px: float = 3.0, opacity: float = 1.0) -> None:
    """A laser beam from ``p0`` to ``p1``: a core ``width`` px wide (area coverage at its edges) over a
    Gaussian glow of peak opacity ``glow`` and scale ``glow_px``, both symmetric about the segment; all of it
    at ``opacity`` (a faint partial reflection). Drawn in pieces of ``CHUNK`` px along the beam, each pixel
    once (by its projection onto the segment), so a long diagonal beam touches only a band around it."""
    reach = width / 2 + 3 * glow_px + 1
    h, w = img.shape[:2]
    seg = clip_segment(p0, p1, -reach, -reach, w - 1 + reach, h - 1 + reach)
    if seg is None:
        return
    a, b = np.asarray(seg[0], float), np.asarray(seg[1], float)
    L = float(np.linalg.norm(b - a))
    k = max(1, int(math.ceil(L / CHUNK)))
    for j in range(k):
        q0, q1 = a + (b - a) * j / k, a + (b - a) * (j + 1) / k
        win = _win(img, min(q0[0], q1[0]) - reach, min(q0[1], q1[1]) - reach,
                   max(q0[0], q1[0]) + reach, max(q0[1], q1[1]) + reach)
        if win is None:
            continue
        c0, r0, c1, r1 = win
        xs = np.arange(c0, c1, dtype=np.float32)[None, :]
        ys = np.arange(r0, r1, dtype=np.float32)[:, None]
        d = segment_distance(xs, ys, a, b)
        along = ((xs - a[0]) * (b[0] - a[0]) + (ys - a[1]) * (b[1] - a[1])) / max(L * L, 1e-12)
        own = np.ones_like(d, bool)
        if j > 0:
            own &= along >= j / k
        if j < k - 1:
            own &= along < (j + 1) / k
        core = np.clip(width / 2 + 0.5 - d, 0.0, 1.0)
        halo = glow * np.exp(-((d / glow_px) ** 2))
        _over(img, win, (opacity * own * np.maximum(core, halo)).astype(np.float32), color)


def fill_polygon(img: np.ndarray, pts, color, alpha: float = 1.0, soft: float = 0.0) -> None:
    """Fill the convex polygon ``pts`` with ``color`` at opacity ``alpha``. Coverage is the share of a 4 × 4
    grid of sub-pixel centres inside every edge (exact area to 1/16 px²), blurred by a Gaussian of ``soft``
    px (a penumbra) when ``soft > 0``."""
    p = np.asarray(pts, float).reshape(-1, 2)
    if len(p) < 3:
        return
    q = np.roll(p, -1, 0)
    if float(np.sum(p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1])) < 0:
        p = p[::-1]  # one winding: the inside on the same side of every edge
    pad = 3 * soft + 2
    win = _win(img, p[:, 0].min() - pad, p[:, 1].min() - pad, p[:, 0].max() + pad, p[:, 1].max() + pad)
    if win is None:
        return
    c0, r0, c1, r1 = win
    ss = 4
    off = (np.arange(ss) + 0.5) / ss - 0.5
    xs = (np.arange(c0, c1)[:, None] + off[None, :]).ravel()[None, :]
    ys = (np.arange(r0, r1)[:, None] + off[None, :]).ravel()[:, None]
    inside, side = np.ones((len(ys), xs.shape[1]), bool), np.empty((len(ys), xs.shape[1]), bool)
    for a, b in zip(p, np.roll(p, -1, 0)):  # u - v >= 0 exactly when u >= v (IEEE): no difference array
        inside &= np.greater_equal((b[0] - a[0]) * (ys - a[1]), (b[1] - a[1]) * (xs - a[0]), out=side)
    # the share of the ss x ss sub-pixels inside: a count over 16, exact in float32 (as the bool mean was)
    cov = inside.view(np.uint8).reshape(r1 - r0, ss, c1 - c0, ss).sum((1, 3), dtype=np.uint8).astype(np.float32)
    cov /= ss * ss
    if soft > 0:
        cov = cv2.GaussianBlur(cov, (0, 0), soft)
    _over(img, win, alpha * cov, color)


def draw_disc(img: np.ndarray, x: float, y: float, r: float, color, alpha: float = 1.0) -> None:
    """A flat disc of radius ``r`` with an area-coverage edge."""
    win = _win(img, x - r - 1, y - r - 1, x + r + 1, y + r + 1)
    if win is None:
        return
    c0, r0, c1, r1 = win
    d = np.hypot(np.arange(c0, c1)[None, :] - x, np.arange(r0, r1)[:, None] - y)
    _over(img, win, alpha * np.clip(r + 0.5 - d, 0, 1).astype(np.float32), color)


def draw_glow(img: np.ndarray, x: float, y: float, r: float, color, strength: float = 0.8) -> None:
    """A lamp's halo: Gaussian opacity of scale ``r`` around ``(x, y)``."""
    win = _win(img, x - 3 * r, y - 3 * r, x + 3 * r, y + 3 * r)
    if win is None:
        return
    c0, r0, c1, r1 = win
    d = np.hypot(np.arange(c0, c1)[None, :] - x, np.arange(r0, r1)[:, None] - y)
    _over(img, win, (strength * np.exp(-((d / r) ** 2))).astype(np.float32), color)
