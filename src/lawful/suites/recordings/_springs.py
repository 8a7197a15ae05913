"""R5's measurement of a mass on a spring (:class:`~lawful.suites.recordings.r05_spring.MassSpring`).

Measurement on ``s(t)`` (px along the spring, ``σ`` its measured localisation noise): turning points (both
kinds, prominence ``2kσ``) timed by a parabola (:func:`._oscillation.turning_se`); a period is twice the time
between consecutive opposite turning points, or the time between same-kind neighbours whose opposite turning
point was out of sight (one unseen run shorter than half the stretch: the mass dipped out of frame); centres
``(s₁ + 2s₂ + s₃)/4`` of three alternating turning points (cancels a steady decay of the amplitude; standard
error ``√6·σ/4``); amplitudes ``|s_i − s̄|`` (half the seen range when no centre was seen).
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import events, noise
from lawful.result import Measurement
from lawful.suites.recordings import _oscillation as osc
from lawful.suites.recordings.common import rest_position
from lawful.suites.wmle.common import event
from lawful.tracks import Tracks


def alternating_turns(s: np.ndarray, prominence: float) -> list[tuple[float, int]]:
    """Turning points of ``s`` as ``(fractional index, +1 max / −1 min)`` in time order. Of two same-kind
    neighbours with every sample between them seen, the more extreme is kept (jitter); with unseen samples
    between them both stay (the turning point between them was out of sight)."""
    pts = [(i, 1) for i in events.turning_points(s, "max", prominence)]
    pts += [(i, -1) for i in events.turning_points(s, "min", prominence)]
    out: list[tuple[float, int]] = []
    for i, k in sorted(pts):
        if out and out[-1][1] == k and np.isfinite(s[int(round(out[-1][0])):int(round(i)) + 1]).all():
            if k * s[int(round(i))] > k * s[int(round(out[-1][0]))]:
                out[-1] = (i, k)
            continue
        out.append((i, k))
    return out


def _hidden_turn(s: np.ndarray, a: float, b: float) -> bool:
    """Between same-kind turning points ``a`` and ``b``: one unseen run shorter than half the stretch (the
    opposite turning point out of sight, not a whole cycle)."""
    gap = ~np.isfinite(s[int(round(a)) + 1:int(round(b))])
    runs = np.flatnonzero(np.diff(np.concatenate([[0], gap.astype(int), [0]])) != 0).reshape(-1, 2)
    return len(runs) == 1 and (runs[0, 1] - runs[0, 0]) < 0.5 * (b - a)


def spring_cycles(t: np.ndarray, s: np.ndarray, sig: float) -> dict:
    """Periods, centres and amplitudes of an oscillation ``s`` (see the module docstring): ``2h`` from
    consecutive opposite turning points, ``Δt`` from same-kind neighbours whose opposite turning point was
    out of sight."""
    k = noise.k_for()
    turns = alternating_turns(s, 2 * k * sig)
    idx = np.arange(len(s))
    fill = np.where(np.isfinite(s), s, np.nanmean(s) if np.isfinite(s).any() else 0.0)
    dt = float(np.median(np.diff(t)))
    times = [events.index_to_time(i, t) for i, _ in turns]
    vals = [float(np.interp(i, idx, fill)) for i, _ in turns]
    se_t = [osc.turning_se(s, i, sig, dt) for i, _ in turns]
    P, P_se = [], []
    for j in range(len(turns) - 1):
        same = turns[j][1] == turns[j + 1][1]
        if same and not _hidden_turn(s, turns[j][0], turns[j + 1][0]):
            continue
        P.append((1 if same else 2) * (times[j + 1] - times[j]))
        P_se.append((1 if same else 2) * math.hypot(se_t[j], se_t[j + 1]))
    cen, cen_t = [], []
    for j in range(len(turns) - 2):
        if turns[j][1] == turns[j + 2][1] != turns[j + 1][1]:
            cen.append((vals[j] + 2 * vals[j + 1] + vals[j + 2]) / 4)
            cen_t.append(times[j + 1])
    if cen:
        c = float(np.median(cen))
    else:
        hi = [v for v, (_, kk) in zip(vals, turns) if kk > 0]
        lo = [v for v, (_, kk) in zip(vals, turns) if kk < 0]
        c = 0.5 * (hi[0] + lo[0]) if hi and lo else math.nan
    amps = [abs(v - c) for v in vals]
    return {"turns": [i for i, _ in turns], "times": times, "values": vals, "P": P, "P_se": P_se,
            "centres": cen, "centre_t": cen_t, "c": c, "amps": amps}


def weighted_slope(x, y, se) -> tuple[float, float]:
    """Slope of the inverse-variance weighted straight line ``y(x)`` and its standard error (NaN for < 2)."""
    fit = osc.weighted_line(x, y, se)
    return (math.nan, math.nan) if fit is None else (float(fit[0][1]), math.sqrt(float(fit[1][1, 1])))


def spring_measurement(case: Case, tracks: Tracks) -> Measurement:
    """R5's numbers: the oscillation along the spring from release, its periods, spread, damped-sinusoid residual,
    centre drift and amplitude growth, each with its standard error from the measured noise."""
    m = Measurement()
    tr, t = tracks["mass"], np.asarray(tracks.t, float)
    x, y = osc.usable_series(tr, (case.width, case.height))
    anchor = case.known.get("anchor")
    if anchor is not None:
        ax, ay = (float(v) for v in anchor)
        u = np.array([rest_position(x) - ax, rest_position(y) - ay])
        u = u / np.linalg.norm(u) if np.all(np.isfinite(u)) and np.linalg.norm(u) > 0 else np.array([0.0, 1.0])
        s = (x - ax) * u[0] + (y - ay) * u[1]
    else:
        s = y
    sig = noise.sigma(s)
    sig = sig if math.isfinite(sig) and sig > 0 else 0.5
    m.notes["noise_px"] = sig
    s = osc.from_release(case, tracks, m, "mass", s, sig)
    if s is None:
        return m
    cy = spring_cycles(t, s, sig)
    for i in cy["turns"]:
        m.events.append(event("mass", "turning_point", float(i), tracks))
    n = len(cy["turns"])
    cv, se_cv, T, se_T = osc.weighted_spread(cy["P"], cy["P_se"])
    why = f"{n} turning points seen after release (need 3)"
    m.set("period_s", T, why)
    m.set("period_cv", cv, why)
    m.set("period_cv_se", se_cv, why)
    m.notes.update(periods=cy["P"], periods_se=cy["P_se"], centres=cy["centres"], turn_times=cy["times"])
    amp0 = cy["amps"][0] if cy["amps"] else math.nan
    if not math.isfinite(amp0) and n >= 2:  # no centre seen (one side out of sight): half the seen range
        amp0 = 0.5 * float(np.nanmax(s) - np.nanmin(s))
    m.set("amplitude_px", amp0, why)
    # M2: the damped sinusoid from release on
    rms = math.nan
    if n >= 3 and math.isfinite(T):
        tt, ok = t, np.isfinite(s)
        w0 = 2 * math.pi / T
        A0, gam = osc.envelope_start(tt[ok][:1], cy["amps"], cy["times"])
        sign = 1.0 if cy["values"][0] > cy["c"] else -1.0
        phi0 = (0.0 if sign > 0 else math.pi) - w0 * (cy["times"][0] - tt[ok][0])
        p, r = osc.damped_fit(tt[ok], s[ok], [cy["c"], A0, gam, 0.0, w0, phi0])
        rms = float(np.sqrt(np.mean(r**2)))
        m.notes["fit"] = [float(v) for v in p]
    m.set("fit_rms_px", rms, why)
    # M3: drift of the centres
    cse = [math.sqrt(6) * sig / 4] * len(cy["centres"])
    b, se_b = weighted_slope(cy["centre_t"], cy["centres"], cse)
    span = float(np.ptp(cy["centre_t"])) if len(cy["centre_t"]) >= 2 else math.nan
    m.set("equilibrium_drift_px", b * span, f"{len(cy['centres'])} centres (need 2)")
    m.set("equilibrium_drift_se_px", se_b * span, f"{len(cy['centres'])} centres (need 2)")
    # M4: amplitude growth
    A = np.asarray(cy["amps"], float)
    lb, se_lb = weighted_slope(cy["times"], np.log(np.maximum(A, 1e-9)), sig / np.maximum(A, 1e-9))
    D = float(np.ptp(cy["times"])) if n >= 2 else math.nan
    why4 = f"{n} turning points (need 3)"
    ok4 = n >= 3 and math.isfinite(lb) and math.isfinite(se_lb)
    why4 = why4 if n < 3 else "no centre between the turning points (amplitudes unknown)"
    m.set("amplitude_growth", max(0.0, lb) * D if ok4 else math.nan, why4)
    m.set("amplitude_growth_se", se_lb * D if ok4 else math.nan, why4)
    return m
