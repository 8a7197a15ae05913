"""Every frame of a moving camera registered to frame 0, where its path is not straight between key frames
(:func:`refine`).

The key-frame path of :class:`lawful.perceive.camera.CameraMotion` is estimated every ``stride``-th frame
and interpolated between; a camera that pans *and* shakes (a hand-held one, a renderer's jitter under a
pan) keeps its shake on the frames between, where a measurement that differentiates positions twice reads
it as noise in every sample (studio free fall under a 10 % pan: 8.5 points). :class:`lawful.perceive.
camera_shake.Shake` measures shake about a still camera only. Here every frame's background intensities
are registered to frame 0's (:func:`lawful.perceive.camera_dense.register`: a similarity plus brightness,
robust to what moves on its own, its standard error from its own residuals), starting from the path.

The registrations replace the path only where they depart from it by more than their errors explain: per
frame corner and axis, the change of the departures from one frame to the next must exceed twice what the
registrations' errors give, ``sum (d / sd)^2`` above its chi-square mean ``2 N`` by ``Z`` of its standard
deviations (:func:`_rough`; replacing a path value by an estimate trades its departure for the estimate's
error). Shake changes from frame to frame; a departure that drifts smoothly is a bias of the registrations (the
resampling of a zoom: flat WMLE P5 seed 1006 zoom10, 0.3-0.5 px stated as 0.1, 57.6 points instead of 99.9)
or of the path, not shake. A camera that pans smoothly keeps its path.
Every frame must show at least half of frame 0 and the last must register; else the path is kept and the
evidence says why. A frame between that does not register (a direction its background leaves loose), or
whose registration departs from the path by more than the path's own tolerance (another minimum, on
stripes), takes the line between its registered neighbours.
"""

from __future__ import annotations

import numpy as np

from lawful.perceive import camera_dense as dense
from lawful.perceive.camera_fit import apply, share_inside, view_grid
from lawful.perceive.camera_path import lines, to_frame


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
    tpl, h, w = dense.Template(D0, keep0), *D0.shape
    grid = view_grid(w, h)
    got, est, far = {0: P[0]}, [], 0
    for k, (raw, keep) in enumerate(frames):
        if k == 0:
            continue
        if share_inside(P[k], grid, w, h) < 0.5:
            return None, {"used": False, "reason": f"path kept: frame {k} shows less than half of frame 0"}
        r = dense.register(dense.smooth(raw), tpl, P[k], keep)
        if r is None or not np.isfinite(r[1]):
            continue
        dev = apply(r[0] - P[k], corners)
        if np.abs(dev).max() > bound:  # beyond what the path is trusted to: another minimum, not shake
            far += 1
            continue
        got[k] = r[0]
        est.append((dev.ravel(), np.full(2 * len(corners), r[1]), k))
    n, done = len(frames), sorted(got)
    if done[-1] != n - 1:
        return None, {"used": False, "reason": f"path kept: frame {n - 1} does not register to frame 0"}
    if len(est) < 2:
        return None, {"used": False, "reason": "path kept: too few frames"}
    chi, fin, bar = _rough(est, Z)
    dev = np.array([e[0] for e in est])
    sd = float(np.median([e[1][0] for e in est]))
    ev = {"frames": len(est), "bridged": n - len(done), "beyond_bound": far, "chi2_max": round(float(chi.max()), 1),
          "bar": round(float(bar), 1), "departure_px": round(float(dev.std(0).max()) / s, 4), "sd_px": round(sd / s, 4)}
    what = (f"departures from the path {ev['departure_px']:.3f} px rms, registration sd {ev['sd_px']:.3f} px"
            f" (frame-to-frame chi2 {ev['chi2_max']:.0f} vs {ev['bar']:.0f})")
    if not np.any(fin & (chi > bar)):
        return None, {"used": False, **ev, "reason": f"path kept: {what}"}
    # a frame that does not register (a direction its background leaves loose) takes its neighbours' line
    return list(lines(done, [got[k] for k in done], n)), {"used": True, **ev, "reason": f"every frame registered to frame 0 ({Z:g} sd): {what}"}


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
