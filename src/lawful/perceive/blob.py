"""Measure one object's pixels in a frame: centroid, box, area, whether the border cuts it, blur length
against its own shape, and the angle of its marker stripe (illumination-corrected brightness).

A hoop seen end-on (``hollow_cylinder``) shows a thin rim round a dark inside: where the rim blurs into the
background or a lit arc leaves the colour mask, the filled hull of what is left is a lopsided disc and its
centroid moves by pixels. Its centre is the robust circle through the rim pixels (:func:`rim_centre`), refitted
on the rim's edge in the frame (:func:`rim_edge_centre`): the mask's outline is not the edge.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from lawful.perceive.fit import fit_circle
from lawful.perceive.objects import Found, Tracked, moments2
from lawful.perceive.segment import ColorModel, brightness, fill_holes

BORDER_CUT = 0.85  # a component touching the border with less than this share of its expected area is not visible
MARKER_CONTRAST = 1.35  # brightness factor that sets a marker stripe apart from its body
MARKER_PIECE = 0.3  # marker pieces smaller than this share of the largest are specks, not the marker
STRIPE_ELONGATION = 3.0  # second-moment ratio above which the marker is a stripe with an axis
RIM_SHAPES = {"hollow_cylinder"}  # objects whose visible outline is a thin rim: located by a circle fit
RIM_EDGE_ANGLES = 72  # radial lines on which a rim's outer edge is located (rim_edge_centre)
RIM_EDGE_STEP = 0.25  # px between samples along a line
RIM_EDGE_REACH = (1.5, 3.0)  # px searched inside / outside the mask outline's circle: the mask loses 1-2 px of the
# rim's border, and the rim's inner edge lies a rim's width (0.2 r in the studio's hoops, 3 px at r = 15) inside


def measure(sub: np.ndarray, feat: np.ndarray, rgb: np.ndarray, origin: tuple[int, int], o: Tracked, angles: bool,
            frame_size: tuple[int, int], frame: np.ndarray) -> Found | None:
    """Centroid, box, area, blur length (and marker angle) of the object pixels ``sub`` (uint8
    0/1, cropped to the blob's bounding box at ``origin``), whose features are ``feat`` and raw
    pixels ``rgb``; a hoop's centre is refined on its edge in ``frame`` (the whole frame)."""
    if o.convex:
        contours, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull = cv2.convexHull(contours[0] if len(contours) == 1 else np.concatenate(contours))
        region = sub.copy()  # the hull filled over the blob: the union of both
        cv2.fillConvexPoly(region, hull, 1)
    else:
        region = fill_holes(sub)
    m = cv2.moments(region, binaryImage=True)
    if m["m00"] <= 0:
        return None
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    if getattr(o.spec, "shape", None) in RIM_SHAPES:
        cx, cy = rim_xy(sub, origin, o.diam, frame) or (cx, cy)
    shape = moments2(region, m)
    blur = o.blur_of(shape)
    # a marker smeared along the motion by more than the object's radius (about the length of a radial stripe):
    # the smear turns the stripe's axis by up to half of atan(blur² / length²), 22° and more, and a rolling body
    # turns by a radian within the exposure (a 3-frame exposure read a rolling ball's turn at 0.44x its truth)
    smeared = blur > 0.5 * o.diam
    angle = _marker_angle(region, sub, feat, rgb, o.model, cx, cy) if angles and not smeared else float("nan")
    w, h = frame_size
    x0, y0 = origin
    x1, y1 = x0 + sub.shape[1] - 1, y0 + sub.shape[0] - 1
    touches = x0 <= 0 or y0 <= 0 or x1 >= w - 1 or y1 >= h - 1
    cut = touches and m["m00"] < BORDER_CUT * o.expected_area()
    return Found((cx + x0, cy + y0), (x0, y0, x1, y1), float(m["m00"]), angle, cut, touches, blur, shape)


def rim_xy(sub: np.ndarray, origin: tuple[int, int], diam: float, frame: np.ndarray | None) -> tuple[float, float] | None:
    """A hoop's centre (crop pixels of ``sub`` at ``origin``): the circle through its mask's outline
    (:func:`rim_circle`), refined on the edge in ``frame`` (:func:`rim_edge_centre`) where it is given and holds."""
    c = rim_circle(sub, diam)
    if c is None:
        return None
    x0, y0 = origin
    # (the outline's pixel centres lie half a px inside its edge)
    e = rim_edge_centre(frame, c[0] + x0, c[1] + y0, c[2] + 0.5) if frame is not None else None
    return (e[0] - x0, e[1] - y0) if e is not None else c[:2]


def rim_centre(sub: np.ndarray, diam: float) -> tuple[float, float] | None:
    """Centre (crop pixels) of the circle through the outline of a rim's pixels ``sub`` (:func:`rim_circle`)."""
    c = rim_circle(sub, diam)
    return None if c is None else c[:2]


def rim_circle(sub: np.ndarray, diam: float) -> tuple[float, float, float] | None:
    """``(cx, cy, r)`` (crop pixels) of the circle through the outline of a rim's pixels ``sub`` (uint8 0/1), by a
    robust fit (:func:`lawful.perceive.fit.fit_circle`: where an arc is missing, the outline's detour along
    the inner edge is left out); None when the outline does not pin it: fewer than 8 points, a circle
    larger than the object's own extent ``diam`` (plus the fit's scatter), or points that leave a gap of
    half a turn or more (a lone arc: its centre runs along its axis)."""
    contours, _ = cv2.findContours(np.ascontiguousarray(sub, np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    pts = np.concatenate(contours).reshape(-1, 2).astype(float)
    xs, ys = pts[:, 0], pts[:, 1]
    if len(xs) < 8:
        return None
    cx, cy, r, rms = fit_circle(xs, ys, robust=True)
    if not (math.isfinite(r) and r <= 0.5 * diam + 2 * rms + 1.0):
        return None
    a = np.sort(np.arctan2(ys - cy, xs - cx))
    gaps = np.diff(np.r_[a, a[0] + 2 * math.pi])
    return (float(cx), float(cy), float(r)) if float(gaps.max()) < math.pi else None


def rim_edge_centre(frame: np.ndarray, cx: float, cy: float, r: float) -> tuple[float, float] | None:
    """A hoop's centre (frame px) from the sub-pixel position of its outer edge, given a first circle ``(cx, cy,
    r)`` near it: along :data:`RIM_EDGE_ANGLES` radial lines, where the colour changes fastest (bilinear samples
    every :data:`RIM_EDGE_STEP` px from ``r - RIM_EDGE_REACH[0]`` to ``r + RIM_EDGE_REACH[1]``, the peak refined by
    a parabola), and the robust circle through those points.

    The colour mask's outline is not the edge: it loses the rim's blended border and its shaded side unevenly
    (studio WMLE P9: 1-2 px of a 29 px hoop, more on its dark side), which moved the centre by up to 1 px as the
    hoop rolled and turned the ring-to-ball time ratio by +0.4 % (M1 loses a point per 0.1 %); the edge at the
    steepest colour change does not depend on where a colour threshold cuts. Lines without a clear step (under
    a quarter of the median peak: an occluded arc) are left out, and the robust fit drops steps that are not the
    rim's (an occluder's edge). None where fewer than a quarter of the lines keep a step, or the circle strays
    (its centre over ``0.25 r + 1`` px from the first one, its radius off ``r`` by more than the search reach)."""
    lo, hi = RIM_EDGE_REACH
    th = np.linspace(0.0, 2 * math.pi, RIM_EDGE_ANGLES, endpoint=False)
    rho = np.arange(r - lo, r + hi + 1e-9, RIM_EDGE_STEP)
    X = (cx + np.cos(th)[:, None] * rho[None, :]).astype(np.float32)
    Y = (cy + np.sin(th)[:, None] * rho[None, :]).astype(np.float32)
    prof = cv2.remap(np.ascontiguousarray(frame, np.float32), X, Y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    g = np.linalg.norm(np.diff(prof.reshape(len(th), len(rho), -1), axis=1), axis=2)  # steps between samples
    j = np.clip(np.argmax(g, axis=1), 1, g.shape[1] - 2)
    k = np.arange(len(th))
    a, b, c = g[k, j - 1], g[k, j], g[k, j + 1]
    den = a - 2 * b + c
    off = np.where(den < 0, 0.5 * (a - c) / np.where(den < 0, den, -1.0), 0.0)
    ok = (b >= 0.25 * float(np.median(b))) & (b > 0) & (np.abs(off) <= 1.0)
    if ok.sum() < RIM_EDGE_ANGLES // 4:
        return None
    rr = rho[0] + (j[ok] + 0.5 + off[ok]) * RIM_EDGE_STEP
    ex, ey, er, _ = fit_circle(cx + np.cos(th[ok]) * rr, cy + np.sin(th[ok]) * rr, robust=True)
    if not (math.isfinite(ex) and math.hypot(ex - cx, ey - cy) <= 0.25 * r + 1.0 and r - lo <= er <= r + hi):
        return None
    return float(ex), float(ey)


def _shading_residual(v: np.ndarray, fit_at: np.ndarray, judge_at: np.ndarray, cx: float, cy: float, r: float,
                      cut: float) -> np.ndarray:
    """``log(V + 16)`` of the brightness ``v`` minus a smooth illumination model, at the pixels of the
    mask ``judge_at`` (in ``np.nonzero`` order); the model is fitted on the body pixels ``fit_at``.

    The model is a quadratic surface in the disc's own coordinates (shading scales brightness, so it
    is fitted in log), robustly: pixels off the fit by more than ``cut`` (a marker, a highlight) are
    left out and the fit repeated. A flat-shaded body gives a constant (its median, as before); a lit
    3-D ball loses its bright-to-dark gradient, so only features much smaller than the ball stay.
    Under ~30 body pixels: a constant level only.
    """
    lv = np.log(v.astype(np.float64) + 16.0)
    fy, fx = np.nonzero(fit_at)
    jy, jx = np.nonzero(judge_at)
    y = lv[fy, fx]
    level = float(np.median(y))
    if len(y) < 30:
        return lv[jy, jx] - level

    def design(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        u, w = (xs - cx) / r, (ys - cy) / r
        return np.stack([np.ones_like(u), u, w, u * u, u * w, w * w], 1)

    a = design(fx, fy)
    keep = np.abs(y - level) < cut
    coef = None
    for _ in range(5):
        if keep.sum() < 12:
            break
        coef = np.linalg.lstsq(a[keep], y[keep], rcond=None)[0]
        new = np.abs(y - a @ coef) < cut
        if np.array_equal(new, keep):
            break
        keep = new
    if coef is None:
        return lv[jy, jx] - level
    return lv[jy, jx] - design(jx, jy) @ coef


def _marker_angle(region: np.ndarray, main: np.ndarray, feat: np.ndarray, rgb: np.ndarray, model: ColorModel,
                  cx: float, cy: float) -> float:
    """Direction (radians, image axes: +x right, +y down) from the centroid to the marker's centroid.

    Marker pixels lie inside the object, away from its rim, and are clearly off its body: a
    brightness ``max(R, G, B)`` (unblurred, so thin stripes keep their contrast) off the body's own
    smooth shading (:func:`_shading_residual`) by a factor of ~1.35 (a dark or bright stripe of the
    body's hue; rim shading is kept out by a 3 px erosion; the lit and the shaded half of a 3-D ball
    are not a marker), or another chroma (deeper inside: chroma is blurred by 4:2:0 subsampling and
    compression). A marker centred on the centroid (a diameter stripe) gives its axis instead
    (defined mod pi).
    """
    r = np.sqrt(region.sum() / np.pi)
    e = 2 * max(3, int(round(0.15 * r))) + 1
    inner = cv2.erode(region, np.ones((e, e), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    if inner.sum() < 10:
        return float("nan")
    body = inner & (main > 0)
    if body.sum() < 5:
        return float("nan")
    cut = math.log(MARKER_CONTRAST)
    marker = np.zeros(region.shape, bool)
    marker[inner] = np.abs(_shading_residual(brightness(rgb), body, inner, cx, cy, r, cut)) > cut
    e = 2 * max(2, int(round(0.2 * r))) + 1
    deep = cv2.erode(region, np.ones((e, e), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    marker |= deep & (model.distance2(feat) > model.threshold)
    n = int(marker.sum())
    if n < max(3, 0.01 * region.sum()):
        return float("nan")
    # the marker is one painted feature: specks of shading the model missed (a terminator, a rim
    # pixel) are separate and small, and would turn the stripe's axis
    k, lab, stats, _ = cv2.connectedComponentsWithStats(marker.astype(np.uint8), connectivity=8)
    if k > 2:
        areas = stats[1:, cv2.CC_STAT_AREA]
        marker = np.isin(lab, 1 + np.flatnonzero(areas >= MARKER_PIECE * areas.max()))
    ys, xs = np.nonzero(marker)
    dx, dy = xs.mean() - cx, ys.mean() - cy
    xm, ym = xs - xs.mean(), ys - ys.mean()
    cxx, cyy, cxy = (xm * xm).mean(), (ym * ym).mean(), (xm * ym).mean()
    axis = 0.5 * math.atan2(2 * cxy, cxx - cyy)
    if np.hypot(dx, dy) <= 0.03 * r:
        return float(axis)
    spread = math.hypot(cxx - cyy, 2 * cxy)  # λ1 - λ2 of the marker's second moments
    lam1, lam2 = (cxx + cyy + spread) / 2, (cxx + cyy - spread) / 2
    if lam1 > STRIPE_ELONGATION * max(lam2, 1e-9):
        # a radial stripe: its own axis, pointed away from the centre. The centroid of the stripe's
        # part inside the eroded disc sits only ~0.4 r out, so a centre off the stripe's line (a ball
        # seen off-axis, a mask that misses a shaded rim) would turn the centroid direction by
        # tenths of a radian; the axis does not move
        if math.cos(axis) * dx + math.sin(axis) * dy < 0:
            axis += math.pi
        return float(math.atan2(math.sin(axis), math.cos(axis)))
    return float(np.arctan2(dy, dx))
