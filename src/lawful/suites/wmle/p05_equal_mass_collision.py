"""P5 — equal-mass head-on collision: horizontal momentum is conserved (v1' + v2' = v1).

Extraction: the collision time is where the struck ball's post-impact line ``x(t)`` leaves its resting
position; velocities are least-squares slopes of ``x(t)`` before and after it (one frame of margin on
either side), signed along the striker's initial direction.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, frame_times, ls_slope, sphere_box,
    steady_visible, style_of,
)
from lawful.tracks import Tracks
from lawful.world.draw import Scene, Sphere

RED = (220, 40, 40)
BLUE = (40, 90, 225)
REST_TOL_PX = 1.0
MARGIN_FRAMES = 1.5


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
        m = Measurement()
        t = np.asarray(tracks.t, float)
        red, blue = tracks["red_ball"], tracks["blue_ball"]
        vr, vb = steady_visible(red, (case.width, case.height)), steady_visible(blue, (case.width, case.height))
        xr = np.where(vr, red.x, np.nan)
        xb = np.where(vb, blue.x, np.nan)
        if vr.sum() < 6 or vb.sum() < 6:
            m.notes["unresolved"] = "a ball is not tracked"
            return m
        xb0 = float(np.median(xb[np.flatnonzero(vb)[:3]]))
        moving = np.flatnonzero(vb & (np.abs(xb - xb0) > REST_TOL_PX))
        if len(moving) == 0:
            m.notes["unresolved"] = "the struck ball never moved"
            return m
        i0 = int(moving[0])
        dt = 1.0 / max(tracks.fps, 1e-9)
        post = np.flatnonzero(vb & (t >= t[i0]) & (t <= t[i0] + 6 * dt))
        t_c = float(t[i0])
        if len(post) >= 3:
            p = np.polyfit(t[post], xb[post], 1)
            if abs(p[0]) > 0:
                t_c = float(np.clip((xb0 - p[1]) / p[0], t[max(i0 - 1, 0)], t[i0]))
        m.events.append(event("blue_ball", "collision", float(np.interp(t_c, t, np.arange(len(t)))), tracks))
        before = vr & (t <= t_c - MARGIN_FRAMES * dt)
        after_end = len(t)
        for tr_vis in (vr, vb):  # stop when either ball leaves the view
            lost = np.flatnonzero(~tr_vis & (t > t_c))
            if len(lost):
                after_end = min(after_end, int(lost[0]))
        win = (t >= t_c + MARGIN_FRAMES * dt) & (np.arange(len(t)) < after_end)
        if before.sum() < 3 or (win & vr).sum() < 3 or (win & vb).sum() < 3:
            m.notes["unresolved"] = "too few samples before or after the collision"
            return m
        v1 = ls_slope(t[before], xr[before])
        sign = 1.0 if v1 >= 0 else -1.0
        m.set("v1_before_px_s", sign * v1)
        m.set("v1_after_px_s", sign * ls_slope(t[win & vr], xr[win & vr]))
        m.set("v2_after_px_s", sign * ls_slope(t[win & vb], xb[win & vb]))
        m.set("collision_s", t_c)
        m.notes["interval"] = [0, after_end]
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        v = [m.get(k) for k in ("v1_before_px_s", "v1_after_px_s", "v2_after_px_s")]
        if "unresolved" in m.notes or any(x is None for x in v):
            return {"M1": MetricScore.operational_zero(m.notes.get("unresolved", "velocities not resolved"))}
        if v[0] <= REST_TOL_PX:
            return {"M1": MetricScore.operational_zero("striking ball not moving before the collision")}
        return {"M1": momentum_metric(*v)}
