"""P8 — pure rolling of a marked solid sphere: the centre advances R per radian of rotation (v = ωR).

The ball (drawn end-on with a radial marker stripe) is released on an incline and rolls onto the level
floor. Extraction: centre path length ``s`` from the smoothed tracked centre, rotation ``φ`` from the
unwrapped marker angle (``TrackingPlan(angles=True)``), radius as the case states it for the first frame
(else the centre's height above the floor line, else the mask box). M1 is the robust (Theil–Sen) slope of ``s`` against ``φ``
(unresolved where its 95 % interval is wider than M1's tolerance, or the marker is smeared past the ball's radius); M2 the median
relative slip ``|v - ωR| / v`` over moving frames, with ``v`` and ``ω`` taken over one marker revolution.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law, TrackingPlan
from lawful.suites.wmle._rolling import SLOPE_TOL, revolution_rates, rolling_measurement  # noqa: F401  (tests use it)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world.scenes.slopes import rolling_ball_frames, rolling_ball_state

G = 9.81
SOLID_SPHERE = 0.4  # I / (m R^2)
# dark saturated bodies: the marker stripe is drawn light on them, the contrast the marker angle needs
DARK_BODIES = ((40, 90, 225), (135, 45, 210))


def rolling_slope_metric(b: float, r: float) -> MetricScore:
    """M1: e1 = |b| / r - 1 for the fitted slope b of centre displacement against rotation; s1 = q(e1; 0.25)."""
    e1 = abs(b) / r - 1.0
    return MetricScore.measured(q(e1, SLOPE_TOL), e1)


def rolling_slip_metric(v: np.ndarray, omega: np.ndarray, r: float, eps: float = 1e-6) -> MetricScore:
    """M2: e2 = median |v - ω r| / max(v, ε) over the given moving samples; s2 = q(e2; 0.35)."""
    v, omega = np.abs(np.asarray(v, float)), np.abs(np.asarray(omega, float))
    if len(v) == 0:
        return MetricScore.operational_zero("no moving frames with a visible marker")
    e2 = float(np.median(np.abs(v - omega * r) / np.maximum(v, eps)))
    return MetricScore.measured(q(e2, 0.35), e2)


class SolidSphereRolling(WmleTask):
    name = "solid_sphere_rolling"
    label = "P8"
    family = FAMILIES[1]
    level = "M"
    required_objects = ("ball",)
    required_events = ("release",)
    plan = TrackingPlan(angles=True)

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        theta = math.radians(float(rng.uniform(12.0, 18.0)))
        r = float(rng.uniform(20.0, 24.0))
        ground_y = float(rng.uniform(316.0, 332.0))
        corner_x = float(rng.uniform(300.0, 340.0))
        incline_len = float(rng.uniform(250.0, 290.0))  # surface length from the ball's contact to the corner
        ppm = float(rng.uniform(90.0, 110.0))
        hold = float(rng.uniform(0.15, 0.3))
        color = DARK_BODIES[seed % len(DARK_BODIES)]
        d = (math.cos(theta), math.sin(theta))
        n = (math.sin(theta), -math.cos(theta))
        contact = (corner_x - incline_len * d[0], ground_y - incline_len * d[1])
        start = (contact[0] + r * n[0], contact[1] + r * n[1])
        known = {"g": G, "incline_deg": math.degrees(theta), "radius_px": r, "ground_y": ground_y,
                 "corner": [corner_x, ground_y], "incline_len_px": incline_len, "px_per_m": ppm, "hold_s": hold,
                 "start": list(start), "color": list(color), "style_seed": seed, "anti_spin_factor": 0.55,
                 "anti_note": "the twin turns only 0.55 rad per radian of rolling (it skids): b = r / 0.55"}
        # time at which the ball would leave the frame: end the clip a little before
        a = G * ppm * math.sin(theta) / (1 + SOLID_SPHERE)
        t1 = math.sqrt(2 * incline_len / a)
        v1 = a * t1
        flat = (WIDTH - 2 * r - 8) - corner_x
        duration = round(min(4.5, hold + t1 + flat / v1), 4)
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view of a gentle wooden incline that runs into a level floor. A solid ball with a "
                    "painted stripe from its centre to its rim rests at the top of the incline. It is let go "
                    "without a push and rolls without slipping down the incline and on along the floor, the stripe "
                    "turning with it. The camera does not move and time runs at a steady rate."),
            objects=[ObjectSpec(id="ball", shape="sphere", color=color, box=sphere_box(start[0], start[1], r),
                                known={"radius_px": r})],
            assumptions=["solid uniform sphere", "released from rest", "rolls without slipping",
                         "ball keeps contact with the surface", "fixed side view, uniform time"],
            criteria=["M1: centre displacement per radian of rotation equals the radius",
                      "M2: v = ωR frame by frame"],
            known=known,
        )
        tt = frame_times(case)
        xy, _ = self._state(case, tt, "true")
        case.truth = GroundTruth(
            tracks={"ball": [(float(t), float(p[0]), float(p[1])) for t, p in zip(tt, xy)]},
            events={"release": hold, "corner": hold + t1},
            quantities={"radius_px": r, "e1": 0.0, "e2": 0.0},
        )
        return case, next(self.render(case))

    def _state(self, case: Case, t: np.ndarray, law: Law) -> tuple[np.ndarray, np.ndarray]:
        return rolling_ball_state(case.known, t, law, SOLID_SPHERE)

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        xy, phi = self._state(case, frame_times(case), law)
        yield from rolling_ball_frames(case.known, case.width, case.height, style_of(case), xy, phi)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return rolling_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        r = m.get("radius_px")
        slip = m.notes["slip"]
        return {"M1": rolling_slope_metric(m.get("displacement_per_radian_px"), r),
                "M2": rolling_slip_metric(np.array(slip["v"]), np.array(slip["omega"]), r)}
