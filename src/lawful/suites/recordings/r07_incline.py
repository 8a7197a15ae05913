"""R7 — a block on a rough incline of known μ: slides up, stops, slides down (or only down).

Object ``block``. Known: ``mu`` (kinetic friction coefficient, required), ``angle_deg`` (the incline;
default: the angle of the block's path to the image horizontal), ``px_per_m`` and ``g`` (optional;
needed only to score a descent without an ascent). Friction opposes the motion both ways: up the
slope the block decelerates at ``a_u = g(sin θ + μ cos θ)``, down it accelerates at
``a_d = g(sin θ − μ cos θ)``; if ``μ ≥ tan θ`` it stops at the top and stays.

Extraction (the path coordinate ``s(t)`` up the slope, release, apex, each leg's quadratic ``a = −2c₂`` and
cubic, standard errors from the measured noise ``σ``): :mod:`lawful.suites.recordings._slides`.

- M1 ratio (calibration-free): ``e1 = (a_d / a_u) / r* − 1`` with ``r* = (sin θ − μ cos θ) / (sin θ +
  μ cos θ)``, ``se1`` from the legs' standard errors; ``s1 = q(beyond_noise(e1, se1), 0.10)``. No
  deceleration going up (or speeding up), or a descent where ``μ ≥ tan θ`` forbids it: 0 (rule).
  A descent alone: ``a_d / (g(sin θ − μ cos θ)·px_per_m) − 1`` when ``px_per_m`` is known, else undefined.
- M2 constant acceleration: per leg of ≥ 8 samples the change of acceleration across it, ``6 c₃ T``
  of a cubic (``T`` the leg's span), relative to ``max(a_u, a_d)``, beyond its noise; the largest;
  ``s2 = q(e2, 0.20)``.
- M3 turnaround: ``μ ≥ tan θ``: the block stays, ``e3`` = its descent after the apex over the rise;
  ``μ < tan θ``: it slides back (``e3 = 0``), or, resting ``≥ STAY_S`` at the top, ``e3 = 1 − d/d*``
  with ``d* = ½ a_u r* T²`` the descent due in the time ``T`` watched; ``s3 = q(beyond_noise(e3, se3), 0.10)``.
  A descent from rest where ``μ ≥ tan θ``: 0. Undefined for a descent from rest otherwise.

Too little motion, an apex at the end of the clip or legs of fewer than ``MIN_LEG`` samples: the
metrics that need them are operational zeros (unmeasurable), never violations. Twin: the descent at
``a_u / anti_ratio`` — ``anti_ratio`` ≈ 1 for a round trip (the same acceleration both ways), the
frictionless ``(sin θ + μ cos θ) / sin θ`` where the block should stay or descend from rest.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.recordings._slides import CUBIC_LEG, MIN_LEG, incline_measurement  # noqa: F401  (MIN_LEG: docs)
from lawful.suites.recordings.common import RecordingTask, beyond_noise, unresolved_scores
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, frame_times
from lawful.suites.wmle.p11_rough_incline_round_trip import RoughInclineRoundTrip, block_item, slide_px, slope_frame
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors

G = 9.81
STAY_S = 0.5  # resting this long at the top counts as staying
A_RATIO, A_CONST, A_TURN = 0.10, 0.20, 0.10  # q scales of M1, M2, M3


def predicted_ratio(theta: float, mu: float) -> float:
    """``r* = a_d / a_u = (sin θ − μ cos θ) / (sin θ + μ cos θ)`` (≤ 0: the block cannot slide down)."""
    return (math.sin(theta) - mu * math.cos(theta)) / (math.sin(theta) + mu * math.cos(theta))


def ratio_metric(up: dict | None, down: dict | None, theta: float, mu: float, k: float,
                 px_per_m: float | None = None, g: float = G) -> MetricScore:
    """M1 (see the module docstring)."""
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
        return MetricScore.measured(q(beyond_noise(e1, down["se"] / pred), A_RATIO), e1, a_down=down["a"], a_pred=pred)
    if up["a"] <= k * up["se"]:
        return MetricScore.measured(0.0, math.inf, "rule: no deceleration going up", a_up=up["a"])
    if down["a"] <= k * down["se"]:
        return MetricScore.measured(0.0, math.inf, "rule: no acceleration coming down", a_down=down["a"])
    r = down["a"] / up["a"]
    e1 = r / r_star - 1.0
    se1 = abs(r / r_star) * math.hypot(down["se"] / down["a"], up["se"] / up["a"])
    return MetricScore.measured(q(beyond_noise(e1, se1), A_RATIO), e1, ratio=r, r_star=r_star, se=se1,
                                a_up=up["a"], a_down=down["a"])


def constancy_metric(legs: list[dict]) -> MetricScore:
    """M2: the largest change of acceleration across a leg, relative to the larger leg acceleration."""
    scale = max((abs(g["a"]) for g in legs), default=0.0)
    cubic = [g for g in legs if "da" in g]
    if not cubic or scale <= 0:
        return MetricScore.undefined(f"no leg of {CUBIC_LEG} samples or more")
    parts = [(beyond_noise(g["da"] / scale, g["se_da"] / scale), abs(g["da"]) / scale) for g in cubic]
    worst = max(parts)
    return MetricScore.measured(q(worst[0], A_CONST), worst[1])


def slide(k: dict, t: np.ndarray, law: Law) -> np.ndarray:
    """The block's distance up the slope (px) at times ``t``: P11's :func:`slide_px`; ``R_star`` None = it stays."""
    return slide_px(k if k["R_star"] is not None else {**k, "R_star": math.inf}, t, law)


class Incline(RecordingTask):
    """A block on a rough incline of known μ: up, stop, down (or only down)."""

    name = "incline"
    label = "R7"
    family = FAMILIES[1]
    level = "M"
    required_objects = ("block",)
    required_events = ("release",)
    required_known = {"mu": "kinetic friction coefficient between block and incline"}
    optional_known = {"angle_deg": "incline angle (default: measured from the block's path)",
                      "px_per_m": "image scale, needed to score a descent without an ascent",
                      "g": "local gravity (m/s², default 9.81)"}

    # --- case and clips ---------------------------------------------------------------------------
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        kind = ("round", "stay", "round", "down")[index % 4]
        if kind == "stay":
            theta = float(rng.uniform(14.0, 22.0))
            mu = float(rng.uniform(1.15, 1.5)) * math.tan(math.radians(theta))
        else:
            theta = float(rng.uniform(22.0, 35.0))
            mu = float(rng.uniform(0.1, (0.75 if kind == "round" else 0.6) * math.tan(math.radians(theta))))
        th = math.radians(theta)
        ground_y, foot_x = float(rng.uniform(320.0, 336.0)), float(rng.uniform(40.0, 70.0))
        span = min(540.0, (ground_y - 24.0) / math.tan(th))
        length = span / math.cos(th)
        bw, bh = float(rng.uniform(36.0, 44.0)), float(rng.uniform(22.0, 28.0))
        post = 6.0
        stop = post + bw / 2
        travel = float(rng.uniform(0.62, 0.74)) * (length - stop - 8.0 - bw / 2)
        launch = float(rng.uniform(0.25, 0.4))
        up_m, down_m = G * (math.sin(th) + mu * math.cos(th)), G * (math.sin(th) - mu * math.cos(th))
        frictionless = (math.sin(th) + mu * math.cos(th)) / math.sin(th)
        if kind == "down":
            t_down = float(rng.uniform(1.3, 1.6))
            a_down = 2 * travel / t_down**2
            a_up, v0, start = a_down * up_m / down_m, 0.0, stop + 8.0 + travel
            R, t_up, anti = up_m / down_m, 0.0, frictionless
        else:
            t_up = float(rng.uniform(1.1, 1.35))
            a_up = 2 * travel / t_up**2
            v0, start = a_up * t_up, stop + 8.0
            R = up_m / down_m if kind == "round" else math.inf
            anti = float(rng.uniform(0.9, 1.1)) if kind == "round" else frictionless
        back = R if kind == "round" else anti  # a_up / a_down of the slower descent (law or twin)
        t_back = 0.0 if kind == "down" else math.sqrt(2 * (travel + start - stop) * back / a_up)
        duration = math.ceil((launch + t_up + (t_down if kind == "down" else max(t_back, STAY_S + 0.3)) + 0.5) * 4) / 4
        color = object_colors(seed, 1)[0]
        k = {"g": G, "mu": round(mu, 5), "theta_deg": round(theta, 4), "ground_y": round(ground_y, 2),
             "foot_x": round(foot_x, 2), "span_px": round(span, 3), "block_w": round(bw, 3), "block_h": round(bh, 3),
             "post_px": post, "stop_px": round(stop, 4), "start_px": round(start, 4), "launch_s": round(launch, 4),
             "v0_px_s": round(v0, 5), "a_up_px_s2": round(a_up, 5), "R_star": R if math.isfinite(R) else None,
             "kind": kind, "px_per_m": round(a_up / up_m, 5), "color": list(color), "style_seed": int(seed),
             "anti_ratio": round(anti, 5),
             "anti_note": "twin: the descent accelerates at a_up / anti_ratio (about a_up on a round trip; "
                          "frictionless where the block should stay or from rest)"}
        x0, y0, x1, y1 = block_item(k, start).bbox()
        what = {"round": "is given one quick push up the slope; it slides up, stops and slides back down",
                "stay": "is given one quick push up the slope; it slides up and stops",
                "down": "is released and slides down the slope"}[kind]
        case = Case(
            id=self.case_id(index), suite="recordings", task=self.name, seed=int(seed), variant=f"{kind}-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, known=k,
            objects=[ObjectSpec(id="block", shape="block", color=tuple(color), box=(x0 - 1, y0 - 1, x1 + 1, y1 + 1))],
            prompt=(f"Fixed side view of a straight incline at {theta:.0f} degrees with a stop post at its foot. "
                    f"A block on the slope (kinetic friction coefficient {mu:.2f}) {what}."),
            assumptions=[f"kinetic friction coefficient {mu:.3f}", "fixed side view, uniform time"],
            criteria=["M1: a_down / a_up = (sin - mu cos) / (sin + mu cos)", "M2: constant acceleration per leg",
                      "M3: stops at the top if mu >= tan(theta), else slides back"])
        t = frame_times(case)
        foot, u, n = slope_frame(k)
        s = slide(k, t, "true")
        c = foot[None] + s[:, None] * u[None] + 0.5 * bh * n[None]
        case.truth = GroundTruth(
            tracks={"block": [(round(float(a), 5), round(float(x), 3), round(float(y), 3)) for a, (x, y) in zip(t, c)]},
            events={"release": launch, **({"apex": launch + t_up} if kind != "down" else {})},
            quantities={**({"a_up_px_s2": a_up} if kind != "down" else {}), "a_down_px_s2": a_up / R,
                        "r_star": predicted_ratio(th, mu)})  # no ascent from rest: no a_up (NaN is not JSON)
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        """P11's scene and motion (:func:`slide`): ``R_star`` None (the block stays) becomes an infinite ratio."""
        k = case.known
        yield from RoughInclineRoundTrip().render(
            case if k["R_star"] is not None else case.model_copy(update={"known": {**k, "R_star": math.inf}}), law)

    # --- measurement ---------------------------------------------------------------------------------
    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return incline_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if (zeros := unresolved_scores(m, ("M1", "M2", "M3"))) is not None:
            return zeros
        legs = {name: {key: m.get(f"{name}_{key}") for key in ("a", "se", "span", "n", "da", "se_da")
                       if m.get(f"{name}_{key}") is not None}
                for name in ("up", "down") if m.get(f"{name}_a") is not None}
        theta, mu = math.radians(m.get("theta_deg")), float(case.known["mu"])
        k = noise.k_for()
        goes_up = bool(m.notes.get("goes_up"))
        if goes_up and "up" not in legs:
            why = "the ascent is too short to fit"
            return {f"M{i}": MetricScore.operational_zero(why) for i in (1, 2, 3)}
        px = case.known.get("px_per_m")
        m1 = ratio_metric(legs.get("up"), legs.get("down"), theta, mu, k,
                          None if px is None else float(px), float(case.known.get("g", G)))
        if not goes_up and "down" not in legs:
            m1 = MetricScore.operational_zero("the descent is too short to fit")
        return {"M1": m1, "M2": constancy_metric(list(legs.values())), "M3": self._turnaround(m, legs, theta, mu)}

    @staticmethod
    def _turnaround(m: Measurement, legs: dict, theta: float, mu: float) -> MetricScore:
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
            return MetricScore.measured(q(beyond_noise(e3, se), A_TURN), e3,
                                        reason="mu >= tan(theta): stays at the top")
        if "down" in legs:
            return MetricScore.measured(1.0, 0.0, reason="mu < tan(theta): slides back")
        if watched < STAY_S:
            return MetricScore.operational_zero(f"watched {watched:.2f} s after the apex, < {STAY_S} s")
        d_star = 0.5 * legs["up"]["a"] * r_star * watched**2
        e3 = max(0.0, 1.0 - d / d_star)
        return MetricScore.measured(q(beyond_noise(e3, sig * math.sqrt(2) / d_star), A_TURN), e3,
                                    reason="mu < tan(theta) but it stays at the top")
