"""R4's measurement of a pendulum's swing (:class:`~lawful.suites.recordings.r04_pendulum.Pendulum`).

Free swing: turning points after each crossing of the swing centre (:func:`lawful.perceive.events.half_periods`),
timed by a parabola (standard error from ``σ_θ``, :func:`._oscillation.turning_se`); each half-period ``h``
between turning points of amplitudes ``A₁, A₂`` gives ``T0 = 2h / f((A₁ + A₂)/2)``.

Wall (the pivot beside a wall that stops the bob before its free equilibrium, each swing ending in an
impact): impacts are the turning points on the wall side; each arc between two impacts is a piece of the same
pendulum, ``θ = c + Θ(t − t_k; A_k, ω_k)`` with ``Θ`` the exact swing of amplitude ``A_k`` (:func:`swing_shape`: an
arc sees only the slow part of the cycle near its turning point, so a cosine with the cycle's mean frequency would
not do) and ``c`` the free equilibrium common to all arcs (fitted with one ``ω0``; the restitution at the wall is
free). With ``c`` held, every arc's ``ω_k`` (standard error from the fit's Jacobian and the larger of ``σ_θ`` and
the arc's own residual scatter) gives ``T0 = 2π/ω_k``: the impact intervals shrink as the amplitude decays, ``T0``
must not. The release arc (shaped by the hand) is not used. A period drifting steadily with the decaying
amplitude trades with ``c`` (the arcs alone do not separate them); it shows as the free equilibrium away from the
pivot's vertical, recorded unscored as ``equilibrium_offset_px`` (an anchor clicked off or a tilted phone does
the same). Without ``known.wall`` a wall is detected when the turning points on one side stay at one angle
(spread < ``WALL_SPREAD`` × the other side's) while the others decay.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import least_squares
from scipy.special import ellipj, ellipk

from lawful.case import Case
from lawful.perceive import events, noise
from lawful.result import Measurement
from lawful.suites.recordings import _oscillation as osc
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle.common import event
from lawful.tracks import Tracks

WALL_SPREAD = 0.2  # wall side: turning-point spread below this fraction of the other side's
MIN_ARC = 5  # samples of an arc between impacts


def amplitude_factor(A) -> np.ndarray:
    """``T(A)/T0 = (2/π)·K(sin²(A/2))`` for amplitude ``A`` (rad)."""
    A = np.minimum(np.abs(np.asarray(A, float)), math.pi - 1e-6)
    return 2.0 / math.pi * ellipk(np.sin(A / 2) ** 2)


def swing_shape(tau, A: float, w0: float) -> np.ndarray:
    """The undamped pendulum of amplitude ``A`` (rad, signed) and small-amplitude frequency ``w0`` at times
    ``tau`` from its turning point: ``θ = 2·arcsin(k·cd(w0·τ | k²))``, ``k = sin(|A|/2)`` (Jacobi elliptic)."""
    k = math.sin(min(abs(float(A)), math.pi - 1e-6) / 2)
    sn, cn, dn, _ = ellipj(w0 * np.asarray(tau, float), k * k)
    return math.copysign(2.0, A) * np.arcsin(k * cn / dn)



def free_periods(t: np.ndarray, s: np.ndarray, sig: float, c: float) -> dict:
    """Small-amplitude periods from the half-periods of a free swing ``s`` (rad) about centre ``c``."""
    k = noise.k_for()
    tps = events.half_periods(s, c, min_amplitude=k * sig)
    dt = float(np.median(np.diff(t)))
    times = [events.index_to_time(i, t) for i in tps]
    amps = [abs(float(np.interp(i, np.arange(len(s)), np.nan_to_num(s, nan=c))) - c) for i in tps]
    se_t = [osc.turning_se(s, i, sig, dt) for i in tps]
    T0, se, A = [], [], []
    for j in range(len(tps) - 1):
        a = 0.5 * (amps[j] + amps[j + 1])
        f = float(amplitude_factor(a))
        T0.append(2 * (times[j + 1] - times[j]) / f)
        se.append(2 * math.hypot(se_t[j], se_t[j + 1]) / f)
        A.append(a)
    return {"turns": tps, "turn_times": times, "turn_amps": amps, "T0": T0, "se": se, "A": A}


def free_fit(t: np.ndarray, s: np.ndarray, sw: dict, c: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The law's damped, amplitude-dependent swing fitted to ``s`` from its first finite sample on."""
    ok = np.isfinite(s)
    if ok.sum() < 8 or not sw["T0"]:
        return None
    t0 = t[ok][0]
    w0 = 2 * math.pi / float(np.median(sw["T0"]))
    A0, gam = osc.envelope_start(np.array([t0]), sw["turn_amps"], sw["turn_times"])
    tp, ap = sw["turn_times"][0], sw["turn_amps"][0]
    sign = 1.0 if float(s[int(round(sw["turns"][0]))]) > c else -1.0
    phi0 = (0.0 if sign > 0 else math.pi) - w0 * (tp - t0) / float(amplitude_factor(ap))
    return osc.damped_fit(t[ok], s[ok], [c, A0, gam, 0.0, w0, phi0], factor=amplitude_factor)


def wall_side(case: Case, s: np.ndarray, x: np.ndarray, sig: float) -> tuple[int, str]:
    """+1 (wall on the right), −1 (left) or 0 (none) and how it was decided."""
    w = case.known.get("wall")
    if isinstance(w, str):
        return {"right": 1, "left": -1}.get(w.lower(), 0), "case"
    if w is not None:
        return (1 if float(w) > np.nanmedian(x) else -1), "case"
    prom = 2 * noise.k_for() * sig
    pts = {+1: events.turning_points(s, "max", prom), -1: events.turning_points(s, "min", prom)}
    val = {d: np.array([s[int(round(i))] for i in p]) for d, p in pts.items()}
    for d in (+1, -1):
        v, o = val[d], val[-d]
        if len(v) >= 3 and len(o) >= 2 and np.std(o) > prom and np.std(v) < WALL_SPREAD * np.std(o):
            return d, "detected"
    return 0, "none"


def wall_periods(t: np.ndarray, s: np.ndarray, sig: float, side: int) -> dict:
    """Impacts, the joint arc fit (common ``c``, ``ω0``) and each arc's small-amplitude period (module doc)."""
    k = noise.k_for()
    imp = [int(round(i)) for i in events.turning_points(side * s, "max", 2 * k * sig)]
    arcs = []
    for a, b in zip(imp[:-1], imp[1:]):
        idx = np.arange(a + 1, b)  # the impact samples themselves are not free
        idx = idx[np.isfinite(s[idx])]
        if len(idx) >= MIN_ARC and np.ptp(s[idx]) >= 2 * k * sig:
            arcs.append(idx)
    out = {"impacts": imp, "arcs": [[int(i[0]), int(i[-1])] for i in arcs], "T0": [], "se": [], "A": [],
           "omega": [], "c": math.nan, "resid": np.array([])}
    if len(arcs) < 2:
        return out
    def joint(p):
        c, w0 = p[0], p[1]
        r = []
        for j, idx in enumerate(arcs):
            r.append(c + swing_shape(t[idx] - p[3 + 2 * j], p[2 + 2 * j], w0) - s[idx])
        return np.concatenate(r)

    dmax = max(t[i[-1]] - t[i[0]] for i in arcs) + 2 * float(np.median(np.diff(t)))
    c0 = float(np.nanmax(side * s)) * side + side * 0.0  # start: equilibrium at the wall
    best = None
    for w0 in np.geomspace(0.2 * math.pi / dmax, 2 * math.pi / dmax, 10):
        p0 = [c0, w0]
        for idx in arcs:
            j = idx[np.argmin(side * s[idx])]
            p0 += [float(s[j]) - c0, float(t[j])]
        fit = least_squares(joint, p0, x_scale="jac")
        if best is None or fit.cost < best.cost:
            best = fit
    c, w0 = float(best.x[0]), float(best.x[1])
    out.update(c=c, omega0=w0, resid=best.fun)
    for j, idx in enumerate(arcs):
        def one(p, idx=idx):
            return c + swing_shape(t[idx] - p[1], p[0], p[2]) - s[idx]

        r = least_squares(one, [best.x[2 + 2 * j], best.x[3 + 2 * j], w0], x_scale="jac")
        try:  # the arc's own scatter when it exceeds the track's noise (motion blur at speed)
            var = max(sig**2, float(np.sum(r.fun**2)) / max(len(idx) - 3, 1))
            cov = np.linalg.inv(r.jac.T @ r.jac) * var
            se_w = math.sqrt(max(float(cov[2, 2]), 0.0))
        except np.linalg.LinAlgError:
            se_w = math.inf
        A, w = float(r.x[0]), float(r.x[2])
        if not (w > 0):
            continue
        T0 = 2 * math.pi / w
        out["T0"].append(T0)
        out["se"].append(T0 * se_w / w)
        out["A"].append(abs(A))
        out["omega"].append(w)
    return out


def swing_measurement(case: Case, tracks: Tracks) -> Measurement:
    """R4's numbers: the swing angle from release, wall or free, the small-amplitude periods ``T0`` with their
    standard errors, their spread and amplitude trend, and the law curve's residual."""
    m = Measurement()
    tr, t = tracks["bob"], np.asarray(tracks.t, float)
    x, y = osc.usable_series(tr, (case.width, case.height))
    ax, ay = (float(v) for v in case.known["anchor"])
    th = np.arctan2(x - ax, y - ay)
    bob_known = case.object("bob").known
    L = float(case.known.get("length_px") or bob_known.get("length_px") or np.nanmedian(np.hypot(x - ax, y - ay)))
    sig = noise.sigma(th)
    sig = sig if math.isfinite(sig) and sig > 0 else 0.5 / L
    m.notes.update(noise_px=sig * L, length_px=L)
    s = osc.from_release(case, tracks, m, "bob", th, sig * L, px=L)
    if s is None:
        return m
    side, wall_how = wall_side(case, s, x, sig)
    m.notes["wall"] = {"side": side, "how": wall_how}
    if side:
        sw = wall_periods(t, s, sig, side)
        for i in sw["impacts"]:
            m.events.append(event("bob", "wall_impact", float(i), tracks))
        resid, amp = sw["resid"], max(sw["A"], default=math.nan)
        m.notes.update(arcs=sw["arcs"], omega=sw["omega"], equilibrium_rad=sw["c"])
        m.set("equilibrium_offset_px", sw["c"] * L, "no joint arc fit")
        why = f"{len(sw['arcs'])} arcs between wall impacts (need 2)"
    else:
        c = pk.swing_centre(s, 0.0)
        sw = free_periods(t, s, sig, c)
        fit = free_fit(t, s, sw, c)
        if fit is not None:  # re-measure the amplitudes about the fitted centre
            sw = free_periods(t, s, sig, float(fit[0][0]))
            m.notes["fit"] = [float(v) for v in fit[0]]
        for i in sw["turns"]:
            m.events.append(event("bob", "turning_point", float(i), tracks))
        resid = fit[1] if fit is not None else np.array([])
        amp = float(np.nanmax(np.abs(s - fit[0][0]))) if fit is not None else math.nan
        why = f"{len(sw['turns'])} turning points after release (need 3)"
    pk.record_halt(m, tracks, "bob", sw["T0"])  # a swing stopping dead (its periods, T0 at the longest)
    cv, se_cv, T_mean, se_mean = osc.weighted_spread(sw["T0"], sw["se"])
    trend, se_trend = osc.amplitude_trend(sw["T0"], sw["se"], sw["A"])
    m.notes.update(T0=sw["T0"], T0_se=sw["se"], amplitude_deg=[math.degrees(a) for a in sw["A"]])
    m.set("period_s", T_mean, why)
    m.set("period_se_s", se_mean, why)
    m.set("period_cv", cv, why)
    m.set("period_cv_se", se_cv, why)
    m.set("period_trend", trend, f"{len(sw['T0'])} periods (need 3)")
    m.set("period_trend_se", se_trend, f"{len(sw['T0'])} periods (need 3)")
    rms = float(np.sqrt(np.mean(resid**2))) * L if len(resid) else math.nan
    m.set("fit_rms_px", rms, "no swing fit")
    m.set("amplitude_px", amp * L, "no swing fit")
    return m
