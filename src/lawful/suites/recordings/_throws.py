"""R3's measurement of a flight (:class:`~lawful.suites.recordings.r03_projectile.Projectile`).

Flight: from launch to landing. Launch: the case's ``release``, else the sustained onset
(:func:`~lawful.suites.recordings.common.sustained_onset`, ``k·σ`` on the distance from the rest
position) refined to where the parabola through the first samples a radius out passes closest to the
rest point (a launch is not motion from rest, so ``release_time``'s from-rest model does not apply; a
ball thrown by a hand in view needs the case's ``release`` or a window that starts there). Landing: the
first impact, or the crossing of ``landing_height_px`` (within ``k·σ``) if earlier. Left out: isolated
samples (runs of ≤ 2, at most a tenth) off the fitted path by more than ``k·σ + 0.5 px`` (a hand or a
rim occluding); a long stretch off the path is the motion, never dropped. Fits in ``τ = t − t_mid``:
``x = x0 + v_x τ + a_x τ²/2``, ``y = y0 + v_y τ + a_y τ²/2 (+ j τ³/6)``. Standard errors: every fit
redone on ``N_DRAWS`` copies of the flight with Gaussian noise of the measured σ_x, σ_y added (fixed
seed).
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import events as ev
from lawful.perceive import noise
from lawful.perceive.events import level_crossings
from lawful.result import Measurement
from lawful.suites.recordings.common import rest_position, sustained_onset
from lawful.suites.wmle.common import event, fill_gaps, steady_xy
from lawful.suites.wmle.p02_free_fall import first_impact
from lawful.tracks import Tracks

MIN_FLIGHT_SAMPLES = 8
N_DRAWS = 300
RESOLUTION_PX = 0.5


def _isolated_outliers(t: np.ndarray, x: np.ndarray, y: np.ndarray, tol: float) -> np.ndarray:
    """``[n]`` bool: samples off a parabola fit of ``x(t)`` or ``y(t)`` by more than ``tol`` px, in runs of at
    most two, at most a tenth of the samples (longer stretches are the motion, not a glitch)."""
    off = np.zeros(len(t), bool)
    for v in (x, y):
        off |= np.abs(v - np.polyval(np.polyfit(t, v, 2), t)) > tol
    out = np.zeros(len(t), bool)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], off.astype(int), [0]])))
    for a, b in zip(edges[::2], edges[1::2]):
        if b - a <= 2:
            out[a:b] = True
    return out if out.sum() <= len(t) // 10 else np.zeros(len(t), bool)


def _level_time(p: np.ndarray, level: float, after: float) -> float | None:
    """The descending crossing of ``level`` by ``y = polyval(p, t)`` (a > 0: y down) at or after ``after``."""
    return next((r for r in level_crossings(p, level, +1) if r >= after), None)


def flight_residuals(t: np.ndarray, x: np.ndarray, y: np.ndarray, level: float | None) -> dict[str, float]:
    """``e1``, ``e2``, ``e3`` (:mod:`~lawful.suites.recordings.r03_projectile`) and the fitted numbers of one flight's samples ``[n]``."""
    tm = 0.5 * (t[0] + t[-1])
    tau = t - tm
    T = float(t[-1] - t[0])
    px = np.polyfit(tau, x, 2)
    py = np.polyfit(tau, y, 2)
    p3 = np.polyfit(tau, y, 3)
    a_y, a_x = 2 * py[0], 2 * px[0]
    out = {"a_x": a_x, "a_y": a_y, "jerk": 6 * p3[0], "vx": px[1], "T": T,
           "e1": a_x / a_y if a_y > 0 else math.nan, "e2": 6 * p3[0] * T / (2 * p3[1]) if p3[1] > 0 else math.nan,
           "e3": math.nan, "x_pred": math.nan, "y_pred": math.nan, "x_obs": math.nan, "t_land": math.nan}
    if level is None:
        return out
    early, late = t <= tm, t >= t[0] + 2 * T / 3
    if early.sum() < 4 or late.sum() < 3:
        return out
    pe, xe = np.polyfit(t[early], y[early], 2), np.polyfit(t[early], x[early], 1)
    pl, xl = np.polyfit(t[late], y[late], 2), np.polyfit(t[late], x[late], 1)
    tl = _level_time(pl, level, t[late][0]) if pl[0] > 0 else None
    if tl is None:  # the end of the flight is nearly straight: a line through it to the level
        vy = np.polyfit(t[late], y[late], 1)
        tl = (level - vy[1]) / vy[0] if vy[0] > 0 else None
    if tl is None:
        return out
    xp, yp, xo = float(np.polyval(xe, tl)), float(np.polyval(pe, tl)), float(np.polyval(xl, tl))
    D = math.hypot(xo - x[0], float(np.ptp(np.append(y, level))))
    out.update(x_pred=xp, y_pred=yp, x_obs=xo, t_land=float(tl),
               e3=math.hypot(xp - xo, yp - level) / D if D > 0 else math.nan)
    return out


def draw_spread(t: np.ndarray, x: np.ndarray, y: np.ndarray, level: float | None, sx: float, sy: float,
                seed: int = 0) -> dict[str, float]:
    """Standard errors of ``e1``, ``e2``, ``e3`` from ``N_DRAWS`` refits with noise of ``σ_x``, ``σ_y`` added."""
    rng = np.random.default_rng(seed)
    rows = [flight_residuals(t, x + rng.normal(0, sx, len(x)), y + rng.normal(0, sy, len(y)), level)
            for _ in range(N_DRAWS)]
    return {k: float(np.nanstd([r[k] for r in rows])) if np.isfinite([r[k] for r in rows]).sum() > N_DRAWS // 2
            else math.inf for k in ("e1", "e2", "e3")}


def flight_measurement(case: Case, tracks: Tracks) -> Measurement:
    """R3's numbers: launch, landing, the flight's fits and ``e1``–``e3`` with their standard errors
    (``notes['residuals']``, ``notes['se']``)."""
    m = Measurement()
    tr, t, vis, x, y = steady_xy(case, tracks, "ball")
    idx = np.arange(len(t))
    if vis.sum() < MIN_FLIGHT_SAMPLES:
        m.notes["unresolved"] = "ball not tracked"
        return m
    tn = noise.track_noise(tr, vis)
    sx = tn.sigma_x if math.isfinite(tn.sigma_x) else RESOLUTION_PX
    sy = tn.sigma_y if math.isfinite(tn.sigma_y) else RESOLUTION_PX
    m.notes["sigma_px"] = [sx, sy]
    x_r, y_r = rest_position(x), rest_position(y)
    d = np.hypot(x - x_r, y - y_r)
    if case.release is not None:
        t_rel, how = float(case.release), "case"
        i_on = int(np.searchsorted(t, t_rel, side="right"))
    else:
        thr = noise.k_for() * max(sx, sy)
        i_on, how = sustained_onset(d, thr), "onset"
        if i_on is None:
            m.notes["unresolved"] = f"never launched: no sustained motion beyond {thr:.2f} px (k·σ)"
            return m
        r = 0.25 * float(tr.width_px[i_on] + tr.height_px[i_on]) if vis[i_on] else 0.0
        t_rel = launch_time(t, x, y, i_on, (x_r, y_r), max(r, 2 * thr))
    m.notes["release_source"] = how
    i_rel = float(np.interp(t_rel, t, idx))
    m.events.append(event("ball", "launch", i_rel, tracks))
    after = vis & (t > t_rel)
    if after.sum() < MIN_FLIGHT_SAMPLES:
        m.notes["unresolved"] = "too few samples after the launch"
        return m
    i_apex = int(np.nanargmin(np.where(after, y, np.nan)))
    level = case.known.get("landing_height_px")
    down = after & (idx >= i_apex)
    y_max = float(np.nanmax(np.where(down, y, np.nan)))
    j = first_impact(y, down, float(y[i_apex]), y_max) if y_max > y[i_apex] else None
    i_end = float(j) if j is not None and j < idx[after][-1] else None  # seen only if samples follow it
    if level is not None:
        reach = float(level) - noise.k_for() * sy  # a centre that reaches the level within its noise
        cross = ev.crossing(np.where(idx >= i_apex, fill_gaps(y), np.nan), reach, +1, start=i_apex)
        if cross is not None and (i_end is None or cross < i_end):
            i_end = float(cross)
        m.notes["landing_source"] = "case"
    else:
        level = float(y[j]) if i_end is not None else None
        m.notes["landing_source"] = "first impact"
    last = (math.ceil(i_end) - 1) if i_end is not None else int(idx[after][-1])
    fl = after & (idx <= last)
    if fl.sum() < MIN_FLIGHT_SAMPLES:
        m.notes["unresolved"] = f"flight too short to resolve ({int(fl.sum())} samples)"
        return m
    ts, xs, ys = t[fl], x[fl], y[fl]
    bad = _isolated_outliers(ts, xs, ys, noise.k_for() * max(sx, sy) + RESOLUTION_PX)
    ts, xs, ys = ts[~bad], xs[~bad], ys[~bad]
    res = flight_residuals(ts, xs, ys, level)
    se = draw_spread(ts, xs, ys, level, sx, sy)
    if i_end is not None:
        m.events.append(event("ball", "landing", i_end, tracks, value=level))
    if ys.min() < ys[0] - max(sx, sy) and ys.min() < ys[-1]:
        m.events.append(event("ball", "apex", float(i_apex), tracks))
    m.notes["interval"] = [max(0, int(i_rel) - 2), min(len(t), last + 3)]
    m.notes.update(residuals={k: res[k] for k in ("e1", "e2", "e3")}, se=se, landing_level=level,
                   dropped_samples=int(bad.sum()))
    for k in ("a_x", "a_y", "vx", "T", "x_pred", "y_pred", "x_obs", "t_land"):
        m.set(k if k != "T" else "flight_time_s", res[k])
    m.set("launch_speed_px_s", math.hypot(*launch_velocity(ts, xs, ys, t_rel)))
    m.set("launch_angle_deg", math.degrees(math.atan2(*launch_velocity(ts, xs, ys, t_rel)[::-1])))
    return m


def launch_time(t: np.ndarray, x: np.ndarray, y: np.ndarray, i_on: int, rest: tuple[float, float],
                clear: float) -> float:
    """When the flight left the rest point: the time, from the last sample before the onset to the first
    sample ``clear`` px from rest (surely in flight), at which the parabola through the first samples
    that far out passes closest to it. Samples just after the onset are not trusted: a compressed clip's
    resting ball can shift by a pixel before it is launched."""
    from scipy.optimize import minimize_scalar

    seen = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
    far = seen[(seen >= i_on) & (np.hypot(x[seen] - rest[0], y[seen] - rest[1]) > clear)]
    before = seen[seen < i_on]
    lo = float(t[before[-1]]) if len(before) else float(t[i_on]) - (t[1] - t[0])
    if len(far) < 3:
        return float(t[i_on])
    first = far[:6]
    deg = min(2, len(first) - 1)
    px, py = np.polyfit(t[first], x[first], deg), np.polyfit(t[first], y[first], deg)
    res = minimize_scalar(lambda u: math.hypot(np.polyval(px, u) - rest[0], np.polyval(py, u) - rest[1]),
                          bounds=(lo, float(t[first[0]])), method="bounded")
    return float(res.x)


def launch_velocity(t: np.ndarray, x: np.ndarray, y: np.ndarray, t0: float) -> tuple[float, float]:
    """``(|v_x|, v_y up)`` (px/s) at ``t0`` from the flight's parabola fits."""
    px, py = np.polyfit(t, x, 2), np.polyfit(t, y, 2)
    return abs(float(np.polyval(np.polyder(px), t0))), -float(np.polyval(np.polyder(py), t0))
