"""One key frame's camera estimate (:class:`KeyFrames`, the half of :class:`lawful.perceive.camera.CameraMotion`
that works on images): corners tracked from frame 0 by Lucas-Kanade, RANSAC's consensus and its rival, the pixel
vote between them and the path's prediction, then the background's intensities registered where corners fail, and
phase correlation last (the order and the checks: :mod:`lawful.perceive.camera`); and the grey work images and
masks every step uses.
"""

from __future__ import annotations

import cv2
import numpy as np

from lawful.perceive import camera_dense as dense
from lawful.perceive import camera_fit as fit
from lawful.perceive import camera_register as reg
from lawful.perceive.camera_fit import apply, compose, invert

_MARGIN = 8  # work pixels: no corners born this close to the border; frame-0 windows must lie inside frame 0
_BOX_MARGIN = 4.0  # work pixels an object's box is grown by before it is kept out of the estimates
_RANSAC_PX = 1.0  # work pixels: RANSAC inlier distance (LK's precision on compressed video is a few tenths)
MIN_CELLS = 4  # of the 16 cells of a 4 x 4 grid that inliers must reach (else the fit is a lever on a point)
_LK = dict(winSize=(11, 11), maxLevel=2, criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01),
           flags=cv2.OPTFLOW_USE_INITIAL_FLOW)


class KeyFrames:
    """Key-frame estimation and work images; the state it reads is :class:`lawful.perceive.camera.CameraMotion`'s."""

    def _estimate(self, g: np.ndarray, D: np.ndarray | None, boxes: np.ndarray, pred: np.ndarray, replace: bool = False,
                  raw: np.ndarray | None = None):
        """Work transform ``g`` -> frame 0 near ``pred``: ``(A or None, method, info, points in g, frame-0 points)``.

        ``g``: normalised grey (for Lucas-Kanade); ``D``: the smoothed raw grey, or None to make it from ``raw``
        when needed. ``replace``: this is the new key frame (its moving mask is kept for seeding corners).
        """
        gh, gw = g.shape
        keep = ~self._excluded(boxes, g.shape)
        ref_img, M_of, A_of = self._reference(pred)
        ref_keep = self._background(ref_img)
        nxt, ref, ok = self._lk(g, pred)
        xi = np.clip(np.round(nxt[:, 0]).astype(int), 0, gw - 1)
        yi = np.clip(np.round(nxt[:, 1]).astype(int), 0, gh - 1)
        ok &= keep[yi, xi]
        cands: list[np.ndarray] = []
        first = None  # the first consensus's inliers
        if ok.sum() >= self.min_points:  # RANSAC's consensus, and the consensus of what it left out
            rest = ok.copy()
            for k in range(2):  # (a remainder under a fifth of the points is not a rival consensus)
                if rest.sum() < max(self.min_points, 0.2 * ok.sum()):
                    break
                A, inl = cv2.estimateAffinePartial2D(nxt[rest], ref[rest], method=cv2.RANSAC,
                                                     ransacReprojThreshold=_RANSAC_PX, maxIters=200, confidence=0.99)
                if A is None:
                    break
                cands.append(A)
                idx = np.flatnonzero(rest)[inl.reshape(-1).astype(bool)]
                if k == 0:
                    first = np.zeros(len(ok), bool)
                    first[idx] = True
                rest[idx] = False
        uniq: list[np.ndarray] = []  # and the extrapolated path; near-duplicates (would split the vote) dropped
        for c in cands + [pred]:
            if all(self._apart(c, u) > _RANSAC_PX for u in uniq):
                uniq.append(c)
        # one consensus of nearly all points that agrees with the path: nothing moves on its own among the
        # corners, the pixel checks are skipped; too few corners for a fit: straight to the intensities
        clean = len(uniq) == 1 and first is not None and first.sum() >= 0.8 * ok.sum()
        scarce = ok.sum() < self.min_points
        if D is None and not clean and (len(uniq) > 1 or replace or self._moving is None or scarce):
            D = dense.smooth(raw)
        best = uniq[dense.best(D, ref_img, [M_of(c) for c in uniq], keep, ref_keep)] if len(uniq) > 1 else uniq[0]
        if clean or scarce:
            moving = None
        elif not replace and len(uniq) == 1 and self._moving is not None:  # between key frames, on the path
            moving = self._moving
        else:
            moving = dense.moving_mask(D, ref_img, M_of(best), keep, self._grow)
        if replace:
            self._moving = moving
        use = ok if moving is None else ok & ~moving[yi, xi]
        same = first is not None and best is cands[0] and np.array_equal(use, ok)  # nothing new excluded
        got = None if scarce else fit.consensus(nxt[use], ref[use], gw, gh, first[use] if same else None,
                                                self.min_points, MIN_CELLS, self.Z, _RANSAC_PX,
                                                self.max_uncertainty * self._s)
        if got is not None and self._usable(got[1]["u"]) \
                and self._apart(got[0], pred) > _RANSAC_PX:
            # corners agreeing off the path (a few on a plain backdrop, slipping together along a stripe or by a
            # period): the pixels must prefer their consensus to the path (studio WMLE P4
            # seed 1004: 7 corners put key frames 18 and 27 3.5 and 6.5 px off, 12 px once in frame px, among
            # intensity registrations within 0.4 px, and the path was used)
            if D is None:
                D = dense.smooth(raw)
            if dense.best(D, ref_img, [M_of(got[0]), M_of(pred)], keep, ref_keep) != 0:
                got = None
        if got is not None and self._usable(got[1]["u"]):
            return (got[0], "lk", got[1], *got[2:])
        loose = None if got is None else (got[0], "lk", got[1], *got[2:])  # too loose to use: the intensities first
        if moving is None:
            moving = np.zeros_like(keep)
        # corners scarce or not agreeing (stripes, bare walls): register the background's intensities
        if D is None:
            D = dense.smooth(raw)
        r = reg.register(D, self._template(ref_img), M_of(best), keep)
        if r is None and self._static is not None and not keep.all():
            # the objects' boxes leave too little background: robust weights
            # alone keep what moves out, as long as the background is most of what remains
            r = reg.register(D, self._template(ref_img), M_of(best), ~self._static)
        if r is not None:  # what that estimate does not explain moved on its own: again without it
            mm = dense.moving_mask(D, ref_img, r[0], keep, self._grow)
            if (mm & keep).sum() > 0.02 * keep.sum():
                r2 = reg.register(D, self._template(ref_img), r[0], keep & ~mm)
                r = r2 if r2 is not None else r
            if replace:  # and seeds no corners
                self._moving = mm
        if r is not None:
            A, u = A_of(r[0]), float(np.hypot(r[1], reg.INTERP_PX))
            if ref_img is not self._D0:  # via the previous key frame: its error adds
                u = float(np.hypot(u, self._keys[-1][3].get("u", 0.0)))
            info = {**r[2], "u": u, "cells": r[2]["cells"]}
            gap = self._loop(D, keep, A, u) if ref_img is self._D0 and np.isfinite(u) else None
            if gap is not None:  # registered against another frame, the same frame lands elsewhere: not the camera
                return None, "hold", {**info, "u": float("inf"), "loop_px": round(gap, 2)}, nxt[use], ref[use]
            # the pixels must prefer it to the path's prediction and the corners' consensus, when these differ
            rivals = [c for c in uniq if self._apart(c, A) > _RANSAC_PX]
            won = dense.best(D, ref_img, [r[0]] + [M_of(c) for c in rivals], keep, ref_keep) if rivals else 0
            if won and np.isfinite(u):  # (what the pixels preferred: a retry must agree with it)
                return None, "hold", {**info, "u": float("inf"), "outvoted": rivals[won - 1]}, nxt[use], ref[use]
            return A, "dense", info, nxt[use], apply(A, nxt[use]).astype(np.float32)
        r = dense.phase(dense.smooth(raw) if D is None else D, ref_img, M_of(best), keep & ~moving)
        if r is not None and np.isfinite(r[1]):
            A, u = A_of(r[0]), r[1]
            if ref_img is not self._D0:  # via the previous key frame: its error adds
                u = float(np.hypot(u, self._keys[-1][3].get("u", 0.0)))
            info = {"cells": fit.cells(np.argwhere(keep & ~moving)[::97, ::-1], gw, gh), "resid": float("nan"), "u": u}
            return A, "phase", info, nxt[use], apply(A, nxt[use]).astype(np.float32)
        return loose or (None, "hold", {}, nxt[use], ref[use])

    def _loop(self, D: np.ndarray, keep: np.ndarray, A: np.ndarray, u: float) -> float | None:
        """How far (work px, at the frame corners) the intensity registration ``A`` (work -> frame 0, error ``u``) of
        ``D`` lands from the same frame registered to the last estimated key frame and carried to frame 0 by that
        frame's own estimate, where the two differ by more than ``Z`` times their joint error plus ``max_uncertainty``
        (what any accepted estimate may be off by beyond its stated error: :func:`lawful.perceive.camera_path.decide`);
        else None (no such key frame yet, it is frame 0, or the second registration fails).

        A camera's motion is one: registered to either frame, a frame lands in the same place. What moved on its own
        between frame 0 and the other frame is not: a studio chain that fell from its first shape and settled carried
        a faint wall's y, and registrations to frame 0 put key frames 1 frame apart up to 4 work px apart, each
        +- 0.1 px, while the posts' caps moved under 0.6 work px over the whole clip (studio WMLE P7 seed 7100)."""
        last = next((k for k in reversed(self._keys) if k[2] != "hold"), None)
        if last is None or last[2] == "first" or self._raw_prev is None:
            return None
        prev = self._prev_smoothed()
        step = reg.register(D, self._template(prev), compose(invert(self._prev_A), A), keep)
        if step is None or not np.isfinite(step[1]):
            return None
        gap = self._apart(compose(self._prev_A, step[0]), A)
        # (any accepted estimate may be off by max_uncertainty beyond what its stated error shows: camera_path.decide)
        tol = self.max_uncertainty * self._s + self.Z * float(np.hypot(np.hypot(u, last[3].get("u", 0.0)), step[1]))
        return gap if gap > tol else None

    def _template(self, ref_img: np.ndarray) -> reg.Template:
        """The registration template of a reference image (frame 0 or the previous key frame), made once for each:
        the loop check registers to both at one key frame."""
        tpl = next((t for r, t in self._tpl if r is ref_img), None)
        if tpl is None:
            tpl = reg.Template(ref_img, self._background(ref_img))
            self._tpl = [(r, t) for r, t in self._tpl if r is self._D0 or r is self._Dprev] + [(ref_img, tpl)]
        return tpl

    def _background(self, ref_img: np.ndarray) -> np.ndarray:
        """Where the reference image (frame 0 or the previous key frame) shows background (bool, work px)."""
        return self._keep0 if ref_img is self._D0 else self._keep_prev

    def _lk(self, g: np.ndarray, pred: np.ndarray):
        """Track the points into ``g`` (initial guesses from ``pred``): ``(positions in g, frame-0 positions, ok)``."""
        return fit.track_points(self._gray0, self._prev, g, self._ref, self._pts, self._prev_A, pred, _MARGIN, _LK)

    def _reference(self, pred: np.ndarray):
        """Reference image for the pixel checks and maps to it: frame 0 while ``pred`` keeps half the frame
        inside it, else the previous key frame. ``(image, A -> map to it, map -> A)``."""
        gh, gw = self._gray0.shape
        if fit.share_inside(pred, self._grid, gw, gh) >= 0.5 or self._raw_prev is None:
            return self._D0, (lambda A: A), (lambda M: M)
        back = invert(self._prev_A)
        return self._prev_smoothed(), (lambda A: compose(back, A)), (lambda M: compose(self._prev_A, M))

    def _prev_smoothed(self) -> np.ndarray:
        """The last estimated key frame's smoothed grey image, made when first needed."""
        if self._Dprev is None:
            self._Dprev = dense.smooth(self._raw_prev)
        return self._Dprev

    # --- images ------------------------------------------------------------------------
    def _gray(self, rgb: np.ndarray | None, g: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Grey work image with mean and contrast normalised (a global lighting change is not motion), and
        the plain grey one ``g`` (:meth:`_plain`, made here unless given; the pixel checks fit gain and offset
        themselves; normalising clips)."""
        g = self._plain(rgb) if g is None else g
        mean, std = cv2.meanStdDev(g)
        gain = 40.0 / max(float(std[0, 0]), 1.0)
        return cv2.convertScaleAbs(g, alpha=gain, beta=128.0 - gain * float(mean[0, 0])), g

    def _plain(self, rgb: np.ndarray) -> np.ndarray:
        """Plain grey work image (``max_side``)."""
        g = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        return g if self._s == 1.0 else cv2.resize(g, (round(g.shape[1] * self._s), round(g.shape[0] * self._s)),
                                                   interpolation=cv2.INTER_AREA)

    def _apart(self, A: np.ndarray, B: np.ndarray) -> float:
        """How far apart two work transforms put the work frame's corners: the largest displacement (work px)."""
        return float(np.abs(apply(A - B, self._corners_w)).max())

    def _boxes(self, boxes) -> np.ndarray:
        """Finite object boxes ``[M, 4]`` in work pixels, grown by 4 px, or by a box's own reach where it is farther:
        a box may carry a fifth value, how far (frame px) the object reaches past it (:attr:`Tracked.rim`)."""
        rows = [tuple(b) + (0.0,) * (5 - len(b)) for b in ([] if boxes is None else boxes)]
        b = np.asarray(rows, float).reshape(-1, 5)
        b = b[np.isfinite(b).all(1)]
        grow = np.maximum(_BOX_MARGIN, b[:, 4:] * self._s)
        return b[:, :4] * self._s + np.hstack([-grow, -grow, grow, grow])

    def _still_keep(self, keep: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """The still test's usable pixels: an estimate's ``keep`` with the ``movers`` regions given back."""
        return keep if self._loose is None else ~self._excluded(boxes, keep.shape, loose=False)

    def _excluded(self, boxes: np.ndarray, shape, loose: bool = True) -> np.ndarray:
        """Work pixels (bool) inside the object boxes or the ``exclude`` regions (and the ``movers`` regions, with
        ``loose``)."""
        mask = self._static.copy() if self._static is not None else np.zeros(shape, bool)
        if loose and self._loose is not None:
            mask |= self._loose
        for x0, y0, x1, y1 in boxes.astype(int):
            mask[max(0, y0):max(0, y1 + 1), max(0, x0):max(0, x1 + 1)] = True
        return mask

    def _detect(self, gray: np.ndarray, boxes: np.ndarray, n: int) -> np.ndarray:
        """Up to ``n`` new corners ``[n, 2]`` away from objects, moving pixels, borders and the current points."""
        bad = self._excluded(boxes, gray.shape)
        if self._moving is not None:
            bad |= self._moving
        return fit.good_corners(gray, bad, self._pts, n, _MARGIN, dense.SIGMAS)
