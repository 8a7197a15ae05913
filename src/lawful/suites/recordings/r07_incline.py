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
from lawful.suites.base import Law
from lawful.suites.recordings._slides import (
    G, STAY_S, block_centres, constancy_metric, incline_measurement, leg_fits, predicted_ratio, ratio_metric,
    turnaround_metric,
)
from lawful.suites.recordings.common import RecordingTask, unresolved_scores
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, frame_times
from lawful.suites.wmle.p11_rough_incline_round_trip import RoughInclineRoundTrip, block_item
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.recordings import incline_motion

A_RATIO, A_CONST, A_TURN = 0.10, 0.20, 0.10  # q scales of M1, M2, M3


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
        t_leg = float(rng.uniform(1.3, 1.6) if kind == "down" else rng.uniform(1.1, 1.35))  # the push or the descent
        twin = float(rng.uniform(0.9, 1.1)) if kind == "round" else None  # the twin's a_up / a_down on a round trip
        mo = incline_motion(kind, th, mu, G, travel, stop, t_leg, twin, STAY_S + 0.3)
        a_up, R, t_up = mo["a_up"], mo["R"], mo["t_up"]
        duration = math.ceil((launch + t_up + mo["t_after"] + 0.5) * 4) / 4
        color = object_colors(seed, 1)[0]
        k = {"g": G, "mu": round(mu, 5), "theta_deg": round(theta, 4), "ground_y": round(ground_y, 2),
             "foot_x": round(foot_x, 2), "span_px": round(span, 3), "block_w": round(bw, 3), "block_h": round(bh, 3),
             "post_px": post, "stop_px": round(stop, 4), "start_px": round(mo["start"], 4),
             "launch_s": round(launch, 4), "v0_px_s": round(mo["v0"], 5), "a_up_px_s2": round(a_up, 5),
             "R_star": R if math.isfinite(R) else None, "kind": kind, "px_per_m": round(mo["px_per_m"], 5),
             "color": list(color), "style_seed": int(seed), "anti_ratio": round(mo["anti"], 5),
             "anti_note": "twin: the descent accelerates at a_up / anti_ratio (about a_up on a round trip; "
                          "frictionless where the block should stay or from rest)"}
        x0, y0, x1, y1 = block_item(k, mo["start"]).bbox()
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
        c = block_centres(k, t, "true", 0.5 * bh)
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
        legs = leg_fits(m)
        theta, mu = math.radians(m.get("theta_deg")), float(case.known["mu"])
        k = noise.k_for()
        goes_up = bool(m.notes.get("goes_up"))
        if goes_up and "up" not in legs:
            why = "the ascent is too short to fit"
            return {f"M{i}": MetricScore.operational_zero(why) for i in (1, 2, 3)}
        px = case.known.get("px_per_m")
        m1 = ratio_metric(legs.get("up"), legs.get("down"), theta, mu, k, A_RATIO,
                          None if px is None else float(px), float(case.known.get("g", G)))
        if not goes_up and "down" not in legs:
            m1 = MetricScore.operational_zero("the descent is too short to fit")
        return {"M1": m1, "M2": constancy_metric(list(legs.values()), A_CONST),
                "M3": turnaround_metric(m, legs, theta, mu, A_TURN)}
