"""Find an object the colour mask misses — a pale motion-blur streak, a grey object — by contrast.

:func:`by_contrast` takes the pixels that mix the object's colour with the background's (the previous sample, or
the window inpainted from around the object where it was) and locates a streak at its mid-exposure point; pixels
that mix a shaded tone of the object's colour with the background count too (:func:`_shaded_mix`). Under a shaking
camera the previous sample's window is registered onto this one's (:func:`_registered`) where that fits the
window's ring better.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from lawful.perceive.objects import _FAR, Found, Regions, Tracked, moments2, unchanged_since
from lawful.perceive.blob import BORDER_CUT, RIM_SHAPES, rim_xy
from lawful.perceive.segment import components

_K3 = np.ones((3, 3), np.uint8)

ALPHA_MIN = 0.2  # least share of the object's colour in a pixel of a blur streak
NOISE_SIGMAS = 4.0  # contrast (in local noise sigmas) a streak pixel needs
_INPAINT_R = 3  # px: the inpainting radius (TELEA)


def _inpainted(img: np.ndarray, lo: tuple[int, int], hi: tuple[int, int]) -> np.ndarray:
    """``img`` (float32) with the box ``lo`` .. ``hi`` (row, column; end-exclusive) filled by TELEA inpainting from
    around it. Only the box and ``_INPAINT_R + 1`` px about it are inpainted: TELEA fills a pixel from known ones
    within the radius, whose gradients reach one px further, so the rest of the image cannot change the fill
    (a fifth of its cost on a studio bounce's windows went to the rest)."""
    h, w = img.shape[:2]
    m = _INPAINT_R + 1
    r0, c0, r1, c1 = max(0, lo[0] - m), max(0, lo[1] - m), min(h, hi[0] + m), min(w, hi[1] + m)
    out = img.astype(np.float32)
    if r1 <= r0 or c1 <= c0 or hi[0] <= lo[0] or hi[1] <= lo[1]:
        return out
    hole = np.zeros((r1 - r0, c1 - c0), np.uint8)
    hole[lo[0] - r0:hi[0] - r0, lo[1] - c0:hi[1] - c0] = 1
    out[r0:r1, c0:c1] = cv2.inpaint(np.ascontiguousarray(img[r0:r1, c0:c1]), hole, _INPAINT_R, cv2.INPAINT_TELEA)
    return out


def _background(prev: np.ndarray, hole, ring: np.ndarray, ring_of) -> tuple[np.ndarray, np.ndarray, float]:
    """The background the object hid in this window (``prev``, the previous sample's) and the ring's deviations from
    it: ``(bg, dev, median |dev|)``. The box ``hole`` is continued inwards from around it (a ramp or floor edge
    running under the object goes on; a flat fill would make it look like the object's colour mixed in); a lighting
    flicker or auto-exposure between the samples is undone by the ring's median ratio per channel (a 4 % studio
    flicker doubled the noise, and hid a shaded half)."""
    bg = _inpainted(prev, *hole)
    bg *= np.median(ring / np.maximum(ring_of(bg), 1.0), 0).astype(np.float32)
    dev = ring - ring_of(bg)
    return bg, dev, float(np.median(np.linalg.norm(dev, axis=1)))


def _registered(prev: np.ndarray, frame: np.ndarray, x0: int, y0: int, x1: int, y1: int, m: int = 3) -> np.ndarray:
    """The window ``x0:x1, y0:y1`` of ``prev`` shifted onto ``frame``'s: the sub-pixel translation (at most ``m`` px)
    that Gauss-Newton steps on the smoothed grey windows find (Lucas-Kanade), read from the pixels around the window
    (a replicated border would enter its ring). A camera shake of a third of a pixel over a striped studio floor
    made the previous sample's ring differ by 19 grey levels (the median), and a resting block was lost."""
    h, w = prev.shape[:2]
    a0, b0 = max(0, x0 - m), max(0, y0 - m)
    around = np.ascontiguousarray(prev[b0:min(h, y1 + m), a0:min(w, x1 + m)])
    size = (x1 - x0, y1 - y0)
    grey = lambda img: cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32), (5, 5), 1.0)  # noqa: E731
    g1, g0 = grey(np.ascontiguousarray(frame[y0:y1, x0:x1])), grey(around)
    gx = cv2.Sobel(g1, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)  # (the template's gradients: inverse compositional)
    gy = cv2.Sobel(g1, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    A = np.array([[float((gx * gx).sum()), float((gx * gy).sum())], [float((gx * gy).sum()), float((gy * gy).sum())]])
    shift = np.float32([[1, 0, a0 - x0], [0, 1, b0 - y0]])  # ``around``'s pixel -> the window's
    if np.linalg.cond(A) < 1e4:
        for _ in range(3):
            e = g1 - cv2.warpAffine(g0, shift, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            d = np.linalg.solve(A, [float((gx * e).sum()), float((gy * e).sum())])
            shift[:, 2] = np.clip(shift[:, 2] - d + [x0 - a0, y0 - b0], -m, m) + [a0 - x0, b0 - y0]
            if abs(d).max() < 0.01:
                break
    return cv2.warpAffine(around, shift, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _across(m: np.ndarray, origin: tuple[int, int], vel: tuple[float, float]) -> tuple[float, float, float] | None:
    """``(x, y, half)``: centroid (frame px) of mask ``m`` at ``origin`` and its half-extent across ``vel``."""
    ys, xs = np.nonzero(m)
    sp = math.hypot(*vel)
    if len(xs) < 3 or sp <= 0:
        return None
    cx, cy = xs.mean() + origin[0], ys.mean() + origin[1]
    d = (xs + origin[0] - cx) * (-vel[1] / sp) + (ys + origin[1] - cy) * (vel[0] / sp)
    return float(cx), float(cy), float(np.abs(d).max()) + 0.5


def by_contrast(o: Tracked, frame: np.ndarray, regions: Regions, prev: np.ndarray | None = None,
                core: tuple[float, float, float] | None = None) -> Found | None:
    """Find ``o`` as the pixels that mix its colour (``o.rgb``) with the background's.

    The background of each pixel is the previous sample ``prev`` (the object has moved on; where
    it was, and without ``prev``, the median of the window's outer ring: the window is several
    object sizes wide), as it is or shifted onto this frame, whichever its ring fits better; the noise is the
    spread of the ring's differences from it. ``prev`` may be ``frame``
    itself (the first sample): the object's last box is then filled in from around it, and the noise is
    the spread of differences between neighbouring ring pixels. A pixel
    ``p = bg + alpha (c - bg) + e`` belongs to the object when its share ``alpha`` is at least
    :data:`ALPHA_MIN`, its contrast exceeds :data:`NOISE_SIGMAS` noise sigmas and it lies near
    the mixing line. The centroid is weighted by ``alpha``: for a motion-blur streak that is the
    mid-exposure position. ``core``: ``(x, y, half)`` of the object's colour core in this frame
    (:func:`_across`): a streak runs along the motion, so pixels farther than ``half`` (+1 px) across
    it from the core are not the object (a same-hued ramp or floor under a sliding block). None when the object's colour does not stand out from the background
    or no blob fits the motion model.
    """
    if o.rgb is None:
        return None
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = o.window(w, h, 2.0)  # a margin of a step past the last (blurred) box
    filled = prev is not None and prev.shape == frame.shape and not o.lost
    if filled:  # where the object was in ``prev``, padded, is filled in from around it
        bx0, by0, bx1, by1 = (int(v) for v in o.last_box)
        pad = 2 + int(0.25 * o.diam)
        # the window's ring (its outer 2 px: the noise, the flicker) lies outside that box, the inpainting's reach
        # between: a resting object's window is only a fifth of its size wider than it, less than the padding from
        # ~40 px on, and a ring filled in from nothing measured 44 levels of "noise" (studio momentum_mass seed 7400:
        # a teal block on a green floor, lost from sample 1 on)
        m = pad + 2 + _INPAINT_R
        x0, y0 = min(x0, max(0, bx0 - m)), min(y0, max(0, by0 - m))
        x1, y1 = max(x1, min(w, bx1 + m + 1)), max(y1, min(h, by1 + m + 1))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    crop = frame[y0:y1, x0:x1].astype(np.float32)
    ring_of = lambda a: np.concatenate([a[:2].reshape(-1, 3), a[-2:].reshape(-1, 3),  # noqa: E731
                                        a[:, :2].reshape(-1, 3), a[:, -2:].reshape(-1, 3)])
    ring = ring_of(crop)
    if filled:
        hole = (max(0, by0 - pad - y0), max(0, bx0 - pad - x0)), (max(0, by1 + pad + 1 - y0), max(0, bx1 + pad + 1 - x0))
        if prev is frame:  # the first sample, filled in where the object is: its ring is the frame's own, and the
            bg = _background(frame[y0:y1, x0:x1], hole, ring, ring_of)[0]
            dev = np.diff(ring, axis=0) / np.float32(math.sqrt(2))  # noise shows between neighbouring ring pixels
        else:  # prev as it is, or registered onto this frame (a shaking camera), whichever the ring fits better
            bg, dev = min((_background(c, hole, ring, ring_of) for c in (
                prev[y0:y1, x0:x1], _registered(prev, frame, x0, y0, x1, y1))), key=lambda c: c[2])[:2]
    else:
        bg = med = np.median(ring, 0)
        dev = ring - med
    noise = max(2.0, 1.4826 * float(np.median(np.linalg.norm(dev, axis=1))))
    dc = np.asarray(o.rgb, np.float32) - bg
    if np.ndim(dc) == 1:
        dc = np.broadcast_to(dc, crop.shape)
    c2 = np.maximum(_dot(dc, dc), 1e-6)
    if float(np.sqrt(np.median(c2))) < 2 * NOISE_SIGMAS * noise:
        return None
    diff = crop - bg
    proj = _dot(diff, dc)  # alpha * c2
    alpha = proj / c2
    diff2 = _dot(diff, diff)
    resid2 = np.maximum(diff2 - alpha * proj, 0)  # |diff - alpha dc|^2
    share = alpha * np.sqrt(c2)  # alpha * contrast
    line = (alpha > ALPHA_MIN) & (share > NOISE_SIGMAS * noise) & (resid2 < np.square(2 * noise + 0.35 * share))
    shaded, cover = _shaded_mix(o, crop, bg, noise, diff2)
    mask = (line | shaded).view(np.uint8)
    alpha = np.where(shaded & ~line, cover, alpha)
    if core is not None and o.speed() > 0:
        xx, yy = np.arange(x0, x1)[None, :], np.arange(y0, y1)[:, None]  # broadcast to the crop's grid
        sp = o.speed()
        off = (xx - core[0]) * (-o.vel[1] / sp) + (yy - core[1]) * (o.vel[0] / sp)
        mask[np.abs(off) > core[2] + 1.0] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _K3)
    n, labels, stats, cents = components(mask)
    best, parts = _pick(o, stats, cents, x0, y0, regions, merged=False)
    if not best:  # no component is the object alone: pieces of it, split by a line across it, may be
        best, parts = _pick(o, stats, cents, x0, y0, regions, merged=True)
    if not best:
        return None
    parts += [j for j in _streak_pieces(o, stats, cents, best) if j not in parts]
    x, y = int(stats[parts, 0].min()), int(stats[parts, 1].min())
    bw, bh = int((stats[parts, 0] + stats[parts, 2]).max()) - x, int((stats[parts, 1] + stats[parts, 3]).max()) - y
    area = int(stats[parts, 4].sum())
    lab = labels[y:y + bh, x:x + bw]
    m = (np.isin(lab, parts) if len(parts) > 1 else lab == best).view(np.uint8)
    wgt = np.clip(alpha[y:y + bh, x:x + bw], 0, 1) * m
    mo = cv2.moments(wgt)
    if mo["m00"] <= 0:
        return None
    cx, cy = mo["m10"] / mo["m00"] + x + x0, mo["m01"] / mo["m00"] + y + y0
    if getattr(o.spec, "shape", None) in RIM_SHAPES:  # a hoop: the circle through its outline, on its edge
        rim = rim_xy(m, (x + x0, y + y0), o.diam, frame)
        cx, cy = (rim[0] + x + x0, rim[1] + y + y0) if rim is not None else (cx, cy)
    gx0, gy0 = x + x0, y + y0
    gx1, gy1 = gx0 + bw - 1, gy0 + bh - 1
    if (o.lost and o.seen_frame is not None and o.clear_of_last(gx0, gy0, gx1, gy1)
            and unchanged_since(frame, o.seen_frame, gx0, gy0, m)):
        return None  # what mixes its colour here did so when the object was elsewhere: not the object (a ball gone
        # out of the frame was "found again" on a grey patch of the backdrop, its mixing tolerance being loose)
    touches = gx0 <= 0 or gy0 <= 0 or gx1 >= w - 1 or gy1 >= h - 1
    shape = moments2(m)
    blur = o.blur_of(shape)
    if o.speed() > o.diam and blur < o.blur_range()[0]:
        return None  # a piece of a streak (the rest sank into the noise): its centroid is not the object's
    if area > o.growth_limit() * (o.ref_area + o.diam * min(blur, o.blur_range()[1])):
        return None  # more than a streak of the object: it runs along something of its colour
    cut = touches and area < BORDER_CUT * o.expected_area()
    return Found((cx, cy), (gx0, gy0, gx1, gy1), float(area), float("nan"), cut, touches, blur, shape)


def _shaded_mix(o: Tracked, crop: np.ndarray, bg: np.ndarray, noise: float,
                diff2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pixels of ``crop`` ``[H, W, 3]`` that mix a *shaded* tone of the object's colour with the background
    ``bg`` (``[H, W, 3]`` or ``[3]``), and their share of the object: ``(mask [H, W] bool, cover [H, W])``;
    ``diff2``: ``|crop - bg|²`` per pixel (:func:`_dot`, as :func:`by_contrast` has it).

    A lit ball's lower half is its colour ``c`` (``o.rgb``) darkened: ``s c`` with ``s`` in the object's own
    range :attr:`~lawful.perceive.objects.Tracked.shade`. Blurred over the background, a pixel is
    ``p = a s c + (1 - a) bg``: in the plane of ``c`` and ``bg``, with ``p = u c + v bg``, coverage
    ``a = 1 - v`` and shade ``s = u / a``. (Measured on the line from ``bg`` to ``c`` alone, the dark half
    falls off it or gets a share ``a s``: the streak's centroid moves to the lit side.) Kept: pixels near
    the plane, past :data:`NOISE_SIGMAS` noise from the background, with coverage over :data:`ALPHA_MIN`
    and a shade inside the object's own (widened by the noise), where the plane resolves coverage to half
    of :data:`ALPHA_MIN` (``c`` and ``bg`` not near parallel; a background only darkened, a shadow, has
    ``s`` near 0 and stays out). Empty for an object of one flat tone (its line model is the whole story).
    """
    lo, hi = o.shade or (1.0, 1.0)
    if o.rgb is None or lo >= hi:
        return np.zeros(crop.shape[:2], bool), np.zeros(crop.shape[:2], np.float32)
    c = np.ascontiguousarray(np.broadcast_to(np.asarray(o.rgb, np.float32), crop.shape))
    b = np.ascontiguousarray(np.broadcast_to(np.asarray(bg, np.float32), crop.shape))
    cc, cb, bb = _dot(c, c), _dot(c, b), _dot(b, b)
    pc, pb = _dot(crop, c), _dot(crop, b)
    det = np.maximum(cc * bb - cb * cb, 1e-6)
    u = (bb * pc - cb * pb) / det
    cover = 1.0 - (cc * pb - cb * pc) / det
    sd_cover = noise * np.sqrt(cc / det)
    fit = u[..., None] * c + (1.0 - cover)[..., None] * b
    off = crop - fit
    resid2 = _dot(off, off)
    contrast = np.sqrt(diff2)
    safe = np.maximum(cover, ALPHA_MIN)
    shade = u / safe
    slack = noise / (safe * np.sqrt(cc))
    mask = ((cover > ALPHA_MIN) & (sd_cover < 0.5 * ALPHA_MIN) & (contrast > NOISE_SIGMAS * noise)
            & (u * np.sqrt(cc) > NOISE_SIGMAS * noise) & (shade > lo - slack) & (shade < hi + slack)
            & (resid2 < np.square(2 * noise)))
    return mask, cover.astype(np.float32)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-pixel dot product of two float32 ``[H, W, 3]`` images -> ``[H, W]``."""
    return cv2.transform(cv2.multiply(np.ascontiguousarray(a, np.float32), np.ascontiguousarray(b, np.float32)),
                         np.ones((1, 3), np.float32))


def _pick(o: Tracked, stats: np.ndarray, cents: np.ndarray, x0: int, y0: int, regions: Regions,
          merged: bool) -> tuple[int, list[int]]:
    """The component (window px ``stats``, ``cents``; window origin ``x0, y0``) that best fits ``o``'s prediction and
    covers at least half its area (a streak's footprint is at least the object's own area), with the components taken
    with it: ``(0, [])`` when none does. ``merged``: each with the pieces within the object's size and along its
    motion, their area summed and their centroid joined (a small, defocused ball on a ramp's rail splits along it,
    each half under half its area: studio projectile seed 7800 blurred, 29 + 29 px of a 114-px ball, lost for 3
    samples); tried only where no component alone fits, so that a blob that is the object takes nothing beside it."""
    best, best_cost, parts = 0, _FAR, []
    for k in range(1, len(stats)):
        ks = [k]
        if merged:
            ks += _within_size(o, stats, k)
            ks += [j for j in _streak_pieces(o, stats, cents, k) if j not in ks]
        a = stats[ks, 4].astype(float)
        cx, cy = a @ cents[ks, 0] / a.sum() + x0, a @ cents[ks, 1] / a.sum() + y0
        if a.sum() < 0.5 * o.ref_area or (not regions.empty and not regions.allows(cx, cy)):
            continue
        c = o.cost(cx, cy, float(a.sum()))
        if c < best_cost:
            best, best_cost, parts = k, c, ks
    return best, parts


def _within_size(o: Tracked, stats: np.ndarray, k: int) -> list[int]:
    """Other components whose box joined with component ``k``'s fits in the object's size (:meth:`Tracked.holds`):
    pieces of it split by a line across it."""
    x0, y0 = stats[1:, 0], stats[1:, 1]
    x1, y1 = x0 + stats[1:, 2], y0 + stats[1:, 3]
    kx0, ky0, kw, kh = stats[k, :4]
    ux = np.maximum(x1, kx0 + kw) - np.minimum(x0, kx0)
    uy = np.maximum(y1, ky0 + kh) - np.minimum(y0, ky0)
    ok = o.holds(ux, uy) & (stats[1:, 4] >= 3)
    return [int(j) + 1 for j in np.nonzero(ok)[0] if int(j) + 1 != k]


def _streak_pieces(o: Tracked, stats: np.ndarray, cents: np.ndarray, best: int) -> list[int]:
    """Other components that continue component ``best`` along the motion (a streak broken where
    its share of the object's colour dips into the noise): within half a diameter across the
    velocity and half the longest possible streak along it."""
    speed = o.speed()
    if speed < 0.5 * o.diam or len(stats) <= 2:
        return []
    ux, uy = o.vel[0] / speed, o.vel[1] / speed
    d = cents[1:] - cents[best]
    along, across = np.abs(d @ [ux, uy]), np.abs(d @ [-uy, ux])
    reach = 0.5 * (o.blur_range()[1] + o.diam)
    ok = (across < 0.5 * o.diam) & (along < reach) & (stats[1:, 4] >= 3)
    return [int(k) + 1 for k in np.nonzero(ok)[0] if int(k) + 1 != best]
