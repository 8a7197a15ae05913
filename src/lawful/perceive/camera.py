"""Camera motion compensation: per-frame similarity transforms back to the first frame.

:class:`CameraMotion` follows background corners (``cv2.goodFeaturesToTrack``) from frame to
frame with pyramidal Lucas-Kanade, but each point keeps the first-frame position it was
born with, so frame ``k`` is registered to frame 0 directly (no chained drift): a 4-dof
similarity (``cv2.estimateAffinePartial2D``, RANSAC) maps frame-``k`` points to their frame-0
positions. Points on moving objects are excluded by masks and by RANSAC; lost points are
replaced by new corners whose frame-0 position comes from the current transform. When too
few corners agree (a plain backdrop, a frame filled by a moving object) the last transform is
kept (``methods['hold']`` in the summary). Work happens on a grey copy at most ``max_side``
pixels wide, normalised in mean and contrast so a global lighting change is not read as motion.

Transforms are ``[2, 3]`` float64 matrices in the pixel coordinates of the frames handed in
(pixel centres at integer coordinates): ``p0 = A @ [x, y, 1]``.
"""

from __future__ import annotations

import cv2
import numpy as np

IDENTITY = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def apply(A: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Map points ``[..., 2]`` with the ``[2, 3]`` transform ``A``."""
    xy = np.asarray(xy, float)
    return xy @ A[:, :2].T + A[:, 2]


def _h(A: np.ndarray) -> np.ndarray:
    return np.vstack([A, [0.0, 0.0, 1.0]])


def invert(A: np.ndarray) -> np.ndarray:
    return cv2.invertAffineTransform(np.asarray(A, np.float64))


def scale_of(A: np.ndarray) -> float:
    """Isotropic scale factor of a similarity ``[2, 3]`` (sqrt of the determinant)."""
    return float(np.sqrt(abs(np.linalg.det(A[:, :2]))))


def rotation_of(A: np.ndarray) -> float:
    """Rotation angle (radians, image axes) of a similarity ``[2, 3]``."""
    return float(np.arctan2(A[1, 0], A[0, 0]))


def corner_shift(A: np.ndarray, width: int, height: int) -> float:
    """Largest displacement (pixels) ``A`` gives a frame corner or the centre."""
    pts = np.array([[0, 0], [width - 1, 0], [0, height - 1], [width - 1, height - 1],
                    [(width - 1) / 2, (height - 1) / 2]], float)
    return float(np.abs(apply(A, pts) - pts).max())


class CameraMotion:
    """Streaming estimator of frame-``k`` -> frame-0 similarity transforms.

    Call :meth:`update` once per frame (the first call defines frame 0) with the RGB frame
    and boxes ``[(x0, y0, x1, y1), ...]`` (frame pixels) of moving objects to ignore.
    """

    def __init__(self, max_side: int = 320, max_corners: int = 120, min_points: int = 12):
        self.max_side = max_side
        self.max_corners = max_corners
        self.min_points = min_points
        self.transforms: list[np.ndarray] = []
        self.methods: list[str] = []
        self._s = 1.0
        self._prev = None
        self._gray0 = None
        self._pts = np.zeros((0, 1, 2), np.float32)
        self._ref = np.zeros((0, 2), np.float32)
        self._A = IDENTITY.copy()  # in work-resolution coordinates
        self._size = (0, 0)

    # --- coordinates -------------------------------------------------------------------
    def _to_work(self) -> np.ndarray:
        s = self._s
        return np.array([[s, 0, 0.5 * s - 0.5], [0, s, 0.5 * s - 0.5]])

    def _frame_A(self, Aw: np.ndarray) -> np.ndarray:
        """Work-resolution transform -> frame-resolution transform."""
        S = _h(self._to_work())
        return (np.linalg.inv(S) @ _h(Aw) @ S)[:2]

    def _gray(self, rgb: np.ndarray) -> np.ndarray:
        """Grey work image with mean and contrast normalised (a global lighting change is not motion)."""
        if self._s != 1.0:
            rgb = cv2.resize(rgb, (round(rgb.shape[1] * self._s), round(rgb.shape[0] * self._s)),
                             interpolation=cv2.INTER_AREA)
        g = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        mean, std = cv2.meanStdDev(g)
        gain = 40.0 / max(float(std[0, 0]), 1.0)
        return cv2.convertScaleAbs(g, alpha=gain, beta=128.0 - gain * float(mean[0, 0]))

    def _mask(self, gray: np.ndarray, boxes) -> np.ndarray:
        m = np.full(gray.shape, 255, np.uint8)
        s = self._s
        for x0, y0, x1, y1 in boxes or ():
            if not np.all(np.isfinite([x0, y0, x1, y1])):
                continue
            p = 4
            r0, r1 = max(0, int(y0 * s) - p), max(0, int(y1 * s) + p + 1)
            c0, c1 = max(0, int(x0 * s) - p), max(0, int(x1 * s) + p + 1)
            m[r0:r1, c0:c1] = 0
        b = 4  # borders: corners there leave the frame first
        m[:b], m[-b:], m[:, :b], m[:, -b:] = 0, 0, 0, 0
        return m

    def _on_objects(self, p: np.ndarray, boxes) -> np.ndarray:
        """Which work-resolution points ``[N, 2]`` lie on (slightly grown) object boxes."""
        hit = np.zeros(len(p), bool)
        s, pad = self._s, 4
        for x0, y0, x1, y1 in boxes or ():
            if np.all(np.isfinite([x0, y0, x1, y1])):
                hit |= ((p[:, 0] >= x0 * s - pad) & (p[:, 0] <= x1 * s + pad)
                        & (p[:, 1] >= y0 * s - pad) & (p[:, 1] <= y1 * s + pad))
        return hit

    def _detect(self, gray: np.ndarray, mask: np.ndarray, n: int) -> np.ndarray:
        if n <= 0:  # (0 would mean "no limit" to OpenCV)
            return np.zeros((0, 1, 2), np.float32)
        for p in self._pts.reshape(-1, 2):
            cv2.circle(mask, (int(p[0]), int(p[1])), 6, 0, -1)
        pts = cv2.goodFeaturesToTrack(gray, maxCorners=n, qualityLevel=0.01, minDistance=6, mask=mask,
                                      blockSize=5)
        return np.zeros((0, 1, 2), np.float32) if pts is None else pts.astype(np.float32)

    # --- streaming ---------------------------------------------------------------------
    def update(self, rgb: np.ndarray, boxes=None) -> np.ndarray:
        """Transform ``[2, 3]`` mapping this frame's pixels to frame-0 pixels (frame resolution)."""
        h, w = rgb.shape[:2]
        if self._prev is None:
            self._size = (w, h)
            self._s = min(1.0, self.max_side / max(w, h))
            g = self._gray(rgb)
            self._gray0 = g
            self._pts = self._detect(g, self._mask(g, boxes), self.max_corners)
            self._ref = self._pts.reshape(-1, 2).copy()
            self._prev = g
            self.transforms.append(IDENTITY.copy())
            self.methods.append("first")
            return IDENTITY.copy()
        g = self._gray(rgb)
        method = "lk"
        A = None
        if len(self._pts) >= self.min_points:
            nxt, st, _ = cv2.calcOpticalFlowPyrLK(self._prev, g, self._pts, None, winSize=(11, 11), maxLevel=2,
                                                  criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01))
            ok = st.reshape(-1) == 1
            p = nxt.reshape(-1, 2)
            gh, gw = g.shape
            ok &= (p[:, 0] >= 0) & (p[:, 1] >= 0) & (p[:, 0] < gw) & (p[:, 1] < gh)
            ok &= ~self._on_objects(p, boxes)  # an object passing over a corner drags it
            self._pts, self._ref = nxt[ok], self._ref[ok]
            self._pts = self._refine_to_first(g)
            if len(self._pts) >= self.min_points:
                A, inl = cv2.estimateAffinePartial2D(self._pts, self._ref, method=cv2.RANSAC,
                                                     ransacReprojThreshold=1.0, maxIters=1000, confidence=0.995,
                                                     refineIters=10)
                if A is not None:
                    inl = inl.reshape(-1).astype(bool)
                    if inl.sum() < max(6, 0.3 * len(inl)):
                        A = None
                    else:
                        self._pts, self._ref = self._pts[inl], self._ref[inl]
        if A is None:  # too few background corners agree: keep the last transform
            method = "hold"
            A = self._A
        self._A = A
        # replenish points lost at the borders or on objects
        if len(self._pts) < max(self.min_points * 2, self.max_corners // 3):
            new = self._detect(g, self._mask(g, boxes), self.max_corners - len(self._pts))
            if len(new):
                self._pts = np.concatenate([self._pts.reshape(-1, 1, 2), new])
                self._ref = np.concatenate([self._ref.reshape(-1, 2), apply(A, new.reshape(-1, 2)).astype(np.float32)])
        self._prev = g
        Af = self._frame_A(A)
        self.transforms.append(Af)
        self.methods.append(method)
        return Af

    def _refine_to_first(self, g: np.ndarray) -> np.ndarray:
        """Re-match points whose frame-0 position is inside frame 0 directly against frame 0.

        Frame-to-frame tracking drifts like a random walk; matching the frame-0 neighbourhood of
        each point (started from its tracked position) removes that drift.
        """
        pts = self._pts.reshape(-1, 1, 2).copy()
        if len(pts) == 0:
            return pts
        gh, gw = self._gray0.shape
        m = 8
        ref = self._ref.reshape(-1, 2)
        inside = (ref[:, 0] >= m) & (ref[:, 1] >= m) & (ref[:, 0] < gw - m) & (ref[:, 1] < gh - m)
        if not inside.any():
            return pts
        idx = np.flatnonzero(inside)
        start = ref[idx].reshape(-1, 1, 2).astype(np.float32)
        guess = pts[idx].copy()
        got, st, _ = cv2.calcOpticalFlowPyrLK(self._gray0, g, start, guess, winSize=(11, 11), maxLevel=1,
                                              criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01),
                                              flags=cv2.OPTFLOW_USE_INITIAL_FLOW)
        ok = (st.reshape(-1) == 1) & (np.abs(got - guess).reshape(-1, 2).max(1) < 2.0)
        pts[idx[ok]] = got[ok]
        return pts

    def summary(self) -> dict:
        """Camera-motion summary for ``Tracks.meta``: largest shift, scale and rotation, methods."""
        if not self.transforms:
            return {"frames": 0}
        w, h = self._size
        shifts = [corner_shift(A, w, h) for A in self.transforms]
        scales = [scale_of(A) for A in self.transforms]
        rots = [rotation_of(A) for A in self.transforms]
        methods = {m: self.methods.count(m) for m in set(self.methods)}
        return {
            "frames": len(self.transforms),
            "max_shift_px": round(max(shifts), 3),
            "max_scale_change": round(max(abs(s - 1) for s in scales), 5),
            "max_rotation_deg": round(float(np.degrees(max(abs(r) for r in rots))), 4),
            "methods": methods,
        }
