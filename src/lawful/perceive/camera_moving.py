"""What moves on its own in front of a still or shaking camera (:class:`Movers`), kept out of the shake
registration (:mod:`lawful.perceive.camera_shake`) and the still-camera test (:mod:`lawful.perceive.camera_still`).

The objects' boxes are not all that moves: a pendulum's strings, a hanging chain, an arm or a shadow carry
much of a plain backdrop's gradient, and a fit over them reads their motion as the camera's (a flat pendulum's
strings: a 0.017-px "shake" on every frame; a studio chain: 4.6 px). Frame differencing finds them without
knowing what they are: frame ``k`` (smoothed grey work image, its brightness matched to frame 0's as a flicker
changes it: :meth:`Movers.gain`) is compared with the *envelope* of frame 0, the least and greatest value within
``RADIUS`` work px of each pixel. A camera shake of up to ``RADIUS`` px keeps the background inside that envelope
(edges included; a narrow highlight a fraction of a pixel off its samples may leave it: that costs points, not
bias); a thing that moved further leaves it where it arrived, and frame 0 leaves frame ``k``'s envelope where it
was (both places are marked). A pixel leaves it when the
excess is above ``z`` noise sigmas: sigma the median absolute deviation of the plain difference over the
background, ``z = sqrt(2 ln N)`` over the frame's ``N`` pixels (the level that noise alone, Gaussian, exceeds at
less than one pixel per frame); thin lines survive (no opening). Marked pixels are grown by ``grow`` px (the
slower parts of the same thing: a string nearer its pivot, the blur of a moving edge).

When what is marked (grown) holds most of the background's edge pixels (a flat pendulum's strings, a studio chain:
up to two fifths measured), it is the camera that moved, not things in
front of it: nothing is masked, and the callers' own checks (a misfit, a shift beyond the still bound or
beyond shake) see the motion.
"""

from __future__ import annotations

import cv2
import numpy as np

from lawful.perceive.camera_dense import _MAD, SCALE_N, scale, spread_median, tukey

RADIUS = 1  # work px: the shake the envelope tolerates (the shake registration's linear range at 1-px smoothing)
_QUANTILES = np.linspace(2, 98, 25)  # of the background's intensities, matched for the brightness change
_Q_ONES = np.ones(len(_QUANTILES))  # their weights


def _quantiles(v: np.ndarray) -> np.ndarray:
    """``_QUANTILES`` (percent) of ``v``, nearest rank (``np.percentile`` costs more than the rest of a fit)."""
    return np.sort(v)[np.round(_QUANTILES / 100 * (len(v) - 1)).astype(int)].astype(np.float64)


def _line(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Weighted least-squares line ``y ~ a x + c`` (gain 1, offset 0 where ``x`` does not vary)."""
    sw = w.sum()
    mx, my = float(w @ x) / sw, float(w @ y) / sw
    wdx = x - mx
    wdx *= w
    vx = float(wdx @ (x - mx))
    a = float(wdx @ (y - my)) / vx if vx > 1e-9 * sw else 1.0
    return float(a), float(my - a * mx)


class _QLine:
    """:func:`_line` of quantiles against frame 0's ``q0`` (weights one), its ``x`` side worked out once."""

    def __init__(self, q0: np.ndarray):
        self.sw = _Q_ONES.sum()
        self.mx = (_Q_ONES * q0).sum() / self.sw
        self.dx = q0 - self.mx
        self.vx = (_Q_ONES * self.dx ** 2).sum()
        self.wdx = _Q_ONES * self.dx

    def __call__(self, y: np.ndarray) -> tuple[float, float]:
        my = (_Q_ONES * y).sum() / self.sw
        a = (self.wdx * (y - my)).sum() / self.vx if self.vx > 1e-9 * self.sw else 1.0
        return float(a), float(my - a * self.mx)


class Movers:
    """Frame 0's envelope; :meth:`mask` marks what moved on its own in a later frame (smoothed grey work
    image ``D`` as :func:`lawful.perceive.camera_dense.smooth` makes it, ``keep`` the usable pixels)."""

    def __init__(self, D0: np.ndarray, keep0: np.ndarray, grow: int = 3):
        k = np.ones((2 * RADIUS + 1, 2 * RADIUS + 1), np.uint8)
        self.D0, self.lo0, self.hi0 = D0, cv2.erode(D0, k), cv2.dilate(D0, k)
        self._lo, self._hi = np.empty_like(D0), np.empty_like(D0)  # frame 0's envelope widened per frame (scratch)
        self._k, self._grow = k, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8)
        idx = np.flatnonzero(keep0)
        self.grid = idx[:: max(1, len(idx) // 2000)]  # background pixels for the brightness fit and the noise
        self.q0 = _quantiles(D0.ravel()[self.grid]) if len(self.grid) else None
        self._qline = None if self.q0 is None else _QLine(self.q0)
        self._x = D0.ravel()[self.grid].astype(np.float64)  # frame 0 on the grid
        self.z = float(np.sqrt(2 * np.log(max(D0.size, 2))))
        gx = cv2.Sobel(D0, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
        gy = cv2.Sobel(D0, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
        mag = cv2.magnitude(gx, gy)
        self._edges = keep0 & (mag > 3 * _MAD * spread_median(mag[keep0])) if keep0.any() else keep0
        self._n_edges = int(np.count_nonzero(self._edges))
        self._last: tuple = (None, None)  # (image, its mask): a key frame asked twice is worked out once
        self.share = 0.0  # share of frame 0's background edges the last mask marked

    def gain(self, D: np.ndarray, keep: np.ndarray, pairs: bool = True) -> tuple[float, float] | None:
        """Gain and offset ``(a, c)`` of ``D`` against frame 0 (flicker: ``D ~ a D_0 + c``) or None with under 50
        background pixels. First from the quantiles of the background pixels (a grid): a motion hardly changes a
        frame's intensity distribution, while a fit to pixel pairs may follow edges moved onto a plain wall (a
        zero gain, and then nothing seems to have moved: the still test takes this one). With ``pairs``, refined on
        the pixel pairs, Tukey-reweighted from there (what moved drops out), as the quantiles of a tiled or banded
        backdrop are coarse (gain 1.02, offset -3.8 grey levels on a still render: its dark bar then read as
        moving); where the camera moved far, :meth:`mask` then marks the edges and gives up."""
        got = self._gain(D, keep, pairs)
        return None if got is None else got[:2]

    def _gain(self, D: np.ndarray, keep: np.ndarray, pairs: bool) -> tuple[float, float, np.ndarray] | None:
        """:meth:`gain` and the background grid pixels it used (flat indices)."""
        on = keep.ravel()[self.grid]
        sel = self.grid[on]
        if self.q0 is None or len(sel) < 50:
            return None
        v = D.ravel()[sel]
        a, c = self._qline(_quantiles(v))
        x, y = self._x[on], v.astype(np.float64)
        for _ in range(2 if pairs else 0):
            wt = tukey(y - (a * x + c), None, SCALE_N)[0]
            if wt.sum() < 25:
                break
            a, c = _line(x, y, wt)
        return float(a), float(c), sel

    def mask(self, D: np.ndarray, keep: np.ndarray) -> np.ndarray:
        """Pixels (bool, work px) of ``D`` that moved on their own since frame 0, grown (also outside ``keep``: the
        callers take their points from ``keep`` anyway); none where the marks hold most of the background's edges
        (the camera moved) or too little background is left to tell."""
        if self._last[0] is D:
            return self._last[1]
        out, got = None, self._gain(D, keep, True)
        if got is not None and abs(got[0]) > 1e-3:
            a, c, sel = got
            Dm = D - np.float32(c)
            Dm /= np.float32(a)  # in frame 0's brightness
            diff = Dm.ravel()[sel] - self.D0.ravel()[sel]
            t = np.float32(self.z * scale(diff, SCALE_N))
            lo, hi = cv2.erode(Dm, self._k), cv2.dilate(Dm, self._k)
            # in place: lo0 - t <= Dm <= hi0 + t and lo - t <= D0 <= hi + t (these run on every registered frame)
            inside = cv2.inRange(Dm, np.subtract(self.lo0, t, out=self._lo), np.add(self.hi0, t, out=self._hi))
            inside &= cv2.inRange(self.D0, np.subtract(lo, t, out=lo), np.add(hi, t, out=hi))
            r = RADIUS + 1  # (a shift brings in content from beyond the border there: no envelope to compare with)
            inside[:r], inside[-r:], inside[:, :r], inside[:, -r:] = 255, 255, 255, 255
            bad = cv2.erode(inside, self._grow) == 0  # (grown: the erosion of the rest)
            self.share = np.count_nonzero(np.logical_and(bad, self._edges)) / max(self._n_edges, 1)
            if self.share <= 0.5:
                out = bad
        out = np.zeros(D.shape, bool) if out is None else out
        self._last = (D, out)
        return out


def rasterise(regions, scale, shape) -> np.ndarray:
    """Bool mask of ``shape`` (h, w) covering ``regions`` (boxes ``(x0, y0, x1, y1)`` or polygons ``[(x, y), ...]``)
    given in pixels that ``scale`` ``(sx, sy)`` maps to the mask's."""
    mask = np.zeros(shape, np.uint8)
    f = np.asarray(scale, float)
    for r in regions:
        r = np.asarray(r, float)
        if r.size == 4 and r.ndim == 1:
            (x0, y0), (x1, y1) = r[:2] * f, r[2:] * f
            mask[max(0, int(y0)):max(0, int(np.ceil(y1)) + 1), max(0, int(x0)):max(0, int(np.ceil(x1)) + 1)] = 1
        else:
            cv2.fillPoly(mask, [np.round(r.reshape(-1, 2) * f).astype(np.int32)], 1)
    return mask > 0
