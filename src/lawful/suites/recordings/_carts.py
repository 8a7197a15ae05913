"""R6's measurement and scores of a two-body collision (:class:`~lawful.suites.recordings.r06_collision.Collision`).

Contact: the first sample where the gap between the bodies (centre distance less their half-lengths
along the track) comes within ``k·√(σ1² + σ2²) + 1 px`` of its smallest value (of 0 if they overlap),
refined to where the before and after fits of the body whose velocity changes most meet. Windows: from
``MARGIN`` samples off the contact outwards (past any sample still in the contact: each nearest sample
must continue the motion of the ones after it), a body's window grows sample by sample while each new
sample stays within ``k·σ_pred + 0.5 px`` of the fit to the samples so far (a line below 6 samples, a
quadratic from 6 on: friction's slow decay passes). It ends where the body is pushed (before; or at
``release``), reverses at an end stop, leaves the frame (border-cut or lost samples) or is brought to
rest (a quadratic turning round inside a window: friction stops a body, never turns it round).
Velocities ``v`` (before) and ``v'`` (after) are the slopes at the contact time of quadratic fits (lines
below 6 samples), standard errors from ``σ`` (the track's localisation noise along the track, measured
where the body moves).

Scores: the task's M1–M3 (:func:`momentum_metric` …), each at the scale ``a`` the task states.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.recordings.common import beyond_noise
from lawful.suites.windows import MIN_WINDOW, grow_window, motion_sigma, velocity_at
from lawful.suites.wmle.common import MetricScore, event, steady_visible
from lawful.tracks import Tracks

IDS = ("cart_1", "cart_2")
MARGIN = 1.5  # samples on either side of the contact left out of the windows
TOUCH_FRAC = 0.25  # bodies never closer than this fraction of their summed half-lengths: they never met


def collision_measurement(case: Case, tracks: Tracks) -> Measurement:
    """R6's numbers: the contact time and each body's velocity (and acceleration) before and after it, with
    standard errors from the measured noise, over its window."""
    m = Measurement()
    got = track_coordinates(case, tracks)
    if isinstance(got, str):
        m.notes["unresolved"] = got
        return m
    t, s, half, sig = got
    k = noise.k_for()
    gap = (s[1] - s[0]) - (half[0] + half[1])
    if not np.isfinite(gap).any():
        m.notes["unresolved"] = "the two bodies are never seen together"
        return m
    gmin = float(np.nanmin(gap))
    m.set("min_gap_px", gmin)
    if gmin > TOUCH_FRAC * (half[0] + half[1]):
        m.notes["unresolved"] = f"the bodies never meet (closest gap {gmin:.1f} px)"
        return m
    thr = k * math.hypot(*sig) + 1.0
    i_near = int(np.flatnonzero(np.nan_to_num(gap, nan=np.inf) <= max(gmin, 0.0) + thr)[0])
    tc = float(t[i_near])
    for it in range(4):  # windows around tc, then tc where the fits of the most changed body meet
        fits = collision_windows(case, t, s, sig, tc)
        if isinstance(fits, str):
            m.notes["unresolved"] = fits
            return m
        j = int(np.argmax([abs(fits[f"{o}_after"]["v"] - fits[f"{o}_before"]["v"]) for o in IDS]))
        b, a = fits[f"{IDS[j]}_before"], fits[f"{IDS[j]}_after"]
        dv = b["v"] - a["v"]
        if abs(dv) <= k * math.hypot(b["se"], a["se"]):
            m.notes["unresolved"] = "no collision: neither body's velocity changes beyond noise"
            return m
        new = float(np.clip(tc + (a["p"] - b["p"]) / dv, t[max(i_near - 2, 0)], t[min(i_near + 2, len(t) - 1)]))
        if abs(new - tc) < 1e-3 / max(tracks.fps, 1.0) or it == 3:
            break  # the fits are those at tc
        tc = new
    m.set("collision_s", tc)
    m.events.append(event(IDS[j], "collision", float(np.interp(tc, t, np.arange(len(t)))), tracks))
    for key, f in fits.items():
        m.set(f"{key}_v_px_s", f["v"])
        m.set(f"{key}_se_px_s", f["se"])
        m.set(f"{key}_acc_px_s2", f["acc"])
        m.set(f"{key}_se_acc_px_s2", f["se_acc"])
        m.set(f"{key}_span_s", f["span"])
    m.notes["windows"] = {key: [f["i0"], f["i1"]] for key, f in fits.items()}
    m.notes["interval"] = [min(f["i0"] for f in fits.values()), max(f["i1"] for f in fits.values()) + 1]
    m.notes["sigma_px"] = [round(float(x), 4) for x in sig]
    return m


def track_coordinates(case: Case, tracks: Tracks):
    """``(t, s [2, T], half-lengths [2], σ [2])`` along the track, or why not (a string)."""
    frame = (case.width, case.height)
    if any(o not in tracks for o in IDS):
        return "a body is not tracked"
    vis = [steady_visible(tracks[o], frame) for o in IDS]
    if min(v.sum() for v in vis) < 2 * MIN_WINDOW:
        return "a body is seen in too few samples"
    xy = [np.where(v[:, None], tracks[o].xy, np.nan) for o, v in zip(IDS, vis)]
    pooled = np.concatenate([p[np.isfinite(p).all(1)] - np.nanmean(p, 0) for p in xy])
    u = np.linalg.svd(pooled, full_matrices=False)[2][0]
    first = [p[np.isfinite(p).all(1)][0] for p in xy]
    if float((first[1] - first[0]) @ u) < 0:
        u = -u
    s = np.stack([p @ u for p in xy])
    half = []
    for o, v in zip(IDS, vis):
        b = np.asarray(tracks[o].box, float)[v]
        half.append(float(np.median(0.5 * (abs(u[0]) * (b[:, 2] - b[:, 0]) + abs(u[1]) * (b[:, 3] - b[:, 1])))))
    sig = [motion_sigma(tracks[o], v, sj, u) for o, v, sj in zip(IDS, vis, s)]
    return np.asarray(tracks.t, float), s, np.array(half), np.array(sig)


def collision_windows(case: Case, t, s, sig, tc) -> dict | str:
    """Each body's before and after windows around ``tc`` and their fits (``{"cart_1_before": {...}, …}``)."""
    dt = float(np.median(np.diff(t)))
    out = {}
    for j, o in enumerate(IDS):
        fin = np.flatnonzero(np.isfinite(s[j]))
        before = fin[t[fin] <= tc - MARGIN * dt][::-1]
        after = fin[t[fin] >= tc + MARGIN * dt]
        wb, wa = grow_window(t, s[j], before, sig[j]), grow_window(t, s[j], after, sig[j])
        if case.release is not None:  # the push ends the before-window, whatever the growth found
            wb = wb[t[wb] >= float(case.release)]
        for name, w in (("before", wb), ("after", wa)):
            if len(w) < MIN_WINDOW:
                return f"too few samples of {o} {name} the collision ({len(w)} < {MIN_WINDOW})"
            f = velocity_at(t, s[j], w, tc, sig[j])
            f.update(i0=int(w[0]), i1=int(w[-1]))
            out[f"{o}_{name}"] = f
    return out


# --- scores: R6's M1–M3 (formulas in the task's docstring; ``a`` the task's scale) -------------------------


def momentum_metric(m, v, v_after, se, se_after, a: float) -> MetricScore:
    """M1 from masses ``m`` and velocities before/after (length-2 sequences) with their standard errors."""
    m, v, va, se, sa = (np.asarray(x, float) for x in (m, v, v_after, se, se_after))
    den = float(np.sum(np.abs(m * v)))
    e1 = float(np.sum(m * va) - np.sum(m * v)) / den
    se1 = float(np.sqrt(np.sum(m**2 * (se**2 + sa**2)))) / den
    return MetricScore.measured(q(beyond_noise(e1, se1), a), e1, se=se1, p_before=float(np.sum(m * v)),
                                p_after=float(np.sum(m * va)))


def energy_metric(m, v, v_after, se, se_after, a: float) -> MetricScore:
    """M2: restitution outside [0, 1] or kinetic energy created, each beyond its propagated noise."""
    m, v, va, se, sa = (np.asarray(x, float) for x in (m, v, v_after, se, se_after))
    closing = float(v[0] - v[1])
    c = float(va[1] - va[0]) / closing
    se_c = math.sqrt(sa[0] ** 2 + sa[1] ** 2 + c * c * (se[0] ** 2 + se[1] ** 2)) / abs(closing)
    out = max(0.0, c - 1.0, -c)
    ke, ke_a = float(np.sum(0.5 * m * v**2)), float(np.sum(0.5 * m * va**2))
    r = ke_a / ke
    se_r = r * math.hypot(float(np.sqrt(np.sum((m * va * sa) ** 2))) / max(ke_a, 1e-12),
                          float(np.sqrt(np.sum((m * v * se) ** 2))) / ke)
    e2 = max(beyond_noise(out, se_c), beyond_noise(max(0.0, r - 1.0), se_r))
    return MetricScore.measured(q(e2, a), max(out, r - 1.0, 0.0), restitution=c, se_restitution=se_c,
                                ke_ratio=r, se_ke_ratio=se_r)


def steady_metric(fits: dict[str, dict], closing: float, a: float, alpha=noise.FALSE_ALARM) -> MetricScore:
    """M3: the largest speed gain within a window, relative to the closing speed, beyond its noise."""
    worst, worst_raw, which = 0.0, 0.0, ""
    k = noise.k_for(alpha)
    for name, f in fits.items():
        at_rest = abs(f["v"]) <= k * f["se"]
        gain = abs(f["acc"]) if at_rest else max(0.0, f["acc"] * math.copysign(1.0, f["v"]))
        e = gain * f["span"] / abs(closing)
        b = beyond_noise(e, f["se_acc"] * f["span"] / abs(closing))
        if b > worst or (b == worst and e > worst_raw):
            worst, worst_raw, which = b, e, name
    return MetricScore.measured(q(worst, a), worst_raw, reason=f"largest in {which}" if which else "")
