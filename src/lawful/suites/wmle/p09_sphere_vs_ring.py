"""P9 — rolling solid sphere versus thin ring (WMLE appendix B.2).

A solid sphere and a thin ring of equal outer radius start from rest at the same height on two
identical inclines standing side by side and roll without slipping. With ``I = k m R²`` the
acceleration down the slope is ``g sin θ / (1 + k)``: ``k = 2/5`` (solid sphere), ``k = 1`` (thin
ring). Over any common distance the ring needs ``sqrt((1 + 1) / (1 + 2/5)) = sqrt(10/7)`` times as
long as the sphere.

- M1 the median ring-to-sphere travel-time ratio ``r_t`` over common distances,
  ``e1 = |r_t / sqrt(10/7) - 1|``, ``s1 = q(e1; 0.10)`` exactly as the seed scores it. The evidence
  adds the ratio's measurement uncertainty ``k σ`` (``σ`` the relative standard error of
  ``sqrt(c_sphere / c_ring)`` from the release fit's residual scatter, ``k`` for
  :data:`lawful.perceive.noise.FALSE_ALARM`) and ``e1_beyond_noise = max(0, e1 − k σ)``, the part of
  the error noise cannot explain; neither changes the score. M2 is not defined.

Extraction: each body's distance along its path ``s(t)`` (projection of the centroid's displacement
on the path's principal direction); the common release time ``t0`` by a joint least-squares fit of
``s_i = c_i (t - t0)²`` to both bodies (released together from rest); travel times to 17 distances
between 15% and 95% of the shorter total travel, each the root of a local quadratic fit to the seven
samples around the crossing (:func:`~lawful.suites.wmle.kinematics.local_crossing_time`: noise averaged over
seven samples, not two; exact on uniformly accelerated motion).

Twin: the ring accelerates ``anti_accel_factor`` (0.92–1.08) times as fast as the sphere, as if
its inertia were a solid sphere's.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import least_squares

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import events, noise
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, frame_times, sphere_box, style_of,
)
from lawful.suites.wmle.kinematics import local_crossing_time
from lawful.tracks import Tracks
from lawful.world.appearance import Style, object_colors
from lawful.world.draw import Cylinder, Scene, Sphere
from lawful.world.physics import rolling_distance

G = 9.81
K_SPHERE, K_RING = 2.0 / 5.0, 1.0
TIME_RATIO = math.sqrt((1.0 + K_RING) / (1.0 + K_SPHERE))  # sqrt(10/7)
IDS = ("sphere", "ring")
DISTANCE_FRACTIONS = np.linspace(0.15, 0.95, 17)
MOVE_PX = 2.0  # displacement (px) that counts as moving


def travel_time_ratio(r_t: float | None, sigma_rel: float = 0.0) -> MetricScore:
    """M1: ``e1 = |r_t / sqrt(10/7) - 1|``; ``s1 = q(e1; 0.10)`` (the uncertainty ``k sigma_rel`` is evidence)."""
    if r_t is None or not (math.isfinite(r_t) and r_t > 0):
        return MetricScore.operational_zero("travel-time ratio not resolved")
    e1 = abs(r_t / TIME_RATIO - 1.0)
    allow = noise.k_for() * max(0.0, sigma_rel) * r_t / TIME_RATIO
    return MetricScore.measured(q(e1, 0.10), e1, r_t=r_t, expected=TIME_RATIO, uncertainty=allow,
                                e1_beyond_noise=max(0.0, e1 - allow))


@dataclass
class MarkedSphere(Sphere):
    """A shaded ball with a dark round spot painted ``0.55 r`` from its centre at screen angle ``angle``."""

    angle: float = 0.0

    def draw(self, img: np.ndarray, style: Style) -> None:
        super().draw(img, style)
        shift = 4
        d = 0.55 * self.r
        cx = self.x + d * math.cos(self.angle)
        cy = self.y + d * math.sin(self.angle)
        dark = tuple(int(c * 0.3) for c in self.color)
        cv2.circle(img, (int(round(cx * (1 << shift))), int(round(cy * (1 << shift)))),
                   int(round(0.24 * self.r * (1 << shift))), dark, -1, cv2.LINE_AA, shift)


# ----------------------------------------------------------------------------- geometry


def lane_geometry(k: dict, lane: int) -> dict:
    """Surface line of incline ``lane`` (0 left, 1 right): apex, unit vector down the slope, normal (px)."""
    th = math.radians(k["theta_deg"])
    x0 = k["lane_x"][lane]
    apex = np.array([x0, k["ground_y"] - k["base_px"] - k["span_px"] * math.tan(th)])
    u = np.array([math.cos(th), math.sin(th)])
    n = np.array([math.sin(th), -math.cos(th)])
    return {"apex": apex, "u": u, "n": n}


def body_centre(k: dict, lane: int, s) -> tuple[np.ndarray, np.ndarray]:
    """Centre (px) of a body of radius ``radius_px`` at path distance ``s`` (px) from its start."""
    g = lane_geometry(k, lane)
    s = np.asarray(s, float) + k["start_px"]
    r = k["radius_px"]
    return g["apex"][0] + s * g["u"][0] + r * g["n"][0], g["apex"][1] + s * g["u"][1] + r * g["n"][1]


def travel_px(k: dict, body: str, t: np.ndarray, law: str) -> np.ndarray:
    """Distance rolled (px) by ``body`` at times ``t``: from rest, stopped by the end block."""
    inertia = K_SPHERE if body == "sphere" else (k["anti_ring_inertia"] if law == "anti" else K_RING)
    s = rolling_distance(t, math.radians(k["theta_deg"]), inertia, k["g"]) * k["px_per_m"]
    return np.minimum(s, k["stop_px"])


def _items(k: dict, s_sphere: float, s_ring: float) -> list:
    r = k["radius_px"]
    lane = {b: k["lanes"][b] for b in IDS}
    xs, ys = body_centre(k, lane["sphere"], s_sphere)
    xr, yr = body_centre(k, lane["ring"], s_ring)
    return [MarkedSphere(float(xs), float(ys), r, tuple(k["colors"]["sphere"]), angle=k["marker0"] + s_sphere / r),
            Cylinder(float(xr), float(yr), r, tuple(k["colors"]["ring"]), angle=k["marker0"] + s_ring / r,
                     hollow=True, inner=0.72)]


class SphereVsRing(WmleTask):
    """A solid sphere and a thin ring rolling from rest down two identical inclines."""

    name = "sphere_vs_ring"
    label = "P9"
    family = FAMILIES[1]
    level = "M"
    required_objects = IDS
    required_events = ("release", "far_sphere", "far_ring")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        theta = float(rng.uniform(16.0, 24.0))
        r = float(rng.uniform(14.0, 18.0))
        span = float(rng.uniform(255.0, 275.0))
        ground_y = float(rng.uniform(318.0, 334.0))
        base = float(rng.uniform(24.0, 40.0))
        gap = float(rng.uniform(14.0, 28.0))
        x_left = float((WIDTH - 2 * span - gap) / 2)
        sphere_left = bool(rng.integers(2))
        duration = 3.5
        finish = float(rng.uniform(0.76, 0.88))  # fraction of the clip the ring needs to reach the end block
        anti_f = float(rng.uniform(0.92, 1.08))
        start = r + 6.0
        length = span / math.cos(math.radians(theta))
        stop = length - start - r - 10.0  # the centre's travel until the body touches the end block
        a_ring_px = 2 * stop / (finish * duration) ** 2
        a_ring_m = G * math.sin(math.radians(theta)) / (1 + K_RING)
        c_sphere, c_ring = object_colors(seed, 2)
        k = {
            "g": G, "theta_deg": round(theta, 4), "radius_px": round(r, 3), "span_px": round(span, 3),
            "ground_y": round(ground_y, 2), "base_px": round(base, 2),
            "lane_x": [round(x_left, 3), round(x_left + span + gap, 3)],
            "lanes": {"sphere": 0 if sphere_left else 1, "ring": 1 if sphere_left else 0},
            "start_px": round(start, 3), "stop_px": round(stop, 3), "px_per_m": round(a_ring_px / a_ring_m, 5),
            "marker0": round(float(rng.uniform(0, 2 * math.pi)), 4),
            "colors": {"sphere": list(c_sphere), "ring": list(c_ring)},
            "time_ratio": TIME_RATIO, "style_seed": int(seed),
            "anti_accel_factor": round(anti_f, 5), "anti_ring_inertia": round((1 + K_SPHERE) / anti_f - 1, 6),
            "anti_note": "twin: the ring accelerates anti_accel_factor times as fast as the sphere",
        }
        first = _items(k, 0.0, 0.0)
        objects = [ObjectSpec(id=b, shape="sphere" if b == "sphere" else "hollow_cylinder", color=tuple(it.color),
                              box=sphere_box(it.x, it.y, r), known={"radius_px": r})
                   for b, it in zip(IDS, first)]
        where = ("left", "right") if sphere_left else ("right", "left")
        prompt = (
            "Fixed side view of two identical wooden inclines standing side by side, each sloping down to the "
            f"right at about {theta:.0f} degrees with a small stop block at its lower end. At the top of the "
            f"{where[0]} incline rests a solid ball with a dark spot on it; at the top of the {where[1]} incline, "
            "at the same height, rests a thin hoop of the same outer radius with a painted stripe. At the start "
            "both are let go together from rest and roll down without slipping until they reach the stop "
            "blocks. The camera does not move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=objects,
            assumptions=["released together from rest at the same height", "rolling without slipping",
                         "equal outer radii", "identical inclines", "fixed side view, uniform time"],
            criteria=["M1: median ring/sphere travel-time ratio = sqrt(10/7) (q, a = 0.10)"], known=k)
        t = frame_times(case)
        tracks = {}
        for b in IDS:
            x, y = body_centre(k, k["lanes"][b], travel_px(k, b, t, "true"))
            tracks[b] = [(round(float(a), 5), round(float(c), 3), round(float(d), 3)) for a, c, d in zip(t, x, y)]
        case.truth = GroundTruth(tracks=tracks, events={"release": 0.0},
                                 quantities={"r_t": TIME_RATIO, "e1": 0.0,
                                             "anti_r_t": 1 / math.sqrt(anti_f),
                                             "anti_e1": abs(1 / math.sqrt(anti_f) / TIME_RATIO - 1)})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        th = math.radians(k["theta_deg"])
        for lane in (0, 1):
            x0 = k["lane_x"][lane]
            x1 = x0 + k["span_px"]
            top = k["ground_y"] - k["base_px"] - k["span_px"] * math.tan(th)
            scene.ramp([(x0, k["ground_y"]), (x0, top), (x1, k["ground_y"] - k["base_px"]), (x1, k["ground_y"])])
            g = lane_geometry(k, lane)
            s_end = k["start_px"] + k["stop_px"] + k["radius_px"]
            p, u, n = g["apex"] + s_end * g["u"], g["u"], g["n"]
            h = 1.2 * k["radius_px"]
            scene.ramp([tuple(p), tuple(p + h * n), tuple(p + h * n + 8 * u), tuple(p + 8 * u)])
        t = frame_times(case)
        s = {b: travel_px(k, b, t, law) for b in IDS}
        for i in range(len(t)):
            yield scene.frame(_items(k, float(s["sphere"][i]), float(s["ring"][i])))

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        t = np.asarray(tracks.t, float)
        paths = {}
        for b in IDS:
            s = path_distance(tracks, b)
            if s is None:
                m.notes["unresolved"] = f"{b}: not tracked"
                return m
            paths[b] = s
            m.set(f"travel_{b}_px", float(np.nanmax(s)))
        d_common = min(float(np.nanmax(paths[b])) for b in IDS)
        if d_common < 10 * MOVE_PX:
            m.notes["unresolved"] = f"common travel {d_common:.1f} px too short"
            return m
        t0, fit = joint_release_time(t, paths, d_common)
        if t0 is None:
            m.notes["unresolved"] = "release time not resolved"
            return m
        m.set("release_time_s", t0)
        m.events.append(event("sphere", "release", float(np.interp(t0, t, np.arange(len(t)))), tracks))
        m.notes["release_fit"] = fit
        if "ratio_rel_se" in fit:
            m.set("ratio_rel_se", fit["ratio_rel_se"])
        levels = DISTANCE_FRACTIONS * d_common
        times = {b: [local_crossing_time(t, paths[b], lv) for lv in levels] for b in IDS}
        for b in IDS:
            idx = events.crossing(paths[b], levels[-1], +1)
            if idx is not None:
                m.events.append(event(b, f"far_{b}", idx, tracks, float(levels[-1])))
        ratios = [(tr - t0) / (ts - t0) for ts, tr in zip(times["sphere"], times["ring"])
                  if ts is not None and tr is not None and ts - t0 > 0 and tr - t0 > 0]
        m.notes["time_ratios"] = [float(v) for v in ratios]
        if len(ratios) < 3:
            m.notes["unresolved"] = "fewer than three common distances reached by both bodies"
            return m
        m.set("travel_time_ratio", float(np.median(ratios)))
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        return {"M1": travel_time_ratio(m.get("travel_time_ratio"), m.get("ratio_rel_se") or 0.0)}


def path_distance(tracks: Tracks, oid: str) -> np.ndarray | None:
    """Distance (px) along a body's path ``[T]``: its displacement from the first sighting projected on
    the principal direction of its positions, oriented to grow over time (NaN where not seen)."""
    tr = tracks[oid]
    vis = np.asarray(tr.visible, bool)
    if vis.sum() < 6:
        return None
    xy = tr.xy[vis]
    d = xy - xy[0]
    _, _, vt = np.linalg.svd(d - d.mean(0), full_matrices=False)
    u = vt[0]
    s = d @ u
    if s[-1] < 0 or (abs(s[-1]) < 1e-9 and s.min() < 0):
        s = -s
    out = np.full(len(tr.visible), np.nan)
    out[vis] = s
    return out


def joint_release_time(t: np.ndarray, paths: dict[str, np.ndarray], d_common: float
                       ) -> tuple[float | None, dict]:
    """Common release time of bodies let go together from rest: least squares of ``s_i = c_i (t - t0)²``
    over each body's samples from the start of motion up to 95% of the common travel."""
    sel = {}
    for b, s in paths.items():
        ok = np.isfinite(s)
        idx = np.flatnonzero(ok & (s > MOVE_PX))
        if len(idx) < 4:
            return None, {}
        first_move = int(idx[0])
        before = max(0, first_move - 3)
        upto = np.flatnonzero(ok & (s >= 0.95 * d_common))
        end = int(upto[0]) if len(upto) else len(s)
        k = np.arange(before, end)
        k = k[np.isfinite(s[k])]
        if len(k) < 5:
            return None, {}
        sel[b] = k
    names = list(paths)
    t_start = min(float(t[sel[b][0]]) for b in names)
    t_move = min(float(t[np.flatnonzero(np.isfinite(paths[b]) & (paths[b] > MOVE_PX))[0]]) for b in names)

    def resid(p):
        t0 = p[0]
        out = []
        for j, b in enumerate(names):
            tt = t[sel[b]]
            out.append(p[1 + j] * np.clip(tt - t0, 0, None) ** 2 - paths[b][sel[b]])
        return np.concatenate(out)

    c0 = []
    for b in names:
        tt, ss = t[sel[b]], paths[b][sel[b]]
        c0.append(max(float(ss[-1]) / max(float(tt[-1] - t_start), 1e-3) ** 2, 1e-3))
    fit = least_squares(resid, [t_start] + c0, bounds=([t_start - 1.0] + [0] * len(names),
                                                        [t_move] + [np.inf] * len(names)))
    rms = float(np.sqrt(np.mean(fit.fun**2)))
    out = {"t0": float(fit.x[0]), "c": [float(v) for v in fit.x[1:]], "rms_px": rms}
    dof = len(fit.fun) - len(fit.x)
    if len(names) == 2 and dof > 0 and all(v > 0 for v in fit.x[1:]):
        # relative standard error of sqrt(c_0 / c_1): Gauss-Newton covariance scaled by the residual scatter
        try:
            cov = np.linalg.inv(fit.jac.T @ fit.jac) * float(np.sum(fit.fun**2)) / dof
            g = np.array([0.0, 0.5 / fit.x[1], -0.5 / fit.x[2]])
            out["ratio_rel_se"] = float(math.sqrt(max(float(g @ cov @ g), 0.0)))
        except np.linalg.LinAlgError:
            pass
    return float(fit.x[0]), out
