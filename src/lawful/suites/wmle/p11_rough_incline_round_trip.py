"""P11 — sliding up and down a rough incline (WMLE appendix B.2).

A block is pushed up an incline of about 30° with kinetic friction coefficient μ = 0.20; it slows,
stops and slides back down. Friction opposes the motion both ways, so the deceleration going up,
``g (sin θ + μ cos θ)``, exceeds the acceleration coming down, ``g (sin θ - μ cos θ)``.

- M1 ``R* = (sin θ + 0.20 cos θ) / (sin θ - 0.20 cos θ)`` with the measured incline angle θ,
  ``e1 = |(a_up / a_down) / R* - 1|``, ``s1 = q(e1; 0.10)``. A confirmed ascent-only event (the
  block goes up, stops and stays up for at least 0.5 s to the end of the clip) scores ``s1 = 0.1``.
  M2 is not defined.

Extraction: the block's distance ``s(t)`` along its path (projection of the centroid's displacement
on the path's principal direction, positive up the slope); θ is the path's angle to the image
horizontal. The apex is the highest sample; ``a_up`` and ``a_down`` are ``-2 c₂`` of quadratic fits
to the ascent (after the launch sample, before the apex sample) and to the descent (after the apex
sample, before the block comes to rest at the bottom). The two stretches are fitted jointly
(:func:`round_trip_fit`): the block stops at the apex, so both parabolas share their vertex (time and
position) and the fit's parameters are ``a_up`` and the ratio itself, whose standard error follows
from the fit's residual scatter. The fits are robust (soft L1 past 0.5 px): heavy compression moves a
few centroids by 1-2 px, which plain least squares lets bend a curvature.

Uncertainty: ``e1`` is scored exactly as the seed defines it; the evidence adds ``k σ_e`` (``σ_e`` the
ratio's standard error combined with that of ``R*`` from the path angle's standard error, ``k`` for
:data:`lawful.perceive.noise.FALSE_ALARM`) and ``e1_beyond_noise = max(0, e1 - k σ_e)``, the part of
the error the measurement's own noise cannot explain (at a few tenths of a pixel of centroid noise the
ratio of two fitted curvatures is known to about half a percent).

Twin: the descent mirrors the ascent with ``a_up / a_down = anti_ratio`` (0.9–1.15) instead of R*,
as on a frictionless slope.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from scipy.optimize import least_squares

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.draw import Block, Scene

G = 9.81
MU = 0.20
MOVE_PX = 2.0
MIN_FIT_SAMPLES = 5
ROBUST_PX = 0.5  # residual (px) past which a sample weighs less in the fits (soft L1)
STAY_S = 0.5  # an ascent-only event: the block rests at its highest point at least this long


def friction_ratio(theta: float, mu: float = MU) -> float:
    """``R* = (sin θ + μ cos θ) / (sin θ - μ cos θ)``; NaN where the block could not slide down."""
    den = math.sin(theta) - mu * math.cos(theta)
    return (math.sin(theta) + mu * math.cos(theta)) / den if den > 0 else math.nan


def round_trip_ratio(a_up: float | None, a_down: float | None, theta: float | None,
                     sigma_rel: float = 0.0) -> MetricScore:
    """M1: ``e1 = |(a_up / a_down) / R*(θ) - 1|``; ``s1 = q(e1; 0.10)``.

    ``sigma_rel``: relative standard error of ``(a_up / a_down) / R*`` (evidence only: ``uncertainty`` and
    ``e1_beyond_noise``).
    """
    if a_up is None or a_down is None or theta is None:
        return MetricScore.operational_zero("ascent or descent acceleration not resolved")
    R = friction_ratio(theta)
    if not math.isfinite(R):
        return MetricScore.operational_zero(f"measured incline angle {math.degrees(theta):.1f}° too shallow "
                                            "for the block to slide down")
    if a_up <= 0 or a_down <= 0:
        return MetricScore.measured(0.0, math.inf, "rule: no deceleration up or no acceleration down",
                                    a_up=a_up, a_down=a_down, R_star=R)
    e1 = abs((a_up / a_down) / R - 1.0)
    allow = noise.k_for() * max(0.0, sigma_rel) * (a_up / a_down) / R
    return MetricScore.measured(q(e1, 0.10), e1, ratio=a_up / a_down, R_star=R, theta_deg=math.degrees(theta),
                                uncertainty=allow, e1_beyond_noise=max(0.0, e1 - allow))


def ascent_only() -> MetricScore:
    """The rule for a confirmed ascent-only event: ``s1 = 0.1``."""
    return MetricScore.measured(0.1, None, "rule: confirmed ascent-only event")


def path_coordinate(tracks: Tracks, oid: str) -> tuple[np.ndarray, float] | None:
    """Distance (px) ``[T]`` along the block's path, positive in the direction it first moves (NaN
    where unseen), and the path's angle (rad) to the image horizontal."""
    tr = tracks[oid]
    vis = np.asarray(tr.visible, bool)
    if vis.sum() < 8:
        return None
    xy = tr.xy[vis]
    d = xy - xy[0]
    _, _, vt = np.linalg.svd(d - d.mean(0), full_matrices=False)
    u = vt[0]
    s = d @ u
    first = np.flatnonzero(np.abs(s) > MOVE_PX)
    if len(first) and s[first[0]] < 0:
        s, u = -s, -u
    out = np.full(len(vis), np.nan)
    out[vis] = s
    return out, math.atan2(abs(u[1]), abs(u[0]))


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
    scatter = noise.MAD_TO_STD * float(np.median(np.abs(res - np.median(res))))
    dof = len(t) - len(p0)
    try:
        cov = np.linalg.inv(J.T @ J) * scatter**2 * len(t) / max(dof, 1)
    except np.linalg.LinAlgError:
        return None
    a_up, r = float(fit.x[2]), math.exp(float(fit.x[3]))
    return a_up, a_up / r, float(math.sqrt(max(cov[3, 3], 0.0)))


def ratio_angle_slope(theta: float, mu: float = MU) -> float:
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


# ----------------------------------------------------------------------------- scene and motion


def slope_frame(k: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Foot of the incline, unit vector up the slope and outward normal (px)."""
    th = math.radians(k["theta_deg"])
    return (np.array([k["foot_x"], k["ground_y"]]), np.array([math.cos(th), -math.sin(th)]),
            np.array([-math.sin(th), -math.cos(th)]))


def slide_px(k: dict, t: np.ndarray, law: str) -> np.ndarray:
    """Block centre's distance up the slope from the foot (px) at times ``t``: at rest, launched at
    ``launch_s``, up to the apex, back down to the stop post, at rest."""
    t = np.asarray(t, float)
    a_up = k["a_up_px_s2"]
    a_down = a_up / (k["anti_ratio"] if law == "anti" else k["R_star"])
    v0 = k["v0_px_s"]
    tau = t - k["launch_s"]
    t_apex = v0 / a_up
    s_apex = k["start_px"] + v0 * v0 / (2 * a_up)
    up = k["start_px"] + v0 * tau - 0.5 * a_up * tau * tau
    down = s_apex - 0.5 * a_down * (tau - t_apex) ** 2
    s = np.where(tau <= 0, k["start_px"], np.where(tau <= t_apex, up, np.maximum(down, k["stop_px"])))
    return s


def block_item(k: dict, s: float) -> Block:
    foot, u, n = slope_frame(k)
    c = foot + s * u + 0.5 * k["block_h"] * n
    return Block(float(c[0]), float(c[1]), k["block_w"], k["block_h"], -math.radians(k["theta_deg"]),
                 tuple(k["color"]))


class RoughInclineRoundTrip(WmleTask):
    """A block pushed up a rough 30° incline slides back down (μ = 0.20)."""

    name = "rough_incline_round_trip"
    label = "P11"
    family = FAMILIES[1]
    level = "H"
    required_objects = ("block",)
    required_events = ("launch", "apex")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        theta = float(rng.uniform(27.0, 33.0))
        th = math.radians(theta)
        ground_y = float(rng.uniform(320.0, 336.0))
        foot_x = float(rng.uniform(40.0, 70.0))
        span = min(540.0, (ground_y - 24.0) / math.tan(th))
        length = span / math.cos(th)
        bw, bh = float(rng.uniform(36.0, 44.0)), float(rng.uniform(22.0, 28.0))
        post = 6.0
        stop = post + bw / 2
        start = stop + 8.0
        travel = float(rng.uniform(0.62, 0.74)) * (length - start - bw / 2)
        t_up = float(rng.uniform(1.2, 1.4))
        a_up_px = 2 * travel / t_up**2
        R = friction_ratio(th)
        a_up_m = G * (math.sin(th) + MU * math.cos(th))
        launch = float(rng.uniform(0.25, 0.4))
        t_down = math.sqrt(2 * (travel + start - stop) * R / a_up_px)
        duration = math.ceil((launch + t_up + t_down + 0.5) * 4) / 4
        anti = float(rng.uniform(0.9, 1.15))
        color = object_colors(seed, 1)[0]
        k = {
            "g": G, "mu": MU, "theta_deg": round(theta, 4), "ground_y": round(ground_y, 2), "foot_x": round(foot_x, 2),
            "span_px": round(span, 3), "block_w": round(bw, 3), "block_h": round(bh, 3), "post_px": post,
            "stop_px": round(stop, 4), "start_px": round(start, 4), "launch_s": round(launch, 4),
            "v0_px_s": round(a_up_px * t_up, 5), "a_up_px_s2": round(a_up_px, 5), "R_star": R,
            "px_per_m": round(a_up_px / a_up_m, 5), "color": list(color), "style_seed": int(seed),
            "anti_ratio": round(anti, 5),
            "anti_note": "twin: the descent acceleration is a_up / anti_ratio instead of a_up / R_star",
        }
        first = block_item(k, start)
        x0, y0, x1, y1 = first.bbox()
        objects = [ObjectSpec(id="block", shape="block", color=tuple(color), box=(x0 - 1, y0 - 1, x1 + 1, y1 + 1),
                              known={"mu": MU})]
        prompt = (
            f"Fixed side view of a straight wooden incline rising to the right at about {theta:.0f} degrees, with a "
            "small stop post at its lower end. A rectangular block rests on the slope just above the post. The "
            "surface is rough: the kinetic friction coefficient between block and slope is 0.20. After a "
            "moment the block is given one quick push up the slope; it slides up, slows down, stops, then "
            "slides back down to the post. The camera does not move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=objects,
            assumptions=["kinetic friction coefficient 0.20 both ways", "incline about 30 degrees",
                         "one push at the start, then free sliding", "fixed side view, uniform time"],
            criteria=["M1: (a_up / a_down) / R*(theta) = 1 (q, a = 0.10); ascent only scores 0.1"], known=k)
        t = frame_times(case)
        foot, u, n = slope_frame(k)
        s = slide_px(k, t, "true")
        c = foot[None] + s[:, None] * u[None] + 0.5 * bh * n[None]
        case.truth = GroundTruth(
            tracks={"block": [(round(float(a), 5), round(float(x), 3), round(float(y), 3)) for a, (x, y) in zip(t, c)]},
            events={"launch": launch, "apex": launch + t_up},
            quantities={"R_star": R, "a_up_px_s2": a_up_px, "a_down_px_s2": a_up_px / R, "e1": 0.0,
                        "anti_e1": abs(anti / R - 1)})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        foot, u, n = slope_frame(k)
        th = math.radians(k["theta_deg"])
        top = (k["foot_x"] + k["span_px"], k["ground_y"] - k["span_px"] * math.tan(th))
        scene.ramp([tuple(foot), top, (top[0], k["ground_y"])])
        h = 0.8 * k["block_h"]
        scene.ramp([tuple(foot), tuple(foot + h * n), tuple(foot + h * n + k["post_px"] * u),
                    tuple(foot + k["post_px"] * u)])
        for s in slide_px(k, frame_times(case), law):
            yield scene.frame([block_item(k, float(s))])

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        got = path_coordinate(tracks, "block")
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
        m.events.append(event("block", "launch", float(i_launch), tracks))
        i_apex = int(np.nanargmax(np.where(np.arange(len(s)) >= i_launch, s, np.nan)))
        last = int(np.flatnonzero(np.isfinite(s))[-1])
        if i_apex >= last:
            m.notes["unresolved"] = "block still rising at the end of the clip"
            return m
        m.events.append(event("block", "apex", float(i_apex), tracks, float(s[i_apex])))
        rise = float(s[i_apex])
        up = np.arange(i_launch + 1, i_apex)
        tol = max(MOVE_PX, 0.05 * rise)
        after = np.arange(i_apex + 1, last + 1)
        left = after[np.isfinite(s[after]) & (s[after] < s[i_apex] - tol)]
        if len(left) == 0:
            stay_t = float(t[last] - t[i_apex])
            if stay_t >= STAY_S:
                m.notes["ascent_only"] = True
                m.events.append(event("block", "rest_at_top", float(i_apex), tracks))
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
        m.events.append(event("block", "descent", float(i_end - 1), tracks))
        se_R = abs(ratio_angle_slope(theta)) * angle_error(tracks, "block", s, theta)
        m.set("ratio_rel_se", math.hypot(se_ratio, se_R))
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        if m.notes.get("ascent_only"):
            return {"M1": ascent_only()}
        th = m.get("theta_deg")
        return {"M1": round_trip_ratio(m.get("a_up_px_s2"), m.get("a_down_px_s2"),
                                       math.radians(th) if th is not None else None, m.get("ratio_rel_se") or 0.0)}
