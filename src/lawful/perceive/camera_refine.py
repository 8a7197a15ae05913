"""Every frame of a moving camera registered to frame 0, where its path is not straight between key frames
(:func:`refine`).

The key-frame path of :class:`lawful.perceive.camera.CameraMotion` is estimated every ``stride``-th frame
and interpolated between; a camera that pans *and* shakes (a hand-held one, a renderer's jitter under a
pan) keeps its shake on the frames between, where a measurement that differentiates positions twice reads
it as noise in every sample (studio free fall under a 10 % pan: 8.5 points). :class:`lawful.perceive.
camera_shake.Shake` measures shake about a still camera only. Here every frame's background intensities
are registered to frame 0's (:func:`lawful.perceive.camera_register.register`: a similarity plus brightness,
robust to what moves on its own, its standard error from its own residuals), starting from the path.

The registrations replace the path only where they depart from it by more than their errors explain: per
frame corner and axis, the change of the departures from one frame to the next must exceed twice what the
registrations' errors give, ``sum (d / sd)^2`` above its chi-square mean ``2 N`` by ``Z`` of its standard
deviations (:func:`_rough`; replacing a path value by an estimate trades its departure for the estimate's
error). Shake changes from frame to frame; a departure that drifts smoothly is a bias of the registrations (the
resampling of a zoom: flat WMLE P5 seed 1006 zoom10, 0.3-0.5 px stated as 0.1, 57.6 points instead of 99.9)
or of the path, not shake. A camera that pans smoothly keeps its path. Shake that changes little from one frame
to the next (a renderer's jitter that wanders, ``0.7`` of it carried to the next frame) is taken as well where the
registrations bend away from a line between the key frames by more than their errors explain (:func:`_wanders`;
the path is a line there) and meet the path's key frames within both errors (a zoom's resampling biases the
registrations there too): studio free fall under a 10 % pan, seed 1002, the path 0.47 px off between LK key
frames that are right within 0.1 px, 94.5 -> 98.0 (law 98.1).
Every frame must show at least half of frame 0, at least half of them must register, and the last must register
or be a key frame: where its registration falls into another minimum (stripes a pan carried 36 px) the path's own
estimate there ends the line (studio free fall seed 1006 under a 10 % pan: 90.1 -> 99.5, law 99.0), unless more
than :data:`MISSES` of the frames fell into other minima too: then those that land within the tolerance are no
surer (fine stripes with an arm crossing them: 22 of 46 beyond, accepted ones 0.6-1.8 px off while the path was
within 0.1; a textured arm: 37 of 46, one accepted 1.7 px off; the studio pans above: 1 of 44 and 3 of 38).
Else the path is kept and the evidence says why. A frame between that does not register (a
direction its background leaves loose), or whose registration departs from the path by more than the path's own
tolerance (another minimum, on stripes), takes the line between its registered neighbours.
"""

from __future__ import annotations

import numpy as np

from lawful.perceive import camera_dense as dense
from lawful.perceive import camera_register as reg
from lawful.perceive.camera_fit import apply, share_inside, view_grid
from lawful.perceive.camera_path import lines, to_frame

MISSES = 0.1  # of the frames: registrations beyond the path's tolerance (another minimum) past which the path's
# last key frame does not stand in for a last frame that did not register


def refine(frames, keys: list[tuple], D0: np.ndarray, keep0: np.ndarray, s: float, Z: float,
           corners: np.ndarray, bound: float) -> tuple[list[np.ndarray] | None, dict]:
    """Per-frame registrations where they beat the path: ``(work-pixel transforms or None, evidence)``.

    ``frames``: per frame ``(plain grey work image, usable pixels)`` (frame 0 first; a sequence, read once);
    ``keys``: the key frames (work px); ``D0``/``keep0``: frame 0's smoothed image and background; ``s``: work
    px per frame px; ``Z``: standard errors; ``corners``: the work frame's corners; ``bound``: work px a
    registration may depart from the path at a corner (the path's own tolerance; beyond, a frame is not taken).
    """
    good = [k for k in keys if k[2] != "hold"]  # the path: key frames, a hold bridged
    P = lines([k[0] for k in good], [k[1] for k in good], len(frames))
    tpl, h, w = reg.Template(D0, keep0), *D0.shape
    grid = view_grid(w, h)
    got, est, far = {0: P[0]}, [], 0
    for k, (raw, keep) in enumerate(frames):
        if k == 0:
            continue
        if share_inside(P[k], grid, w, h) < 0.5:
            return None, {"used": False, "reason": f"path kept: frame {k} shows less than half of frame 0"}
        r = reg.register(dense.smooth(raw), tpl, P[k], keep)
        if r is None or not np.isfinite(r[1]):
            continue
        dev = apply(r[0] - P[k], corners)
        if np.abs(dev).max() > bound:  # beyond what the path is trusted to: another minimum, not shake
            far += 1
            continue
        got[k] = r[0]
        est.append((dev.ravel(), np.full(2 * len(corners), r[1]), k))
    n = len(frames)
    if n - 1 not in got and good[-1][0] == n - 1 and far <= MISSES * (n - 1):  # a key frame: its estimate ends
        got[n - 1] = P[n - 1]  # the line, where few registrations fell into other minima (those within look right)
    done = sorted(got)
    if done[-1] != n - 1:
        return None, {"used": False, "reason": f"path kept: frame {n - 1} does not register to frame 0 ({far} of"
                                               f" {n - 1} beyond the path's tolerance: other minima)"}
    if len(est) < 2 or 2 * len(est) < n - 1:
        return None, {"used": False, "reason": f"path kept: {len(est)} of {n - 1} frames registered ({far} beyond"
                                               f" the path's tolerance: other minima)"}
    chi, fin, bar = _rough(est, Z)
    dev = np.array([e[0] for e in est])
    sd = float(np.median([e[1][0] for e in est]))
    ev = {"frames": len(est), "bridged": n - len(done), "beyond_bound": far, "chi2_max": round(float(chi.max()), 1),
          "bar": round(float(bar), 1), "departure_px": round(float(dev.std(0).max()) / s, 4), "sd_px": round(sd / s, 4)}
    what = (f"departures from the path {ev['departure_px']:.3f} px rms, registration sd {ev['sd_px']:.3f} px"
            f" (frame-to-frame chi2 {ev['chi2_max']:.0f} vs {ev['bar']:.0f})")
    how = "shake" if np.any(fin & (chi > bar)) else "wander between key frames" if _wanders(est, good, Z) else None
    if how is None:
        return None, {"used": False, **ev, "reason": f"path kept: {what}"}
    # a frame that does not register (a direction its background leaves loose) takes its neighbours' line
    why = f"every frame registered to frame 0 ({Z:g} sd; {how}): {what}"
    return list(lines(done, [got[k] for k in done], n)), {"used": True, **ev, "reason": why}


def _rough(est: list[tuple], Z: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Per corner and axis: the chi-square statistic of the departures' change from one frame to the next
    (``est``: ``(departures, their sd, frame)``; consecutive frames only) against the registrations' errors,
    whether pinned, and the bar: the change must exceed twice what the errors give (``2 chi2(m)``, its mean
    ``2 m`` plus ``Z`` of its standard deviations), as the departures' scatter had to for :class:`lawful.perceive.
    camera_shake.Shake`."""
    pairs = [(a, b) for a, b in zip(est, est[1:]) if b[2] == a[2] + 1]
    if not pairs:
        return np.zeros(len(est[0][0])), np.zeros(len(est[0][0]), bool), float("inf")
    d = np.array([b[0] - a[0] for a, b in pairs])
    v = np.array([a[1] ** 2 + b[1] ** 2 for a, b in pairs])
    fin = np.all(np.isfinite(v) & (v > 0), 0)
    m = len(pairs)
    chi = np.where(fin, np.sum(d * d / np.where(fin, v, 1.0), 0), 0.0)
    return chi, fin, 2 * m + Z * 2 * np.sqrt(2 * m)


def _wanders(est: list[tuple], good: list[tuple], Z: float) -> bool:
    """Whether the registrations meet the path at its key frames and bend away from a line between them: the camera
    wandered between key frames (a shake slower than a frame, hand-held drift), which the path, a line there, cannot
    follow.

    ``est``: ``(departures, their sd, frame)``; ``good``: the key frames (``u``: their error, work px at the
    corners). Per corner and axis: at the key frames registered (frame 0 aside) the departures lie within both
    errors, ``sum d^2 / (sd^2 + u^2)`` within its chi-square mean plus ``Z`` of its standard deviations (flat P5
    seed 1001 under a 10 % zoom: the registrations 0.39 px rms off the truth, the path 0.11, their departures at
    the key frames 2.2 times both errors); and a line fitted to each segment's departures (its frames after its
    first key frame, to its last; weights ``1 / sd^2``) leaves residuals beyond the registrations' errors: their
    ``chi^2`` above its mean (frames less two per segment) by ``Z`` of its standard deviations. The line takes up
    what the key frames' own errors give the path there and a bias that drifts smoothly; the departures themselves
    would count the key frames' errors once per frame between them (a path 0.1 px off at its key frames passed for
    wander in 45 % of draws of pure noise, against 0.3 % asked)."""
    at = [k[0] for k in good]
    keys = [(d, s, float(good[at.index(k)][3].get("u", 0.0))) for d, s, k in est if k in at and k > 0]
    if len(keys) < 2:
        return False
    d, sd, u = (np.array([r[i] for r in keys]) for i in range(3))
    s2 = sd * sd + u[:, None] ** 2
    if not np.all(np.isfinite(s2) & (s2 > 0)) or \
            np.any(np.sum(d * d / s2, 0) > len(keys) + Z * np.sqrt(2 * len(keys))):
        return False  # off the path where it was measured: a bias of the registrations (a zoom's resampling)
    chi, dof = 0.0, 0
    for a, b in zip(at, at[1:]):
        rows = [(d, s, k) for d, s, k in est if a < k <= b]
        if len(rows) < 3:
            continue
        t = np.array([k for _, _, k in rows], float)
        y, w = np.array([r[0] for r in rows]), 1.0 / np.array([r[1] for r in rows]) ** 2
        if not np.all(np.isfinite(w)):
            return False
        X = np.c_[np.ones_like(t), t - t.mean()]
        for j in range(y.shape[1]):  # weighted least squares per corner and axis
            coef = np.linalg.lstsq(X * np.sqrt(w[:, j, None]), y[:, j] * np.sqrt(w[:, j]), rcond=None)[0]
            y[:, j] -= X @ coef
        chi, dof = chi + np.sum(y * y * w, 0), dof + len(rows) - 2
    return bool(dof > 0 and np.any(chi > dof + Z * np.sqrt(2 * dof)))


class Kept:
    """Every frame's plain grey work image and object boxes (work px) while :func:`refine` may be asked for
    (``frames`` None once it may not), and its result, worked out once per frame count."""

    def __init__(self):
        self.frames: list | None = []
        self.transforms: list[np.ndarray] | None = None  # frame px, where used
        self._n, self._ev = -1, {}

    def refine(self, n: int, keys: list[tuple], D0: np.ndarray, keep0: np.ndarray, s: float, Z: float,
               corners: np.ndarray, bound: float, excluded) -> dict:
        """:func:`refine`'s evidence for the first ``n`` frames (``excluded(boxes, shape)``: the pixels not to use)."""
        if self._n != n:
            self._n, self.transforms = n, None
            if self.frames is None or len(self.frames) != n:
                self._ev = {"used": False, "reason": "path kept: the frames were not kept"}
            else:
                T, self._ev = refine([(raw, ~excluded(b, raw.shape)) for raw, b in self.frames], keys, D0, keep0, s, Z,
                                     corners, bound)
                self.transforms = None if T is None else list(to_frame(np.array(T), s))
        return self._ev
