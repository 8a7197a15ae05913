"""R1 — free fall from a detected release, air drag allowed: a dropped ball starts from rest and its
downward acceleration never grows.

Objects: ``ball`` (any single falling object). ``known`` (all optional): ``fall_height_m`` — the drop of
the ball's centre from release to its first contact (m); or ``floor_to_ceiling_m`` with the ball's own
``known.diameter_m`` (a ball let go touching the ceiling falls ``floor_to_ceiling_m − diameter_m``);
``g`` (default 9.81 m/s²). Without a length the metres-free metrics M1–M3 are scored, with one M4 too.

Law. A real ball feels air drag. Falling from rest with quadratic drag its centre follows

    y(t) = y0 + (g'/κ²)·ln cosh(κ·(t − t0))        (y0 before t0)

in image pixels (``g'`` the initial acceleration in px/s², ``κ = g'/v_t`` with ``v_t`` the terminal speed;
``κ → 0`` is the drag-free parabola). Drag can only reduce the acceleration (``κ ≥ 0``), and a ball is no
feather: the fall ends below ``TANH_MAX`` (90 %) of its terminal speed (``tanh(κ·T) ≤ 0.9``), otherwise a
fall at constant speed would pass as "strong drag".

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

Metrics (each ``q(beyond_noise(e, se), a)``):

- M1 *from-rest drag fall*: ``e1 = rms(y − y_fit) / D``, ``se1 = σ / D``; scale ``A_FIT`` = 1 % of the
  fall distance.
- M2 *starts from rest*: the departure from the fitted law (which is at rest at ``t0``) at release:
  ``r = y − y_fit = c + v0·s + b·s²/2`` (``s = t − t0``) fitted to the first third of the fall;
  ``e2 = v0 / (D/T)``, over the mean fall speed, ``se2`` from the fit's covariance with the measured ``σ``
  and from ``t0``'s (``g'·se_t0``); scale ``A_REST`` = 0.1.
- M3 *acceleration down and never growing*: accelerations ``a_j`` from least-squares velocities of the
  fall ``u`` (the image with the fitted camera undone) on ``INTERVALS`` equal intervals; ``e3`` the
  largest of ``(a_{j+1} − a_j)`` and ``−a_j`` beyond their noise, over the mean acceleration ``2U/T²``;
  scale ``A_ACC`` = 0.1.
- M4 *gravity* (a length ``H`` given and the contact seen), from the fall time and end points only (free
  of the image scale): drag only lengthens a fall, so ``g_lo = 2H/T²`` is at most ``g``; with the fitted
  drag ``β = κ·T``, ``g_hi = g_lo·β²/(2 ln cosh β)`` (``H = (g/κ²) ln cosh(κT)``) is ``g`` when the
  fit's drag is the ball's and more when part of it is a scale shrinking downwards (with the camera model
  in the fit, drag at its bound ``β = atanh 0.9``). ``e4`` = distance of ``g`` from ``[g_lo, g_hi]`` over
  ``g``; scale ``A_G`` = 5 % of ``g``.

Rendered cases: a ball on a thread cut at ``hold_s``, quadratic drag with ``v_t`` 8–40 m/s, seen by a
tilted camera (``known.perspective`` = ``λ`` in ±0.15), ``known`` holding the fall height. Anti twin
(by seed): *ease* — it speeds up then slows to land softly (smoothstep);
*steady* — it falls at constant speed from the cut; *jerk* — its acceleration grows (``d ∝ t³``); each
reaches the ground when the lawful ball does.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law, TrackingPlan
from lawful.suites.recordings.common import REST_SAMPLES, RecordingTask, beyond_noise, release_time, rest_position
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, event, frame_times, interval_slopes, sphere_box,
    steady_xy,
)
from lawful.suites.wmle.p02_free_fall import FreeFall, first_impact
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors

G = 9.81
TANH_MAX = 0.9  # a dropped ball ends its fall below 90 % of its terminal speed
PERSPECTIVE_MAX = 0.2  # |lam| of a camera tilted up to ~10° to a fall filling the picture (H·sinτ / L)
INTERVALS = 4
A_FIT, A_REST, A_ACC, A_G = 0.01, 0.10, 0.10, 0.05
ANTI_KINDS = ("ease", "steady", "jerk")


# --- the law ----------------------------------------------------------------------------------


def _lncosh(z: np.ndarray) -> np.ndarray:
    """``ln cosh z`` without overflow (large ``z``) or cancellation (small ``z``: ``log1p(2 sinh²(z/2))``)."""
    z = np.abs(np.asarray(z, float))
    small = np.log1p(2.0 * np.sinh(np.minimum(z, 1.0) / 2.0) ** 2)
    return np.where(z < 1.0, small, z + np.log1p(np.exp(-2.0 * z)) - math.log(2.0))


def drag_fall(t: np.ndarray, y0: float, t0: float, g: float, kappa: float) -> np.ndarray:
    """Position ``[T]`` of a body let go from rest at ``(t0, y0)`` with initial acceleration ``g`` and quadratic
    drag rate ``kappa = g / v_t`` (1/s; 0 = no drag), any consistent units; ``y0`` before ``t0``."""
    s = np.maximum(np.asarray(t, float) - t0, 0.0)
    if kappa < 1e-9:
        return y0 + 0.5 * g * s * s
    return y0 + g / kappa**2 * _lncosh(kappa * s)


def image_of(u: np.ndarray, lam: float, span: float) -> np.ndarray:
    """Image displacement of a fall displacement ``u`` (px at the release's scale) seen by a tilted camera:
    ``u / (1 + lam·u/span)`` (the projective map of a line; ``lam < 0``: the scale grows along the fall)."""
    return np.asarray(u, float) / (1.0 + lam * np.asarray(u, float) / span)


def fall_of(d: np.ndarray, lam: float, span: float) -> np.ndarray:
    """Inverse of :func:`image_of`: the fall displacement behind image displacement ``d``."""
    return np.asarray(d, float) / (1.0 - lam * np.asarray(d, float) / span)


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


# --- metrics from numbers ---------------------------------------------------------------------


def fit_metric(rms: float, sigma: float, D: float) -> MetricScore:
    """M1: ``q(beyond_noise(rms/D, σ/D), A_FIT)``."""
    if not (math.isfinite(D) and D > 0 and math.isfinite(rms)):
        return MetricScore.operational_zero("no fall distance resolved")
    e = beyond_noise(rms / D, sigma / D)
    return MetricScore.measured(q(e, A_FIT), e, rms_px=rms, fall_px=D)


def rest_metric(v0: float, se: float, v_mean: float) -> MetricScore:
    """M2: ``q(beyond_noise(v0/v_mean, se/v_mean), A_REST)``."""
    if not (math.isfinite(v0) and math.isfinite(v_mean) and v_mean > 0):
        return MetricScore.operational_zero("release speed not resolved")
    e = beyond_noise(v0 / v_mean, se / v_mean)
    return MetricScore.measured(q(e, A_REST), e, v0_px_s=v0, v_mean_px_s=v_mean)


def acceleration_metric(acc: np.ndarray, se: np.ndarray, a_mean: float) -> MetricScore:
    """M3: the largest growth ``a_{j+1} − a_j`` or upward part ``−a_j`` beyond noise, over ``a_mean``."""
    acc, se = np.asarray(acc, float), np.asarray(se, float)
    if len(acc) < 2 or not np.all(np.isfinite(acc)) or not (math.isfinite(a_mean) and a_mean > 0):
        return MetricScore.operational_zero("too few samples for interval accelerations")
    parts = [beyond_noise(max(0.0, acc[j + 1] - acc[j]), math.hypot(se[j], se[j + 1])) for j in range(len(acc) - 1)]
    parts += [beyond_noise(max(0.0, -a), s) for a, s in zip(acc, se)]
    e = max(parts) / a_mean
    return MetricScore.measured(q(e, A_ACC), e, growth=max(parts[:len(acc) - 1]) / a_mean,
                                upward=max(parts[len(acc) - 1:]) / a_mean)


def gravity_metric(g_lo: float, g_hi: float, se_lo: float, se_hi: float, g: float = G) -> MetricScore:
    """M4: distance of ``g`` from ``[g_lo, g_hi]`` (either order) beyond the nearer bound's noise, over ``g``."""
    if not (math.isfinite(g_lo) and math.isfinite(g_hi)):
        return MetricScore.operational_zero("fall time or fall distance not resolved")
    (lo, slo), (hi, shi) = sorted([(g_lo, se_lo), (g_hi, se_hi)])
    gap, se = (lo - g, slo) if g < lo else (g - hi, shi) if g > hi else (0.0, 0.0)
    e = beyond_noise(gap / g, se / g)
    return MetricScore.measured(q(e, A_G), e, g_lo=g_lo, g_hi=g_hi)


class FreeFallDrag(RecordingTask):
    name = "free_fall"
    label = "R1"
    family = FAMILIES[0]
    level = "E"
    required_objects = ("ball",)
    required_events = ("release",)
    optional_known = {"fall_height_m": "drop of the ball's centre from release to first contact (m)",
                      "floor_to_ceiling_m": "ball let go touching the ceiling: with the ball's known.diameter_m",
                      "g": "local gravity (m/s², default 9.81)"}
    plan = TrackingPlan()

    def case_problem(self, case: Case) -> str:
        why = super().case_problem(case)
        if why or "floor_to_ceiling_m" not in case.known or "fall_height_m" in case.known:
            return why
        ball = next(o for o in case.objects if o.id == "ball")
        if "diameter_m" not in ball.known:
            return "objects.ball.known.diameter_m is missing (needed with known.floor_to_ceiling_m)"
        return ""

    # --- drawn cases ----------------------------------------------------------------------------
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        H, vt = float(rng.uniform(1.5, 3.0)), float(rng.uniform(8.0, 40.0))
        r, x = float(rng.uniform(12.0, 16.0)), float(rng.uniform(200.0, 440.0))
        ground_y, top_y = float(rng.uniform(322.0, 336.0)), float(rng.uniform(40.0, 56.0))
        hold, lam = float(rng.uniform(0.25, 0.4)), float(rng.uniform(-0.15, 0.15))
        T = vt / G * math.acosh(math.exp(H * G / vt**2))
        color = object_colors(seed, 1)[0]
        case = Case(
            id=self.case_id(index), suite="recordings", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=round(hold + T + 0.5, 4),
            prompt=(f"Fixed side view. A ball hangs on a thread {H:.1f} metres above the floor. The thread is cut "
                    "and the ball falls straight down to the floor."),
            objects=[ObjectSpec(id="ball", shape="sphere", color=color, box=sphere_box(x, top_y, r),
                                known={"radius_px": r})],
            assumptions=["released from rest", "air drag", "uniform gravity", "fixed side view"],
            criteria=["M1: from-rest drag fall", "M2: starts from rest", "M3: acceleration down, never growing",
                      "M4: g within the drag bracket"],
            known={"fall_height_m": H, "g": G, "vt_m_s": vt, "fall_time_s": T, "hold_s": hold, "x": x,
                   "top_y": top_y, "ground_y": ground_y, "radius_px": r, "color": list(color), "style_seed": seed,
                   "perspective": lam, "anti": ANTI_KINDS[seed % len(ANTI_KINDS)]},
        )
        t = frame_times(case)
        rows = [(float(a), x, float(b)) for a, b in zip(t, self._y(case, t, "true"))]
        case.truth = GroundTruth(tracks={"ball": rows},
                                 events={"release": hold, "ground_contact": hold + T},
                                 quantities={"g_px_s2": G * (ground_y - r - top_y) / H})
        return case, next(self.render(case))

    def _y(self, case: Case, t: np.ndarray, law: Law) -> np.ndarray:
        k = case.known
        D, T = k["ground_y"] - k["radius_px"] - k["top_y"], k["fall_time_s"]
        s = np.clip(np.asarray(t, float) - k["hold_s"], 0.0, T)
        u = s / T
        if law == "true":
            g = k["g"] * D / k["fall_height_m"]
            d = drag_fall(s, 0.0, 0.0, g, k["g"] / k["vt_m_s"])
        elif k["anti"] == "ease":
            d = D * (3 * u**2 - 2 * u**3)
        elif k["anti"] == "steady":
            d = D * u
        else:
            d = D * u**3
        lam = k.get("perspective", 0.0)  # a tilted camera: the image scale changes along the fall
        return k["top_y"] + D * image_of(np.minimum(d, D), lam, D) / image_of(D, lam, D)

    render = FreeFall.render  # P2's scene (ball on a thread below a bar, cut at hold_s) drawn along self._y

    # --- measurement ----------------------------------------------------------------------------
    def extract(self, case: Case, tracks: Tracks) -> Measurement:
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
            g_hi = g_lo * (beta**2 / (2 * float(_lncosh(beta))) if beta > 1e-6 else 1.0)
            m.set("g_lo_m_s2", g_lo)
            m.set("g_hi_m_s2", g_hi)
            m.notes.update(g_lo_se=g_lo * 2 * se_T / T, g_hi_se=g_hi * 2 * se_T / T, fall_height_m=H)
            if f["kappa"] > 1e-9:
                m.set("terminal_speed_m_s", float(case.known.get("g", G)) / f["kappa"])
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {k: MetricScore.operational_zero(why) for k in ("M1", "M2", "M3")}
        D, T, sigma = m.get("fall_px"), m.get("fall_time_s"), m.get("noise_px")
        out = {"M1": fit_metric(m.get("fit_rms_px"), sigma, D),
               "M2": rest_metric(m.get("release_speed_px_s"), m.get("release_speed_se_px_s"), D / T),
               "M3": acceleration_metric(m.notes["accelerations_px_s2"], m.notes["acceleration_se_px_s2"],
                                         m.get("mean_acceleration_px_s2"))}
        if fall_height(case) is not None:
            if m.get("g_lo_m_s2") is None:
                out["M4"] = MetricScore.undefined("the first contact is not seen: no fall time for g")
            else:
                out["M4"] = gravity_metric(m.get("g_lo_m_s2"), m.get("g_hi_m_s2"), m.notes["g_lo_se"],
                                           m.notes["g_hi_se"], float(case.known.get("g", G)))
        return out


def _time_to(f: dict, D: float) -> float:
    """Time after ``t0`` at which the fitted fall has covered ``D`` px (closed form of :func:`drag_fall`)."""
    g, k = f["g"], f["kappa"]
    if g <= 0 or D <= 0:
        return math.nan
    if k < 1e-9:
        return math.sqrt(2 * D / g)
    x = D * k * k / g  # acosh(e^x) without overflow
    return (x + math.log1p(math.sqrt(max(0.0, -math.expm1(-2 * x))))) / k
