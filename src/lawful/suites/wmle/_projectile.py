"""Projectile flights shared by P3 and P4: the airborne stretch of a tracked ball, less its gross centroid
errors, fitted as ``y(x)`` and ``y(t)`` parabolas and an ``x(t)`` line (:func:`projectile_arc`), its fit
residual net of the centroid noise (:func:`excess_rms`) and the flight's own noise (:func:`flight_noise`); P4's
velocity uniformity net of that noise (:func:`velocity_uniformity`) and its readings
(:func:`oblique_flight_measurement`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.perceive.fit import tukey_outliers
from lawful.result import Measurement
from lawful.score.wmle import cv
from lawful.suites.wmle.common import event, steady_visible
from lawful.suites.wmle.kinematics import interval_velocities
from lawful.tracks import Tracks

TUKEY = 4.685  # biweight cut-off (robust sigmas): 95 % efficiency on Gaussian noise
CENTROID_PX = 0.5  # centroid resolution: residuals within it are never gross errors
LIFT_PX = 2.0  # height above launch level (px, at least; 0.2 radius for larger balls) that counts as airborne




@dataclass
class Arc:
    """One tracked projectile flight in first-frame pixels (y down) and seconds.

    ``launch_y``: launch height (resting centre); ``yx``: parabola coefficients of ``y(x)``;
    ``yt``/``xt``: ``y(t)`` parabola and ``x(t)`` line; ``x_launch``/``x_land``: roots of ``y(x)`` at the
    launch height (``x_land`` None when the ball never came back down to it); ``apex``: vertex
    ``(x, y)``; ``rms``: RMS residual of ``y(x)`` (px); ``speed``: launch speed (px/s); ``t``, ``x``,
    ``y``: the airborne samples.
    """

    launch_y: float
    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    yx: np.ndarray
    yt: np.ndarray
    xt: np.ndarray
    x_launch: float
    x_land: float | None
    t_launch: float
    t_land: float | None
    apex: tuple[float, float]
    apex_seen: bool
    rms: float
    speed: float
    notes: dict = field(default_factory=dict)

    @property
    def range(self) -> float | None:
        return None if self.x_land is None else abs(self.x_land - self.x_launch)

    @property
    def height(self) -> float:
        return self.launch_y - self.apex[1]


def projectile_arc(t: np.ndarray, x: np.ndarray, y: np.ndarray, visible: np.ndarray,
                   radius: float | None = None) -> Arc | str:
    """The first flight of a tracked ball (radius in px, if known, sets the airborne margin), or a string
    saying why none was resolved."""
    t, x, y = (np.asarray(a, float) for a in (t, x, y))
    vis = np.asarray(visible, bool) & np.isfinite(x) & np.isfinite(y)
    if vis.sum() < 8:
        return "ball not tracked"
    first = np.flatnonzero(vis)[:3]
    y0, x0 = float(np.median(y[first])), float(np.median(x[first]))
    lift = max(LIFT_PX, 0.2 * radius) if radius else LIFT_PX
    air = vis & (y < y0 - lift)
    idx = np.flatnonzero(air)
    if len(idx) < 5:
        return "ball never left the launch height"
    start = int(idx[0])
    stop = start
    while stop + 1 < len(t) and (air[stop + 1] or (not vis[stop + 1] and stop + 2 < len(t) and air[stop + 2])):
        stop += 1
    stop, hit = _landing(y, vis, air, start, stop)
    sel = np.zeros(len(t), bool)
    sel[start:stop + 1] = True
    sel &= air
    if sel.sum() < 5:
        return "flight too short to resolve"
    ts, xs, ys = t[sel], x[sel], y[sel]
    gross = gross_errors(ts, xs, ys)
    if (~gross).sum() < 5:
        return "flight too short to resolve"
    ts, xs, ys = ts[~gross], xs[~gross], ys[~gross]
    direction = 1.0 if xs[-1] >= x0 else -1.0
    yx = np.polyfit(xs, ys, 2)
    yt = np.polyfit(ts, ys, 2)
    xt = np.polyfit(ts, xs, 1)
    if yx[0] <= 0 or yt[0] <= 0:
        return "flight does not curve downwards"
    rms = float(np.sqrt(np.mean((np.polyval(yx, xs) - ys) ** 2)))
    apex_x = -yx[1] / (2 * yx[0])
    apex = (float(apex_x), float(np.polyval(yx, apex_x)))
    roots = np.roots(yx - np.array([0, 0, y0]))
    roots = sorted(float(r.real) for r in roots if abs(r.imag) < 1e-9)
    troots = np.roots(yt - np.array([0, 0, y0]))
    troots = sorted(float(r.real) for r in troots if abs(r.imag) < 1e-9)
    if len(roots) < 2 or len(troots) < 2:
        return "flight never rises above the launch height in the fit"
    x_launch, x_far = (roots[0], roots[1]) if direction > 0 else (roots[1], roots[0])
    t_launch, t_far = troots
    later = np.flatnonzero(vis[stop + 1:])
    landed = hit or bool(len(later) and not air[stop + 1 + later[0]])  # next sighting is back at launch level
    apex_seen = bool(xs.min() < apex_x < xs.max())
    vy0 = float(np.polyval(np.polyder(yt), t_launch))
    speed = float(math.hypot(xt[0], vy0))
    return Arc(launch_y=y0, t=ts, x=xs, y=ys, yx=yx, yt=yt, xt=xt, x_launch=x_launch,
               x_land=x_far if landed else None, t_launch=t_launch, t_land=t_far if landed else None,
               apex=apex, apex_seen=apex_seen, rms=rms, speed=speed,
               notes={"x0": x0, "samples": len(ts), "gross_errors": [float(v) for v in t[sel][gross]]})


def gross_errors(t: np.ndarray, x: np.ndarray, y: np.ndarray, rounds: int = 10) -> np.ndarray:
    """``[n]`` bool: flight samples whose centroid is off the flight's ``x(t)`` line and ``y(t)`` parabola by
    more than the bulk of the samples explains: a motion-blurred ball whose faint half segmentation lost
    (3-6 px high, one sample here and there, or a run of them over the floor before landing), a ball
    merged with its launch rail.

    :func:`lawful.perceive.fit.tukey_outliers` on both fits (cut-off :data:`TUKEY` robust sigmas of each
    axis' residuals, at least :data:`CENTROID_PX`), started from least trimmed squares. The scale comes
    from the residuals themselves, so a path that bends everywhere (a violation, not a tracking slip)
    keeps its samples: only outliers of the bulk go. The measurement lists them (``gross_errors``).
    """
    return tukey_outliers(t, [(x, 1), (y, 2)], TUKEY, CENTROID_PX, rounds)


def _landing(y: np.ndarray, vis: np.ndarray, air: np.ndarray, start: int, stop: int) -> tuple[int, bool]:
    """``(last flight sample, landed)`` of the airborne run ``start..stop``: after the apex, the first
    sample whose fall slows by more than noise explains (second difference of ``y`` below minus
    :func:`lawful.perceive.noise.curvature_threshold` of the track's own scatter; a free fall only ever
    speeds up) ends the flight before it. A ball rolling on after touching down, its blurred centroid a
    few px above its resting one, is not still flying."""
    run = np.arange(start, stop + 1)
    run = run[air[run]]
    apex = int(run[np.argmin(y[run])])
    thr = noise.curvature_threshold(noise.sigma(np.where(vis, y, np.nan)), floor=LIFT_PX)
    for k in range(apex + 2, stop + 1):
        if vis[k] and vis[k - 1] and vis[k - 2] and y[k] - 2 * y[k - 1] + y[k - 2] < -thr:
            return k - 1, True
    return stop, False


def excess_rms(arc: Arc, sigma_x: float, sigma_y: float) -> float:
    """RMS distance (px) of ``arc``'s samples from its ``y(x)`` parabola beyond the centroid noise.

    Distances are the vertical residuals over ``sqrt(1 + y'(x)²)``; a fit of 3 parameters to ``n``
    samples with noise ``σ⊥`` across the path leaves ``Σ d² ≈ Σ σ⊥² (n - 3) / n``, which is removed:
    ``sqrt(max(0, mean(d²) - mean(σ⊥²) (n - 3) / n))``. NaN noise counts as 0.
    """
    fp = np.polyval(np.polyder(arc.yx), arc.x)
    d2 = (arc.y - np.polyval(arc.yx, arc.x)) ** 2 / (1.0 + fp * fp)
    sx, sy = (v if math.isfinite(v) else 0.0 for v in (sigma_x, sigma_y))
    s2 = (fp * fp * sx * sx + sy * sy) / (1.0 + fp * fp)
    n = len(d2)
    return float(math.sqrt(max(0.0, float(np.mean(d2)) - float(np.mean(s2)) * max(n - 3, 0) / n)))


def flight_noise(tracks: Tracks, oid: str, arc: Arc, frame: tuple[int, int]) -> noise.TrackNoise:
    """Centroid noise of ``arc``'s samples (the flight's own: a blurred ball jitters more than a resting one),
    or of the whole track's steady samples where the flight has too few consecutive samples to tell."""
    tr = tracks[oid]
    flight = np.isin(tracks.t, arc.t)
    nz = noise.TrackNoise(*(noise.sigma(np.where(flight, v, np.nan)) for v in (tr.x, tr.y)))
    return nz if math.isfinite(nz.sigma) else noise.track_noise(tr, steady_visible(tr, frame))


def excess_cv(values: np.ndarray, D: np.ndarray, se: np.ndarray) -> tuple[float, float]:
    """``(raw, excess)`` CV of ``values = D @ s`` where ``s`` are estimates with independent errors ``se``.

    Noise adds ``tr(C D diag(se²) Dᵀ) / k`` (``C`` the centring matrix) to the population variance of the
    ``k`` values on average; the excess CV is ``sqrt(max(0, var - that)) / |mean|``. NaN se counts as 0.
    """
    vals = np.asarray(values, float)
    raw = cv(vals)
    k = len(vals)
    if not math.isfinite(raw):
        return raw, raw
    C = np.eye(k) - 1.0 / k
    S = np.diag(np.nan_to_num(np.asarray(se, float)) ** 2)
    bias = float(np.trace(C @ D @ S @ D.T)) / k
    return raw, math.sqrt(max(0.0, float(np.var(vals)) - bias)) / abs(float(np.mean(vals)))


def velocity_uniformity(t: np.ndarray, x: np.ndarray, y: np.ndarray, sigma_x: float, sigma_y: float,
                        nx: int, ny: int) -> dict:
    """``v_x`` on ``nx`` and ``Δv_y`` between ``ny`` equal time intervals, with their raw and noise-excess CVs
    (:func:`excess_cv`)."""
    vx, _, se_x = interval_velocities(t, x, nx, sigma_x)
    vy, ty, se_y = interval_velocities(t, y, ny, sigma_y)
    dt = np.diff(ty)
    D = np.zeros((len(dt), len(vy)))
    for j, d in enumerate(dt):
        D[j, j], D[j, j + 1] = -np.mean(dt) / d, np.mean(dt) / d
    dvy = D @ vy
    raw_x, cv_x = excess_cv(vx, np.eye(len(vx)), se_x)
    raw_y, cv_y = excess_cv(dvy, D, se_y)
    return {"vx": vx, "dvy": dvy, "cv_vx": cv_x, "cv_dvy": cv_y, "cv_vx_raw": raw_x, "cv_dvy_raw": raw_y}


def oblique_flight_measurement(case: Case, tracks: Tracks, vx_intervals: int, vy_intervals: int) -> Measurement:
    """P4's readings of the ball's flight (:func:`projectile_arc`): launch, apex and landing events, apex height,
    range, the apex's distance from launch where the descent is seen, ``v_x`` and ``Δv_y`` on equal intervals with
    their CVs net of the track's noise (:func:`velocity_uniformity`) and the fit RMS over the range (raw and net)."""
    m = Measurement()
    tr = tracks["ball"]
    arc = projectile_arc(tracks.t, tr.x, tr.y, steady_visible(tr, (case.width, case.height)),
                         radius=0.25 * float(tr.width_px[0] + tr.height_px[0] + 2))
    if isinstance(arc, str):
        m.notes["unresolved"] = arc
        return m
    idx = np.arange(len(tracks))
    m.events.append(event("ball", "launch", float(np.interp(arc.t_launch, tracks.t, idx)), tracks))
    if arc.apex_seen:
        t_apex = float(-arc.yt[1] / (2 * arc.yt[0]))
        m.events.append(event("ball", "apex", float(np.interp(t_apex, tracks.t, idx)), tracks))
    if arc.t_land is not None:
        m.events.append(event("ball", "landing", float(np.interp(arc.t_land, tracks.t, idx)), tracks))
    m.set("apex_height_px", arc.height)
    m.set("range_px", arc.range, "ball did not come back to its launch height")
    descent = bool(arc.apex_seen and arc.y[-1] > arc.apex[1] + 2.0)
    m.set("apex_x_from_launch_px", abs(arc.apex[0] - arc.x_launch) if descent else None,
          "apex and descent not both seen")
    nz = flight_noise(tracks, "ball", arc, (case.width, case.height))
    vel = velocity_uniformity(arc.t, arc.x, arc.y, nz.sigma_x, nz.sigma_y, vx_intervals, vy_intervals)
    m.notes.update({k: [float(v) for v in vel[k]] for k in ("vx", "dvy")})
    m.notes.update(sigma_px=[nz.sigma_x, nz.sigma_y], gross_errors=arc.notes["gross_errors"])
    for k in ("cv_vx", "cv_dvy", "cv_vx_raw", "cv_dvy_raw"):
        m.set(k, vel[k] if math.isfinite(vel[k]) else None, "velocity profile not resolved")
    R = arc.range if arc.range else (2 * m.get("apex_x_from_launch_px") if m.get("apex_x_from_launch_px") else None)
    m.set("fit_rms_over_range", excess_rms(arc, nz.sigma_x, nz.sigma_y) / R if R else None, "range not resolved")
    m.set("fit_rms_raw_over_range", arc.rms / R if R else None, "range not resolved")
    return m
