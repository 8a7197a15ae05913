"""Extraction for WMLE slope tasks: a block's round trip on a rough incline (P11), bodies released
together down inclines (P9; also P29), sliding onsets on a tilting board (P6).

The block's distance ``s(t)`` along its path is the projection of its centroid's displacement on the
path's principal direction; the ascent and descent are fitted jointly by parabolas sharing their vertex
(:func:`round_trip_fit`), robustly (soft L1 past ``ROBUST_PX``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import least_squares, minimize_scalar, nnls

from lawful.perceive import events, noise
from lawful.perceive.onset import rest_position
from lawful.result import Measurement
from lawful.case import Case
from lawful.suites.wmle.common import event, local_poly_value, steady_visible
from lawful.perceive.events import local_crossing_time
from lawful.tracks import Tracks

MOVE_PX = 2.0
MIN_FIT_SAMPLES = 5
ROBUST_PX = 0.5  # residual (px) past which a sample weighs less in the fits (soft L1)
STAY_S = 0.5  # an ascent-only event: the block rests at its highest point at least this long
TILT_EVENT_DEG = 3.0  # P6: the board's turn reported as the tilt event


def path_coordinate(tracks: Tracks, oid: str) -> tuple[np.ndarray, float] | None:
    """Distance (px) ``[T]`` along the block's path, positive in the direction it first moves (NaN
    where unseen), and the path's angle (rad) to the image horizontal."""
    got = _along_principal(tracks[oid], 8)
    if got is None:
        return None
    vis, s, u = got
    first = np.flatnonzero(np.abs(s) > MOVE_PX)
    if len(first) and s[first[0]] < 0:
        s, u = -s, -u
    out = np.full(len(vis), np.nan)
    out[vis] = s
    return out, math.atan2(abs(u[1]), abs(u[0]))


def _along_principal(tr, min_seen: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Where ``tr`` is seen, its displacement from the first sighting projected on the principal direction
    ``u`` of its positions: ``(visible mask, s, u)``; None when seen fewer than ``min_seen`` times."""
    vis = np.asarray(tr.visible, bool)
    if vis.sum() < min_seen:
        return None
    d = tr.xy[vis] - tr.xy[vis][0]
    u = np.linalg.svd(d - d.mean(0), full_matrices=False)[2][0]
    return vis, d @ u, u


def angle_error(tracks: Tracks, oid: str, s: np.ndarray, theta: float) -> float:
    """Standard error (rad) of the path angle: the centroid noise across the path (measured from the
    track) over the root sum of squares of the samples' spread along it."""
    ok = np.isfinite(s)
    spread = float(np.sqrt(np.sum((s[ok] - s[ok].mean()) ** 2)))
    sig = noise.track_noise(tracks[oid]).along((math.sin(theta), math.cos(theta)))
    return sig / spread if spread > 0 and math.isfinite(sig) else 0.0


def quad_accel(t: np.ndarray, s: np.ndarray) -> float | None:
    """``-2 c₂`` of a least-squares quadratic ``s(t)`` (None with fewer than MIN_FIT_SAMPLES points)."""
    ok = np.isfinite(t) & np.isfinite(s)
    if ok.sum() < MIN_FIT_SAMPLES:
        return None
    tt, ss = t[ok] - t[ok].mean(), s[ok]
    c0 = np.polyfit(tt, ss, 2)
    fit = least_squares(lambda c: np.polyval(c, tt) - ss, c0, loss="soft_l1", f_scale=ROBUST_PX)
    return float(-2.0 * fit.x[0])


def round_trip_fit(t_up: np.ndarray, s_up: np.ndarray, t_down: np.ndarray, s_down: np.ndarray
                   ) -> tuple[float, float, float] | None:
    """``(a_up, a_down, σ)`` of parabolas sharing their vertex fitted to the ascent and the descent.

    ``s = s_a - a/2 (t - t_a)²`` with ``a = a_up`` going up and ``a_up / r`` coming down; ``σ`` is the
    standard error of ``ln r`` (Gauss-Newton covariance scaled by the residuals' robust scatter).
    None with fewer than MIN_FIT_SAMPLES finite samples on either side.
    """
    ok_u, ok_d = np.isfinite(t_up) & np.isfinite(s_up), np.isfinite(t_down) & np.isfinite(s_down)
    if ok_u.sum() < MIN_FIT_SAMPLES or ok_d.sum() < MIN_FIT_SAMPLES:
        return None
    t = np.concatenate([t_up[ok_u], t_down[ok_d]])
    s = np.concatenate([s_up[ok_u], s_down[ok_d]])
    down = np.arange(len(t)) >= ok_u.sum()
    a_u0, a_d0 = quad_accel(t_up, s_up), quad_accel(t_down, s_down)
    if not (a_u0 and a_d0 and a_u0 > 0 and a_d0 > 0):
        return None
    t0 = float(t.mean())
    tt = t - t0
    c = np.polyfit(tt[~down], s[~down], 2)
    p0 = np.array([-c[1] / (2 * c[0]), float(np.max(s)), a_u0, math.log(a_u0 / a_d0)])

    def parts(p):
        dt = tt - p[0]
        k = np.where(down, math.exp(-p[3]), 1.0)
        return dt, k, p[1] - 0.5 * p[2] * k * dt * dt - s

    fit = least_squares(lambda p: parts(p)[2], p0, loss="soft_l1", f_scale=ROBUST_PX, x_scale="jac")
    dt, k, res = parts(fit.x)
    J = np.stack([fit.x[2] * k * dt, np.ones_like(dt), -0.5 * k * dt * dt,
                  np.where(down, 0.5 * fit.x[2] * k * dt * dt, 0.0)], axis=1)
    scatter = noise.robust_sd(res)
    dof = len(t) - len(p0)
    try:
        cov = np.linalg.inv(J.T @ J) * scatter**2 * len(t) / max(dof, 1)
    except np.linalg.LinAlgError:
        return None
    a_up, r = float(fit.x[2]), math.exp(float(fit.x[3]))
    return a_up, a_up / r, float(math.sqrt(max(cov[3, 3], 0.0)))


def ratio_angle_slope(theta: float, mu: float) -> float:
    """``d ln R* / dθ`` (per radian)."""
    sn, cs = math.sin(theta), math.cos(theta)
    return (cs - mu * sn) / (sn + mu * cs) - (cs + mu * sn) / (sn - mu * cs)


def descent_end(s: np.ndarray, i_apex: int, last: int, rest_px: float = 1.5) -> int:
    """End (exclusive sample index) of the free descent after ``i_apex``.

    When the clip ends at rest (the last three samples within ``2 rest_px`` of each other), the
    descent ends at the first sample after the apex that is within ``rest_px`` of the resting
    position (a sliding block covers many pixels per sample, so only the stopped block is that
    close); otherwise at ``last + 1``.
    """
    tail = s[max(i_apex + 1, last - 2): last + 1]
    if len(tail) < 3 or not np.all(np.isfinite(tail)) or np.ptp(tail) > 2 * rest_px:
        return last + 1
    rest = float(np.median(tail))
    idx = np.arange(i_apex + 1, last + 1)
    near = idx[np.isfinite(s[idx]) & (s[idx] <= rest + rest_px)]
    return int(near[0]) if len(near) else last + 1


def round_trip_measurement(tracks: Tracks, oid: str, mu: float) -> Measurement:
    """Path angle, launch/apex/descent events and the jointly fitted ``a_up``, ``a_down`` (px/s²) with the
    ratio's relative standard error; ``notes``: ``unresolved`` (why) or ``ascent_only``."""
    m = Measurement()
    got = path_coordinate(tracks, oid)
    if got is None:
        m.notes["unresolved"] = "block not tracked"
        return m
    s, theta = got
    t = np.asarray(tracks.t, float)
    m.set("theta_deg", math.degrees(theta))
    moving = np.flatnonzero(np.isfinite(s) & (s > MOVE_PX))
    if len(moving) == 0:
        m.notes["unresolved"] = "block never moves up the slope"
        return m
    i_launch = int(moving[0])
    m.events.append(event(oid, "launch", float(i_launch), tracks))
    i_apex = int(np.nanargmax(np.where(np.arange(len(s)) >= i_launch, s, np.nan)))
    last = int(np.flatnonzero(np.isfinite(s))[-1])
    if i_apex >= last:
        m.notes["unresolved"] = "block still rising at the end of the clip"
        return m
    m.events.append(event(oid, "apex", float(i_apex), tracks, float(s[i_apex])))
    rise = float(s[i_apex])
    up = np.arange(i_launch + 1, i_apex)
    tol = max(MOVE_PX, 0.05 * rise)
    after = np.arange(i_apex + 1, last + 1)
    left = after[np.isfinite(s[after]) & (s[after] < s[i_apex] - tol)]
    if len(left) == 0:
        stay_t = float(t[last] - t[i_apex])
        if stay_t >= STAY_S:
            m.notes["ascent_only"] = True
            m.events.append(event(oid, "rest_at_top", float(i_apex), tracks))
        else:
            m.notes["unresolved"] = "no descent seen after the apex"
        return m
    i_end = descent_end(s, i_apex, last)
    down = np.arange(i_apex + 1, i_end)
    fit = round_trip_fit(t[up], s[up], t[down], s[down])
    if fit is None:
        m.set("a_up_px_s2", quad_accel(t[up], s[up]), "too few ascent samples")
        m.set("a_down_px_s2", None, "too few descent samples")
        return m
    a_up, a_down, se_ratio = fit
    m.set("a_up_px_s2", a_up)
    m.set("a_down_px_s2", a_down)
    m.events.append(event(oid, "descent", float(i_end - 1), tracks))
    se_R = abs(ratio_angle_slope(theta, mu)) * angle_error(tracks, oid, s, theta)
    m.set("ratio_rel_se", math.hypot(se_ratio, se_R))
    return m


# ----------------------------------------------------------------------------- P9: bodies released together


def path_distance(tracks: Tracks, oid: str) -> np.ndarray | None:
    """Distance (px) along a body's path ``[T]``: its displacement from the first sighting projected on
    the principal direction of its positions, oriented to grow over time (NaN where not seen)."""
    got = _along_principal(tracks[oid], 6)
    if got is None:
        return None
    vis, s, _ = got
    if s[-1] < 0 or (abs(s[-1]) < 1e-9 and s.min() < 0):
        s = -s
    out = np.full(len(vis), np.nan)
    out[vis] = s
    return out


def joint_release_time(t: np.ndarray, paths: dict[str, np.ndarray], d_common: float
                       ) -> tuple[float | None, dict]:
    """Common release time of bodies let go together from rest: least squares of ``s_i = c_i (t - t0)²``
    over each body's samples from the start of motion up to 95% of the common travel."""
    sel = {}
    for b, s in paths.items():
        ok = np.isfinite(s)
        idx = np.flatnonzero(ok & (s > MOVE_PX))
        if len(idx) < 4:
            return None, {}
        first_move = int(idx[0])
        before = max(0, first_move - 3)
        upto = np.flatnonzero(ok & (s >= 0.95 * d_common))
        end = int(upto[0]) if len(upto) else len(s)
        k = np.arange(before, end)
        k = k[np.isfinite(s[k])]
        if len(k) < 5:
            return None, {}
        sel[b] = k
    names = list(paths)
    t_start = min(float(t[sel[b][0]]) for b in names)
    t_move = min(float(t[np.flatnonzero(np.isfinite(paths[b]) & (paths[b] > MOVE_PX))[0]]) for b in names)

    def resid(p):
        t0 = p[0]
        out = []
        for j, b in enumerate(names):
            tt = t[sel[b]]
            out.append(p[1 + j] * np.clip(tt - t0, 0, None) ** 2 - paths[b][sel[b]])
        return np.concatenate(out)

    c0 = []
    for b in names:
        tt, ss = t[sel[b]], paths[b][sel[b]]
        c0.append(max(float(ss[-1]) / max(float(tt[-1] - t_start), 1e-3) ** 2, 1e-3))
    fit = least_squares(resid, [t_start] + c0, bounds=([t_start - 1.0] + [0] * len(names),
                                                        [t_move] + [np.inf] * len(names)))
    rms = float(np.sqrt(np.mean(fit.fun**2)))
    out = {"t0": float(fit.x[0]), "c": [float(v) for v in fit.x[1:]], "rms_px": rms}
    dof = len(fit.fun) - len(fit.x)
    if len(names) == 2 and dof > 0 and all(v > 0 for v in fit.x[1:]):
        # relative standard error of sqrt(c_0 / c_1): Gauss-Newton covariance scaled by the residual scatter
        try:
            cov = np.linalg.inv(fit.jac.T @ fit.jac) * float(np.sum(fit.fun**2)) / dof
            g = np.array([0.0, 0.5 / fit.x[1], -0.5 / fit.x[2]])
            out["ratio_rel_se"] = float(math.sqrt(max(float(g @ cov @ g), 0.0)))
        except np.linalg.LinAlgError:
            pass
    return float(fit.x[0]), out


def release_and_travel_ratio(tracks: Tracks, ids: tuple[str, str], fractions: np.ndarray) -> Measurement:
    """Common release time (joint fit), travel times to ``fractions`` of the shorter travel and the median
    ratio ``(t_{ids[1]} - t0) / (t_{ids[0]} - t0)`` as ``travel_time_ratio``; ``notes['unresolved']`` says why not."""
    m = Measurement()
    t = np.asarray(tracks.t, float)
    paths = {}
    for b in ids:
        s = path_distance(tracks, b)
        if s is None:
            m.notes["unresolved"] = f"{b}: not tracked"
            return m
        paths[b] = s
        m.set(f"travel_{b}_px", float(np.nanmax(s)))
    d_common = min(float(np.nanmax(paths[b])) for b in ids)
    if d_common < 10 * MOVE_PX:
        m.notes["unresolved"] = f"common travel {d_common:.1f} px too short"
        return m
    t0, fit = joint_release_time(t, paths, d_common)
    if t0 is None:
        m.notes["unresolved"] = "release time not resolved"
        return m
    m.set("release_time_s", t0)
    m.events.append(event(ids[0], "release", float(np.interp(t0, t, np.arange(len(t)))), tracks))
    m.notes["release_fit"] = fit
    if "ratio_rel_se" in fit:
        m.set("ratio_rel_se", fit["ratio_rel_se"])
    levels = fractions * d_common
    times = {b: [local_crossing_time(t, paths[b], lv) for lv in levels] for b in ids}
    for b in ids:
        idx = events.crossing(paths[b], levels[-1], +1)
        if idx is not None:
            m.events.append(event(b, f"far_{b}", idx, tracks, float(levels[-1])))
    ratios = [(tr - t0) / (ts - t0) for ts, tr in zip(times[ids[0]], times[ids[1]])
              if ts is not None and tr is not None and ts - t0 > 0 and tr - t0 > 0]
    m.notes["time_ratios"] = [float(v) for v in ratios]
    if len(ratios) < 3:
        m.notes["unresolved"] = "fewer than three common distances reached by both bodies"
        return m
    m.set("travel_time_ratio", float(np.median(ratios)))
    return m


# ----------------------------------------------------------------------------- P6: sliding onsets


def _slide_sse(t: np.ndarray, drop: np.ndarray, t0: float, rest_q: np.ndarray) -> tuple[float, np.ndarray]:
    """Residual sum of squares and ``(c₂, c₃) ≥ 0`` of ``drop = rest line + c₂τ² + c₃τ³`` (``τ = max(0, t - t0)``);
    ``rest_q``: orthonormal basis of the rest line's columns (eliminated in closed form)."""
    tau = np.maximum(t - t0, 0.0)
    S = np.stack([tau**2, tau**3], axis=1)
    c, rnorm = nnls(S - rest_q @ (rest_q.T @ S), drop - rest_q @ (rest_q.T @ drop))
    return float(rnorm) ** 2, c


def slide_onset(t: np.ndarray, d: np.ndarray, floor: float = 0.0) -> tuple[float | None, dict]:
    """When a block resting on a tilting board starts to slide, from its distance ``d`` ``[T]`` to the hinge
    (px, NaN where unseen) over time ``t``.

    At rest ``d`` is a line, not a constant: the tracked centroid is not the contact point and drifts a
    little as the board turns (shading, perspective). A slide adds a drop that starts from rest with a
    non-decreasing acceleration, ``c₂τ² + c₃τ³`` (``τ = t - t0``, ``c ≥ 0``: static friction lets go at
    once, or the pull grows with the tilt). Both are fitted by least squares to the samples up to halfway
    down the block's travel (before a stop can act); ``t0`` minimises the residual over a sub-frame grid.
    The noise is measured on the fit itself: a drop within ``k·σ√2`` of rest (``σ`` the distance's noise,
    :func:`lawful.perceive.noise.sigma`) or one the rest line explains as well (gain ``< k²σ_fit²``) is no
    slide; the onset's interval is where the residual is within ``k²σ_fit²`` of its minimum (``k`` for
    ``noise.FALSE_ALARM``). ``floor``: the least ``σ`` (px) the track can have, :func:`lawful.perceive.noise.track_resolution`
    of its mask (a still clip repeats a position exactly, MAD 0, and a codec's 0.01-px flicker of one edge pixel
    must not read as a drop). Returns ``(t0, info)`` with ``info``: ``lo``, ``hi`` (the interval, s),
    ``sigma_px``, ``fit_px``, or ``stayed`` / ``unresolved`` (why) when ``t0`` is None.
    """
    t, d = np.asarray(t, float), np.asarray(d, float)
    ok = np.isfinite(t) & np.isfinite(d)
    tt, drop = t[ok], rest_position(d) - d[ok]
    sig = noise.sigma(d)
    sig = max(sig if math.isfinite(sig) else 0.0, floor)
    k = noise.k_for()
    info: dict = {"sigma_px": sig}
    travel = float(drop.max()) if len(drop) else 0.0
    if travel <= k * sig * math.sqrt(2.0):
        info["stayed"] = f"travel {travel:.2f} px within k·σ√2 = {k * sig * math.sqrt(2.0):.2f} px of rest"
        return None, info
    end = int(np.flatnonzero(drop >= 0.5 * travel)[0]) + 1
    tw, yw = tt[:end], drop[:end]
    if end < 2 * MIN_FIT_SAMPLES:
        info["unresolved"] = f"{end} samples before the block is halfway down: too few to tell rest from the slide"
        return None, info
    rest_q = np.linalg.qr(np.stack([np.ones(end), tw - tw.mean()], axis=1))[0]
    step = float(np.median(np.diff(tw))) / 10.0
    grid = np.arange(tw[0], tw[-1], step)
    sse = np.array([_slide_sse(tw, yw, g, rest_q)[0] for g in grid])
    i = int(np.argmin(sse))
    best = minimize_scalar(lambda g: _slide_sse(tw, yw, g, rest_q)[0], method="bounded",
                           bounds=(grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]), options={"xatol": 1e-6})
    t0, sse_min = (float(best.x), float(best.fun)) if best.fun <= sse[i] else (float(grid[i]), float(sse[i]))
    var = max(sse_min / (end - 5), sig * sig)  # rest line, c₂, c₃, t0: the fit is no better than the track's noise
    line = float(np.sum((yw - rest_q @ (rest_q.T @ yw)) ** 2))
    info["fit_px"] = math.sqrt(sse_min / (end - 5))
    if line - sse_min <= k * k * var:
        info["stayed"] = f"the drop is a drift of the rest line (slide gain {line - sse_min:.2g} px² ≤ k²σ²)"
        return None, info
    inside = np.append(grid[sse <= sse_min + k * k * var], t0)
    info["lo"], info["hi"] = float(inside.min()), float(inside.max())
    if info["lo"] <= grid[0]:
        info["unresolved"] = "the slide cannot be told from rest: its onset may be at the first sample"
        return None, info
    return t0, info


def sliding_onset_measurement(case: Case, tracks: Tracks) -> Measurement:
    """Onset frame and board inclination at onset of ``block_left`` (``_l``) and ``block_right`` (``_r``): a block
    resting on the board turns with it about the hinge; onset is when its distance to the hinge starts to
    shrink (:func:`slide_onset`). ``notes``: ``untracked_<tag>``, ``stayed_<tag>``, ``unresolved_<tag>`` (why),
    ``onset_<tag>`` (the fit's evidence, frames)."""
    m = Measurement()
    t = np.asarray(tracks.t, float)
    hx, hy = case.known["hinge"]
    n_frames = float(tracks.meta.get("n_frames") or round(case.duration * case.fps))
    to_frame = n_frames / case.duration
    angle0 = case.known.get("board_angle0_deg", 0.0)
    max_turn, i_tilt = 0.0, None
    for oid, tag in (("block_left", "l"), ("block_right", "r")):
        tr = tracks[oid]
        vis = steady_visible(tr, (case.width, case.height))
        if vis.sum() < 6 or not vis[0]:
            m.notes[f"untracked_{tag}"] = True
            continue
        x, y = np.where(vis, tr.x, np.nan), np.where(vis, tr.y, np.nan)
        dist = np.hypot(x - hx, y - hy)
        phi = np.degrees(np.arctan2(-(y - hy), x - hx))
        t_on, info = slide_onset(t, dist, noise.track_resolution(tr, vis))
        m.notes[f"onset_{tag}"] = {k: (v * to_frame if k in ("lo", "hi") else v) for k, v in info.items()}
        rigid = vis & (t <= (t_on if t_on is not None else t[-1]))
        phi0 = local_poly_value(t[rigid], phi[rigid], float(t[0]), k=6, deg=1)  # the first frame's angle, less noise
        turn = np.abs(phi - phi0)
        max_turn = max(max_turn, float(np.nanmax(turn)))
        tilted = np.flatnonzero(turn >= TILT_EVENT_DEG)
        if len(tilted):
            i_tilt = int(tilted[0]) if i_tilt is None else min(i_tilt, int(tilted[0]))
        if "unresolved" in info:
            m.notes[f"unresolved_{tag}"] = info["unresolved"]
            continue
        if t_on is None:
            m.notes[f"stayed_{tag}"] = True
            m.set(f"onset_frame_{tag}", n_frames, "")
            m.set(f"onset_angle_{tag}_deg", float(phi[np.flatnonzero(vis)[-1]] - phi0) + angle0)
            continue
        theta_on = local_poly_value(t[rigid], phi[rigid], t_on, k=6, deg=1) if rigid.sum() >= 2 else phi0
        m.set(f"onset_frame_{tag}", t_on * to_frame)
        m.set(f"onset_angle_{tag}_deg", theta_on - phi0 + angle0)
        m.events.append(event(oid, "onset", float(np.interp(t_on, t, np.arange(len(t)))), tracks))
    m.set("n_frames", n_frames)
    if i_tilt is not None:
        m.events.append(event("board", "tilt", float(i_tilt), tracks, value=max_turn))
    return m
