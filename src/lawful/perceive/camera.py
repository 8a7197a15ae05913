"""Camera motion compensation: per-frame similarity transforms back to the first frame.

:class:`CameraMotion` estimates every ``stride``-th frame and the last one; the frames between
get the linear interpolation of their neighbours' transforms and cost nothing, unless the
camera path bends (the estimate lands away from where the path was extrapolated to): then
they are estimated as well. At an estimated frame each background corner
(``cv2.goodFeaturesToTrack``) is matched by pyramidal Lucas-Kanade straight from its frame-0
position, starting where the extrapolated path puts it, so frame ``k`` is registered to frame
0 directly (no chained drift); only corners born outside frame 0 (after a large pan) are
followed from the previous estimated frame. A 4-dof similarity (``cv2.estimateAffinePartial2D``,
RANSAC) maps the matches to their frame-0 positions. Points on moving objects are excluded by
masks and by RANSAC; lost points are replaced by new corners whose frame-0 position comes from
the current transform. When too few corners agree (a plain backdrop, a frame filled by a moving
object) the last transform is kept (``methods['hold']`` in the summary). Work happens on a grey
copy at most ``max_side`` pixels wide, normalised in mean and contrast so a global lighting
change is not read as motion.

Transforms are ``[2, 3]`` float64 matrices in the pixel coordinates of the frames handed in
(pixel centres at integer coordinates): ``p0 = A @ [x, y, 1]``.
"""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np

IDENTITY = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
_MARGIN = 8  # work pixels: no corners born this close to the border; frame-0 windows must lie inside frame 0
_LK = dict(winSize=(11, 11), maxLevel=2, criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01),
           flags=cv2.OPTFLOW_USE_INITIAL_FLOW)


def apply(A: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Map points ``[..., 2]`` with the ``[2, 3]`` transform ``A``."""
    xy = np.asarray(xy, float)
    return xy @ A[:, :2].T + A[:, 2]


def invert(A: np.ndarray) -> np.ndarray:
    return cv2.invertAffineTransform(np.asarray(A, np.float64))


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


class CameraMotion:
    """Streaming estimator of frame-``k`` -> frame-0 similarity transforms.

    Call :meth:`update` once per frame (the first call defines frame 0) with the RGB frame
    and boxes ``[(x0, y0, x1, y1), ...]`` (frame pixels) of moving objects to ignore; then read
    :attr:`transforms` (one per update) and :meth:`summary`. Frames since the last estimated one
    are kept by reference (at most ``stride``): do not modify them in place.
    """

    BEND = 0.3  # work pixels: an estimate this far from the extrapolated path also estimates the frames between

    def __init__(self, max_side: int = 320, max_corners: int = 120, min_points: int = 12, stride: int = 8):
        self.max_side = max_side
        self.max_corners = max_corners
        self.min_points = min_points
        self.stride = max(1, int(stride))
        self._n = 0  # update() calls so far
        self._held: list[tuple] = []  # (index, rgb, boxes) of the frames not estimated yet
        self._keys: list[tuple[int, np.ndarray, str]] = []  # estimated frames: (index, work transform, method)
        self._out: list[np.ndarray] | None = None
        self._s = 1.0
        self._size = (0, 0)
        self._corners_w = np.zeros((0, 2))
        self._gray0 = self._prev = None  # frame 0 and the last estimated key frame (grey, work resolution)
        self._prev_A = IDENTITY
        self._pts = np.zeros((0, 2), np.float32)  # positions in ``_prev``
        self._ref = np.zeros((0, 2), np.float32)  # frame-0 positions

    # --- streaming ---------------------------------------------------------------------
    def update(self, rgb: np.ndarray, boxes=None) -> None:
        """Add the next frame: every ``stride``-th is estimated now, the others later or by interpolation."""
        self._held.append((self._n, rgb, boxes))
        self._n, self._out = self._n + 1, None
        if (self._n - 1) % self.stride == 0:
            self._flush()

    @property
    def transforms(self) -> list[np.ndarray]:
        """One ``[2, 3]`` frame -> frame-0 transform (frame pixels) per :meth:`update` call."""
        if self._held:
            self._flush()
        if self._out is None:
            if not self._keys:
                return []
            Aw = np.array([k[1] for k in self._keys])
            s, o = self._s, 0.5 * self._s - 0.5  # work = s * frame + o
            Af = Aw.copy()
            Af[:, :, 2] = (Aw[:, :, :2].sum(2) * o + Aw[:, :, 2] - o) / s
            idx, flat = np.arange(self._n), Af.reshape(len(Af), 6)
            full = np.stack([np.interp(idx, [k[0] for k in self._keys], flat[:, j]) for j in range(6)], 1)
            self._out = list(full.reshape(-1, 2, 3))
        return self._out

    def summary(self) -> dict:
        """Camera-motion summary for ``Tracks.meta``: largest shift, scale and rotation, and frame counts
        per method (``first``, ``lk``, ``hold``, ``interpolated``)."""
        T = np.array(self.transforms)
        if not len(T):
            return {"frames": 0}
        pts = _corners(*self._size)
        shift = np.abs(pts @ T[:, :, :2].transpose(0, 2, 1) + T[:, None, :, 2] - pts).max()
        scale = np.sqrt(np.abs(np.linalg.det(T[:, :, :2])))
        rot = np.arctan2(T[:, 1, 0], T[:, 0, 0])
        methods = dict(Counter(k[2] for k in self._keys))
        if len(T) > len(self._keys):
            methods["interpolated"] = len(T) - len(self._keys)
        return {
            "frames": len(T),
            "max_shift_px": round(float(shift), 3),
            "max_scale_change": round(float(np.abs(scale - 1).max()), 5),
            "max_rotation_deg": round(float(np.degrees(np.abs(rot).max())), 4),
            "methods": methods,
        }

    # --- estimation --------------------------------------------------------------------
    def _flush(self) -> None:
        """Estimate the latest held frame, and the ones before it too if the camera path bent."""
        *between, (i, rgb, boxes) = self._held
        self._held = []
        if not self._keys:
            return self._start(rgb, boxes)
        g, b = self._gray(rgb), self._boxes(boxes)
        j, Aj, _ = self._keys[-1]
        pred = Aj
        if len(self._keys) > 1:  # constant-velocity extrapolation of the camera path
            j0, A0, _ = self._keys[-2]
            pred = Aj + (Aj - A0) * ((i - j) / (j - j0))
        A = None
        if len(self._pts) >= self.min_points:
            A, self._pts, self._ref = self._match(g, b, pred)
        method = "lk"
        if A is None:  # too few background corners agree: keep the last transform
            method, A = "hold", Aj
        # replenish points lost at the borders or on objects
        if len(self._pts) < max(self.min_points * 2, self.max_corners // 3):
            new = self._detect(g, b, self.max_corners - len(self._pts))
            self._pts = np.concatenate([self._pts, new])
            self._ref = np.concatenate([self._ref, apply(A, new).astype(np.float32)])
        self._prev, self._prev_A = g, A
        self._keys.append((i, A, method))
        if method == "lk" and between and np.abs(apply(A - pred, self._corners_w)).max() > self.BEND:
            for k, rgb_k, boxes_k in between:  # not on a straight path: interpolation would be off
                Ak = self._match(self._gray(rgb_k), self._boxes(boxes_k), Aj + (A - Aj) * ((k - j) / (i - j)))[0]
                if Ak is not None:
                    self._keys.insert(-1, (k, Ak, "lk"))

    def _start(self, rgb: np.ndarray, boxes) -> None:
        """Frame 0: work scale and first corners."""
        h, w = rgb.shape[:2]
        self._size, self._s = (w, h), min(1.0, self.max_side / max(w, h))
        g = self._gray0 = self._prev = self._gray(rgb)
        self._corners_w = _corners(g.shape[1], g.shape[0])
        self._pts = self._detect(g, self._boxes(boxes), self.max_corners)
        self._ref = self._pts.copy()
        self._keys.append((0, IDENTITY.copy(), "first"))

    def _match(self, g: np.ndarray, boxes: np.ndarray, pred: np.ndarray):
        """Match the points into ``g`` (initial guesses from ``pred``) and fit the work transform ``g`` -> frame 0.

        Returns ``(A or None, points in g, their frame-0 positions)``, the points cut to RANSAC's inliers
        when ``A`` is accepted.
        """
        inv = invert(pred)
        ref, pts = self._ref, self._pts
        gh, gw = g.shape
        direct = (ref >= _MARGIN).all(1) & (ref[:, 0] < gw - _MARGIN) & (ref[:, 1] < gh - _MARGIN)
        nxt = apply(inv, np.where(direct[:, None], ref, apply(self._prev_A, pts))).astype(np.float32)
        ok = np.zeros(len(ref), bool)
        for sel, img, start in ((direct, self._gray0, ref), (~direct, self._prev, pts)):
            if sel.any():
                got, st, _ = cv2.calcOpticalFlowPyrLK(img, g, start[sel].reshape(-1, 1, 2),
                                                      nxt[sel].reshape(-1, 1, 2), **_LK)
                nxt[sel], ok[sel] = got.reshape(-1, 2), st.reshape(-1) == 1
        x, y = nxt[:, 0], nxt[:, 1]
        ok &= (x >= 0) & (y >= 0) & (x < gw) & (y < gh)
        if len(boxes):  # an object passing over a corner drags it
            ok &= ~((x[:, None] >= boxes[:, 0]) & (x[:, None] <= boxes[:, 2])
                    & (y[:, None] >= boxes[:, 1]) & (y[:, None] <= boxes[:, 3])).any(1)
        nxt, ref = nxt[ok], ref[ok]
        if len(nxt) < self.min_points:
            return None, nxt, ref
        A, inl = cv2.estimateAffinePartial2D(nxt, ref, method=cv2.RANSAC, ransacReprojThreshold=1.0,
                                             maxIters=1000, confidence=0.995, refineIters=10)
        if A is None:
            return None, nxt, ref
        inl = inl.reshape(-1).astype(bool)
        if inl.sum() < max(6, 0.3 * len(inl)):
            return None, nxt, ref
        return A, nxt[inl], ref[inl]

    # --- images ------------------------------------------------------------------------
    def _gray(self, rgb: np.ndarray) -> np.ndarray:
        """Grey work image with mean and contrast normalised (a global lighting change is not motion)."""
        g = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        if self._s != 1.0:
            g = cv2.resize(g, (round(g.shape[1] * self._s), round(g.shape[0] * self._s)), interpolation=cv2.INTER_AREA)
        mean, std = cv2.meanStdDev(g)
        gain = 40.0 / max(float(std[0, 0]), 1.0)
        return cv2.convertScaleAbs(g, alpha=gain, beta=128.0 - gain * float(mean[0, 0]))

    def _boxes(self, boxes) -> np.ndarray:
        """Finite object boxes ``[M, 4]`` in work pixels, grown by 4 px."""
        b = np.asarray([] if boxes is None else boxes, float).reshape(-1, 4)
        return b[np.isfinite(b).all(1)] * self._s + [-4, -4, 4, 4]

    def _detect(self, gray: np.ndarray, boxes: np.ndarray, n: int) -> np.ndarray:
        """Up to ``n`` new corners ``[n, 2]`` away from objects, borders and the current points."""
        if n <= 0:  # (0 would mean "no limit" to OpenCV)
            return np.zeros((0, 2), np.float32)
        mask = np.full(gray.shape, 255, np.uint8)
        for x0, y0, x1, y1 in boxes.astype(int):
            mask[max(0, y0):max(0, y1 + 1), max(0, x0):max(0, x1 + 1)] = 0
        b = _MARGIN  # borders: corners there leave the frame first
        mask[:b], mask[-b:], mask[:, :b], mask[:, -b:] = 0, 0, 0, 0
        for x, y in self._pts.astype(int):
            cv2.circle(mask, (int(x), int(y)), 6, 0, -1)
        pts = cv2.goodFeaturesToTrack(gray, maxCorners=n, qualityLevel=0.01, minDistance=6, mask=mask, blockSize=5)
        return np.zeros((0, 2), np.float32) if pts is None else pts.reshape(-1, 2).astype(np.float32)
