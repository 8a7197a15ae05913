"""R7's measurement of a block's legs on an incline (:class:`~lawful.suites.recordings.r07_incline.Incline`).

Extraction: the distance ``s(t)`` along the path (WMLE P11's :func:`path_coordinate`, turned positive
up the slope); release from ``release`` or the sustained onset above noise. The apex is the first
sample within ``k·σ√2 + 0.5 px`` of the highest; each leg is grown outwards from the apex (or, for a
descent from rest, from the release) while each new sample stays on the leg's parabola within noise
(R6's :func:`grow_window`): the ascent ends where the push did, the descent at the stop post, at rest
or where the block leaves the view. Accelerations ``a = −2c₂`` of a quadratic per leg; standard
errors from ``σ``, the track's localisation noise measured where the block moves (:func:`lawful.suites.windows.motion_sigma`).
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.suites.recordings.common import release_time, rest_position
from lawful.suites.windows import RES_PX, grow_window, motion_sigma, poly_fit
from lawful.suites.wmle.common import event, steady_visible
from lawful.suites.wmle.p11_rough_incline_round_trip import path_coordinate
from lawful.tracks import Tracks

MIN_LEG = 5  # samples a leg's parabola needs
CUBIC_LEG = 8  # samples a leg needs for M2's cubic


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
