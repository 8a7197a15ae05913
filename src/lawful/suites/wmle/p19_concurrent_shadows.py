"""P19 — shadows of four vertical rods cast by one point lamp meet at a common point (WMLE B.4).

Seen from straight above: a lamp hangs over a floor and four equal vertical rods stand around it. A
point source casts each rod's shadow along the ray from the lamp's foot through the rod, so the four
shadow axes, extended backwards, meet at one point (the lamp's foot, under the lamp).

Readings: one ``line`` probe per shadow (``select="darker"``: floor pixels darker than the region's
first-frame floor by :data:`~lawful.perceive.regions.K_SELECT` robust sds), each in a wedge beyond its
rod stated in ``case.known["shadow_regions"]``. Per frame with all four axes read:

- M1 ``e1 = RMS_concurrence / D_f``: the RMS distance of the four axes to their least-squares common
  point over the frame diagonal (median over frames); ``s1 = q(e1; 0.05)``.
- M2 ``e2 = mean(std(x_k), std(y_k)) / D_f`` over the six pairwise intersections (median over
  frames); ``s2 = q(e2; 0.05)``.

Both need ≥ ``MIN_FRAMES`` such frames, else operational zeros. Twin: each shadow is turned about its
rod by ``anti_turn_deg`` (14–22°, alternating
signs around the lamp), so the axes no longer share a point.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._beams import shadows_frame, shadows_measurement  # noqa: F401  (tests use both)
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, style_of
from lawful.tracks import Tracks
from lawful.world import optics
from lawful.world.scenes.light import rod_shadow_frames

N_RODS = 4
MIN_FRAMES = 3
NAMES = tuple(f"shadow_{k + 1}" for k in range(N_RODS))
WEDGE_DEG = 30.0  # half-angle of a shadow's region about its law-correct axis


def concurrence_metric(rms_px, diagonal: float) -> MetricScore:
    """M1: ``e1 = RMS_concurrence / D_f`` (median over frames); ``s1 = q(e1; 0.05)``."""
    x = np.asarray([v for v in rms_px if math.isfinite(v)], float)
    if len(x) < MIN_FRAMES:
        return MetricScore.operational_zero(f"four shadow axes read in {len(x)} frames (< {MIN_FRAMES})")
    e1 = float(np.median(x)) / diagonal
    return MetricScore.measured(q(e1, 0.05), e1, rms_px=float(np.median(x)), frames=float(len(x)))


def intersection_spread_metric(spread_px, diagonal: float) -> MetricScore:
    """M2: ``e2 = mean(std x_k, std y_k) / D_f`` of the pairwise intersections (median over frames)."""
    x = np.asarray([v for v in spread_px if math.isfinite(v)], float)
    if len(x) < MIN_FRAMES:
        return MetricScore.operational_zero(f"pairwise intersections in {len(x)} frames (< {MIN_FRAMES})")
    e2 = float(np.median(x)) / diagonal
    return MetricScore.measured(q(e2, 0.05), e2, spread_px=float(np.median(x)))


class ConcurrentShadows(WmleTask):
    """Four vertical rods around a point lamp, seen from above; their shadows point away from the lamp."""

    name = "concurrent_shadows"
    label = "P19"
    family = FAMILIES[3]
    level = "M"
    required_objects = ()
    required_known = {"shadow_regions": "four polygons [[x, y], …] (px), each holding one rod's shadow only "
                                        "(not the rod, the lamp or another shadow)"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        lamp = np.array([320.0 + float(rng.uniform(-40, 40)), 180.0 + float(rng.uniform(-12, 12))])
        kappa = float(rng.uniform(0.6, 0.85))  # rod height / (lamp height − rod height)
        a0 = float(rng.uniform(0.0, 72.0))
        alphas = [a0 + 72.0 * k + float(rng.uniform(-4.0, 4.0)) for k in range(N_RODS)]
        rho = float(rng.uniform(5.0, 7.0))
        turns = np.array([float(rng.uniform(14.0, 22.0)) for _ in range(N_RODS)])
        signs = np.array([1.0, -1.0, 1.0, -1.0]) * float(rng.choice([-1.0, 1.0]))  # alternating around the lamp
        rods, regions = [], []
        for a in alphas:
            e = np.array([math.cos(math.radians(a)), math.sin(math.radians(a))])
            room = min((310.0 - abs(lamp[0] - 320.0)) / max(abs(e[0]), 1e-6),
                       (170.0 - abs(lamp[1] - 180.0)) / max(abs(e[1]), 1e-6)) - 30.0
            d = min(115.0, room / (1.0 + kappa))
            r = lamp + d * e
            rods.append({"x": float(r[0]), "y": float(r[1]), "alpha_deg": a, "d_px": d})
            L = d * kappa
            far = L + 22.0
            n = np.array([-e[1], e[0]])
            tw = math.tan(math.radians(WEDGE_DEG))
            quad = [r + (rho + 5) * e + (rho + 8) * n, r + far * e + (far * tw + 10) * n,
                    r + far * e - (far * tw + 10) * n, r + (rho + 5) * e - (rho + 8) * n]
            regions.append([list(p) for p in optics.clip_polygon(quad, WIDTH, HEIGHT)])
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=2.0,
            prompt=("Looking straight down at a plain floor from high above. A single small, bright bulb hangs "
                    "low over the middle of the floor and is the only light. Four identical thin vertical metal "
                    "rods stand upright around it at different distances and directions, and each casts a "
                    "sharp dark shadow on the floor. Nothing moves; the camera is fixed."),
            objects=[],
            assumptions=["one small (point-like) light source", "vertical rods on a flat floor",
                         "a fixed camera looking down"],
            criteria=["M1: the four shadow axes meet at one point, RMS distance / frame diagonal (q, a = 0.05)",
                      "M2: spread of the pairwise intersections / frame diagonal (q, a = 0.05)"],
            known={"lamp": lamp.tolist(), "rods": rods, "rod_radius_px": rho, "height_ratio": kappa,
                   "shadow_regions": regions, "style_seed": seed, "anti_turn_deg": (signs * turns).tolist(),
                   "anti_note": "twin: each shadow is turned about its rod by anti_turn_deg"},
        )
        case.truth = GroundTruth(quantities={"common_x": float(lamp[0]), "common_y": float(lamp[1]),
                                             "e1": 0.0, "e2": 0.0})
        return case, next(self.render(case))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        turns = case.known["anti_turn_deg"] if law == "anti" else [0.0] * N_RODS
        yield from rod_shadow_frames(case.known, case.width, case.height, style_of(case), case.n_frames, turns)

    def probes(self, case: Case) -> list[Probe]:
        return [Probe(nm, "line", [tuple(map(float, p)) for p in poly], select="darker")
                for nm, poly in zip(NAMES, case.known["shadow_regions"])]

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return shadows_measurement(tracks, NAMES)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        D = math.hypot(case.width, case.height)
        return {"M1": concurrence_metric(m.notes.get("rms_px", []), D),
                "M2": intersection_spread_metric(m.notes.get("spread_px", []), D)}

    def extra_consistency(self, case: Case, tracks: Tracks, measurement: Measurement) -> dict[str, float]:
        return self.readable(tracks, NAMES)
