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
samples around the crossing (:func:`~lawful.perceive.events.local_crossing_time`: noise averaged over
seven samples, not two; exact on uniformly accelerated motion).

Twin: the ring accelerates ``anti_accel_factor`` (0.92–1.08) times as fast as the sphere, as if
its inertia were a solid sphere's.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._slopes import (  # noqa: F401  (re-exported: P29 and the tests use them)
    joint_release_time, path_distance, release_and_travel_ratio,
)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.physics import K_RING, K_SPHERE, TIME_RATIO
from lawful.world.scenes.slopes import body_centre, sphere_ring_items, travel_px, twin_incline_frames

G = 9.81
IDS = ("sphere", "ring")
DISTANCE_FRACTIONS = np.linspace(0.15, 0.95, 17)


def travel_time_ratio(r_t: float | None, sigma_rel: float = 0.0) -> MetricScore:
    """M1: ``e1 = |r_t / sqrt(10/7) - 1|``; ``s1 = q(e1; 0.10)`` (the uncertainty ``k sigma_rel`` is evidence)."""
    if r_t is None or not (math.isfinite(r_t) and r_t > 0):
        return MetricScore.operational_zero("travel-time ratio not resolved")
    e1 = abs(r_t / TIME_RATIO - 1.0)
    allow = noise.k_for() * max(0.0, sigma_rel) * r_t / TIME_RATIO
    return MetricScore.measured(q(e1, 0.10), e1, r_t=r_t, expected=TIME_RATIO, uncertainty=allow,
                                e1_beyond_noise=max(0.0, e1 - allow))


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
        first = sphere_ring_items(k, 0.0, 0.0)
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
        k, t = case.known, frame_times(case)
        yield from twin_incline_frames(k, case.width, case.height, style_of(case), travel_px(k, "sphere", t, law),
                                       travel_px(k, "ring", t, law))

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return release_and_travel_ratio(tracks, IDS, DISTANCE_FRACTIONS)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        return {"M1": travel_time_ratio(m.get("travel_time_ratio"), m.get("ratio_rel_se") or 0.0)}
