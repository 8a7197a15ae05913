"""The still-camera test that runs before any corner tracking (:class:`StillTest`).

A fixed camera is the common case, and proving it fixed is cheaper than estimating a path. At a key
frame ``k`` the background's intensities are compared with frame 0's at the pixels of frame 0 that can
pin a motion (:class:`lawful.perceive.camera_register.Template`, finest level: gradient above noise, off
the objects): for a small motion ``delta(y) = A y - y`` the difference is
``I_k(y) - I_0(y) = grad I_0(y) . delta(y)`` plus a change of gain and offset (flicker) plus noise, linear
in the similarity's four parameters once the brightness change is removed (a gain and offset matching the
quantiles of the background's intensities to frame 0's: a motion hardly changes them; fitted to pixel
pairs, a zero gain "explains" edges moved onto a plain wall). Pixels where something moved on its own since frame 0 beyond a shake
(:class:`lawful.perceive.camera_moving.Movers`: a pendulum's strings read 0.56 px of "camera motion") are left
out. A least-squares fit, Tukey-reweighted so that what moves on its own
(an arm, a shadow, an object outside the boxes) drops out, gives ``delta`` and its standard error
(:func:`lawful.perceive.camera_dense.covariance`: cluster-robust, the template's own noise subtracted,
infinite where a direction is not pinned: a bare wall is never "still" by default).

The linearisation holds only for motions well under a pixel: a large one leaves residuals the fit cannot
explain, and the reweighting then follows whatever still agrees (weakly textured points) or, all being
wrong, keeps everything with a scale as large as the residuals: neither the fit's own residual scale nor
the difference to the previous frame (as wrong when the camera moves fast) can tell. What can: the
residual expressed as a displacement, ``|residual| / |gradient|`` at each point, its median weighted
by the gradient information ``|gradient|^2`` (``misfit``). Noise leaves a small fraction of a pixel
there, a motion beyond the linear range about its own size, things moving on their own (under half
the information) nothing. The key frame is still when

- the misfit is within ``bound`` (the tracker's precision: ``CameraMotion.min_shift``; a clip whose
  noise alone exceeds it cannot be proven still at that precision), and
- the motion is pinned (finite error: some gradient information beyond what noise alone gives, in every
  direction; at identity, within the linear range, no distant wrong minimum is possible, so the
  registration's stricter ``SIGMAS`` is not needed, and the error grows as that margin shrinks) and, at the
  frame corners and centre, plus ``Z`` standard errors within ``bound``.

Anything else (moved, misfit, not pinned) ends the still path; the reason is kept as evidence.
"""

from __future__ import annotations

import numpy as np

from lawful.perceive import camera_dense as dense
from lawful.perceive import camera_register as reg
from lawful.perceive.noise import weighted_median
from lawful.perceive.camera_fit import corner_shift
from lawful.perceive.camera_moving import Movers

_IRLS = 4  # reweighting rounds of the fit


def _robust(J: np.ndarray, e: np.ndarray, use: np.ndarray):
    """Tukey-reweighted least squares ``e ~ J p``: ``(p, residual, weights, normal matrix, robust sigma)``."""
    r, wt, Jt = e, use.astype(float), np.ascontiguousarray(J.T)
    for _ in range(_IRLS):
        p = dense.solve(Jt, wt, e) if J.shape[1] else np.zeros(0)
        r = e - J @ p
        wt, sig = dense.tukey(r, use, dense.SCALE_N)
    Jw = J * wt[:, None]
    return p, r, wt, Jw.T @ J, sig


class StillTest:
    """Frame 0's template and the verdicts so far. ``bound``: work px; ``Z``: standard errors; ``scale``:
    work px per frame px (the evidence is in frame px)."""

    def __init__(self, D0: np.ndarray, keep0: np.ndarray, bound: float, Z: float, scale: float = 1.0,
                 movers: Movers | None = None):
        self.template = reg.Template(D0, keep0)
        self.movers = movers or Movers(D0, keep0)
        self.bound, self.Z, self.s = float(bound), float(Z), float(scale)
        self.tested = 0
        self.worst = 0.0  # largest motion + Z sd among the still key frames (work px)
        self.failed: str | None = None  # why the still path ended (None while still)

    def test(self, i: int, D: np.ndarray, keep: np.ndarray):
        """Key frame ``i`` (smoothed grey ``D``, ``keep``: usable pixels):
        ``(A, info)`` with ``A`` the small-motion work transform frame ``i`` -> frame 0 if it is still, else
        None (``failed`` says why)."""
        self.tested += 1
        fine = [lv for lv in self.template.levels if lv[0] == 1.0]
        if not fine:
            return self._fail(i, "frame 0 has too few background pixels with a gradient above noise")
        _, y, R, gx, gy, ctr = fine[0]
        h, w = D.shape
        yi = y.astype(int)
        ac = self.movers.gain(D, keep, pairs=False)
        use = keep[yi[:, 1], yi[:, 0]] & ~self.movers.mask(D, keep)[yi[:, 1], yi[:, 0]]  # not what moves on its own
        if use.sum() < 50 or ac is None:
            return self._fail(i, "too few background pixels off the objects and what moves")
        d = y - ctr
        at = (yi[:, 1], yi[:, 0])
        e = D[at] - (ac[0] * R + ac[1])
        J = np.stack([gx * d[:, 0] + gy * d[:, 1], -gx * d[:, 1] + gy * d[:, 0], gx, gy], 1)
        p, r, wt, H, sig = _robust(J, e, use)
        noise = max(self.template.grad_sd, 1e-3)
        cov = dense.covariance(J, wt, r, y, d, H, w, h, noise, min_snr=1.0)
        if cov is None:
            return self._fail(i, "residuals in fewer than 8 blocks")
        sd, snr, _, G, _ = cov
        # what the fit leaves, as a displacement: |residual| / |gradient|, the median over the background's
        # gradient information (|gradient|^2): noise leaves a fraction of a pixel, a motion beyond the linear
        # range its own size (edges land on other edges or on plain wall), a small thing moving on its own nothing
        g = np.hypot(gx, gy)[use]
        m = weighted_median(np.abs(r[use]) / np.maximum(g, 1e-6), g * g)
        A = reg._similarity(p[:4], ctr)
        shift = corner_shift(A, w, h)
        info = {"n": int((wt > 0).sum()), "cells": int(len(np.unique(np.clip((y[wt > 0] / [w, h] * 4).astype(int),
                                                                              0, 3) @ [1, 4]))),
                "resid": float(np.sqrt(np.sum(wt * r * r) / max(wt.sum(), 1e-9))), "u": sd, "snr": round(snr, 1),
                "misfit": round(m, 4)}
        if m > self.bound:
            return self._fail(i, f"the background's residual is that of a {m / self.s:.2f} px misregistration, beyond"
                                 f" {self.bound / self.s:.2f} px: moved beyond a linear fit (or much else moves)")
        if not np.isfinite(sd):
            return self._fail(i, f"motion not pinned (gradient {snr:.1f}x that of noise in its weakest direction)")
        if shift + self.Z * sd > self.bound:
            return self._fail(i, f"background moved {shift / self.s:.2f} +- {sd / self.s:.2f} px, beyond"
                                 f" {self.bound / self.s:.2f} px ({self.Z:g} sd)")
        self.worst = max(self.worst, shift + self.Z * sd)
        return A, info

    def _fail(self, i: int, why: str):
        self.failed = f"key frame {i}: {why}"
        return None

    def evidence(self) -> dict:
        """What the still test found: ``path`` (``still``: corners never tracked, or ``full``), key frames
        ``tested`` and the ``reason``."""
        if self.failed is None:
            return {"path": "still", "tested": self.tested,
                    "reason": f"background within {self.worst / self.s:.2f} px of frame 0 ({self.Z:g} sd) at all"
                              f" {self.tested} key frames, bound {self.bound / self.s:.2f} px: corners not tracked"}
        return {"path": "full", "tested": self.tested, "reason": f"not still at {self.failed}; full estimation"}
