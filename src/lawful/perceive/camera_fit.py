"""Least-squares similarity fits with their uncertainty, the spatial spread of a point set, the corners worth
tracking, and the algebra of ``[2, 3]`` transforms (apply, invert, compose, scale, rotation, corner shift).

A similarity ``p0 = A @ [x, y, 1]`` with ``A = [[a, -b, tx], [b, a, ty]]`` is linear in
``(a, b, tx, ty)``. With the source points centred on their mean ``m`` the normal equations
decouple: ``a = sum(x x0 + y y0) / S``, ``b = sum(x y0 - y x0) / S`` with ``S = sum(x^2 + y^2)``,
and for independent, equal-variance errors ``sigma^2`` (estimated from the residuals, 2N - 4
degrees of freedom) the covariance is ``sigma^2 diag(1/S, 1/S, 1/N, 1/N)``. Propagated to a point
``c`` this gives a standard error of ``sigma * sqrt(|c - m|^2 / S + 1 / N)`` along either axis:
points clustered in one part of the frame (small ``S``, far from the corners) give a large
uncertainty at the far corners, as they should. :func:`corner_sd` takes the worst frame corner.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Fit:
    A: np.ndarray  # [2, 3]
    sigma: float  # residual standard deviation per coordinate (px)
    mean: np.ndarray  # centroid of the source points
    S: float  # sum of squared distances of the source points from their centroid
    n: int
    rms: float  # rms residual (px)

    def sd_at(self, xy: np.ndarray) -> np.ndarray:
        """Standard error (px, per axis) of where the fit puts points ``[M, 2]``."""
        d2 = np.sum((np.asarray(xy, float) - self.mean) ** 2, -1)
        return self.sigma * np.sqrt(d2 / self.S + 1.0 / self.n)


def fit_similarity(src: np.ndarray, dst: np.ndarray) -> Fit | None:
    """Least-squares similarity ``src -> dst`` (None for fewer than 3 points or coincident ones)."""
    src, dst = np.asarray(src, float), np.asarray(dst, float)
    n = len(src)
    if n < 3:
        return None
    m, m0 = src.mean(0), dst.mean(0)
    p, q = src - m, dst - m0
    S = float(np.sum(p * p))
    if S <= 1e-9:
        return None
    a = float(np.sum(p[:, 0] * q[:, 0] + p[:, 1] * q[:, 1])) / S
    b = float(np.sum(p[:, 0] * q[:, 1] - p[:, 1] * q[:, 0])) / S
    R = np.array([[a, -b], [b, a]])
    A = np.concatenate([R, (m0 - R @ m)[:, None]], 1)
    r = p @ R.T - q
    rss = float(np.sum(r * r))
    return Fit(A, float(np.sqrt(rss / max(1, 2 * n - 4))), m, S, n, float(np.sqrt(rss / (2 * n))))


def fit_shift(src: np.ndarray, dst: np.ndarray) -> Fit:
    """Least-squares translation ``src -> dst``; its standard error is ``sigma / sqrt(N)`` everywhere
    (``sigma`` from 2N - 2 degrees of freedom)."""
    src, dst = np.asarray(src, float), np.asarray(dst, float)
    n = len(src)
    t = (dst - src).mean(0)
    r = src + t - dst
    rss = float(np.sum(r * r))
    A = np.array([[1.0, 0.0, t[0]], [0.0, 1.0, t[1]]])
    return Fit(A, float(np.sqrt(rss / max(1, 2 * n - 2))), src.mean(0), np.inf, n, float(np.sqrt(rss / (2 * n))))


def similarity_or_shift(src: np.ndarray, dst: np.ndarray, width: float, height: float, z: float,
                        bound: float) -> tuple[np.ndarray, dict] | None:
    """The similarity taking ``src`` to ``dst`` and ``{resid, u}`` (its rms and standard error at the frame
    corners); where ``z`` of those errors exceed ``bound`` (rotation and scale loose: few or clustered points),
    the pure shift instead (``model: shift``) if the similarity does not differ from it significantly."""
    f = fit_similarity(src, dst)
    if f is None:
        return None
    A, u = f.A, corner_sd(f, width, height)
    if z * u > bound:
        t = fit_shift(src, dst)
        if np.abs(apply(A - t.A, _corners(width, height))).max() <= z * u and t.sigma / np.sqrt(f.n) < u:
            return t.A, {"resid": t.rms, "u": t.sigma / np.sqrt(f.n), "model": "shift"}
    return A, {"resid": f.rms, "u": u}


def held_out(src: np.ndarray, dst: np.ndarray, width: float, height: float, z: float, floor: float) -> bool:
    """Whether each quadrant's points lie where a fit to the other quadrants puts them.

    A similarity has four parameters, so two groups of points that each move on their own (a
    reflection sliding with an object on a glossy floor, next to a still part of it) are fitted
    exactly, as a zoom. Each quadrant with 3 points or more is left out in turn; the others give the
    prediction: their similarity where its rotation and scale move the left-out centroid by more than
    ``z`` of its standard errors there, else their shift (a rotation or zoom the others cannot show
    is not assumed). The left-out points' mean misfit must be within ``z`` standard errors (the
    prediction's, with their own scatter ``sigma / sqrt(n)``) or ``floor`` px."""
    src, dst = np.asarray(src, float), np.asarray(dst, float)
    q = (src[:, 0] >= width / 2).astype(int) + 2 * (src[:, 1] >= height / 2)
    for k in range(4):
        out = q == k
        if out.sum() < 3 or (~out).sum() < 3:
            continue
        c = src[out].mean(0)[None]
        f, t = fit_similarity(src[~out], dst[~out]), fit_shift(src[~out], dst[~out])
        if f is not None and np.abs(apply(f.A, c) - apply(t.A, c)).max() > z * f.sd_at(c)[0]:
            t = f
        miss = np.abs((apply(t.A, src[out]) - dst[out]).mean(0)).max()
        sd = float(np.hypot(t.sd_at(c)[0], t.sigma / np.sqrt(out.sum())))
        if miss > max(z * sd, floor):
            return False
    return True


def corner_sd(f: Fit, width: float, height: float) -> float:
    """Largest standard error (px) of where the fit puts a frame corner or the centre."""
    pts = np.array([[0, 0], [width - 1, 0], [0, height - 1], [width - 1, height - 1],
                    [(width - 1) / 2, (height - 1) / 2]], float)
    return float(f.sd_at(pts).max())


def cells(xy: np.ndarray, width: float, height: float, n: int = 4) -> int:
    """Number of the ``n x n`` grid cells over the frame that hold at least one point."""
    if not len(xy):
        return 0
    ij = np.clip((np.asarray(xy, float) / [width, height] * n).astype(int), 0, n - 1)
    return len(np.unique(ij[:, 0] * n + ij[:, 1]))


# --- [2, 3] transforms: apply, invert, compose, and what they do to a frame -----------------------


def good_corners(gray: np.ndarray, bad: np.ndarray, pts: np.ndarray, n: int, margin: int, sigmas: float) -> np.ndarray:
    """Up to ``n`` new corners ``[n, 2]`` of ``gray`` off the ``bad`` pixels, ``margin`` px from the border and
    6 px from the current points ``pts``, whose weaker eigenvalue stands ``sigmas`` noise sigmas out."""
    if n <= 0:  # (0 would mean "no limit" to OpenCV)
        return np.zeros((0, 2), np.float32)
    mask = np.where(bad, 0, 255).astype(np.uint8)
    b = margin  # borders: corners there leave the frame first
    mask[:b], mask[-b:], mask[:, :b], mask[:, -b:] = 0, 0, 0, 0
    for x, y in pts.astype(int):
        cv2.circle(mask, (int(x), int(y)), 6, 0, -1)
    got = cv2.goodFeaturesToTrack(gray, maxCorners=n, qualityLevel=0.01, minDistance=6, mask=mask, blockSize=5)
    if got is None:
        return np.zeros((0, 2), np.float32)
    got = got.reshape(-1, 2).astype(np.float32)
    # a point on a straight edge slides along it under Lucas-Kanade (stripes: a fixed camera 'moved' 0.9 px):
    # its weaker eigenvalue must stand out of noise, sigmas^2 times the frame's median (flat areas: noise)
    eig = cv2.cornerMinEigenVal(gray, 5)
    noise = float(np.median(eig[mask > 0])) if (mask > 0).any() else 0.0
    xi, yi = np.round(got).astype(int).T
    return got[eig[yi, xi] > sigmas ** 2 * max(noise, 1e-12)]


def view_grid(width: int, height: int) -> np.ndarray:
    """A 9 x 9 grid of points ``[81, 2]`` over a frame ``width`` x ``height`` (px), corners included."""
    return np.stack(np.meshgrid(np.linspace(0, width - 1, 9), np.linspace(0, height - 1, 9)), -1).reshape(-1, 2)


def share_inside(A: np.ndarray, grid: np.ndarray, width: int, height: int) -> float:
    """Share of the ``grid`` points (:func:`view_grid`) that ``A`` maps inside a ``width`` x ``height`` frame."""
    p = apply(A, grid)
    return float(((p >= 0) & (p <= [width - 1, height - 1])).all(1).mean())


def apply(A: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Map points ``[..., 2]`` with the ``[2, 3]`` transform ``A``."""
    xy = np.asarray(xy, float)
    return xy @ A[:, :2].T + A[:, 2]


def invert(A: np.ndarray) -> np.ndarray:
    return cv2.invertAffineTransform(np.asarray(A, np.float64))


def compose(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """``P`` after ``Q`` (both ``[2, 3]``)."""
    return np.concatenate([P[:, :2] @ Q[:, :2], (P[:, :2] @ Q[:, 2] + P[:, 2])[:, None]], 1)


def scale_of(A: np.ndarray) -> float:
    """Isotropic scale factor of a similarity ``[2, 3]`` (sqrt of the determinant)."""
    return float(np.sqrt(abs(np.linalg.det(A[:, :2]))))


def rotation_of(A: np.ndarray) -> float:
    """Rotation angle (radians, image axes) of a similarity ``[2, 3]``."""
    return float(np.arctan2(A[1, 0], A[0, 0]))


def _corners(width: int, height: int) -> np.ndarray:
    return np.array([[0, 0], [width - 1, 0], [0, height - 1], [width - 1, height - 1],
                     [(width - 1) / 2, (height - 1) / 2]], float)


def corner_shift(A: np.ndarray, width: int, height: int) -> float:
    """Largest displacement (pixels) ``A`` gives a frame corner or the centre."""
    pts = _corners(width, height)
    return float(np.abs(apply(A, pts) - pts).max())


def track_points(gray0: np.ndarray, prev: np.ndarray, g: np.ndarray, ref: np.ndarray, pts: np.ndarray,
                 prev_A: np.ndarray, pred: np.ndarray, margin: int, lk: dict):
    """Lucas-Kanade of the points into ``g``: straight from their frame-0 positions ``ref`` where those lie ``margin``
    px inside frame 0 ``gray0`` (no chained drift), else from ``pts`` in the previous key frame ``prev`` (mapped to
    frame 0 by ``prev_A``); initial guesses from ``pred`` (``g`` -> frame 0). ``(positions in g, ref, ok)``."""
    inv = invert(pred)
    gh, gw = g.shape
    direct = (ref >= margin).all(1) & (ref[:, 0] < gw - margin) & (ref[:, 1] < gh - margin)
    nxt = apply(inv, np.where(direct[:, None], ref, apply(prev_A, pts))).astype(np.float32)
    ok = np.zeros(len(ref), bool)
    for sel, img, start in ((direct, gray0, ref), (~direct, prev, pts)):
        if sel.any():
            got, st, _ = cv2.calcOpticalFlowPyrLK(img, g, start[sel].reshape(-1, 1, 2), nxt[sel].reshape(-1, 1, 2), **lk)
            nxt[sel], ok[sel] = got.reshape(-1, 2), st.reshape(-1) == 1
    x, y = nxt[:, 0], nxt[:, 1]
    ok &= (x >= 0) & (y >= 0) & (x < gw) & (y < gh)
    return nxt, ref, ok


def consensus(nxt: np.ndarray, ref: np.ndarray, gw: int, gh: int, inl: np.ndarray | None, min_points: int,
              min_cells: int, Z: float, ransac_px: float, max_u: float):
    """The camera's similarity from tracked corners ``nxt`` (work px) -> ``ref`` (frame 0): RANSAC's consensus
    (or the given inliers ``inl``) with at least ``min_points`` points, a third of them, over ``min_cells`` cells of
    a 4 x 4 grid of the ``gw x gh`` frame, each quadrant where the others' fit puts it (:func:`held_out`), refitted
    by least squares (:func:`similarity_or_shift`): ``(A, info, inlier points, their frame-0 points)`` or None."""
    if len(nxt) < min_points:
        return None
    if inl is None:
        A, inl = cv2.estimateAffinePartial2D(nxt, ref, method=cv2.RANSAC, ransacReprojThreshold=ransac_px,
                                             maxIters=1000, confidence=0.995, refineIters=10)
        if A is None:
            return None
        inl = inl.reshape(-1).astype(bool)
    n = int(inl.sum())
    c = cells(nxt[inl], gw, gh)
    if n < max(6, 0.3 * len(inl)) or c < min_cells:
        return None
    if not held_out(nxt[inl], ref[inl], gw, gh, Z, ransac_px):
        return None  # groups of points moving apart, not one camera motion
    got = similarity_or_shift(nxt[inl], ref[inl], gw, gh, Z, max_u)
    return None if got is None else (got[0], {"n": n, "cells": c, **got[1]}, nxt[inl], ref[inl])
