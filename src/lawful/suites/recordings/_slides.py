"""R7's measurement and scores of a block's legs on an incline (:class:`~lawful.suites.recordings.r07_incline.Incline`).

Extraction: the distance ``s(t)`` along the path (WMLE P11's :func:`path_coordinate`, turned positive
up the slope); release from ``release`` or the sustained onset above noise. The apex is the first
sample within ``k·σ√2 + 0.5 px`` of the highest; each leg is grown outwards from the apex (or, for a
descent from rest, from the release) while each new sample stays on the leg's parabola within noise
(R6's :func:`grow_window`): the ascent ends where the push did, the descent at the stop post, at rest
or where the block leaves the view. Accelerations ``a = −2c₂`` of a quadratic per leg; standard
errors from ``σ``, the track's localisation noise measured where the block moves (:func:`lawful.suites.windows.motion_sigma`).

Motion of the rendered cases: :func:`slide` (P11's). Scores: the task's M1–M3 (:func:`ratio_metric` …), each
at the scale ``a`` the task states.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.recordings.common import beyond_noise, release_time, rest_position
from lawful.suites.windows import RES_PX, grow_window, motion_sigma, poly_fit
from lawful.suites.wmle.common import MetricScore, event, steady_visible
from lawful.suites.wmle.p11_rough_incline_round_trip import path_coordinate, slide_px, slope_frame
from lawful.tracks import Tracks

G = 9.81
MIN_LEG = 5  # samples a leg's parabola needs
CUBIC_LEG = 8  # samples a leg needs for M2's cubic
STAY_S = 0.5  # resting this long at the top counts as staying


def leg_fit(t, s, idx, sigma) -> dict:
    """A leg's acceleration ``a = −2c₂`` (positive up-slope deceleration / down-slope acceleration) and,
    with ≥ CUBIC_LEG samples, the change of acceleration across it ``6c₃T`` of a cubic; standard errors."""
    tm = float(np.mean(t[idx]))
    c, se = poly_fit(t, s, idx, tm, sigma, 2)
    out = {"a": float(-2 * c[2]), "se": float(2 * se[2]), "span": float(np.ptp(t[idx])), "n": int(len(idx)),
           "i0": int(idx[0]), "i1": int(idx[-1])}
    if len(idx) >= CUBIC_LEG:
        c3, se3 = poly_fit(t, s, idx, tm, sigma, 3)
        out.update(da=float(6 * c3[3] * out["span"]), se_da=float(6 * se3[3] * out["span"]))
    return out


def incline_measurement(case: Case, tracks: Tracks) -> Measurement:
    """R7's numbers: the path coordinate up the slope, release, apex, each leg's acceleration (and its change
    across the leg) with standard errors from the measured noise, the rise and the descent after the apex."""
    m = Measurement()
    got = path_coordinate(tracks, "block") if "block" in tracks else None
    if got is None:
        m.notes["unresolved"] = "block not tracked"
        return m
    s, path_theta = got
    tr = tracks["block"]
    steady = steady_visible(tr, (case.width, case.height))
    s = np.where(steady, s, np.nan)
    y = np.where(steady, tr.y, np.nan)
    if np.nanmean((s - np.nanmean(s)) * (y - np.nanmean(y))) > 0:
        s = -s  # positive up the slope
    t = np.asarray(tracks.t, float)
    theta = math.radians(float(case.known["angle_deg"])) if "angle_deg" in case.known else path_theta
    m.set("theta_deg", math.degrees(theta))
    m.set("path_theta_deg", math.degrees(path_theta))
    sig = motion_sigma(tr, steady, s)
    sig = sig if math.isfinite(sig) else 0.0
    k = noise.k_for()
    rest = rest_position(s)
    t_rel, how = release_time(case, t, np.abs(s - rest), sig)
    if t_rel is None:
        m.notes["unresolved"] = f"the block does not move ({how})"
        return m
    m.events.append(event("block", "release", float(np.interp(t_rel, t, np.arange(len(t)))), tracks))
    fin = np.flatnonzero(np.isfinite(s) & (t > t_rel))
    if len(fin) < 2 * MIN_LEG:
        m.notes["unresolved"] = "too few samples after the release"
        return m
    thr = k * sig * math.sqrt(2) + RES_PX
    goes_up = float(np.nanmax(s[fin]) - rest) > float(rest - np.nanmin(s[fin[:2 * MIN_LEG]]))
    m.notes["sigma_px"] = round(sig, 4)
    legs: dict[str, dict] = {}
    if goes_up:
        top = float(np.nanmax(s[fin]))
        i_apex = int(fin[np.flatnonzero(s[fin] >= top - thr)[0]])
        if i_apex >= fin[-1] - 1:
            m.notes["unresolved"] = "the block is still rising when the clip ends"
            return m
        m.events.append(event("block", "apex", float(i_apex), tracks, float(s[i_apex])))
        up = grow_window(t, s, fin[fin < i_apex][::-1], sig, min_n=MIN_LEG, quad_from=MIN_LEG)
        if len(up) >= MIN_LEG:
            legs["up"] = leg_fit(t, s, up, sig)
            m.set("rise_px", top - float(s[up[0]]))
        after = fin[fin > i_apex]
        m.set("watched_after_apex_s", float(t[after[-1]] - t[i_apex]))
        drop = top - s[after]
        m.set("descent_px", float(np.nanmax(drop)))
        gone = after[drop > thr]
        if len(gone) >= MIN_LEG:
            down = grow_window(t, s, after[after >= gone[0] - 1], sig, min_n=MIN_LEG, quad_from=MIN_LEG)
            if len(down) >= MIN_LEG:
                legs["down"] = leg_fit(t, s, down, sig)
                m.events.append(event("block", "descent", float(down[-1]), tracks))
    else:
        down = grow_window(t, s, fin, sig, min_n=MIN_LEG, quad_from=MIN_LEG)
        if len(down) >= MIN_LEG:
            legs["down"] = leg_fit(t, s, down, sig)
            m.events.append(event("block", "descent", float(down[-1]), tracks))
    m.notes["goes_up"] = bool(goes_up)
    for name, g in legs.items():
        for key, v in g.items():
            m.set(f"{name}_{key}", float(v))
    m.notes["interval"] = [int(np.flatnonzero(t >= t_rel)[0]) if (t >= t_rel).any() else 0, int(fin[-1]) + 1]
    return m


def slide(k: dict, t: np.ndarray, law: Law) -> np.ndarray:
    """The block's distance up the slope (px) at times ``t``: P11's :func:`slide_px`; ``R_star`` None = it stays."""
    return slide_px(k if k["R_star"] is not None else {**k, "R_star": math.inf}, t, law)


def block_centres(k: dict, t: np.ndarray, law: Law, half_h: float) -> np.ndarray:
    """``[T, 2]`` image centres of the block (``half_h`` above the slope) along :func:`slide`."""
    foot, u, n = slope_frame(k)
    s = slide(k, t, law)
    return foot[None] + s[:, None] * u[None] + half_h * n[None]


def leg_fits(m: Measurement) -> dict[str, dict]:
    """The legs ``{"up"|"down": {a, se, span, n, da, se_da}}`` that :func:`incline_measurement` resolved."""
    return {name: {key: m.get(f"{name}_{key}") for key in ("a", "se", "span", "n", "da", "se_da")
                   if m.get(f"{name}_{key}") is not None}
            for name in ("up", "down") if m.get(f"{name}_a") is not None}


# --- scores: R7's M1–M3 (formulas in the task's docstring; ``a`` the task's scale) -------------------------


def predicted_ratio(theta: float, mu: float) -> float:
    """``r* = a_d / a_u = (sin θ − μ cos θ) / (sin θ + μ cos θ)`` (≤ 0: the block cannot slide down)."""
    return (math.sin(theta) - mu * math.cos(theta)) / (math.sin(theta) + mu * math.cos(theta))


def ratio_metric(up: dict | None, down: dict | None, theta: float, mu: float, k: float, a: float,
                 px_per_m: float | None = None, g: float = G) -> MetricScore:
    """M1 (see the task's docstring): the legs' ratio ``a_d / a_u`` against ``r*``."""
    r_star = predicted_ratio(theta, mu)
    if down is None:
        return MetricScore.undefined("no descent: the ratio of the legs is not observable")
    if down["a"] > k * down["se"] and r_star <= 0:
        return MetricScore.measured(0.0, math.inf, f"rule: slides down although mu >= tan(theta) = "
                                    f"{math.tan(theta):.3f}", a_down=down["a"])
    if up is None:
        if px_per_m is None:
            return MetricScore.undefined("a descent alone needs known.px_per_m to be compared with g")
        pred = g * (math.sin(theta) - mu * math.cos(theta)) * px_per_m
        e1 = down["a"] / pred - 1.0
        return MetricScore.measured(q(beyond_noise(e1, down["se"] / pred), a), e1, a_down=down["a"], a_pred=pred)
    if up["a"] <= k * up["se"]:
        return MetricScore.measured(0.0, math.inf, "rule: no deceleration going up", a_up=up["a"])
    if down["a"] <= k * down["se"]:
        return MetricScore.measured(0.0, math.inf, "rule: no acceleration coming down", a_down=down["a"])
    r = down["a"] / up["a"]
    e1 = r / r_star - 1.0
    se1 = abs(r / r_star) * math.hypot(down["se"] / down["a"], up["se"] / up["a"])
    return MetricScore.measured(q(beyond_noise(e1, se1), a), e1, ratio=r, r_star=r_star, se=se1,
                                a_up=up["a"], a_down=down["a"])


def constancy_metric(legs: list[dict], a: float) -> MetricScore:
    """M2: the largest change of acceleration across a leg, relative to the larger leg acceleration."""
    scale = max((abs(g["a"]) for g in legs), default=0.0)
    cubic = [g for g in legs if "da" in g]
    if not cubic or scale <= 0:
        return MetricScore.undefined(f"no leg of {CUBIC_LEG} samples or more")
    parts = [(beyond_noise(g["da"] / scale, g["se_da"] / scale), abs(g["da"]) / scale) for g in cubic]
    worst = max(parts)
    return MetricScore.measured(q(worst[0], a), worst[1])


def turnaround_metric(m: Measurement, legs: dict, theta: float, mu: float, a: float) -> MetricScore:
    """M3 (see the task's docstring): the block stays at the top where μ ≥ tan θ, else slides back."""
    r_star = predicted_ratio(theta, mu)
    sig = float(m.notes.get("sigma_px", 0.0))
    if not m.notes.get("goes_up"):
        if r_star <= 0 and "down" in legs:
            return MetricScore.measured(0.0, math.inf, "rule: slides down from rest although mu >= tan(theta)")
        return MetricScore.undefined("no turnaround: the block only descends")
    rise, d, watched = m.get("rise_px"), m.get("descent_px") or 0.0, m.get("watched_after_apex_s") or 0.0
    se = sig * math.sqrt(2) / rise
    if r_star <= 0:
        e3 = d / rise
        return MetricScore.measured(q(beyond_noise(e3, se), a), e3,
                                    reason="mu >= tan(theta): stays at the top")
    if "down" in legs:
        return MetricScore.measured(1.0, 0.0, reason="mu < tan(theta): slides back")
    if watched < STAY_S:
        return MetricScore.operational_zero(f"watched {watched:.2f} s after the apex, < {STAY_S} s")
    d_star = 0.5 * legs["up"]["a"] * r_star * watched**2
    e3 = max(0.0, 1.0 - d / d_star)
    return MetricScore.measured(q(beyond_noise(e3, sig * math.sqrt(2) / d_star), a), e3,
                                reason="mu < tan(theta) but it stays at the top")
