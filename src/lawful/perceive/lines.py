"""Straight lines through a region's selected pixels (a beam, a shadow's axis): the ``line`` reading of
:mod:`lawful.perceive.regions`, robust to stray pixels and to the region's edges cutting a thick band askew."""

from __future__ import annotations

import cv2
import numpy as np

MIN_PIXELS = 6  # a line or blob needs at least this many selected pixels
K_TRIM = 3.29  # a line's pixel farther than this many robust sds from the fitted line is stray (two-sided 1e-3)
TRIM_PASSES = 4
TRIM_FLOOR = 1.0  # px: the least robust sd trimmed at (a 4:2:0 chroma sample spans 2 px)
BIN = 8.0  # px: a line's pieces for its direction's error (an H.264 transform block)
SECTION = 4.0  # px: the pieces a line's complete cross-sections are found in


def fit_line(pts: np.ndarray, mask: np.ndarray | None = None) -> tuple[dict, float] | None:
    """The line through pixel centres ``pts`` ``[N, 2]`` (x, y): a total-least-squares fit, refitted without stray
    pixels and then, given the region's ``mask`` (the frame of ``pts``), on the band's complete cross-sections only
    (:func:`_full_sections`); its values (``x``, ``y``,
    ``angle``, ``rms``, ``length``, ``n``, ``angle_sd``) and their error ``rms / √n``. None under
    :data:`MIN_PIXELS` pixels."""
    if len(pts) < MIN_PIXELS:
        return None
    # refit without stray pixels (another beam's fringe, compression's smear, a backdrop's edge of the beam's hue),
    # starting from a Huber fit: a least-squares start through many strays lies between them and the beam, and
    # the robust sd about it then keeps them (studio P17 seed 1006: 35 deg for a 48-deg beam, rms 11.6 px)
    keep = _near_line(pts, *cv2.fitLine(pts, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel())
    if keep.sum() >= MIN_PIXELS:
        pts = pts[keep]
    for _ in range(TRIM_PASSES):
        vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        keep = _near_line(pts, vx, vy, x0, y0)
        if keep.all() or keep.sum() < MIN_PIXELS:
            break
        pts = pts[keep]
    full = None if mask is None else _full_sections(pts, vx, vy, x0, y0, mask)
    if full is not None:  # a band cut askew at its ends: refit on its complete cross-sections
        pts = pts[full]
        vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    if vx < 0 or (vx == 0 and vy < 0):
        vx, vy = -vx, -vy
    perp = (pts[:, 0] - x0) * vy - (pts[:, 1] - y0) * vx
    along = (pts[:, 0] - x0) * vx + (pts[:, 1] - y0) * vy
    rms = float(np.sqrt(np.mean(perp**2)))
    return {"x": float(x0), "y": float(y0), "angle": float(np.arctan2(vy, vx)), "rms": rms,
            "length": float(along.max() - along.min() + 1), "n": float(len(pts)),
            "angle_sd": _slope_sd(along, perp)}, rms / np.sqrt(len(pts))


def _near_line(pts: np.ndarray, vx: float, vy: float, x0: float, y0: float) -> np.ndarray:
    """Which of ``pts`` lie within :data:`K_TRIM` robust sds (at least :data:`TRIM_FLOOR`) of the line."""
    perp = (pts[:, 0] - x0) * vy - (pts[:, 1] - y0) * vx
    sd = max(1.4826 * float(np.median(np.abs(perp - np.median(perp)))), TRIM_FLOOR)
    return np.abs(perp) <= K_TRIM * sd


def _full_sections(pts: np.ndarray, vx: float, vy: float, x0: float, y0: float, mask: np.ndarray) -> np.ndarray | None:
    """Pixels of a line's complete cross-sections (None: keep all). Where the region's edge cuts a band of width
    ``w`` at an angle ``α`` to it, the end pieces hold part of the width, off-centre; a straight fit through them
    turns by about ``cot α · w² / L²`` (0.1–0.3° for a beam 12 px wide and 150 px long). A :data:`SECTION`-px piece
    is complete when the band's whole width (its farthest pixel's offset, + 1 px) lies inside ``mask`` across both
    of the piece's ends; the complete pieces are kept when there are four or more and some piece is not."""
    along = (pts[:, 0] - x0) * vx + (pts[:, 1] - y0) * vy
    half = float(np.quantile(np.abs((pts[:, 0] - x0) * vy - (pts[:, 1] - y0) * vx), 0.98)) + 1.0
    b = ((along - along.min()) // SECTION).astype(int)
    edges = along.min() + np.arange(b.max() + 2) * SECTION  # the pieces' ends along the line
    offs = np.arange(-half, half + 0.5, 1.0)
    ix = np.rint(x0 + edges[:, None] * vx + offs[None, :] * vy).astype(int)
    iy = np.rint(y0 + edges[:, None] * vy - offs[None, :] * vx).astype(int)
    inside = (ix >= 0) & (iy >= 0) & (ix < mask.shape[1]) & (iy < mask.shape[0])
    inside[inside] = mask[iy[inside], ix[inside]]
    across = inside.all(1)
    complete = across[:-1] & across[1:]
    if complete.sum() < 4 or complete.all():
        return None
    keep = complete[b]
    return keep if keep.sum() >= MIN_PIXELS else None


def _slope_sd(along: np.ndarray, perp: np.ndarray) -> float:
    """Standard error (rad) of a line's direction from its pixels' mean offsets over :data:`BIN`-px pieces: an
    error shared by neighbours (a compression block, aliasing's staircase) counts once per piece. NaN if < 4."""
    b = ((along - along.min()) // BIN).astype(int)
    cnt = np.bincount(b)
    if (cnt > 0).sum() < 4:
        return float("nan")
    s, d = (np.bincount(b, v)[cnt > 0] / cnt[cnt > 0] for v in (along, perp))
    s, d = s - s.mean(), d - d.mean()
    res = d - (s @ d / (s @ s)) * s
    return float(np.sqrt(res @ res / (len(s) - 2) / (s @ s)))
