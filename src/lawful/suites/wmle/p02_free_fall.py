"""P2 — free fall: constant acceleration from rest (equal velocity increments, distances 1 : 3 : 5).

Extraction: the release time is the case's ``release`` or the ball's sustained departure from its resting
height beyond ``k·σ`` (``σ`` the track's measured noise in ``y``;
:func:`lawful.suites.recordings.common.release_time`: hand tremor or a 1-px twitch does not trigger it), refined to sub-frame by the from-rest model
``d = k (t - t0)^2`` fitted to the whole fall and the resting samples before it; the fall ends at the
first impact (:func:`first_impact`).
Velocities are least-squares slopes on three equal sub-intervals of the fall (exact mid-interval
velocities on a parabola); distances in three equal intervals use a local quadratic fit of the
tracked height at the interval boundaries.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import cv, q
from lawful.suites.base import Law
from lawful.suites.recordings.common import REST_SAMPLES, release_time, rest_position
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, departure_time, event, frame_times,
    interval_slopes, local_poly_value, sphere_box, steady_xy, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.draw import Scene, Sphere, String

G = 9.81
VELOCITY_INTERVALS = 3
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


def first_impact(y: np.ndarray, after: np.ndarray, y0: float, y_max: float) -> int:
    """Index of the ground contact: the first sample in the lower half of the drop after which the ball no longer
    moves down by more than its measured noise (a bounce or a stop). A ball that rebounds and settles lower than
    its blurred impact frame must not stretch the fall through the rebound (the clip's lowest point did)."""
    step = noise.step_threshold(noise.sigma(np.where(after, y, np.nan)), floor=0.5)
    idx = np.flatnonzero(after)
    half = y0 + 0.5 * (y_max - y0)
    for a, b in zip(idx[:-1], idx[1:]):
        if y[a] >= half and y[b] - y[a] <= step * (b - a):
            return int(a)
    return int(np.flatnonzero(after & (y >= y_max - 0.5))[0])


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
        k = case.known
        s = np.clip(t - k["hold_s"], 0.0, k["fall_time_s"])
        drop = k["ground_y"] - k["radius_px"] - k["top_y"]
        if law == "true":
            d = 0.5 * k["g"] * k["px_per_m"] * s * s
        else:
            tau, T = k["anti_drag_tau_s"], k["fall_time_s"]
            shape = lambda u: tau * (u / tau - 1 + np.exp(-u / tau))  # noqa: E731
            d = drop * shape(s) / shape(T)
        return k["top_y"] + np.minimum(d, drop)

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        bar_y = k["top_y"] - k["radius_px"] - 14
        scene.support(k["x"] - 30, k["x"] + 30, bar_y)
        color = tuple(k["color"])
        t = frame_times(case)
        for ti, y in zip(t, self._y(case, t, law)):
            items = []
            if ti < k["hold_s"]:
                items.append(String((k["x"], bar_y), (k["x"], float(y) - k["radius_px"])))
            items.append(Sphere(k["x"], float(y), k["radius_px"], color))
            yield scene.frame(items)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        tr, t, vis, _, y = steady_xy(case, tracks, "ball")
        if vis.sum() < 8:
            m.notes["unresolved"] = "ball not tracked"
            return m
        y0 = rest_position(y)
        d = np.where(vis, y - y0, np.nan)
        sigma = noise.sigma(y)
        t_r, how = release_time(case, t, d, sigma)
        if t_r is None:
            m.notes["unresolved"] = f"ball never released: {how}"
            return m
        thr = noise.k_for() * (sigma if math.isfinite(sigma) and sigma > 0 else 0.5)
        after = vis & (t > t_r)
        if after.sum() < 6:
            m.notes["unresolved"] = "too few samples after release"
            return m
        y_max = float(np.nanmax(np.where(after, y, np.nan)))
        i_low = first_impact(y, after, y0, y_max)
        fall = after & (np.arange(len(t)) < i_low)
        if fall.sum() < 6:
            m.notes["unresolved"] = "fall too short to resolve"
            return m
        if how == "onset":  # refine the release time with every sample of the fall (same model, far less noise)
            idx = np.arange(len(t))
            near = (idx >= np.searchsorted(t, t_r) - REST_SAMPLES) & (idx < i_low)  # an earlier twitch is not it
            t_r = departure_time(t, np.where(near, d, np.nan), threshold=thr, n_fit=int(fall.sum()) + 2)
        fall = vis & (t > t_r) & (np.arange(len(t)) < i_low)
        t_end = float(t[np.flatnonzero(fall)[-1]])
        m.events.append(event("ball", "release", float(np.interp(t_r, t, np.arange(len(t)))), tracks))
        if i_low < len(t) - 1 or y_max - y0 > 0:
            m.events.append(event("ball", "ground_contact", float(i_low), tracks))
        T = t_end - t_r
        v, _ = interval_slopes(t[fall], y[fall], VELOCITY_INTERVALS)
        dv = np.diff(v)
        tf, yf = t[fall], y[fall]
        pos = [0.0] + [local_poly_value(tf, yf, t_r + j * T / 3) - y0 for j in (1, 2, 3)]
        d1, d2, d3 = (pos[j + 1] - pos[j] for j in range(3))
        m.set("release_time_s", t_r)
        m.set("fall_time_s", T)
        m.set("d1_px", d1)
        m.set("d2_px", d2)
        m.set("d3_px", d3)
        if np.all(np.isfinite(dv)):
            m.set("acceleration_px_s2", float(np.mean(dv)) / (fall.sum() // VELOCITY_INTERVALS / tracks.fps))
        m.notes["velocity_increments"] = [float(x) for x in dv]
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        d = [m.get(k) for k in ("d1_px", "d2_px", "d3_px")]
        m2 = (free_fall_distance_ratios(*d) if all(v is not None for v in d)
              else MetricScore.operational_zero("interval distances not resolved"))
        return {"M1": free_fall_acceleration_cv(m.notes.get("velocity_increments", [])), "M2": m2}
