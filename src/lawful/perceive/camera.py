"""Camera motion compensation: per-frame similarity transforms back to the first frame, used only when the motion is
larger than its own uncertainty.

:class:`CameraMotion` estimates every ``stride``-th frame (a key frame) and the last one; the frames between get the
linear interpolation of their neighbours' transforms, unless the camera path bends (the estimate lands away from
where the path was extrapolated to, by more than the errors of both explain; the first segment, with no path before
it, is checked at its middle): then they are estimated too.

At a key frame, background corners (``cv2.goodFeaturesToTrack``, only those whose weaker eigenvalue stands out of
the frame's noise: a point on a straight edge slides along it) are matched by pyramidal Lucas-Kanade straight from
their frame-0 positions (no chained drift; corners born outside frame 0 come from the previous key frame).
Independently moving things are kept out three ways:

1. the tracked objects' boxes and the caller's ``exclude`` and ``movers`` regions (the latter not from the still test);
2. candidate transforms (the extrapolated path, RANSAC's consensus, and the consensus of RANSAC's outliers) are
   checked against the pixels: the one under which frame 0 explains more of the frame, by a vote of 8 x 8 cells
   (:func:`lawful.perceive.camera_dense.best`), wins, so a textured arm or a swinging bar with more corners than the
   backdrop cannot carry the estimate;
3. the pixels that winner does not explain (frame differencing against the predicted background, grown a little)
   form a moving mask: corners there are not used and none are born there.

The remaining corners give a RANSAC similarity; it is accepted only with inliers spread over at least ``MIN_CELLS``
cells of a 4 x 4 grid, each quadrant of them where the others' fit puts them
(:func:`lawful.perceive.camera_fit.held_out`: two groups moving apart are not a zoom). Its uncertainty is the
standard error of the fitted transform at the frame corners (:mod:`lawful.perceive.camera_fit`); where few or
clustered points leave rotation and scale loose, a pure shift is used instead if the similarity does not differ from
it significantly. Where corners fail (stripes, bare walls, a backdrop with edges but no corners, a fit looser than
``max_uncertainty``), the background's intensities are registered directly
(:func:`lawful.perceive.camera_register.register`: Gauss-Newton on the pixels whose gradient stands above noise, moving
things down-weighted, objects and ``exclude`` regions masked), its uncertainty a cluster-robust covariance from its
own residuals, infinite where some direction of the motion is pinned by no more than the gradient noise gives
(stripes all along it) or, pinned by less than 3x that, has a second minimum within 4 px (restarted off along it,
the registration does not come back); it is redone without what it leaves unexplained, used only if the pixel
vote prefers it to the path's prediction and the corners' consensus, and only if the frame, registered also to the
last estimated key frame and carried to frame 0 by that frame's estimate, lands in the same place within ``Z`` joint
errors plus ``max_uncertainty`` (the loop check: a camera's motion is one; what moved on its own between frame 0 and
that frame is not). Phase correlation (a translation on the
predicted transform, its error the disagreement of the frame's quadrants) is the last resort. Before any of this,
while ``min_shift`` > 0, each key frame is first tested for a still camera
(:class:`lawful.perceive.camera_still.StillTest`: a linearised intensity fit against frame 0, off what moved on its
own by frame differencing (:mod:`lawful.perceive.camera_moving`), whose residual, as a displacement, and motion plus
``Z`` standard errors are within ``min_shift``): corners are detected and tracked only from the first key frame that
is not still on. A key frame whose estimate is not within ``max_uncertainty`` px (``Z`` standard errors) is a
``hold``: no estimate, the path is interpolated across it. One whose registration the pixel vote outvoted is
estimated again once the frames before it are, from their path, and taken if it agrees with what the pixels
preferred (a last frame has no estimates after it to bridge it).

Per clip the estimates are *used* only if every key frame was estimated or lies on the path (two estimates on each
side, extrapolated to it, agree within ``max_uncertainty``: ``reliable``) and some key frame moves the frame corners
by more than ``Z`` standard errors and more than ``min_shift`` px (the tracker's own precision: less is not worth
compensating). Otherwise :attr:`transforms` are all identity and :meth:`summary` says why: ``static`` (motion within
its uncertainty) or ``reliable: false`` (the camera may have moved unseen: a measurement that needs a fixed frame
should not trust positions; the reason says why the key frames were held, or that one thing may carry the path: at
no frame estimated beyond ``SEEN`` does what it explains better than a still camera span a quarter of the frame, as
with a mat dragged under a still camera over a plain backdrop, :meth:`_carried`). A path seen to move and then lost for
good (no key frame registers from some frame on) is used up to its last estimate, ``until``: the tracks drop later
positions and the video is unmeasurable (:func:`lawful.perceive.camera_path.decide`). Every frame is also registered to frame 0
by a pure shift (:mod:`lawful.perceive.camera_shake`): where that holds on every frame, its scatter exceeds its
errors and the key frames agree with it, those shifts are the transforms (``shake``). Where the path is used
instead, every frame is registered to frame 0 starting from it (:mod:`lawful.perceive.camera_refine`: a camera that
pans and shakes), and those registrations replace the path where it departs from them by more than their errors
explain (``refine``). Transforms are ``[2, 3]`` float64 matrices in the pixel coordinates of the frames handed in
(pixel centres at integer coordinates): ``p0 = A @ [x, y, 1]``. Work happens on a grey copy at most ``max_side``
pixels wide, normalised in mean and contrast for Lucas-Kanade (a global lighting change is not motion); the pixel
checks use the plain grey copy with a fitted offset.
"""

from __future__ import annotations

import numpy as np

from lawful.perceive import camera_dense as dense
from lawful.perceive import camera_estimate as estimate
from lawful.perceive import camera_fit as fit
from lawful.perceive import camera_path as path
from lawful.perceive import camera_refine
from lawful.perceive.camera_moving import rasterise
from lawful.perceive.camera_shake import Shake
from lawful.perceive.camera_still import StillTest
from lawful.perceive.camera_fit import (  # noqa: F401 (compose, corner_shift, invert, rotation_of, scale_of: re-exported)
    _corners, apply, compose, corner_shift, invert, rotation_of, scale_of,
)

IDENTITY = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
MIN_CELLS = estimate.MIN_CELLS  # (re-exported)


class CameraMotion(estimate.KeyFrames):
    """Streaming estimator of frame-``k`` -> frame-0 similarity transforms.

    Call :meth:`update` once per frame (the first call defines frame 0) with the RGB frame
    and boxes ``[(x0, y0, x1, y1), ...]`` (frame pixels) of moving objects to ignore; then read
    :attr:`transforms` (one per update) and :meth:`summary`. ``exclude``: regions never used
    (boxes ``(x0, y0, x1, y1)`` or polygons ``[(x, y), ...]``) in the pixels of a frame of
    ``exclude_size`` ``(w, h)`` (default: the frames handed in). ``movers``: regions of things known to
    move or change on their own (a task's bubbles, drops), in the same pixels: kept out of every estimate,
    not out of the still test, which what moves there can only make fail (and whose edges pin a still
    camera on a faint backdrop). Frames since the last estimated one are kept by reference (at most
    ``stride``): do not modify them in place.
    """

    BEND = 0.3  # work pixels: an estimate this far from the extrapolated path also estimates the frames between
    Z = 3.0  # standard errors a motion must exceed to be real
    SEEN = 3 * dense.DELTA  # work px: a motion the pixel vote sees beyond its misregistration allowance at edges

    def __init__(self, max_side: int = 320, max_corners: int = 120, min_points: int = 12, stride: int = 16,
                 exclude=None, exclude_size=None, min_shift: float = 0.5, max_uncertainty: float = 2.0, movers=None):
        self.max_side, self.max_corners, self.min_points = max_side, max_corners, min_points
        self.stride = max(1, int(stride))
        self.min_shift, self.max_uncertainty = float(min_shift), float(max_uncertainty)
        self._exclude, self._exclude_size = list(exclude or []), exclude_size
        self._movers = list(movers or [])
        self._loose = None  # work-resolution bool mask of the ``movers`` regions
        self._n = 0  # update() calls so far
        self._held: list[tuple] = []  # (index, rgb, boxes) of the frames not estimated yet
        self._keys: list[tuple[int, np.ndarray, str, dict]] = []  # (index, work transform, method, fit info)
        self._out: list[np.ndarray] | None = None
        self._s, self._size = 1.0, (0, 0)
        self._corners_w = np.zeros((0, 2))
        self._gray0 = self._prev = None  # frame 0 and the last estimated key frame (grey, work resolution)
        self._D0 = self._Dprev = None  # the same, smoothed float32 (``_Dprev`` made when first needed)
        self._raw_prev = None  # the last estimated key frame, plain grey
        self._prev_A = IDENTITY
        self._static = None  # work-resolution bool mask of the ``exclude`` regions
        self._moving = None  # the last key frame's moving mask
        self._grow = 3
        self._pts = np.zeros((0, 2), np.float32)  # positions in ``_prev``
        self._keep0 = self._keep_prev = None  # where frame 0 and ``_prev`` show background (bool, work px)
        self._tpl: list[tuple] = []  # (reference image, its reg.Template): frame 0's and the previous key frame's
        self._detect_wait = 0  # key frames before corners are searched for again
        self._ref = np.zeros((0, 2), np.float32)  # frame-0 positions
        self._still: StillTest | None = None  # while every key frame is still: no corners tracked yet
        self._boxes0 = None  # frame 0's object boxes (work px), for corners found there later
        self._shake: Shake | None = None  # per-frame shake about frame 0 (used only where the path is static)
        self._last = (-1, None, None)  # (index, plain grey, smoothed) of the last frame the shake took
        self._kept = camera_refine.Kept()  # every frame, for registering each where the path is used
        self._decided: tuple[int, dict | None] = (-1, None)  # (updates, decision) of the last decision
        self._far: dict[int, tuple] = {}  # frame -> (plain grey, work boxes) of estimates beyond SEEN

    # --- streaming ---------------------------------------------------------------------
    def update(self, rgb: np.ndarray, boxes=None) -> None:
        """Add the next frame: every ``stride``-th is estimated now, the others later or by interpolation."""
        self._held.append((self._n, rgb, boxes))
        self._n, self._out = self._n + 1, None
        if self._shake is not None and self._shake.take(self._n - 1):
            raw = self._plain(rgb)
            self._last = (self._n - 1, raw, dense.smooth(raw))  # a key frame's images are made once
            self._shake.add(self._last[2], ~self._excluded(self._boxes(boxes), raw.shape))
        if (self._n - 1) % self.stride == 0:
            self._flush()
        if self._shake is not None and self._shake.sparse:
            self._kept.frames = None  # a still start on a stand: nothing to register (the path alone if it moves later)
        elif self._kept.frames is not None:
            self._kept.frames.append((self._last[1] if self._last[0] == self._n - 1 else self._plain(rgb), self._boxes(boxes)))

    @property
    def transforms(self) -> list[np.ndarray]:
        """One ``[2, 3]`` frame -> frame-0 transform (frame pixels) per :meth:`update` call; all identity
        unless the clip's motion was found larger than its uncertainty (``summary()['used']``)."""
        if self._held:
            self._flush()
        if self._out is None:
            path, d = self.estimated(), self.decision()
            if d.get("shake", {}).get("used"):
                path = self._shake.transforms()
            elif d.get("refine", {}).get("used"):
                path = self._kept.transforms
            self._out = path if d["used"] else [IDENTITY.copy() for _ in path]
        return self._out

    def estimated(self) -> list[np.ndarray]:
        """The estimated path (frame pixels), whether or not it is used; key frames without an
        estimate (``hold``) are bridged by interpolation."""
        if self._held:
            self._flush()
        return path.interpolate(self._keys, self._n, self._s)

    def decision(self) -> dict:
        """Whether the estimate is used, with the evidence: ``used``, ``static``, ``reliable``, ``reason``
        (:func:`lawful.perceive.camera_path.decide`)."""
        if self._held:
            self._flush()
        if self._decided[0] == self._n:  # (transforms and summary both ask, after the last frame)
            return self._decided[1]
        self._decided = (self._n, self._decide())
        return self._decided[1]

    def _decide(self) -> dict:
        """:meth:`decision`, worked out."""
        gw, gh = self._corners_w[3] + 1 if len(self._corners_w) else (1, 1)
        d = self._carried(path.decide(self._keys, self._corners_w, (gw, gh), self._s, self.Z, self.max_uncertainty,
                                      self.min_shift))
        if self._shake is None:  # every frame's own shift, where it holds, beats key frames (shake is not a path)
            return d
        sh = self._shake.verdict(self._n, self.Z)
        why = f"{sh['reason']}; path: {d['reason']}" if sh["used"] else f"{d['reason']}; {sh['reason']}"
        if sh["used"] and d["used"] and not self._shake.agrees(self._keys, self._corners_w, self.Z, self.BEND):
            lost = self._unseen()
            if lost:
                d = {**d, "used": False, "reliable": False, "static": False, "reason": f"path not used: {lost} ({d['reason']})"}
                why = f"{sh['reason']}; {d['reason']}"
            else:
                sh, why = {**sh, "used": False}, f"{d['reason']}; shake not used: the path also zooms or turns"
        out = {**d, "used": d["used"] or sh["used"], "shake": sh, "reason": why}
        if sh["used"]:  # every frame's own shift: none is lost (nor below, where every frame registers)
            self._found(out, "every frame's own shift")
        if d["used"] and not sh["used"]:  # a moving camera: does it shake between the key frames?
            ref = self._kept.refine(self._n, self._keys, self._D0, self._keep0, self._s, self.Z, self._corners_w,
                                    self.max_uncertainty * self._s, self._excluded)
            out["refine"], out["reason"] = ref, f"{out['reason']}; about the path: {ref['reason']}"
            if ref["used"]:
                self._found(out, "every frame registered")
        return out

    def _unseen(self) -> str | None:
        """Why the path is not to be used against a shake measured on every frame, or None. Where the path departs
        from the shake only along an axis that frame 0's still background leaves unpinned in some frame (a ramp,
        bare wall or poles across it), what it claims there may rest on what moves on its own (a chain swinging
        in front: studio P7, 3.8 px of "camera motion" on a still camera): it stands only if it moves no object
        that sits still in the picture (:func:`lawful.perceive.camera_path.moves_still_object`) and the pixels
        prefer it at every key frame where the two part by more than the pixel vote's resolution (``DELTA``; a
        real pan along that axis does, a chain's pull is a coin toss)."""
        sh, keys, c = self._shake, self._keys, self._corners_w
        loose = sh.unpinned()
        if not any(loose) or self._kept.frames is None or not sh.agrees(keys, c, self.Z, self.BEND, [not v for v in loose]):
            return None
        departs = [d for d in sh.departures(keys, c, self.Z, self.BEND, loose) if d[4] > dense.DELTA]
        still = path.moves_still_object(keys, [b for _, b in self._kept.frames], [d[0] for d in departs], loose,
                                        self.Z, dense.DELTA)
        if still:
            return f"it departs from the shake along an axis frame 0's still background does not pin, and {still}"
        for i, A, _, _, off in departs:
            raw, boxes = self._kept.frames[i]
            keep = ~self._excluded(boxes, raw.shape)
            if dense.best(dense.smooth(raw), self._D0, [A, sh.work(i)], keep, self._keep0) != 0:
                a = "".join(n for n, v in zip("xy", loose) if v)
                return (f"it departs from the shake along {a}, which frame 0's still background does not pin in every "
                        f"frame, and the pixels prefer the shake at key frame {i}")
        return None

    def _carried(self, d: dict) -> dict:
        """The path's decision ``d``, not used where one thing may carry it: at no frame it was estimated to move by
        more than ``SEEN`` work px (frame 0 showing half of it) do the cells of the pixel vote where it explains the frame
        better than a still camera (:func:`lawful.perceive.camera_dense.cells_won`) span a quarter of the frame
        (rows times columns of the vote's grid): a camera moves everything, a thing moving on its own over a plain
        backdrop only itself. Frames are asked from the farthest on (a periodic backdrop ties where the shift is
        a multiple of its period); the widest span is recorded as ``support`` (rows, columns)."""
        if not d["used"] or not self._far:
            return d
        gh, gw = self._D0.shape
        far = [(self._apart(A, IDENTITY), i, A) for i, A, m, _ in self._keys if m != "hold" and i in self._far]
        far = sorted((f for f in far if f[0] > self.SEEN and fit.share_inside(f[2], self._grid, gw, gh) >= 0.5),
                     key=lambda f: -f[0])
        if not far:
            return d
        span, at = (0, 0), None
        for shift, i, A in far:
            raw, b = self._far[i]
            won = dense.cells_won(dense.smooth(raw), self._D0, A, IDENTITY, ~self._excluded(b, raw.shape), self._keep0)
            rows, cols = np.flatnonzero(won.any(1)), np.flatnonzero(won.any(0))
            got = (int(np.ptp(rows)) + 1, int(np.ptp(cols)) + 1) if len(rows) else (0, 0)
            if at is None or got[0] * got[1] > span[0] * span[1]:
                span, at = got, (i, shift)
            if span[0] * span[1] >= won.size / 4:
                return {**d, "support": span}
        d = {k: v for k, v in d.items() if k not in ("until", "lost_after")}
        g = dense.GRID
        return {**d, "used": False, "static": False, "reliable": False, "moved": True, "support": span,
                "reason": f"path not used: at no frame estimated beyond {self.SEEN / self._s:.0f} px (frame {at[0]}, "
                          f"{at[1] / self._s:.1f} px from frame 0, the widest) does what it explains better than a"
                          f" still camera span a quarter of the frame ({span[0]} x {span[1]} of {g} x {g} cells): one"
                          f" thing moving on its own over a plain backdrop may carry it ({d['reason']})"}

    @staticmethod
    def _found(out: dict, how: str) -> None:
        """A key-frame path lost at ``until`` whose later frames were each registered (``how``): none is lost."""
        if out.pop("until", None) is not None:
            was = out.pop("lost_after")
            out["reason"] = out["reason"].replace(was, was.replace("later positions not used", f"later ones kept: {how}"))

    def keys(self) -> list[tuple[int, np.ndarray, str, float]]:
        """The estimated key frames: ``(frame index, frame -> frame-0 transform in frame px, method, standard
        error at the frame corners in frame px)``; a ``hold`` has no transform (None) and ``inf``."""
        return [(i, None, m, float("inf")) if m == "hold" else (i, path.to_frame(Aw, self._s), m, d.get("u", 0.0) / self._s)
                for i, Aw, m, d in self._keys]

    def summary(self) -> dict:
        """Camera-motion evidence for ``Tracks.meta`` (:func:`lawful.perceive.camera_path.summarise`) and the
        decision (``used``, ``static``, ``reliable``, ``reason``)."""
        T = np.array(self.estimated())
        if not len(T):
            return {"frames": 0}
        still = {"still": self._still.evidence()} if self._still is not None else {}
        return {**path.summarise(T, self._keys, _corners(*self._size), self._s), **self.decision(), **still}

    # --- estimation --------------------------------------------------------------------
    def _flush(self) -> None:
        """Estimate the latest held frame, and the ones before it too if the camera path bent."""
        *between, (i, rgb, boxes) = self._held
        self._held = []
        if not self._keys:
            return self._start(rgb, boxes)
        took = self._last[0] == i  # the shake took it: its plain and smoothed grey images are made
        (g, raw), D = self._gray(rgb, self._last[1] if took else None), self._last[2] if took else None
        b = self._boxes(boxes)
        if self._still is not None and self._still.failed is None:  # cheap test first: is the background still?
            keep, D = ~self._excluded(b, g.shape), dense.smooth(raw) if D is None else D
            got = self._still.test(i, D, self._still_keep(keep, b))
            if got is not None:
                self._prev, self._raw_prev, self._Dprev, self._prev_A, self._keep_prev = g, raw, D, got[0], keep
                return self._keys.append((i, got[0], "still", got[1]))
            self._pts = self._detect(self._gray0, self._boxes0, self.max_corners)  # the corners start at frame 0
            self._ref = self._pts.copy()
        after_hold = self._keys[-1][2] == "hold"
        good = [k for k in self._keys if k[2] != "hold"]
        j, Aj = good[-1][:2]
        pred, u_pred = Aj, good[-1][3].get("u", 0.0)
        if len(good) > 1:  # constant-velocity extrapolation of the camera path over a baseline of ~a stride
            j0, A0, _, info0 = self._baseline(good[:-1], j, good[0])
            r = (i - j) / (j - j0)
            pred = Aj + (Aj - A0) * r
            u_pred = float(np.hypot((1 + r) * u_pred, r * info0.get("u", 0.0)))  # the extrapolation's own error
        A, method, info, pts, ref = self._estimate(g, D, b, pred, replace=True, raw=raw)
        if A is not None and not self._usable(info["u"]):
            A, method, info = None, "hold", {**info, "rejected": method}  # too uncertain to use
        if A is None:
            self._keys.append((i, Aj, "hold", info))
        else:
            self._pts, self._ref = pts, ref
        # replenish points lost at the borders, on objects or on moving things
        # (a backdrop that offered no new corner is searched again only after 3 more key frames)
        self._detect_wait -= 1
        if len(self._pts) < max(self.min_points * 2, self.max_corners // 2) and self._detect_wait <= 0:
            new = self._detect(g, b, self.max_corners - len(self._pts))
            self._detect_wait = 0 if len(new) else 3
            self._pts = np.concatenate([self._pts, new])
            self._ref = np.concatenate([self._ref, apply(pred if A is None else A, new).astype(np.float32)])
        if A is None:  # the frames before it may still be estimated: a hold between estimates can be bridged
            got = [e for e in (self._between(k, rgb_k, boxes_k, j, Aj, i, pred) for k, rgb_k, boxes_k in between) if e]
            self._keys[-1:-1] = got
            if got and info.get("outvoted") is not None:  # and it again, from their path (a last frame has no
                k1, A1 = got[-1][:2]  # estimates after it to bridge it), agreeing with what the pixels preferred
                k0, A0 = self._baseline(got, k1, (j, Aj))[:2]
                again = self._between(i, rgb, boxes, k0, A0, k1, A1)
                if again is not None and self._apart(again[1], info["outvoted"]) <= max(
                        self.BEND, self.Z * float(np.hypot(again[3]["u"], u_pred))):
                    self._keys[-1] = again
            return
        self._prev, self._raw_prev, self._Dprev, self._prev_A = g, raw, None, A  # smoothed when needed
        self._keep_prev = ~(self._excluded(b, g.shape) | (False if self._moving is None else self._moving))
        self._keys.append((i, A, method, info))
        self._note_far(i, raw, b, A)
        if not between or self._shake.explains(i, A, info["u"], self._corners_w, self.Z, self.BEND):
            return  # (a bend that is the per-frame shake: those frames are registered already)
        # a bend is a departure beyond what the estimates' errors explain (noisy corners do not bend a path)
        tol = max(self.BEND, self.Z * float(np.hypot(info["u"], u_pred)))
        if len(good) == 1:  # no path before this segment to extrapolate: is its middle where interpolation puts it?
            mid = len(between) // 2
            got = self._between(*between[mid], j, Aj, i, A)
            if got is not None and self._apart(got[1], Aj + (A - Aj) * ((got[0] - j) / (i - j))) <= max(
                    tol, self.Z * np.hypot(info["u"], got[3].get("u", 0.0))):
                self._keys.insert(-1, got)
                return
            between = between[:mid] + between[mid + 1:]
            if got is not None:
                self._keys.insert(-1, got)
        elif self._apart(A, pred) <= tol and not after_hold:
            return  # (after a held key frame the frames are estimated: a bridge needs estimates on both sides)
        for k, rgb_k, boxes_k in between:  # not on a straight path: interpolation would be off
            got = self._between(k, rgb_k, boxes_k, j, Aj, i, A)
            if got is not None:
                self._keys.insert(-1, got)
        self._keys.sort(key=lambda key: key[0])

    def _baseline(self, keys: list[tuple], j: int, default: tuple) -> tuple:
        """The latest of ``keys`` half a stride or more before frame ``j`` (to extrapolate from), else ``default``."""
        return next((k for k in reversed(keys) if k[0] <= j - self.stride // 2), default)

    def _usable(self, u: float) -> bool:
        """Whether an estimate with standard error ``u`` (work px) is within ``max_uncertainty`` frame px at ``Z``."""
        return self.Z * u / self._s <= self.max_uncertainty

    def _between(self, k: int, rgb: np.ndarray, boxes, j: int, Aj: np.ndarray, i: int, A: np.ndarray):
        """Estimate frame ``k`` between key frames ``j`` and ``i``: a key-frame tuple, or None if too uncertain."""
        gk, raw_k = self._gray(rgb)
        b = self._boxes(boxes)
        r = self._estimate(gk, None, b, Aj + (A - Aj) * ((k - j) / (i - j)), raw=raw_k)
        if r[0] is not None and self._usable(r[2]["u"]):
            self._note_far(k, raw_k, b, r[0])
            return (k, r[0], r[1], r[2])
        return None

    def _note_far(self, i: int, raw: np.ndarray, b: np.ndarray, A: np.ndarray) -> None:
        """Keep frame ``i``'s plain grey image and work boxes for :meth:`_carried` where its estimate ``A`` moves it by
        more than ``SEEN`` work px (the check reads the estimates from the key frames: one dropped there is not asked)."""
        if self._apart(A, IDENTITY) > self.SEEN:
            self._far[i] = (raw, b)

    def _start(self, rgb: np.ndarray, boxes) -> None:
        """Frame 0: work scale, exclusion mask and first corners."""
        h, w = rgb.shape[:2]
        self._size, self._s = (w, h), min(1.0, self.max_side / max(w, h))
        g, raw = self._gray(rgb)
        self._gray0 = self._prev = g
        self._D0 = dense.smooth(raw)
        gh, gw = g.shape
        self._corners_w = _corners(gw, gh)
        self._grid = fit.view_grid(gw, gh)
        self._grow = max(3, round(0.02 * max(gw, gh)))
        scale = np.divide((gw, gh), self._exclude_size or self._size)
        self._static = rasterise(self._exclude, scale, (gh, gw))
        self._loose = rasterise(self._movers, scale, (gh, gw)) if self._movers else None
        self._keep0 = self._keep_prev = ~self._excluded(self._boxes(boxes), g.shape)
        self._boxes0 = self._boxes(boxes)
        self._shake = Shake(self._D0, self._keep0, self._s, max(self.min_shift, 0.5) * self._s, self.Z, None, self.stride,
                            self._grow)
        if self.min_shift > 0:  # (a camera declared moving is estimated from the start; movers: camera_moving)
            self._still = StillTest(self._D0, self._still_keep(self._keep0, self._boxes0), self.min_shift * self._s,
                                    self.Z, self._s, self._shake.movers)
            if self._loose is None:  # (else the estimates' template leaves the movers out: made when first needed)
                self._tpl = [(self._D0, self._still.template)]
        else:
            self._pts = self._detect(g, self._boxes0, self.max_corners)
            self._ref = self._pts.copy()
        self._keys.append((0, IDENTITY.copy(), "first", {}))
