"""P5 — equal-mass head-on collision: horizontal momentum is conserved (v1' + v2' = v1).

Extraction: the struck ball's motion onset is a sustained departure from rest above its measured noise
(:func:`lawful.perceive.onset.sustained_onset` beyond ``k·σ√2``, not a fixed 1 px); the collision time is where its post-impact
line ``x(t)`` leaves the resting position. Velocities are least-squares fits of ``x(t)`` in windows grown
outwards from the contact (1.5 frames of margin) while the samples continue one free motion within
noise (:func:`lawful.suites.windows.grow_window`; a line, as the prompt's balls roll freely): not from frame 0 nor to the clip's end, so a launch
before or a wall after does not enter them. Signed along the striker's initial direction.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.perceive.onset import sustained_onset
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, frame_times, sphere_box,
    steady_visible, style_of,
)
from lawful.suites.windows import MIN_WINDOW, grow_window, motion_sigma, poly_fit
from lawful.tracks import Tracks
from lawful.world.draw import Scene, Sphere

RED = (220, 40, 40)
BLUE = (40, 90, 225)
REST_TOL_PX = 1.0  # px/s: a striker slower than this is not moving
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
        sig = {o: motion_sigma(tracks[o], v, x) for o, v, x in (("red_ball", vr, xr), ("blue_ball", vb, xb))}
        thr = noise.k_for() * (sig["blue_ball"] if math.isfinite(sig["blue_ball"]) else 0.5) * math.sqrt(2.0)
        i0 = sustained_onset(np.abs(xb - xb0), thr)
        if i0 is None:
            m.notes["unresolved"] = f"the struck ball never moved beyond {thr:.2f} px (k·σ√2)"
            return m
        dt = 1.0 / max(tracks.fps, 1e-9)
        post = np.flatnonzero(vb & (t >= t[i0]) & (t <= t[i0] + 6 * dt))
        t_c = float(t[i0])
        if len(post) >= 3:  # the struck ball leaves rest at once: its line meets the rest position at contact
            p = np.polyfit(t[post], xb[post], 1)
            if abs(p[0]) > 0:
                lag = thr / abs(p[0]) + dt  # how late a move of thr px is seen
                t_c = float(np.clip((xb0 - p[1]) / p[0], t[i0] - lag, t[i0]))
        m.events.append(event("blue_ball", "collision", float(np.interp(t_c, t, np.arange(len(t)))), tracks))
        k = np.arange(len(t))
        fits = {}
        series = {"red_ball": (xr, vr), "blue_ball": (xb, vb)}
        for name, oid, side in (("v1_before", "red_ball", -1), ("v1_after", "red_ball", 1), ("v2_after", "blue_ball", 1)):
            x, vis = series[oid]
            near = k[vis & (side * (t - t_c) >= MARGIN_FRAMES * dt)]
            idx = grow_window(t, x, near[::-1] if side < 0 else near, sig[oid])  # nearest the contact first
            if len(idx) < MIN_WINDOW:
                m.notes["unresolved"] = f"too few steady samples {'before' if side < 0 else 'after'} the collision"
                return m
            c, se = poly_fit(t, x, idx, t_c, sig[oid], 1)  # the prompt's balls roll freely: a line
            fits[name] = {"v": float(c[1]), "se": float(se[1]), "window": [int(idx[0]), int(idx[-1])]}
        sign = 1.0 if fits["v1_before"]["v"] >= 0 else -1.0
        for name, f in fits.items():
            m.set(f"{name}_px_s", sign * f["v"])
        m.notes["windows"] = {n: f["window"] for n, f in fits.items()}
        after_end = max(f["window"][1] for f in fits.values()) + 1
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
