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
from lawful.perceive import noise
from lawful.perceive.onset import onset_time
from lawful.result import Measurement
from lawful.score.wmle import cv, geometric_mean, q
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, fill_gaps, frame_times, sphere_box,
    steady_visible, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.draw import Scene, Sphere
from lawful.world.physics import bounce_impact_times, bounce_trajectory

G = 9.81
SPECIAL_SINGLE_MOTION = 0.1
MIN_ARC_SAMPLES = 4


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


def _fit_arc(t: np.ndarray, y: np.ndarray, sel: np.ndarray) -> np.ndarray | None:
    if sel.sum() < MIN_ARC_SAMPLES:
        return None
    p = np.polyfit(t[sel], y[sel], 2)
    return p if p[0] > 0 else None  # image y grows down: gravity makes a > 0


def _meet(p1: np.ndarray, p2: np.ndarray, t_near: float) -> float | None:
    """Time near ``t_near`` where two parabolas ``y(t)`` meet."""
    d = p1 - p2
    roots = np.roots(d) if abs(d[0]) > 1e-12 else np.roots(d[1:])
    roots = [float(r.real) for r in np.atleast_1d(roots) if abs(r.imag) < 1e-9]
    if not roots:
        return None
    return min(roots, key=lambda r: abs(r - t_near))


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
        y = self._y(case, t, "true")
        imp = bounce_impact_times(k["h0_m"], k["restitution"], k["g"], 7)
        return GroundTruth(
            tracks={"ball": [(float(a), float(k["x"]), float(b)) for a, b in zip(t, y)]},
            events={f"impact_{i + 1}": float(v) for i, v in enumerate(imp) if v < case.duration},
            quantities={"restitution": k["restitution"], "e1": 0.0},
        )

    def _y(self, case: Case, t: np.ndarray, law: Law) -> np.ndarray:
        k = case.known
        h0, e, g = k["h0_m"], k["restitution"], k["g"]
        if law == "true":
            h = bounce_trajectory(h0, e, g, t)
        else:
            t0 = math.sqrt(2 * h0 / g)
            ratio = k["anti_flight_ratio"]
            d1 = 2 * e * t0
            h = np.where(t < t0, h0 - 0.5 * g * t * t, 0.0)
            start, j = t0, 1
            while start < float(t.max()) and j < 200:
                dur = d1 * ratio ** (j - 1)
                hk = h0 * e ** (2 * j)
                s = (t - start) / dur
                sel = (s >= 0) & (s < 1)
                h = np.where(sel, 4 * hk * s * (1 - s), h)
                start += dur
                j += 1
        return k["ground_y"] - k["radius_px"] - np.maximum(h, 0.0) * k["px_per_m"]

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        ys = self._y(case, frame_times(case), law)
        color = tuple(k["color"])
        for y in ys:
            yield scene.frame([Sphere(k["x"], float(y), k["radius_px"], color)])

    # --- measurement -----------------------------------------------------------------------
    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        tr = tracks["ball"]
        t = np.asarray(tracks.t, float)
        vis = steady_visible(tr, (case.width, case.height))
        y = np.where(vis, np.asarray(tr.y, float), np.nan)
        m.notes["trackable"] = bool(vis.mean() >= 0.5 and vis.sum() >= 8)
        first = int(np.flatnonzero(vis)[0]) if vis.any() else 0
        b = tr.box[first]
        r = 0.25 * float((b[2] - b[0]) + (b[3] - b[1])) if vis.any() else 5.0
        m.notes["moved"] = bool(vis.any() and np.nanmax(y) - np.nanmin(y) > r)
        if not m.notes["trackable"]:
            m.notes.update(heights=[], flights=[])
            return m
        prom = max(2.0, 0.3 * r)
        imp = [p for p in ev.turning_points(fill_gaps(y), "max", prominence=prom)]
        # flights between consecutive impacts, the drop before the first
        bounds = [-np.inf] + imp + [np.inf]
        idx = np.arange(len(t))
        arcs = []
        for a, bnd in zip(bounds[:-1], bounds[1:]):
            sel = (idx >= a + 1) & (idx <= bnd - 1) & np.isfinite(y)
            if a == -np.inf:  # the drop: only samples from the release on (a sustained onset beyond k·σ√2)
                sig = noise.track_noise(tr, vis).sigma_y
                t_r, _ = onset_time(t, y - y[first], sig * math.sqrt(2.0) if math.isfinite(sig) else math.nan)
                sel &= (t >= t_r) if t_r is not None else (idx == first)
            arcs.append(_fit_arc(t, y, sel))
        times, levels = [], []
        for i, p in enumerate(imp):
            tn = float(np.interp(p, idx, t))
            a1, a2 = arcs[i], arcs[i + 1] if i + 1 < len(arcs) else None
            tm = _meet(a1, a2, tn) if a1 is not None and a2 is not None else None
            if tm is not None and abs(tm - tn) < 2.0 / max(tracks.fps, 1e-9):
                times.append(tm)
                levels.append(float(np.polyval(a1, tm)))
            else:
                times.append(None)
        y_floor = float(np.median(levels)) if levels else math.nan
        heights, flights, apex_t = [], [], []
        for k in range(len(imp) - 1):  # rebound after impact k, complete if impact k+1 is seen
            arc = arcs[k + 1]
            if arc is None or times[k] is None or times[k + 1] is None:
                if heights:
                    break  # keep a run of consecutive rebounds only
                continue
            tv = -arc[1] / (2 * arc[0])
            yv = float(np.polyval(arc, tv))
            h = y_floor - yv
            if h <= 1.0:
                break
            heights.append(h)
            flights.append(times[k + 1] - times[k])
            apex_t.append(tv)
        for k, tm in enumerate(times):
            if tm is not None:
                m.events.append(event("ball", "impact", float(np.interp(tm, t, idx)), tracks, value=y_floor))
        for tv, h in zip(apex_t, heights):
            m.events.append(event("ball", "rebound_apex", float(np.interp(tv, t, idx)), tracks, value=h))
        m.set("n_rebounds", float(len(heights)))
        m.set("floor_level_px", y_floor, "no impact resolved")
        m.notes.update(heights=heights, flights=flights, impact_times=[x for x in times if x is not None])
        if len(heights) >= 2:
            e_h = np.sqrt(np.asarray(heights[1:]) / np.asarray(heights[:-1]))
            m.set("restitution_height", float(np.mean(e_h)))
            m.set("restitution_timing", float(np.mean(np.asarray(flights[1:]) / np.asarray(flights[:-1]))))
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        heights, flights = m.notes.get("heights", []), m.notes.get("flights", [])
        if len(heights) >= 2:
            return bounce_metrics(heights, flights)
        if m.notes.get("trackable") and m.notes.get("moved"):
            why = "rule: trackable single motion without repeated rebounds"
            return {"M1": MetricScore.measured(SPECIAL_SINGLE_MOTION, None, why),
                    "M2": MetricScore.measured(SPECIAL_SINGLE_MOTION, None, why)}
        why = "ball not tracked" if not m.notes.get("trackable") else "ball never moved"
        return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
