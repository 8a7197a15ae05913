"""Extraction for WMLE liquid tasks: a still surface read by level probes and a dropped ball's fall (P23);
terminal settling speeds (P38); a floating column's settled submerged share (P22);
terminal levels of a U-tube's arms (P21); capillary rises over a reservoir (P37)."""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.suites.wmle.common import event, steady_xy
from lawful.tracks import Tracks

MIN_FALL = 5  # fall samples the quadratic fits need
GAP = 2  # missing samples a constant-speed window may bridge
MIN_WINDOW = 6
MIN_WINDOW_S = 0.25
MIN_SETTLED = 5  # P22: settled samples with all four levels
SETTLED_SHARE = 1 / 3  # P22: the settled window, the clip's last third
MIN_TERMINAL = 5  # P21: overlapping terminal samples of both arms
TERMINAL_SHARE = 0.25  # P21: the terminal window, the clip's last quarter
FLOAT_BANDS = ("water_left", "water_right", "ice_top", "ice_bottom")


def surface_line(xs: np.ndarray, ys: np.ndarray) -> tuple[float, float, float]:
    """Least-squares line ``y = c + s·x`` through the surface points: ``(slope, intercept, perpendicular RMS)``."""
    s, c = np.polyfit(xs, ys, 1)
    rms = float(np.sqrt(np.mean((ys - (c + s * xs)) ** 2)) / math.hypot(1.0, s))
    return float(s), float(c), rms


def band_x(box) -> float:
    """The centre column of a probe box as the region reader samples it (whole columns floor(x0)..ceil(x1))."""
    return 0.5 * (math.floor(box[0]) + math.ceil(box[2]))


def _first_turn(d: np.ndarray, vis: np.ndarray, start: int, thr: float) -> int:
    """The sample of the largest distance ``d`` before it first falls back by more than ``thr`` (noise), after
    ``start``; ``len(d)`` when it never does (a ball that lands and stays)."""
    best = start
    for i in np.flatnonzero(vis[start:]) + start:
        if d[i] > d[best]:
            best = int(i)
        elif d[i] < d[best] - thr:
            return best
    return len(d)


def fall_fit(t: np.ndarray, x: np.ndarray, y: np.ndarray, vis: np.ndarray) -> dict:
    """Quadratic fits of a dropped ball's ``x(t)``, ``y(t)`` over its fall, or ``{"reason": …}``."""
    idx = np.flatnonzero(vis)
    if len(idx) < MIN_FALL + 2:
        return {"reason": "ball not tracked"}
    p0 = np.array([np.median(x[idx[:3]]), np.median(y[idx[:3]])])
    d = np.where(vis, np.hypot(x - p0[0], y - p0[1]), np.nan)
    sig = noise.sigma(np.where(vis, y, np.nan))
    thr = noise.k_for() * (sig if math.isfinite(sig) and sig > 0 else 0.5) + 0.5
    moving = np.flatnonzero(vis & (d > thr))
    if len(moving) == 0:
        return {"reason": "the ball never moved"}
    i_a = int(moving[0])
    d_max = float(np.nanmax(d))
    i_end = int(np.flatnonzero(vis & (d >= d_max - thr))[0])
    i_end = min(i_end, _first_turn(d, vis, i_a, thr))  # a bounce: the fall ends where the distance first turns back
    fall = np.flatnonzero(vis[i_a:i_end]) + i_a
    if len(fall) < MIN_FALL:
        return {"reason": f"{len(fall)} samples in the fall (need ≥ {MIN_FALL})"}
    a, u_b, path = constant_acceleration(t[fall], x[fall], y[fall])
    return {"a": a, "u_b": u_b, "path": path, "release": i_a - 0.5, "contact": i_end, "n": len(fall)}


def constant_acceleration(t: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[tuple[float, float], float, str]:
    """The acceleration of a constant-acceleration fit of ``(x, y)(t)`` and its RMS 2-D residual: the
    straight-path fit (the ball starts from rest or along its acceleration) unless the free fit of two
    quadratics is better beyond noise (F-test, 1 degree of freedom, false-alarm rate ``noise.FALSE_ALARM``).

    Straight path: ``p(t) = p0 + e·(b t + c t²)``, ``e`` the unit direction minimising the total residual
    (closed form: the least eigenvector of ``A − B``, ``A``/``B`` the 2×2 residual scatters of the
    coordinates about a quadratic / a constant). The direction then rests on the whole drop rather than on the
    quadratic terms alone, which scatter ~4× more for the same localisation noise (a compressed clip's ball).
    Third element: ``"straight"`` or ``"curved"``."""
    from scipy.stats import f as f_dist

    P = np.column_stack([x, y])
    V = np.vander(t - t.mean(), 3)
    C = np.linalg.lstsq(V, P, rcond=None)[0]
    R2 = P - V @ C  # about quadratics
    R0 = P - P.mean(0)  # about a constant
    A, B = R2.T @ R2, R0.T @ R0
    w, vec = np.linalg.eigh(A - B)
    e = vec[:, 0]
    rss_free, rss_line = float(np.trace(A)), float(np.trace(B) + w[0])
    dof = 2 * len(t) - 6
    eps = 1e-12 * float(np.trace(B))  # rounding: exact data fit both models
    straight = dof > 0 and rss_line - rss_free <= f_dist.isf(noise.FALSE_ALARM, 1, dof) * rss_free / dof + eps
    if not straight:
        return (2 * float(C[0, 0]), 2 * float(C[0, 1])), float(np.sqrt(rss_free / len(t))), "curved"
    a = 2 * float(C[0] @ e) * e  # the along-path coordinate's quadratic term (the fit is linear in the data)
    return (float(a[0]), float(a[1])), float(np.sqrt(max(rss_line, 0.0) / len(t))), "straight"


def surface_and_fall_measurement(case: Case, tracks: Tracks, min_bands: int) -> Measurement:
    """The surface line through the ``surface_{i}`` level readings (slope, perpendicular RMS) and the ball's
    fitted fall acceleration (``accel_x_px_s2``, ``accel_y_px_s2``, ``trajectory_rms_px``) with its events."""
    m = Measurement()
    xs, ys = [], []
    for i, b in enumerate(case.known["surface_bands"]):
        rs = tracks.regions.get(f"surface_{i}")
        if rs is not None and rs.ok.any():
            xs.append(band_x(b))
            ys.append(float(np.median(rs["row"][rs.ok])))
    if len(xs) < min_bands:
        m.notes["unresolved"] = f"{len(xs)} surface bands read (need ≥ {min_bands})"
        return m
    slope, _, u_s = surface_line(np.array(xs), np.array(ys))
    m.set("surface_slope", slope)
    m.set("surface_rms_px", u_s)
    m.notes["surface_points"] = [[round(a, 2), round(b, 3)] for a, b in zip(xs, ys)]
    _, t, vis, x, y = steady_xy(case, tracks, "ball")
    fit = fall_fit(t, x, y, vis)
    if "reason" in fit:
        m.notes["unresolved"] = fit["reason"]
        return m
    m.events.append(event("ball", "release", max(fit["release"], 0.0), tracks))
    m.events.append(event("ball", "ground_contact", float(fit["contact"]), tracks))
    m.set("accel_x_px_s2", fit["a"][0])
    m.set("accel_y_px_s2", fit["a"][1])
    m.set("trajectory_rms_px", fit["u_b"])
    m.notes["fall_samples"] = fit["n"]
    m.notes["fall_path"] = fit["path"]
    return m


# ----------------------------------------------------------------------------- P38: terminal speeds


def _line_ok(t: np.ndarray, y: np.ndarray, tol: float, sigma: float) -> tuple[bool, float, float]:
    A = np.column_stack([t - t.mean(), np.ones_like(t)])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    r = y - A @ coef
    dof = max(len(t) - 2, 1)
    stt = float(((t - t.mean()) ** 2).sum())
    se = math.sqrt(max(float(r @ r) / dof, sigma**2) / stt) if len(t) > 2 and stt > 0 else math.inf
    return bool(np.abs(r).max() <= tol), float(coef[0]), se


def terminal_window(t: np.ndarray, y: np.ndarray, sigma: float) -> dict | None:
    """The longest qualified constant-speed window of ``y(t)`` (NaN = not seen); earliest on ties.

    Returns ``{"i0", "i1" (sample indices, inclusive), "speed" (px/s), "se"}`` or None. Two pointers:
    a window grows while its line fit holds and drops its first sample when it fails.
    """
    t, y = np.asarray(t, float), np.asarray(y, float)
    idx = np.flatnonzero(np.isfinite(y))
    if len(idx) < MIN_WINDOW:
        return None
    sig = sigma if math.isfinite(sigma) and sigma > 0 else 0.05
    best, a = None, 0
    for b in range(len(idx)):
        if b > a and idx[b] - idx[b - 1] > GAP + 1:
            a = b  # a gap breaks the window
        while True:
            seg = idx[a:b + 1]
            n = len(seg)
            if n < 3:
                break
            tol = noise.k_for(noise.FALSE_ALARM / n) * sig
            ok, v, se = _line_ok(t[seg], y[seg], tol, sig)
            if ok:
                long_enough = n >= MIN_WINDOW and t[seg[-1]] - t[seg[0]] >= MIN_WINDOW_S
                moving = abs(v) > noise.k_for() * se
                if long_enough and moving and (best is None or n > best["n"]):
                    best = {"i0": int(seg[0]), "i1": int(seg[-1]), "speed": v, "se": se, "n": n}
                break
            a += 1
    return best


def moving_noise(y: np.ndarray) -> float:
    """Localisation noise (px) of ``y`` ``[T]`` while it moves: a ball at rest is localised far better than a
    moving one, so the samples whose central step exceeds the at-rest noise's detection threshold are measured
    on their own (the larger of the two estimates)."""
    y = np.asarray(y, float)
    s_all = noise.sigma(y)
    if len(y) < 3 or not math.isfinite(s_all):
        return s_all
    step = np.full(len(y), np.nan)
    step[1:-1] = np.abs(y[2:] - y[:-2])
    moving = np.where(step > noise.step_threshold(s_all, floor=0.1) * math.sqrt(2), y, np.nan)
    s_mov = noise.sigma(moving)
    return max(s_all, s_mov) if math.isfinite(s_mov) else s_all


def stated_radius(case: Case, tr, vis: np.ndarray, oid: str) -> tuple[float | None, str]:
    """A ball's radius (px): the case's first-frame radius, else from its median mask box."""
    spec = next((o for o in case.objects if o.id == oid), None)
    if spec is not None and spec.known.get("radius_px"):
        return float(spec.known["radius_px"]), "first-frame radius stated by the case"
    if not vis.any():
        return None, "not seen"
    w, h = np.nanmedian(tr.width_px[vis]), np.nanmedian(tr.height_px[vis])
    return float(0.25 * (w + h + 2.0)), "mask box"


def terminal_speeds_measurement(case: Case, tracks: Tracks, ids: tuple[str, ...]) -> Measurement:
    """Per ball of ``ids``: radius (``radius_{id}_px``) and the speed of its longest constant-speed window
    (``v_{id}_px_s``) with a ``terminal_{id}`` event; ``notes['why_{id}']`` says what was missing."""
    m = Measurement()
    for oid in ids:
        if oid not in tracks:
            m.notes[f"why_{oid}"] = f"{oid} not tracked"
            continue
        tr, t, vis, _, y = steady_xy(case, tracks, oid)
        r, how = stated_radius(case, tr, vis, oid)
        m.set(f"radius_{oid}_px", r, how)
        m.notes[f"radius_{oid}_source"] = how
        if vis.any():
            w, h = np.nanmedian(tr.width_px[vis]), np.nanmedian(tr.height_px[vis])
            m.notes[f"radius_{oid}_mask_px"] = float(0.25 * (w + h + 2.0))
        sigma = moving_noise(y)
        win = terminal_window(t, y, sigma)
        m.notes[f"noise_{oid}_px"] = None if not math.isfinite(sigma) else sigma
        if win is None:
            m.notes[f"why_{oid}"] = f"{oid}: no constant-speed window"
            continue
        m.set(f"v_{oid}_px_s", win["speed"])
        m.notes[f"window_{oid}"] = [win["i0"], win["i1"]]
        m.events.append(event(oid, f"terminal_{oid}", float(win["i0"]), tracks, win["speed"]))
    return m


# ----------------------------------------------------------------------------- P22: an ice column afloat


def settled_readings(rows: dict[str, np.ndarray], ok: dict[str, np.ndarray], share: float = SETTLED_SHARE,
                     min_n: int = MIN_SETTLED, bands: tuple[str, ...] = FLOAT_BANDS) -> dict:
    """Median submerged share and waterline gap over the settled samples, or ``{"reason": …}``."""
    T = len(next(iter(rows.values())))
    n = max(min_n, int(np.ceil(share * T)))
    use = np.zeros(T, bool)
    use[max(0, T - n):] = True
    for k in bands:
        use &= ok[k] & np.isfinite(rows[k])
    if use.sum() < min_n:
        return {"reason": f"{int(use.sum())} settled samples with all four levels (need ≥ {min_n})"}
    yl, yr, top, bot = (rows[k][use] for k in bands)
    h_total = bot - top
    if not np.all(h_total > 0):
        return {"reason": "the ice's bottom is not below its top"}
    ratio = (bot - 0.5 * (yl + yr)) / h_total
    return {"ratio": float(np.median(ratio)), "gap": float(np.median(np.abs(yl - yr))),
            "h_total": float(np.median(h_total)), "n": int(use.sum())}


def floating_measurement(tracks: Tracks, bands: tuple[str, ...] = FLOAT_BANDS) -> Measurement:
    """Settled submerged share, waterline gap and ice height from the four ``level`` bands."""
    m = Measurement()
    reg = {b: tracks.regions.get(b) for b in bands}
    if any(r is None or "row" not in r.values for r in reg.values()):
        m.notes["unresolved"] = "a level was never read"
        return m
    res = settled_readings({b: reg[b]["row"] for b in bands}, {b: reg[b].ok for b in bands})
    if "reason" in res:
        m.notes["unresolved"] = res["reason"]
        return m
    m.set("submerged_fraction", res["ratio"])
    m.set("waterline_gap_px", res["gap"])
    m.set("ice_height_px", res["h_total"])
    m.notes["settled_samples"] = res["n"]
    return m


# ----------------------------------------------------------------------------- P21: communicating vessels


def terminal_levels(frames: np.ndarray, yl: np.ndarray, yr: np.ndarray, ok_l: np.ndarray, ok_r: np.ndarray,
                    share: float = TERMINAL_SHARE, min_n: int = MIN_TERMINAL) -> dict:
    """Medians and frame-index slopes of two level series over their overlapping terminal samples, or
    ``{"reason": …}`` when fewer than ``min_n`` samples in the last ``share`` of the clip have both."""
    T = len(frames)
    n = max(min_n, int(np.ceil(share * T)))
    both = np.zeros(T, bool)
    both[max(0, T - n):] = True
    both &= ok_l & ok_r & np.isfinite(yl) & np.isfinite(yr)
    if both.sum() < min_n:
        return {"reason": f"{int(both.sum())} overlapping terminal samples (need ≥ {min_n})"}
    f = frames[both].astype(float)
    return {"median_left": float(np.median(yl[both])), "median_right": float(np.median(yr[both])),
            "slope_left": float(np.polyfit(f, yl[both], 1)[0]), "slope_right": float(np.polyfit(f, yr[both], 1)[0]),
            "n": int(both.sum())}


def terminal_levels_measurement(tracks: Tracks, arms: tuple[str, str] = ("left", "right")) -> Measurement:
    """Terminal median levels and frame-index slopes of the ``arm_{a}`` level readings."""
    m = Measurement()
    reg = {a: tracks.regions.get(f"arm_{a}") for a in arms}
    if any(r is None or "row" not in r.values for r in reg.values()):
        m.notes["unresolved"] = "an arm's level was never read"
        return m
    res = terminal_levels(np.asarray(tracks.frames), reg["left"]["row"], reg["right"]["row"], reg["left"].ok,
                          reg["right"].ok)
    if "reason" in res:
        m.notes["unresolved"] = res["reason"]
        return m
    for k in ("median_left", "median_right", "slope_left", "slope_right"):
        m.set(f"{k}_px" if k.startswith("median") else f"{k}_px_per_frame", res[k])
    m.notes["terminal_samples"] = res["n"]
    m.notes["level_sigma_px"] = {a: float(np.nanmedian(reg[a].sigma)) if reg[a].ok.any() else None for a in arms}
    return m


# ----------------------------------------------------------------------------- P37: capillary rise


def resolution(sig_narrow, sig_wide, diffs) -> float:
    """``δ = max(1 px, k σ_d)``, ``σ_d = max(median √(σ_n² + σ_w²), 1.4826 MAD(diffs))``: the resolution of the
    tubes' height difference (P37's docstring)."""
    stated = float(np.nanmedian(np.hypot(np.asarray(sig_narrow, float), np.asarray(sig_wide, float))))
    d = np.asarray(diffs, float)
    spread = 1.4826 * float(np.median(np.abs(d - np.median(d)))) if len(d) else 0.0
    s = max(stated if np.isfinite(stated) else 0.0, spread)
    return max(1.0, noise.k_for() * s)


def terminal_rises_measurement(tracks: Tracks, tubes: tuple[str, str] = ("narrow", "wide"),
                               min_terminal: int = MIN_TERMINAL, share: float = TERMINAL_SHARE) -> Measurement:
    """Terminal heights of the ``tube_{a}`` levels over the ``reservoir`` level, their median difference
    ``d_px`` (first tube minus second) and its resolution."""
    m = Measurement()
    reg = {a: tracks.regions.get(a if a == "reservoir" else f"tube_{a}") for a in ("reservoir", *tubes)}
    if any(r is None or "row" not in r.values for r in reg.values()):
        m.notes["unresolved"] = "a level was never read"
        return m
    T = len(tracks.frames)
    n = max(min_terminal, int(np.ceil(share * T)))
    both = np.zeros(T, bool)
    both[max(0, T - n):] = True
    for r in reg.values():
        both &= r.ok & np.isfinite(r["row"])
    if both.sum() < min_terminal:
        m.notes["unresolved"] = f"{int(both.sum())} paired terminal samples (need ≥ {min_terminal})"
        return m
    y0 = reg["reservoir"]["row"][both]
    h = {a: y0 - reg[a]["row"][both] for a in tubes}
    diffs = h[tubes[0]] - h[tubes[1]]
    m.set("d_px", float(np.median(diffs)))
    m.set("resolution_px", resolution(reg[tubes[0]].sigma[both], reg[tubes[1]].sigma[both], diffs))
    for a in tubes:
        m.set(f"h_{a}_px", float(np.median(h[a])))
    m.notes["terminal_samples"] = int(both.sum())
    return m
