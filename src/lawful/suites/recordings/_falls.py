"""R1's measurement and scores of a drag fall (:class:`~lawful.suites.recordings.r01_free_fall.FreeFallDrag`).

Camera. A tilted camera changes the image scale along the fall: the image is ``y0 + u/(1 + λ·u/S)`` of
the fall ``u`` (the projective map of a line, ``S`` the image range). A scale that shrinks downwards
lowers the image acceleration just as drag does (both go with ``v²``): drag absorbs it. One that grows
downwards raises it, which drag cannot give; only when the drag fit pins ``κ`` at 0 is ``λ`` fitted too,
in ``[−PERSPECTIVE_MAX, 0]`` (0.2: a camera tilted ~10° to a fall that fills the picture). Drag and
perspective are not separable, so drag alone is preferred whenever it explains the curve.

Extraction. Release: the case's ``release`` or a sustained onset above the track's noise
(:func:`~lawful.suites.recordings.common.release_time`), refined by the fit (``t0`` free unless the case
states it). The fall ends at the first impact (:func:`~lawful.suites.wmle.p02_free_fall.first_impact`).
The fit uses up to ``REST_SAMPLES`` resting samples before the onset and every steady sample of the fall;
``σ`` is the track's measured noise in ``y`` and ``D`` the fall distance in px, ``T`` the fall time.

Scores: the task's M1–M4 (:func:`fit_metric` …), each at the scale ``a`` the task states.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.recordings.common import REST_SAMPLES, beyond_noise, release_time, rest_position
from lawful.suites.wmle.common import MetricScore, event, interval_slopes, steady_xy
from lawful.suites.wmle.p02_free_fall import first_impact
from lawful.tracks import Tracks
from lawful.world.scenes.recordings import drag_fall, fall_of, image_of, lncosh

G = 9.81
TANH_MAX = 0.9  # a dropped ball ends its fall below 90 % of its terminal speed
PERSPECTIVE_MAX = 0.2  # |lam| of a camera tilted up to ~10° to a fall filling the picture (H·sinτ / L)
INTERVALS = 4


def fit_drag_fall(t: np.ndarray, y: np.ndarray, t0_range: tuple[float, float], t_span: float, sigma: float,
                  t0_fixed: float | None = None, lam_max: float = PERSPECTIVE_MAX) -> dict:
    """Least-squares fit of ``y = y0 + image_of(drag_fall(t, 0, t0, g, kappa), lam, span)`` to samples ``t``,
    ``y`` (finite; ``span`` their range).

    ``t0`` is searched in ``t0_range`` unless ``t0_fixed``; ``kappa`` in ``[0, atanh(TANH_MAX)/t_span]``;
    ``lam`` is 0 unless the drag-only fit pins ``kappa`` at 0 (an image acceleration that grows, which drag
    cannot give), then it is fitted in ``[−lam_max, 0]`` too (drag and perspective are not separable:
    drag alone is preferred whenever it can explain the curve). Returns ``{"y0", "t0", "g", "kappa", "lam", "span",
    "rms", "resid", "se_g", "se_t0"}`` (standard errors from the Jacobian with the measured noise ``sigma``).
    """
    from scipy.optimize import least_squares

    t, y = np.asarray(t, float), np.asarray(y, float)
    span = float(np.ptp(y)) or 1.0
    k_max = math.atanh(TANH_MAX) / max(t_span, 1e-6)
    lo_t0, hi_t0 = t0_range
    if t0_fixed is not None:
        lo_t0, hi_t0 = t0_fixed - 1e-9, t0_fixed + 1e-9
    fall = t > hi_t0
    g0 = float(2 * np.polyfit(t[fall] - hi_t0, y[fall], 2)[0]) if fall.sum() >= 3 else 1.0
    y_start = float(y[~fall].mean()) if (~fall).any() else float(y[0])
    big = 10 * (span + 1) / max(t_span, 1e-3) ** 2

    def res(p):
        return p[0] + image_of(drag_fall(t, 0.0, p[1], p[2], p[3]), p[4], span) - y

    def fit(lam_bound: float):
        p0 = [y_start, 0.5 * (lo_t0 + hi_t0), min(max(g0, 1e-3), big), 0.5 * k_max, 0.5 * lam_bound]
        return least_squares(res, p0, bounds=([-np.inf, lo_t0, 0.0, 0.0, lam_bound], [np.inf, hi_t0, big, k_max, 0.0]),
                             x_scale="jac")

    best = fit(-1e-12)  # drag alone first: it explains a falling image acceleration without a camera model
    if lam_max and best.x[3] < 1e-6 * k_max:  # the acceleration grows: a camera whose scale grows downwards can
        alt = fit(-abs(lam_max))
        best = alt if alt.cost < best.cost else best
    se = {"se_g": math.nan, "se_t0": 0.0 if t0_fixed is not None else math.nan}
    try:
        cov = np.linalg.pinv(best.jac.T @ best.jac) * (sigma if math.isfinite(sigma) else 0.0) ** 2
        se["se_g"] = float(math.sqrt(max(cov[2, 2], 0.0)))
        if t0_fixed is None:
            se["se_t0"] = float(math.sqrt(max(cov[1, 1], 0.0)))
    except np.linalg.LinAlgError:
        pass
    y0, t0, g, kappa, lam = (float(v) for v in best.x)
    lam = lam if lam < -1e-9 else 0.0
    return {"y0": y0, "t0": t0, "g": g, "kappa": kappa, "lam": lam, "span": span,
            "rms": float(np.sqrt(np.mean(best.fun**2))), "resid": best.fun, **se}


def release_speed(t: np.ndarray, y: np.ndarray, t0: float, sigma: float) -> tuple[float, float]:
    """Speed at release ``(v0, se)``: ``y = c + v0·s + a·s²/2`` (``s = t − t0``) fitted to samples after ``t0``
    (linear least squares; ``y`` may be a residual from a law at rest at ``t0``); ``se`` from the measured noise
    ``sigma``. Samples before ``t0`` are not used: a hand may move the ball before letting go."""
    s = np.asarray(t, float) - t0
    X = np.column_stack([np.ones_like(s), s, 0.5 * s * s])
    coef, *_ = np.linalg.lstsq(X, np.asarray(y, float), rcond=None)
    cov = np.linalg.pinv(X.T @ X) * (sigma if math.isfinite(sigma) else 0.0) ** 2
    return float(coef[1]), float(math.sqrt(max(cov[1, 1], 0.0)))


def interval_accelerations(t: np.ndarray, y: np.ndarray, m: int, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Accelerations ``[m−1]`` between the least-squares velocities of ``m`` equal intervals, with their standard
    errors from the measured noise ``sigma`` (:func:`~lawful.suites.wmle.common.interval_slopes`)."""
    v, c = interval_slopes(t, y, m)
    k = len(t) // m
    se_v = np.array([sigma / math.sqrt(max(float(np.sum((t[j * k:(j + 1) * k] - np.mean(t[j * k:(j + 1) * k])) ** 2)),
                                           1e-18)) for j in range(m)])
    dc = np.diff(c)
    return np.diff(v) / dc, np.sqrt(se_v[:-1] ** 2 + se_v[1:] ** 2) / dc


def fall_height(case: Case) -> float | None:
    """The drop of the ball's centre in metres from the case (``fall_height_m``, or ``floor_to_ceiling_m``
    less the ball's ``diameter_m``); None when the case gives no length."""
    k = case.known
    if k.get("fall_height_m") is not None:
        return float(k["fall_height_m"])
    if k.get("floor_to_ceiling_m") is not None:
        ball = next((o for o in case.objects if o.id == "ball"), None)
        return float(k["floor_to_ceiling_m"]) - float((ball.known if ball else {}).get("diameter_m", 0.0))
    return None


def drag_fall_measurement(case: Case, tracks: Tracks) -> Measurement:
    """R1's numbers: the drag-fall fit from release to the first contact, the release speed, the interval
    accelerations and (a fall height given, the contact seen) the gravity bracket ``g_lo``, ``g_hi``."""
    m = Measurement()
    tr, t, vis, _, y = steady_xy(case, tracks, "ball")
    if vis.sum() < 8:
        m.notes["unresolved"] = "ball not tracked"
        return m
    sigma = noise.sigma(y)
    sigma = sigma if math.isfinite(sigma) else noise.track_noise(tr).sigma_y
    y_rest = rest_position(y)
    t_r, how = release_time(case, t, y - y_rest, sigma)
    m.notes.update(noise_px=sigma, release_source=how)
    if t_r is None:
        m.notes["unresolved"] = f"ball never released: {how}"
        return m
    idx = np.arange(len(t))
    after = vis & (t > t_r)
    if after.sum() < 8:
        m.notes["unresolved"] = "too few samples after release"
        return m
    y_max = float(np.nanmax(np.where(after, y, np.nan)))
    i_low = first_impact(y, after, y_rest, y_max)
    contact = i_low < int(np.flatnonzero(vis)[-1])
    fall = after & (idx < (i_low if contact else i_low + 1))
    i_on = int(np.flatnonzero(after)[0])
    rest = np.flatnonzero(vis & (idx < i_on))[-REST_SAMPLES:]
    use = np.concatenate([rest, np.flatnonzero(fall)])
    if fall.sum() < 3 * INTERVALS:
        m.notes["unresolved"] = f"fall too short to resolve ({int(fall.sum())} samples)"
        return m
    dt = 1.0 / tracks.fps
    span = float(t[use[-1]] - t_r)
    t0_fixed = t_r if how == "case" else None
    t0_range = (float(t[use[0]]) if len(rest) else t_r - 2 * dt, t_r + dt)
    f = fit_drag_fall(t[use], y[use], t0_range, span, sigma, t0_fixed)
    t0, lam, S = f["t0"], f["lam"], f["span"]
    if contact:
        D = float(y[i_low]) - f["y0"]
        T = _time_to(f, float(fall_of(D, lam, S)))
    else:
        D = float(image_of(drag_fall(np.array([t[i_low]]), 0.0, t0, f["g"], f["kappa"]), lam, S)[0])
        T = float(t[i_low] - t0)
    U = float(fall_of(D, lam, S))  # the fall at the release's image scale
    m.notes["interval"] = [int(use[0]), int(i_low) + 1]  # C over what the law observes: rest, fall, contact
    m.events.append(event("ball", "release", float(np.interp(t0, t, idx)), tracks))
    if contact:
        m.events.append(event("ball", "ground_contact", float(np.interp(t0 + T, t, idx)), tracks))
    first = fall & (t <= t0 + T / 3)
    if first.sum() < 6:
        first = fall & (idx < np.flatnonzero(fall)[0] + 6)
    law = f["y0"] + image_of(drag_fall(t, 0.0, t0, f["g"], f["kappa"]), lam, S)  # at rest at t0
    v0, se_v0 = release_speed(t[first & (t >= t0)], (y - law)[first & (t >= t0)], t0, sigma)
    se_v0 = math.hypot(se_v0, f["g"] * f["se_t0"])  # the speed is read at t0, itself known to se_t0
    tf = fall & (t > t0)
    acc, se_acc = interval_accelerations(t[tf], fall_of(y[tf] - f["y0"], lam, S), INTERVALS, sigma)
    for key, val in (("release_time_s", t0), ("fall_time_s", T), ("fall_px", D), ("g_px_s2", f["g"]),
                     ("kappa_per_s", f["kappa"]), ("perspective", lam), ("fit_rms_px", f["rms"]),
                     ("noise_px", sigma), ("release_speed_px_s", v0), ("release_speed_se_px_s", se_v0),
                     ("mean_acceleration_px_s2", 2 * U / T**2 if T > 0 else math.nan)):
        m.set(key, val)
    m.notes.update(accelerations_px_s2=[float(a) for a in acc], acceleration_se_px_s2=[float(s) for s in se_acc],
                   contact_seen=bool(contact), se_g_px_s2=f["se_g"], se_t0_s=f["se_t0"])
    H = fall_height(case)
    if H is not None and contact and T > 0 and D > 0:
        v_end = float(f["g"] / f["kappa"] * math.tanh(f["kappa"] * T)) if f["kappa"] > 1e-9 else f["g"] * T
        se_T = math.hypot(f["se_t0"], sigma / max(v_end, 1e-9))
        # with a camera model in the fit (lam < 0) drag and perspective are not separable: drag up to its bound
        beta = f["kappa"] * T if lam == 0.0 else math.atanh(TANH_MAX)
        g_lo = 2 * H / T**2
        g_hi = g_lo * (beta**2 / (2 * float(lncosh(beta))) if beta > 1e-6 else 1.0)
        m.set("g_lo_m_s2", g_lo)
        m.set("g_hi_m_s2", g_hi)
        m.notes.update(g_lo_se=g_lo * 2 * se_T / T, g_hi_se=g_hi * 2 * se_T / T, fall_height_m=H)
        if f["kappa"] > 1e-9:
            m.set("terminal_speed_m_s", float(case.known.get("g", G)) / f["kappa"])
    return m


def _time_to(f: dict, D: float) -> float:
    """Time after ``t0`` at which the fitted fall has covered ``D`` px (closed form of :func:`drag_fall`)."""
    g, k = f["g"], f["kappa"]
    if g <= 0 or D <= 0:
        return math.nan
    if k < 1e-9:
        return math.sqrt(2 * D / g)
    x = D * k * k / g  # acosh(e^x) without overflow
    return (x + math.log1p(math.sqrt(max(0.0, -math.expm1(-2 * x))))) / k


# --- scores: R1's M1–M4 (formulas in the task's docstring; ``a`` the task's scale) -------------------------


def fit_metric(rms: float, sigma: float, D: float, a: float) -> MetricScore:
    """M1: ``q(beyond_noise(rms/D, σ/D), a)``."""
    if not (math.isfinite(D) and D > 0 and math.isfinite(rms)):
        return MetricScore.operational_zero("no fall distance resolved")
    e = beyond_noise(rms / D, sigma / D)
    return MetricScore.measured(q(e, a), e, rms_px=rms, fall_px=D)


def rest_metric(v0: float, se: float, v_mean: float, a: float) -> MetricScore:
    """M2: ``q(beyond_noise(v0/v_mean, se/v_mean), a)``."""
    if not (math.isfinite(v0) and math.isfinite(v_mean) and v_mean > 0):
        return MetricScore.operational_zero("release speed not resolved")
    e = beyond_noise(v0 / v_mean, se / v_mean)
    return MetricScore.measured(q(e, a), e, v0_px_s=v0, v_mean_px_s=v_mean)


def acceleration_metric(acc: np.ndarray, se: np.ndarray, a_mean: float, a: float) -> MetricScore:
    """M3: the largest growth ``a_{j+1} − a_j`` or upward part ``−a_j`` beyond noise, over ``a_mean``."""
    acc, se = np.asarray(acc, float), np.asarray(se, float)
    if len(acc) < 2 or not np.all(np.isfinite(acc)) or not (math.isfinite(a_mean) and a_mean > 0):
        return MetricScore.operational_zero("too few samples for interval accelerations")
    parts = [beyond_noise(max(0.0, acc[j + 1] - acc[j]), math.hypot(se[j], se[j + 1])) for j in range(len(acc) - 1)]
    parts += [beyond_noise(max(0.0, -aj), s) for aj, s in zip(acc, se)]
    e = max(parts) / a_mean
    return MetricScore.measured(q(e, a), e, growth=max(parts[:len(acc) - 1]) / a_mean,
                                upward=max(parts[len(acc) - 1:]) / a_mean)


def gravity_metric(g_lo: float, g_hi: float, se_lo: float, se_hi: float, a: float, g: float = G) -> MetricScore:
    """M4: distance of ``g`` from ``[g_lo, g_hi]`` (either order) beyond the nearer bound's noise, over ``g``."""
    if not (math.isfinite(g_lo) and math.isfinite(g_hi)):
        return MetricScore.operational_zero("fall time or fall distance not resolved")
    (lo, slo), (hi, shi) = sorted([(g_lo, se_lo), (g_hi, se_hi)])
    gap, se = (lo - g, slo) if g < lo else (g - hi, shi) if g > hi else (0.0, 0.0)
    e = beyond_noise(gap / g, se / g)
    return MetricScore.measured(q(e, a), e, g_lo=g_lo, g_hi=g_hi)
