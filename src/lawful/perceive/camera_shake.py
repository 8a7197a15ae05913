"""Per-frame camera shake about a still camera (:class:`Shake`).

A camera on a stand still shakes by fractions of a pixel from frame to frame (a hand near it, a floor that
carries steps, a renderer's jitter). The key-frame path of :class:`lawful.perceive.camera.CameraMotion`
cannot see it (it interpolates between frames ``stride`` apart) and calls such a camera static, yet a
measurement that differentiates positions twice (free fall, projectiles) reads 0.2 px of shake as that
much noise in every sample. Here every frame is registered against frame 0 by a pure translation:

- the points: frame 0's background pixels (off the objects' boxes and the ``exclude`` regions) whose
  gradient stands above ``SIGMAS`` times the gradient of noise (the median gradient magnitude of the
  background, flat areas being most of it), on the smoothed grey work image; in each frame those where
  something moved on its own since frame 0 (:class:`lawful.perceive.camera_moving.Movers`: strings, a chain,
  an arm) are left out; an axis along which they hold too little information once gain and offset are fitted
  (stripes along it, a brightness ramp across it, bare poles: :meth:`Shake._information`) has an infinite error, is
  not checked against ``MAX_PX`` and is not where the next frame starts (started from the last frame's value, it
  drifted with whatever moved: 4.1 px by frame 17 on a studio chain, and the shake was lost);
- the fit: Gauss-Newton on ``D_k(y + d) - (g D_0(y) + c)`` with the gain and offset free (flicker), a few
  steps from the last frame's shift (shake stays within the linear range of images smoothed at 1 px), Tukey-reweighted so that what
  moves on its own (a shadow, a thread, an object outside its box) drops out; the gradient is the mean of
  frame 0's and frame ``k``'s at the point (the symmetric form: less bias from noise in either). The first
  weights come from the residuals at the start (only gain and offset fitted): a string that moved a fraction of
  a pixel on its own, too little for the moving mask, stands out there, while a least-squares first step would
  follow it (a flat pendulum's strings at 1280x720: a 0.022-px x "shake") and Tukey would keep what it explained;
- its standard error: cluster-robust (residuals grouped in 8-px blocks, as in
  :func:`lawful.perceive.camera_dense.covariance`), at least what the two images' rounding to integers alone
  leaves (``_QUANT`` per point: a noise-free render's residuals vanish where the codec copied the background,
  and a shift "known" to 0.0002 px made a 0.0005-px codec wobble significant).

:meth:`Shake.verdict` says, per axis, whether compensating the shake helps: subtracting a frame's estimate
leaves that estimate's error (variance ``sd^2``) in place of the shake (variance ``var - sd^2`` of the
estimates' scatter ``var`` about their mean; the mean is left out: frame 0's own noise shifts every estimate
alike), so the shake must exceed its own error, ``var > 2 sd^2``: ``sum ((d - mean) / sd)^2`` above twice its
chi-square mean ``2 (N - 1)`` by ``Z`` of its standard deviations. Every frame's fit must hold as well
(enough points, within ``MAX_PX``, and what the shift leaves, as a displacement, within ``bound``: not a zoom
or turn), except that a frame where some axis is not pinned and the shift leaves more than ``bound`` gets no
estimate and takes its neighbours' line (:attr:`Shake.dropped`; a lone frame: two in a row fail as before, a
pan over a bare wall leaves every frame so): the unpinned axis drifted and left the residual
(studio free fall seed 1004, a bare gradient wall: at frame 29 the ball's reflection took what pinned x, which
drifted 2.2 px, and the clip's shake went uncompensated, 0.225 px rms in y; now 0.122). Then the camera is
compensated by these translations even where the key-frame path is below the tracker's ``min_shift``: what
matters for shake is its scatter against the precision of a smooth track, not its size.

Registering every frame costs several times the decoding. So the same test runs once the first ``probe``
frames are in (:data:`PROBE`): where they show no such shake on either axis (a still camera on a stand, a
render), no later frame is registered (:meth:`Shake.take`) and such a clip's shake is never used (a shake that
shows only later was not measured on every frame; the key-frame path handles it). Four frames suffice: the
scatter statistic then has 3 degrees of freedom, and a shake is seen once its variance exceeds about 7 times
its estimates' (5.2 with 8 frames, 4.2 with 16), while compensating it pays only above 2 and a shake under 7
times is under 0.05 px at the studio's 0.017 px sd; a studio render's shake stands at 87 to 1569 times, per axis
(measured on two clips). Where 4 frames show one, the test is made again at 8, and where 8 do, at 16: with few
degrees of freedom what moves on its own in front of a still camera, below the moving mask, passes for shake more
often (a flat pendulum's strings at 1280x720: the bar crossed at 4 frames, not at 8, and all 95 frames were
registered for a shake found below its own error in the end; the same clip now crosses at 4 and 8, chi2 38.8
against 36.4, not at 16, 52.0 against 62.9, and registering its 95 frames took 163 of its 289 ms for a 0.010 px
"shake"). A 16-frame probe and key frames registered after it cost a third of a still flat clip's camera time
(83.8 -> 56.1 ms for 195 frames); 4 frames instead of 8, another eighth (0.224 -> 0.196 ms a frame).
While every frame is registered, a key frame whose path estimate is the shake (:meth:`Shake.explains`) does not
make the key-frame path estimate the frames between (the bend is the shake, already measured on each of them).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from lawful.perceive import camera_dense as dense
from lawful.perceive.camera_moving import Movers

SIGMAS = 3.0  # gradient, in sigmas of the gradient of noise, for a pixel to pin the shift
MAX_POINTS = 2000  # reference points (work px), spread evenly (8000: sd 0.016 -> 0.017 px on a studio shake, 4x the cost)
PROBE = 4  # frames registered before a clip without shake stops registering every frame (see the module doc)
MAX_PX = 2.0  # work px: beyond this a pure translation about frame 0 is not shake (the path decides)
_STEPS = 4  # Gauss-Newton steps per frame


def _corner_kernels() -> np.ndarray:
    """``[4, 48]``: for each corner (y, x in 0, 1) of the pixel cell at offset 0, the weights on a point's 4 x 4
    neighbourhood (offsets -1..2, row by row) that give the image and half its Sobel gradients x and y (3 x 3,
    scale 1/8) at that corner, as three rows of 16. Bilinear interpolation at a fraction of the cell weights the
    corners' rows: what ``cv2.remap`` of the image and of ``cv2.Sobel``'s images gives there (all are linear)."""
    sobel = 0.0625 * np.outer([1.0, 2.0, 1.0], [-1.0, 0.0, 1.0])  # [dy, dx]
    K = np.zeros((2, 2, 3, 4, 4))
    for i in (0, 1):
        for j in (0, 1):
            K[i, j, 0, i + 1, j + 1] = 1.0
            K[i, j, 1, i:i + 3, j:j + 3] = sobel
            K[i, j, 2, i:i + 3, j:j + 3] = sobel.T
    return K.reshape(4, 48)


_CORNERS32 = _corner_kernels().astype(np.float32)


class _Sampler:
    """Frame ``D`` at the shake points shifted by ``d``, with half its gradient (``[3, N]``): the points' 4 x 4
    neighbourhoods gathered once per whole-pixel part of ``d`` and weighted by :func:`_corner_kernels` (no full-image
    gradient: the points are a few percent of the image). Where a neighbourhood would reach the image's border
    (a shift of several px, beyond shake), ``cv2.remap`` of the full-image Sobel images."""

    def __init__(self, D: np.ndarray, sh: "Shake"):
        self.D, self.sh, self.G, self.n = D, sh, None, None

    def __call__(self, d: np.ndarray) -> np.ndarray:
        sh, (x, y) = self.sh, d.tolist()
        (lx, ly), (hx, hy) = sh._reach
        if math.isfinite(x) and math.isfinite(y) and lx <= math.floor(x) <= hx and ly <= math.floor(y) <= hy:
            n = (math.floor(x), math.floor(y))
            if n != self.n:  # (``_nb`` is at the least shift: a view further on)
                self.n, self.G = n, self.D.ravel()[(n[1] - ly) * sh.size[0] + n[0] - lx:].take(sh._nb)
            fx, fy = x - n[0], y - n[1]
            w = np.array([(1 - fy) * (1 - fx), (1 - fy) * fx, fy * (1 - fx), fy * fx], np.float32)
            return (w @ _CORNERS32).reshape(3, 16) @ self.G
        D = self.D
        Dg = cv2.merge([D, cv2.Sobel(D, cv2.CV_32F, 1, 0, ksize=3, scale=0.0625),
                        cv2.Sobel(D, cv2.CV_32F, 0, 1, ksize=3, scale=0.0625)])
        return cv2.remap(Dg, sh._yx + np.float32(x), sh._yy + np.float32(y), cv2.INTER_LINEAR).reshape(-1, 3).T


class Shake:
    """Frame 0's points; :meth:`add` registers each later frame (smoothed grey work image ``D``, usable
    pixels ``keep``). ``scale``: work px per frame px."""

    def __init__(self, D0: np.ndarray, keep0: np.ndarray, scale: float = 1.0, bound: float = 0.5,
                 Z: float = 3.0, probe: int | None = None, stride: int = 16, grow: int = 3):
        self.s, self.bound, self.Z = float(scale), float(bound), float(Z)
        self.movers = Movers(D0, keep0, grow)  # what moves on its own (also the still test's)
        self.stride, self.sparse = max(1, int(stride)), False
        self.probe = min(PROBE, self.stride) if probe is None else int(probe)
        self.probed = 0  # frames the probe had registered when it last ruled
        self.est: list[tuple[np.ndarray, np.ndarray, int]] = [(np.zeros(2), np.zeros(2), 0)]  # (shift, sd, points)
        self.failed: str | None = None
        self.dropped: list[int] = []  # frames left without an estimate: an unpinned axis drifted (see add)
        self._axes = (False, False)  # the axes along which the shake is compensated (set by verdict)
        h, w = D0.shape
        gx = cv2.Sobel(D0, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
        gy = cv2.Sobel(D0, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
        mag = cv2.magnitude(gx, gy)
        ok = cv2.erode(keep0.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
        ok[:4], ok[-4:], ok[:, :4], ok[:, -4:] = False, False, False, False
        m = mag[ok]
        self.y = np.zeros((0, 2))
        if m.size < 50:
            self.failed = "frame 0 has too few background pixels"
            return
        noise, self.grad_sd = dense.gradient_noise(m)
        idx = np.flatnonzero(ok & (mag > max(SIGMAS * noise, 0.05)))
        if len(idx) < 30:
            self.failed = f"frame 0 has {len(idx)} background pixels with a gradient above noise"
            return
        idx = idx[:: max(1, int(np.ceil(len(idx) / MAX_POINTS)))]
        yy, xx = np.divmod(idx, w)
        self.y, self._idx = np.stack([xx, yy], 1).astype(np.float32), idx
        self.R = D0.ravel()[idx].astype(np.float64)
        self.Rc = self.R - self.R.mean()
        self.g0 = np.stack([gx.ravel()[idx], gy.ravel()[idx]], 1).astype(np.float64)
        self.size = (w, h)
        # per clip, not per frame: the sampling grid, the 8-px blocks, the brightness columns
        self._yx, self._yy = self.y[:, 0][None].copy(), self.y[:, 1][None].copy()
        self._blocks = dense.block_of(self.y, w)
        # the whole-pixel shifts that keep the points' 4 x 4 neighbourhoods inside the image and off its one-pixel
        # border (where cv2.Sobel reflects), and the neighbourhoods' flat indices ([16, N]) at the least of them
        self._reach = ((int(1 - xx.min()), int(1 - yy.min())), (int(w - 3 - xx.max()), int(h - 3 - yy.max())))
        lx, ly = self._reach[0]
        off = [(dy + ly) * w + dx + lx for dy in range(-1, 3) for dx in range(-1, 3)]
        self._nb = idx[None, :] + np.array(off)[:, None]
        self._g0h = 0.5 * self.g0.T  # half frame 0's gradient, [2, N]
        self._Jt = np.empty((4, len(idx)))  # the Jacobian's columns: gradient x, y (per frame and step), gain, offset
        self._Jt[2], self._Jt[3] = self.Rc, 1.0

    def take(self, k: int) -> bool:
        """Whether frame ``k`` is to be registered (:meth:`add`): every frame, or none once the probe showed no
        shake; a frame passed over is recorded without an estimate. False once a frame failed."""
        if self.failed is not None or not self.sparse:
            return self.failed is None
        self.est.append((np.full(2, np.nan), np.full(2, np.inf), 0))
        return False

    @staticmethod
    def chi(est: list, Z: float) -> tuple[np.ndarray, np.ndarray, float]:
        """Per axis: the scatter statistic of the estimates ``est`` about their mean, whether the axis is pinned
        (every standard error finite), and the bar above which compensating removes more than it adds."""
        est = [e for e in est if np.all(np.isfinite(e[0]))]  # a frame without an estimate says nothing
        d = np.array([e[0] for e in est]).reshape(-1, 2)
        sd = np.array([e[1] for e in est]).reshape(-1, 2)
        n = len(d)
        fin = np.all(np.isfinite(sd) & (sd > 0), 0)
        chi = np.where(fin, np.sum(((d - d.mean(0)) / np.where(fin, sd, 1.0)) ** 2, 0), 0.0)
        return chi, fin, 2 * (n - 1) + Z * 2 * np.sqrt(2 * max(n - 1, 1))  # var = 2 sd^2: 2 chi2(N - 1)

    def add(self, D: np.ndarray, keep: np.ndarray) -> None:
        """Register the next frame against frame 0 (nothing once a frame failed)."""
        if self.failed is not None:
            return
        k = len(self.est)
        use = keep.ravel()[self._idx] & ~self.movers.mask(D, keep).ravel()[self._idx]
        if use.sum() < 30:
            self.failed = f"frame {k}: too few background points off the objects ({int(use.sum())})"
            return
        at = _Sampler(D, self)
        # from the last frame's shift where it was pinned (shake is correlated from frame to frame: fewer steps), else
        # from zero: an axis nothing pins drifts when each frame starts where the last one wandered to
        last = next((e for e in reversed(self.est) if np.all(np.isfinite(e[0]))), self.est[0])
        d, wt = np.where(np.isfinite(last[1]), last[0], 0.0), use.astype(float)
        sub = dense.spread(use, dense.SCALE_N)  # the residuals each reweighting takes its scale from
        Jt = self._Jt.copy()
        for step in range(_STEPS):
            v = at(d)  # frame k and half its gradient at y + d
            np.add(self._g0h, v[1:], out=Jt[:2])  # the symmetric gradient 0.5 (g0 + g)
            e = v[0] - self.R
            if step == 0:  # first weights from the residuals at the start, brightness fitted (see the module doc)
                wt = dense.tukey(e - dense.solve(Jt[2:], wt, e) @ Jt[2:], use, sub=sub)[0]
            for _ in range(2 if step == 0 else 1):  # reweighting rounds on this linearisation (later steps start
                # from weights that already fit it nearly)
                p = dense.solve(Jt, wt, e)
                r = e - p @ Jt
                wt = dense.tukey(r, use, sub=sub)[0]
            d = d - p[:2]  # D_k(y + d) ~ D_0(y): the content moved by +d
            if np.abs(p[:2]).max() < 1e-3:
                break
        Jw = Jt * wt
        Hi, bad = dense.posv(Jw @ Jt.T, np.eye(len(Jt)))  # the normal matrix's inverse (None: singular)
        Hi = None if bad else Hi
        pinned = self._information(Hi, wt) >= SIGMAS ** 2
        if not np.all(np.isfinite(d)) or np.abs(d[pinned]).max(initial=0.0) > MAX_PX:
            self.failed = f"frame {k}: {np.abs(d[pinned] / self.s).max():.2f} px from frame 0, beyond shake"
            return
        # what the shift leaves, as a displacement (|residual| / |gradient|), its median over the gradient information
        # (|gradient|^2) within ``bound``: noise leaves a small fraction of a pixel, a zoom, turn or larger motion
        # about its own size. Within: the information of the points within the bound is at least half (no sort)
        ui = np.flatnonzero(use)
        gx, gy = Jt[0].take(ui), Jt[1].take(ui)
        g2 = gx * gx + gy * gy
        moved = np.abs(r.take(ui)) / np.sqrt(np.maximum(g2, 1e-12))
        misfit = 0.0
        if 2 * g2[moved <= self.bound].sum() < g2.sum():
            o = np.argsort(moved)
            c = np.cumsum(g2[o])
            misfit = float(moved[o][np.searchsorted(c, 0.5 * c[-1])])
        if misfit > self.bound:
            if pinned.all() or self.dropped[-1:] == [k - 1]:  # a lone frame only
                self.failed = f"frame {k}: residual of a {misfit / self.s:.2f} px misregistration: not a pure shift"
                return
            # an axis nothing pins here drifted and left the residual: no estimate, the line between its neighbours
            self.est.append((np.full(2, np.nan), np.full(2, np.inf), 0))  # (see _filled)
            self.dropped.append(k)
        else:
            sd = self._sd(Jt, Jw, Hi, wt, r)
            self.est.append((d, np.where(pinned, sd, np.inf), int((wt > 0).sum())))
        if not self.sparse and self.stride > 1 and len(self.est) - 1 in (self.probe, 2 * self.probe, 4 * self.probe):
            chi, fin, bar = self.chi(self.est[1:], self.Z)
            self.sparse = not np.any(fin & (chi > bar))  # no shake so far: key frames only from here on
            self.probed = len(self.est) - 1

    def _information(self, Hi: np.ndarray | None, wt: np.ndarray) -> np.ndarray:
        """Per axis, the information about the shift once gain and offset are fitted too (one over its variance per
        unit residual variance: ``Hi`` the inverse normal matrix, None where singular), in units of what the gradient
        of noise alone gives the weighted points. Under
        ``SIGMAS^2`` the axis is not pinned: stripes all along it, or a smooth ramp across it (a gradient backdrop:
        shifting a ramp changes the offset), where noise and whatever moves on its own fit a "shift" that the
        residuals cannot show (a studio chain swinging in front of poles: 4.1 px in y by frame 17, the camera still)."""
        if Hi is None:
            return np.zeros(2)
        return 1.0 / np.maximum(np.diag(Hi)[:2], 1e-300) / max(wt.sum() * self.grad_sd ** 2, 1e-12)

    def _sd(self, Jt: np.ndarray, Jw: np.ndarray, Hi: np.ndarray | None, wt: np.ndarray, r: np.ndarray) -> np.ndarray:
        """Cluster-robust standard errors of the shift along x and y (work px); ``Jw`` the weighted Jacobian, ``Hi``
        the inverse normal matrix (None where singular)."""
        got = dense.block_scores(Jt.T, wt, r, self.y, self.size[0], self._blocks)
        if got is None or Hi is None:
            return np.full(2, np.inf)
        score, G = got
        cov = Hi @ (score.T @ score) @ Hi * (G / (G - 1))
        # at least what the two images' rounding alone leaves (independent per point): a noise-free render's
        # residuals are near zero where the codec copied the background, not its shift known to 0.0002 px
        floor = Hi @ (Jw @ Jw.T) @ Hi * dense._QUANT ** 2
        return np.sqrt(np.maximum(np.diag(cov)[:2], np.diag(floor)[:2]))

    def _filled(self) -> np.ndarray:
        """``[n, 2]`` shifts (work px), a frame without an estimate on the line between its neighbours' (per axis)."""
        d = np.array([e[0] for e in self.est], float).reshape(-1, 2)
        ok = np.isfinite(d).all(1)
        if ok.all() or not ok.any():
            return d
        idx = np.arange(len(d))
        return np.stack([np.interp(idx, idx[ok], d[ok, j]) for j in range(2)], 1)

    def transforms(self) -> list[np.ndarray]:
        """Frame -> frame-0 translations in frame px, one per frame registered."""
        ax = np.asarray(self._axes, float)
        return [np.array([[1.0, 0.0, -ax[0] * d[0] / self.s], [0.0, 1.0, -ax[1] * d[1] / self.s]])
                for d in self._filled()]

    def verdict(self, n_frames: int, Z: float) -> dict:
        """``used`` and the evidence per axis (x, y): shake rms and median standard error (frame px), the
        chi-square statistic against the bar; an axis is compensated only where its shake exceeds its own error
        (a bare wall with level edges pins y, not x)."""
        self._axes = (False, False)
        if self.failed is not None:
            return {"used": False, "reason": f"shake not measured: {self.failed}"}
        if len(self.est) != n_frames or n_frames < 3:
            return {"used": False, "reason": "shake not measured on every frame"}
        est = [e for e in self.est[1:] if np.all(np.isfinite(e[0]))]
        d = np.array([e[0] for e in est])
        sd = np.array([e[1] for e in est])
        # the scatter about the mean: frame 0's own noise shifts every estimate alike (a constant, not shake)
        chi, fin, bar = self.chi(est, Z)
        self._axes = tuple(bool(v) for v in fin & (chi > bar))
        rms = d.std(0) / self.s
        typ = np.where(fin, np.median(np.where(np.isfinite(sd), sd, 0.0), 0), np.inf) / self.s
        ev = {"axes": "".join(a for a, u in zip("xy", self._axes) if u), "rms_px": [round(float(v), 4) for v in rms],
              "sd_px": [round(float(v), 4) for v in typ], "chi2": [round(float(v), 1) for v in chi],
              "bar": round(float(bar), 1), "points_min": int(min(e[2] for e in est)), "frames": len(est),
              "dropped": self.dropped}
        what = ", ".join(f"{a} {rms[j]:.3f} px rms, {typ[j]:.3f} px sd per frame (chi2 {chi[j]:.0f} vs {bar:.0f})"
                         for j, a in enumerate("xy"))
        if self.sparse:
            self._axes = (False, False)
            first = f"the first {self.probed} frames showed no shake, no later one was registered"
            return {"used": False, **ev, "reason": (f"shake below its own error ({first}): {what}" if ev["axes"] == ""
                                                    else f"shake not measured on every frame ({first}): {what}")}
        if not any(self._axes):
            return {"used": False, **ev, "reason": f"shake below its own error: {what}"}
        return {"used": True, **ev, "reason": f"per-frame shake compensated along {ev['axes']} ({Z:g} sd): {what}"}

    def agrees(self, keys: list[tuple], corners: np.ndarray, Z: float, floor: float, along=(True, True)) -> bool:
        """Whether the key-frame path (``(index, work transform, method, info)``, info's ``u`` its standard error at
        the work frame's ``corners``) is this shake where both were estimated: within ``Z`` of their joint error
        at the corners, or ``floor`` work px (the path's own tolerance for corner noise), along the axes ``along``.
        A camera that also zooms or turns (a hand-held one) is the path's, not a shake."""
        return not self.departures(keys, corners, Z, floor, along)

    def departures(self, keys: list[tuple], corners: np.ndarray, Z: float, floor: float,
                   along=(True, True)) -> list[tuple]:
        """The key frames where the path is not this shake (see :meth:`agrees`), each with the distance (work px)."""
        ax, out = np.asarray(self._axes, float), []
        for key in keys[1:]:
            i, A, method, info = key
            if method == "hold" or i >= len(self.est):
                continue
            off, sd = self._gap(i, A, ax, corners, along)
            if off > max(floor, Z * np.hypot(info.get("u", 0.0), np.max(np.where(ax > 0, sd, 0.0)))):
                out.append((*key, off))
        return out

    def unpinned(self) -> tuple[bool, bool]:
        """Per axis, whether frame 0's still background left it unpinned in some frame, every frame registered."""
        if self.failed is not None or self.sparse or len(self.est) < 2:
            return False, False
        return tuple(bool(v) for v in np.any(~np.isfinite(np.array([e[1] for e in self.est[1:]])), 0))

    def work(self, i: int, ax: np.ndarray | None = None) -> np.ndarray:
        """Frame ``i``'s transform to frame 0 in work px, along the axes ``ax`` (default: the compensated ones)."""
        ax = np.asarray(self._axes, float) if ax is None else ax
        d = self.est[i][0] if i not in self.dropped else self._filled()[i]
        return np.array([[1.0, 0.0, -ax[0] * d[0]], [0.0, 1.0, -ax[1] * d[1]]])

    def explains(self, i: int, A: np.ndarray, u: float, corners: np.ndarray, Z: float, floor: float) -> bool:
        """Whether key frame ``i``'s path estimate ``A`` (work px; ``u`` its standard error at the ``corners``) is
        frame ``i``'s shake on both axes (as in :meth:`agrees`) while every frame so far has been registered: a bend
        of the path there is the shake, which the per-frame shifts already hold (estimating the frames between
        cost 3.5 ms a frame on a studio bounce); should the shake end up unused, those frames are interpolated."""
        if self.failed is not None or self.sparse or i >= len(self.est) or not np.all(np.isfinite(self.est[i][1])):
            return False
        off, sd = self._gap(i, A, np.ones(2), corners)
        return bool(off <= max(floor, Z * np.hypot(u, sd.max())))

    def _gap(self, i: int, A: np.ndarray, ax: np.ndarray, corners: np.ndarray,
             along=(True, True)) -> tuple[float, np.ndarray]:
        """Largest distance at ``corners``, along the axes ``along``, between ``A`` and frame ``i``'s shift along the
        axes ``ax``, and its sd."""
        T = self.work(i, ax)
        off = np.abs(corners @ (A - T)[:, :2].T + (A - T)[:, 2])[:, list(along)]
        return float(off.max()) if off.size else 0.0, self.est[i][1]
