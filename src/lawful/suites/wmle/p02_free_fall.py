"""P2 — free fall: constant acceleration from rest (equal velocity increments, distances 1 : 3 : 5).

Extraction: the release time is the case's ``release`` or the ball's sustained departure from its resting
height beyond ``k·σ`` (``σ`` the track's measured noise in ``y``;
:func:`lawful.suites.recordings.common.release_time`: hand tremor or a 1-px twitch does not trigger it), refined to sub-frame by the from-rest model
``d = k (t - t0)^2`` fitted to the whole fall and the resting samples before it; the fall ends at the
first impact (:func:`first_impact`), which is the ``ground_contact`` event only where the ball reaches the case's
ground line within its radius (:func:`lawful.suites.wmle._bounces.above_ground`: a ball that stops in mid-air, as
a generator's frozen motion does, leaves the event missing and C at 50).
Velocities are least-squares slopes on three equal sub-intervals of the fall (exact mid-interval
velocities on a parabola); distances in three equal intervals use a local quadratic fit of the
tracked height at the interval boundaries.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import cv, q
from lawful.suites.base import Law
from lawful.suites.wmle._bounces import (  # noqa: F401  (recordings r01, r03 use first_impact)
    first_impact, free_fall_measurement,
)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.bounces import free_fall_frames, free_fall_y

G = 9.81
LOCALISATION_NOISE_PX = 1.0


def free_fall_acceleration_cv(dv: list[float]) -> MetricScore:
    """M1 from equal-interval velocity increments ``dv``: s1 = q(CV(dv); 0.10); no net acceleration scores 0."""
    dv = np.asarray(dv, float)
    if len(dv) < 2 or not np.all(np.isfinite(dv)):
        return MetricScore.operational_zero("fewer than two velocity increments resolved")
    if float(np.mean(dv)) <= 0:
        return MetricScore.measured(0.0, None, "rule: resolved descent without acceleration fails",
                                    mean_dv=float(np.mean(dv)))
    e1 = cv(dv)
    return MetricScore.measured(q(e1, 0.10), e1)


def free_fall_distance_ratios(d1: float, d2: float, d3: float) -> MetricScore:
    """M2 from distances in three equal intervals from release: e2 = RMS of (d2/3d1 - 1, d3/5d1 - 1)."""
    if not (math.isfinite(d1) and d1 > LOCALISATION_NOISE_PX):
        return MetricScore.operational_zero("first-interval displacement within localisation noise")
    e2 = math.sqrt(((d2 / (3 * d1) - 1) ** 2 + (d3 / (5 * d1) - 1) ** 2) / 2)
    return MetricScore.measured(q(e2, 0.10), e2)


class FreeFall(WmleTask):
    name = "free_fall"
    label = "P2"
    family = FAMILIES[0]
    level = "M"
    required_objects = ("ball",)
    required_events = ("release", "ground_contact")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        H = float(rng.uniform(6.0, 9.0))
        r = float(rng.uniform(14.0, 18.0))
        ground_y = float(rng.uniform(322.0, 336.0))
        top_y = float(rng.uniform(36.0, 52.0))
        x = float(rng.uniform(200.0, 440.0))
        hold = float(rng.uniform(0.2, 0.35))
        ppm = (ground_y - r - top_y) / H
        t_fall = math.sqrt(2 * H / G)
        tau = 0.35 * t_fall
        color = object_colors(seed, 1)[0]
        duration = round(hold + t_fall + 0.6, 4)
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view. A ball hangs on a thin thread below a bar near the top of the picture, "
                    f"about {H:.0f} metres above the ground. The thread is cut and the ball drops straight down "
                    "from rest to the ground. The camera does not move and time runs at a steady rate."),
            objects=[ObjectSpec(id="ball", shape="sphere", color=color, box=sphere_box(x, top_y, r),
                                known={"radius_px": r})],
            assumptions=["released from rest", "negligible air resistance", "uniform gravity",
                         "fixed side view, uniform time"],
            criteria=["M1: equal velocity increments in equal times (CV of the increments)",
                      "M2: distances in three equal intervals in the ratio 1:3:5"],
            known={"g": G, "height_m": H, "px_per_m": ppm, "ground_y": ground_y, "top_y": top_y, "x": x,
                   "radius_px": r, "hold_s": hold, "fall_time_s": t_fall, "color": list(color),
                   "style_seed": seed, "anti_drag_tau_s": tau,
                   "anti_note": "twin falls with linear drag (time constant anti_drag_tau_s), reaching the ground "
                                "at the same time: velocity increments shrink exponentially"},
        )
        case.truth = GroundTruth(
            tracks={"ball": [(float(a), x, float(b)) for a, b in zip(frame_times(case),
                                                                     self._y(case, frame_times(case), "true"))]},
            events={"release": hold, "ground_contact": hold + t_fall},
            quantities={"acceleration_px_s2": G * ppm, "e1": 0.0, "e2": 0.0},
        )
        return case, next(self.render(case))

    def _y(self, case: Case, t: np.ndarray, law: Law) -> np.ndarray:
        return free_fall_y(case.known, t, law)

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        t = frame_times(case)  # drawn along self._y (recordings.r01 reuses this render with its own fall)
        return free_fall_frames(case.known, case.width, case.height, style_of(case), t, self._y(case, t, law))

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return free_fall_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        d = [m.get(k) for k in ("d1_px", "d2_px", "d3_px")]
        m2 = (free_fall_distance_ratios(*d) if all(v is not None for v in d)
              else MetricScore.operational_zero("interval distances not resolved"))
        return {"M1": free_fall_acceleration_cv(m.notes.get("velocity_increments", [])), "M2": m2}
