"""P5 — equal-mass head-on collision: horizontal momentum is conserved (v1' + v2' = v1).

Extraction: the struck ball's motion onset is a sustained departure from rest above its measured noise
(:func:`lawful.perceive.onset.sustained_onset` beyond ``k·σ√2``, not a fixed 1 px); the collision time is where its post-impact
line ``x(t)`` leaves the resting position. Velocities are least-squares fits of ``x(t)`` in windows grown
outwards from the contact (1.5 frames of margin) while the samples continue one free motion within
noise (:func:`lawful.suites.windows.grow_window`; the larger of the track's sample-to-sample noise and what it shows
over 15 samples, :func:`lawful.suites.windows.wobble_sigma`; a line, as the prompt's balls roll freely): not from
frame 0 nor to the clip's end, so a launch
before or a wall after does not enter them. Signed along the striker's initial direction.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._collisions import collision_measurement
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world.draw import Scene, Sphere

RED = (220, 40, 40)
BLUE = (40, 90, 225)
REST_TOL_PX = 1.0  # px/s: a striker slower than this is not moving


def momentum_metric(v1_before: float, v1_after: float, v2_after: float) -> MetricScore:
    """M1: e1 = (v1' + v2') / v1 - 1, s1 = q(e1; 0.10)."""
    e1 = (v1_after + v2_after) / v1_before - 1.0
    return MetricScore.measured(q(e1, 0.10), e1)


class EqualMassCollision(WmleTask):
    name = "equal_mass_collision"
    label = "P5"
    family = FAMILIES[0]
    level = "H"
    required_objects = ("red_ball", "blue_ball")
    required_events = ("collision",)

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        r = float(rng.uniform(13.0, 17.0))
        ground_y = float(rng.uniform(300.0, 330.0))
        x_red = float(rng.uniform(50.0, 90.0))
        x_blue = float(rng.uniform(250.0, 320.0))
        t_c = float(rng.uniform(1.0, 1.4))
        v = (x_blue - 2 * r - x_red) / t_c
        after = min(1.6, (615.0 - r - x_blue) / v)
        duration = round(t_c + after, 4)
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view of a smooth, level table top. A red ball is already rolling to the right "
                    "towards a blue ball of the same size and mass that rests in its path. The red ball hits the "
                    "blue one head-on in an elastic collision; both stay on the table and in view. The camera does "
                    "not move and time runs at a steady rate."),
            objects=[ObjectSpec(id="red_ball", shape="sphere", color=RED, box=sphere_box(x_red, ground_y - r, r)),
                     ObjectSpec(id="blue_ball", shape="sphere", color=BLUE, box=sphere_box(x_blue, ground_y - r, r))],
            assumptions=["equal masses", "head-on collision on a level surface", "blue ball initially at rest",
                         "negligible friction and rolling resistance", "fixed side view, uniform time"],
            criteria=["M1: horizontal momentum (v1' + v2') / v1 = 1"],
            known={"ground_y": ground_y, "radius_px": r, "x_red": x_red, "x_blue": x_blue, "speed_px_s": v,
                   "collision_s": t_c, "style_seed": seed, "anti_momentum_ratio": 1.35,
                   "anti_note": "in the twin the blue ball leaves at 1.35 v while the red ball stops (e1 = 0.35)"},
        )
        tt = frame_times(case)
        xr, xb = self._x(case, tt, "true")
        y = ground_y - r
        case.truth = GroundTruth(
            tracks={"red_ball": [(float(a), float(b), y) for a, b in zip(tt, xr)],
                    "blue_ball": [(float(a), float(b), y) for a, b in zip(tt, xb)]},
            events={"collision": t_c},
            quantities={"v1_before": v, "v1_after": 0.0, "v2_after": v, "e1": 0.0},
        )
        return case, next(self.render(case))

    def _x(self, case: Case, t: np.ndarray, law: Law):
        k = case.known
        v, tc = k["speed_px_s"], k["collision_s"]
        ratio = k["anti_momentum_ratio"] if law == "anti" else 1.0
        xr = k["x_red"] + v * np.minimum(t, tc)
        xb = k["x_blue"] + ratio * v * np.maximum(t - tc, 0.0)
        return xr, xb

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        r = k["radius_px"]
        y = k["ground_y"] - r
        xr, xb = self._x(case, frame_times(case), law)
        for a, b in zip(xr, xb):
            yield scene.frame([Sphere(float(a), y, r, RED), Sphere(float(b), y, r, BLUE)])

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return collision_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        v = [m.get(k) for k in ("v1_before_px_s", "v1_after_px_s", "v2_after_px_s")]
        if "unresolved" in m.notes or any(x is None for x in v):
            return {"M1": MetricScore.operational_zero(m.notes.get("unresolved", "velocities not resolved"))}
        if v[0] <= REST_TOL_PX:
            return {"M1": MetricScore.operational_zero("striking ball not moving before the collision")}
        return {"M1": momentum_metric(*v)}
