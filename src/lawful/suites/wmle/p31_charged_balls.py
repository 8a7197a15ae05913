"""P31 — symmetric equilibrium of two charged balls (WMLE appendix B.7).

Two identical small balls hang from one point of a support on equal insulating strings. Charged
alike, they push each other apart (equal and opposite forces on equal masses) and, after a few
damped swings, settle with the two strings at the same angle on either side of the vertical.

- M1 ``e1 = |θ_l - θ_r|`` (degrees), each string's angle from the vertical through the pivot, medians
  over the settled window; ``s1 = q(e1; 90°)``.
- M2 ``e2 = |ln(d_l / d_r)|``, the balls' horizontal offsets from the centreline (the vertical
  through the pivot), medians over the settled window; ``s2 = q(e2; 1.0)``.

Both scores are 0 (measured, the rule named) on an observed failure of

- outward separation: an offset not outward, or a final separation not larger than the first one by
  more than ``k·σ·2`` (σ the larger measured localisation noise, ``k`` for ``noise.FALSE_ALARM``);
- settling: a ball's horizontal position over the settled window (the last ``SETTLED_S`` s) ranging over
  more than ``SETTLE_SHARE`` of its offset plus ``k·σ·√2``;
- fixed equal-length strings: the two pivot-to-ball lengths (medians) differing by more than ``LENGTH_SHARE``
  of the mean length plus ``k·σ·√2``, or one ranging over the clip by more than that share plus ``2·k·σ·√2``
  (the range of its running median of ``LENGTH_RUN`` sightings: up to 2 stray sightings in a row are no
  change of the string).

The pivot is ``case.known["pivot"]`` when stated, else the shared centre of circles fitted to both
paths (:func:`~lawful.suites.wmle._pendulums.fit_pivots_on_one_bar`).

Twin: the balls settle at unequal angles (one at ``anti_angle_factor`` 0.35–0.6 times the other's),
strings equal and fixed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.world.appearance import color_name
from lawful.suites.wmle._electro import symmetric_rest_measurement
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, contrasting_colors, frame_times, sphere_box,
    style_of,
)
from lawful.tracks import Tracks
from lawful.world.scenes.electro import BALLS as IDS
from lawful.world.scenes.electro import ball_angles, ball_xy, charged_balls_frames

SUPPORT_Y = 34.0


def angle_asymmetry(theta_l: float | None, theta_r: float | None) -> MetricScore:
    """M1: ``e1 = |θ_l - θ_r|`` in degrees; ``s1 = q(e1; 90)``."""
    if theta_l is None or theta_r is None:
        return MetricScore.operational_zero("a string angle was not resolved")
    e1 = abs(theta_l - theta_r)
    return MetricScore.measured(q(e1, 90.0), e1, theta_l=theta_l, theta_r=theta_r)


def offset_asymmetry(d_l: float | None, d_r: float | None) -> MetricScore:
    """M2: ``e2 = |ln(d_l / d_r)|``; ``s2 = q(e2; 1.0)``."""
    if d_l is None or d_r is None or not (d_l > 0 and d_r > 0):
        return MetricScore.operational_zero("an outward offset was not resolved")
    e2 = abs(math.log(d_l / d_r))
    return MetricScore.measured(q(e2, 1.0), e2, d_l=d_l, d_r=d_r)


class ChargedBalls(WmleTask):
    """Two equal charged balls on equal strings from one pivot, repelling to a symmetric rest."""

    name = "charged_balls"
    label = "P31"
    family = FAMILIES[6]
    level = "M"
    required_objects = IDS
    required_events = ("separation", "settled")
    optional_known = {"pivot": "first-frame [x, y] (px) where both strings hang (default: fitted to the swings)"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        L = float(rng.uniform(200.0, 240.0))
        r = float(rng.uniform(11.0, 14.0))
        k = {
            "pivot": [round(float(rng.uniform(300.0, 340.0)), 3), SUPPORT_Y], "length_px": round(L, 3),
            "radius_px": round(r, 3), "theta0_deg": round(math.degrees(math.asin(1.08 * r / L)), 4),
            "theta_eq_deg": round(float(rng.uniform(15.0, 25.0)), 4), "t_on_s": round(float(rng.uniform(0.2, 0.4)), 4),
            "period_s": round(float(rng.uniform(0.9, 1.3)), 4), "zeta": round(float(rng.uniform(0.2, 0.3)), 4),
            "colors": {b: list(c) for b, c in zip(IDS, contrasting_colors(seed, 2))}, "style_seed": int(seed),
            "anti_angle_factor": round(float(rng.uniform(0.35, 0.6)), 4), "anti_ball": IDS[int(rng.integers(2))],
            "anti_note": "twin: the anti_ball settles at anti_angle_factor times the other's angle",
        }
        duration = 5.0
        th0 = ball_angles(k, np.zeros(1))
        objects = []
        for b in IDS:
            x, y = ball_xy(k, b, th0[b])
            objects.append(ObjectSpec(id=b, shape="bob", color=tuple(k["colors"][b]),
                                      box=sphere_box(float(x[0]), float(y[0]), r)))
        prompt = (
            "Fixed side view of two identical small light balls hanging from the same point of a horizontal bar "
            f"on two equal thin insulating threads, one ball painted {color_name(k['colors']['left'])} and the other "
            f"{color_name(k['colors']['right'])}. At first they hang straight down, just touching. Both have been "
            "given the same kind of electric charge, so at the start they push each other apart, swing out a little "
            "and back a few times, and come to rest with the threads spread apart. The camera and the bar do not "
            "move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=objects,
            assumptions=["equal masses and charges", "equal, fixed thread lengths from one pivot",
                         "still air, fixed side view, uniform time"],
            criteria=["M1: equal thread angles at rest, e1 = |θ_l - θ_r| (q, a = 90°)",
                      "M2: equal offsets from the centreline, e2 = |ln(d_l/d_r)| (q, a = 1.0)",
                      "both 0 if the balls do not separate, do not settle, or the threads change or differ"], known=k)
        t = frame_times(case)
        th = ball_angles(k, t)
        tracks = {}
        for b in IDS:
            x, y = ball_xy(k, b, th[b])
            tracks[b] = [(round(float(a), 5), round(float(c), 3), round(float(d), 3)) for a, c, d in zip(t, x, y)]
        eq = k["theta_eq_deg"]
        d_eq = L * math.sin(math.radians(eq))
        anti = eq * k["anti_angle_factor"]
        case.truth = GroundTruth(tracks=tracks, quantities={
            "theta_eq_deg": eq, "e1": 0.0, "e2": 0.0, "anti_e1": eq - anti,
            "anti_e2": abs(math.log(d_eq / (L * math.sin(math.radians(anti)))))})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from charged_balls_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return symmetric_rest_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        if "failure" in m.notes:
            why = "observed failure: " + m.notes["failure"]
            return {"M1": MetricScore.measured(0.0, reason=why), "M2": MetricScore.measured(0.0, reason=why)}
        return {"M1": angle_asymmetry(m.get("theta_left_deg"), m.get("theta_right_deg")),
                "M2": offset_asymmetry(m.get("offset_left_px"), m.get("offset_right_px"))}

