"""P1 — successive bounce heights: height- and timing-based restitution must agree, heights must not grow.

A ball dropped from rest bounces on a hard floor. For adjacent complete rebounds ``r_h = h_next/h_prev``,
``e_h* = sqrt(r_h)`` and ``e_t* = Δt_next/Δt_prev`` (flight times between impacts). Under a constant
restitution coefficient both equal it.

Extraction: impacts are the lowest points of the tracked centre; each flight between impacts is fitted
with a parabola ``y(t)``; consecutive parabolas intersect at the impact (time and floor level), so
flight times and apex heights above the floor level come out at sub-frame precision without knowing
where the floor is.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import events as ev
from lawful.result import Measurement
from lawful.score.wmle import cv, geometric_mean, q
from lawful.suites.base import Law
from lawful.suites.wmle._bounces import _meet, bounce_measurement  # noqa: F401  (recordings.r02 uses _meet)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.physics import bounce_impact_times
from lawful.world.scenes.bounces import bounce_y, bouncing_ball_frames

G = 9.81
SPECIAL_SINGLE_MOTION = 0.1


def bounce_metrics(heights: list[float], flights: list[float]) -> dict[str, MetricScore]:
    """M1 and M2 from apex heights ``[n]`` of consecutive complete rebounds and their flight times ``[n]``.

    Needs n ≥ 2. M1 = G(q(e1; 0.18), q(e_p; 0.15)); M2 = G(q(e2; 0.15), q(c; 0.35)) with c = CV of the
    per-bounce restitution estimates e_h* (measurable with ≥ 2 of them), else q(e2; 0.15).
    """
    h = np.asarray(heights, float)
    dt = np.asarray(flights, float)
    r_h = h[1:] / h[:-1]
    e_h = np.sqrt(r_h)
    e_t = dt[1:] / dt[:-1]
    e1 = float(np.mean(np.abs(e_h - e_t)))
    e_p = float(np.mean(np.maximum(0.0, e_h - 1.0)))
    s1 = geometric_mean([q(e1, 0.18), q(e_p, 0.15)])
    e2 = float(np.mean(np.maximum(0.0, r_h - 1.0)))
    c = cv(e_h) if len(e_h) >= 2 else math.nan
    if math.isfinite(c):
        s2 = geometric_mean([q(e2, 0.15), q(c, 0.35)])
    else:
        s2 = q(e2, 0.15)
    return {
        "M1": MetricScore.measured(s1, e1, e_p=e_p),
        "M2": MetricScore.measured(s2, e2, c=c if math.isfinite(c) else None),
    }


class BounceHeightDecay(WmleTask):
    name = "bounce_height_decay"
    label = "P1"
    family = FAMILIES[0]
    level = "E"
    required_objects = ("ball",)
    required_events = ("impact", "rebound_apex")

    # --- case ------------------------------------------------------------------------------
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        e = float(rng.uniform(0.78, 0.88))
        h0 = float(rng.uniform(1.3, 1.8))
        r = float(rng.uniform(11.0, 15.0))
        ground_y = float(rng.uniform(318.0, 334.0))
        top_y = float(rng.uniform(38.0, 56.0))  # centre of the ball at release
        x = float(rng.uniform(220.0, 420.0))
        ppm = (ground_y - r - top_y) / h0
        color = object_colors(seed, 1)[0]
        impacts = bounce_impact_times(h0, e, G, 7)
        duration = float(min(5.5, impacts[5] + 0.3))
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=round(duration, 4),
            prompt=("Fixed side view of a hard, level floor. A small rubber ball is let go from rest at the top "
                    "of the picture and bounces on the floor again and again, every rebound a little lower than "
                    "the one before. The camera does not move and time runs at a steady rate; at least four "
                    "rebounds are shown."),
            objects=[ObjectSpec(id="ball", shape="sphere", color=color, box=sphere_box(x, top_y, r),
                                known={"radius_px": r})],
            assumptions=["ball released from rest", "hard level floor", "constant coefficient of restitution",
                         "negligible air resistance", "fixed side view, uniform time"],
            criteria=["M1: height-based and timing-based restitution agree; no energy gain",
                      "M2: rebound heights do not increase; restitution stays constant"],
            known={"g": G, "h0_m": h0, "restitution": e, "px_per_m": ppm, "ground_y": ground_y, "x": x,
                   "radius_px": r, "top_y": top_y, "color": list(color), "style_seed": seed,
                   "anti_flight_ratio": 1.0,
                   "anti_note": "twin keeps the height decay e^2 per bounce but every flight lasts as long as "
                                "the first rebound (timing restitution 1.0)"},
        )
        case.truth = self._truth(case)
        return case, next(self.render(case))

    def _truth(self, case: Case) -> GroundTruth:
        k = case.known
        t = frame_times(case)
        y = bounce_y(k, t, "true")
        imp = bounce_impact_times(k["h0_m"], k["restitution"], k["g"], 7)
        return GroundTruth(
            tracks={"ball": [(float(a), float(k["x"]), float(b)) for a, b in zip(t, y)]},
            events={f"impact_{i + 1}": float(v) for i, v in enumerate(imp) if v < case.duration},
            quantities={"restitution": k["restitution"], "e1": 0.0},
        )

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from bouncing_ball_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    # --- measurement -----------------------------------------------------------------------
    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return bounce_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        heights, flights = m.notes.get("heights", []), m.notes.get("flights", [])
        if len(heights) >= 2:
            return bounce_metrics(heights, flights)
        if m.notes.get("trackable") and m.notes.get("moved"):
            gap = m.notes.get("longest_gap", 0)
            if gap > ev.MAX_BRIDGED_GAP:
                # unseen for longer than a contact hides a ball: rebounds may have happened there (a 3-frame
                # exposure lost a bouncing ball for 6 samples at a time, then took a still look-alike: "single motion")
                why = f"ball unseen for {gap} samples in a row: its rebounds cannot be counted"
                return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
            why = "rule: trackable single motion without repeated rebounds"
            return {"M1": MetricScore.measured(SPECIAL_SINGLE_MOTION, None, why),
                    "M2": MetricScore.measured(SPECIAL_SINGLE_MOTION, None, why)}
        why = "ball not tracked" if not m.notes.get("trackable") else "ball never moved"
        return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
