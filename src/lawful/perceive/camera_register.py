"""Direct registration: a similarity plus brightness from the image intensities, with its uncertainty.

:func:`register` fits frame -> reference by inverse-compositional Gauss-Newton on a :class:`Template` (the
reference's pixels that can pin a motion, on a pyramid), Tukey-weighted, its standard error cluster-robust
(:func:`lawful.perceive.camera_dense.covariance`) and infinite along a direction that is not held by one basin
(:func:`_basin`). Used where corners fail (:mod:`lawful.perceive.camera`), for every frame about a moving path
(:mod:`lawful.perceive.camera_refine`) and by the still test (:mod:`lawful.perceive.camera_still`).
"""

from __future__ import annotations

import cv2
import numpy as np

from lawful.perceive.camera_dense import _TUKEY, SIGMAS, covariance, gradient_noise, tukey
from lawful.perceive.camera_fit import _corners, compose

MAX_POINTS = 1200  # reference pixels used per level
# work px: resampling bias of a registration by linear interpolation on images smoothed at 1 px, measured
# without noise over sub-pixel shifts and a 2 % zoom (up to 0.06 px); added in quadrature to the sd
INTERP_PX = 0.06


def _pyr_map(k: float) -> np.ndarray:
    """``[2, 3]`` map from full-level pixels to those of a ``cv2.pyrDown`` level ``k`` times as large."""
    return np.array([[k, 0.0, 0.0], [0.0, k, 0.0]])


class Template:
    """The pixels of a reference image that can pin down a motion, on a pyramid (``cv2.pyrDown``: quarter,
    half and full size): those with a gradient above ``SIGMAS`` times the gradient of noise (the full
    level's median), inside ``keep`` (not on objects or excluded regions) and 3 px from it and from the
    border, at most ``MAX_POINTS`` per level, spread evenly; with their values and gradients."""

    def __init__(self, ref: np.ndarray, keep: np.ndarray, levels: int = 3):
        ok = cv2.erode(keep.astype(np.uint8), np.ones((7, 7), np.uint8))
        self.levels: list[tuple] = []  # coarse first: (k, points, values, gx, gy, centre)
        self.grad_sd, noise, R = 0.0, None, ref
        for n in range(levels):
            if n:
                if min(R.shape) < 64:
                    break
                R, ok = cv2.pyrDown(R), ok[::2, ::2]  # pyrDown keeps pixel 2j at j
            h, w = R.shape
            gx = cv2.Sobel(R, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
            gy = cv2.Sobel(R, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
            mag = cv2.magnitude(gx, gy)
            if noise is None:
                m = mag[ok > 0]
                if m.size < 50:
                    return
                noise, self.grad_sd = gradient_noise(m)
            idx = np.flatnonzero((ok > 0) & (mag > max(SIGMAS * noise, 0.05)))
            if len(idx) < 30:
                continue
            idx = idx[:: max(1, int(np.ceil(len(idx) / MAX_POINTS)))]
            y, x = np.divmod(idx, w)
            self.levels.insert(0, (0.5 ** n, np.stack([x, y], 1).astype(np.float64), R.ravel()[idx].astype(np.float64),
                                   gx.ravel()[idx].astype(np.float64), gy.ravel()[idx].astype(np.float64),
                                   np.array([(w - 1) / 2, (h - 1) / 2])))


def _similarity(p: np.ndarray, ctr: np.ndarray) -> np.ndarray:
    """``[2, 3]`` similarity with parameters ``(a, b, tx, ty)`` about ``ctr``: ``[[1 + a, -b], [b, 1 + a]]``."""
    a, b, tx, ty = p
    W = np.array([[1 + a, -b, 0.0], [b, 1 + a, 0.0]])
    W[:, 2] = ctr + [tx, ty] - W[:, :2] @ ctr
    return W


def _residuals(I: np.ndarray, keep: np.ndarray, y: np.ndarray, B: np.ndarray, R: np.ndarray, g: float, c: float):
    """Frame minus modelled template at the template points ``y`` mapped by ``B``, and which are usable
    (inside the frame, on ``keep``)."""
    h, w = I.shape
    p = y @ B[:, :2].T + B[:, 2]
    inside = (p[:, 0] >= 1) & (p[:, 1] >= 1) & (p[:, 0] < w - 2) & (p[:, 1] < h - 2)
    pi = np.clip(np.round(p).astype(int), 0, [keep.shape[1] - 1, keep.shape[0] - 1])
    use = inside & keep[pi[:, 1], pi[:, 0]]
    v = cv2.remap(I, p[:, 0].astype(np.float32)[None], p[:, 1].astype(np.float32)[None], cv2.INTER_LINEAR).ravel()
    return v - g * R - c, use


def _rho(e: np.ndarray, use: np.ndarray, sig: float) -> np.ndarray:
    """Tukey's biweight loss of the residuals ``e[use]`` (scale ``sig``)."""
    k = _TUKEY * sig
    z = np.minimum(np.abs(e[use]) / k, 1.0)
    return k * k / 6 * (1 - (1 - z * z) ** 3)


def register(img: np.ndarray, tpl: Template, A0: np.ndarray, keep: np.ndarray, iters: int = 20,
             check: bool = True):
    """Frame -> reference similarity ``A`` near ``A0`` by intensity: ``(A, sd px, info)`` or None.

    Inverse-compositional Gauss-Newton on the template's pyramid for a similarity plus the gain and
    offset of brightness; Tukey weights leave out what moved on its own, and frame pixels outside
    ``keep`` are not used. The uncertainty is a cluster-robust (sandwich) covariance from the
    residuals, pixels grouped in ``_BLOCK``-px blocks, propagated to the frame corners and centre:
    ``sd`` is the largest standard error (work px) along either axis. It is infinite where some
    direction of the motion is pinned by no more gradient than noise alone would give (stripes all
    along it, a bare wall), and where a direction pinned by less than ``SIGMAS`` times that is not
    held by one basin: started one pixel of the coarsest level away along it, on either side, the
    registration (``check``) must come back within ``SIGMAS`` standard errors (:func:`_basin`).
    A step is taken when it lowers the robust cost of the points inside the frame before and after it
    (a point that a step carries out of the frame neither counts against it nor for it). ``info``:
    points used, blocks, grid cells, the weakest direction's signal-to-noise ``snr``, rms residual,
    robust sigma, iterations and, for a weak direction, ``restart_px`` (how far the restarts ended).
    """
    B = cv2.invertAffineTransform(np.asarray(A0, np.float64))  # reference -> frame, full level
    g, c, out = 1.0, 0.0, None
    for k, y, R, gx, gy, ctr in tpl.levels:
        P = _pyr_map(k)
        Pi = cv2.invertAffineTransform(P)
        step = round(1 / k)
        I = img
        for _ in range(step.bit_length() - 1):
            I = cv2.pyrDown(I)
        kp = keep[::step, ::step]
        h, w = I.shape
        Bk = compose(P, compose(B, Pi))
        d = y - ctr
        SD = np.stack([gx * d[:, 0] + gy * d[:, 1], -gx * d[:, 1] + gy * d[:, 0], gx, gy], 1)
        for it in range(iters):
            e, use = _residuals(I, kp, y, Bk, R, g, c)
            if use.sum() < 30:
                return None
            wt, sig = tukey(e, use)
            J = np.concatenate([g * SD, R[:, None], np.ones((len(R), 1))], 1)
            Jw = J * wt[:, None]
            H = Jw.T @ J
            dp = np.linalg.lstsq(H, Jw.T @ e, rcond=1e-12)[0]  # a direction nothing pins: no step along it
            for _ in range(3):  # a step must lower the robust cost (Gauss-Newton may overshoot along a weak direction)
                Bn = compose(Bk, cv2.invertAffineTransform(_similarity(dp[:4], ctr)))
                en, usen = _residuals(I, kp, y, Bn, R, g + dp[4], c + dp[5])
                both = use & usen  # the same points on both sides: leaving the frame is no cost (a zoom's edges)
                if _rho(en, both, sig).sum() <= _rho(e, both, sig).sum():
                    break
                dp = dp / 2
            else:
                break  # no step lowers the cost: a minimum
            Bk, g, c = Bn, g + dp[4], c + dp[5]
            a, b, tx, ty = dp[:4]
            if (abs(a) + abs(b)) * max(w, h) / 2 + np.hypot(tx, ty) < 0.01:  # px, at most, at a corner
                break
        B = compose(Pi, compose(Bk, P))
        out = (k, y, d, J, wt, e, sig, it + 1, H, w, h)
    if out is None:
        return None
    k, y, d, J, wt, e, sig, n_it, H, w, h = out
    cov = covariance(J, wt, e, y, d, H, w, h, g * max(tpl.grad_sd, 1e-3), min_snr=1.0)
    if cov is None:
        return None
    sd, snr, weak, G, loose = cov
    A = cv2.invertAffineTransform(B)
    rms = float(np.sqrt(np.sum(wt * e * e) / max(wt.sum(), 1e-9)))
    cells = len(np.unique(np.clip((y[wt > 0] / [w, h] * 4).astype(int), 0, 3) @ [1, 4]))
    info = {"n": int((wt > 0).sum()), "blocks": G, "cells": cells, "snr": round(snr, 1),
            "weakest": np.round(weak, 2).tolist(), "resid": rms, "sigma": sig, "iters": n_it}
    if loose and np.isfinite(sd):
        if not check:
            return A, sd / k, info
        info["restart_px"] = _basin(img, tpl, A, keep, [_to_full(u, k, ctr) for u in loose], img.shape)
        if info["restart_px"] > SIGMAS * np.hypot(sd / k, INTERP_PX):
            sd = float("inf")
    return A, sd / k, info


def _to_full(u: np.ndarray, k: float, ctr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A direction ``(a, b, tx, ty)`` about ``ctr`` of a level ``k`` times full size, at full size."""
    return np.array([u[0], u[1], u[2] / k, u[3] / k]), ctr / k


def _basin(img: np.ndarray, tpl: Template, A: np.ndarray, keep: np.ndarray, dirs: list, shape) -> float:
    """How far (px, at the frame corners) registrations started off ``A`` along each direction of ``dirs``
    (``(direction, centre)`` pairs), on either side, end from ``A``: inf where one fails. The start is one
    pixel of the coarsest level away at the farthest corner (4 px for three levels), the reach the pyramid is
    built for: a weakly pinned direction with a second minimum that close (a shelf's end, one slanted edge) is
    not one basin. Studio P10 seed 1000 zoom10, frame 60 (x at snr 2.3, work px), started 9 px off: it ended
    7 px from the truth and restarts from there ended 7-10 px away; its good frames come back within 0.2 px."""
    h, w = shape
    reach = 1.0 / tpl.levels[0][0]
    pts = _corners(w, h)
    worst = 0.0
    for u, ctr in dirs:
        q = pts - ctr  # displacement of the corners per unit of u: (a qx - b qy + tx, b qx + a qy + ty)
        unit = u / max(float(np.hypot(q @ [u[0], -u[1]] + u[2], q @ [u[1], u[0]] + u[3]).max()), 1e-12)
        for sign in (-1.0, 1.0):
            r = register(img, tpl, compose(A, _similarity(sign * reach * unit, ctr)), keep, check=False)
            if r is None:
                return float("inf")
            worst = max(worst, float(np.abs(r[0][:, :2] @ pts.T + r[0][:, 2:] - (A[:, :2] @ pts.T + A[:, 2:])).max()))
    return worst
