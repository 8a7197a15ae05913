"""P23 — a still liquid surface is perpendicular to gravity (WMLE appendix B.5).

A ball is dropped beside a glass holding a still liquid; its free fall shows which way gravity points.
The camera may be tilted (the whole picture turned by a few degrees), so "down" need not be image-down:
the test is the angle between the ball's acceleration and the surface, not the surface's slope in the
picture.

Readings: the ball is tracked; the surface by ``level`` probes in narrow column bands across the glass
(``case.known["surface_bands"]``), each band's median row over the clip (the surface is still) at the
band's centre column. The fall: the samples after the ball leaves its resting place (beyond ``k·σ``) and
before it reaches its lowest place; ``x(t)`` and ``y(t)`` are fitted by quadratics, ``a = 2·(c_x, c_y)``,
sharing one straight path (a drop from rest) unless the free pair fits better beyond noise (F-test,
:func:`~lawful.suites.wmle._liquids.constant_acceleration`): the path's direction rests on the whole drop, where
the quadratic terms alone scattered ~4× more (a compressed clip: e1 0.68° → 0.19° on seed 1000 at CRF 35).

- M1 ``e1 = ∠(a_ball, t_surface) − 90°`` (``t_surface`` the fitted line's direction); ``s1 = q(e1; 5°)``.
- M2 ``s2 = G(q(u_s; 3 px), q(u_b; 8 px))``: ``u_s`` the RMS perpendicular residual of the surface line fit,
  ``u_b`` the RMS 2-D residual of the constant-acceleration fit.
- Fewer than :data:`MIN_BANDS` surface points or :data:`MIN_FALL` fall samples: both metrics are
  operational zeros.

Twin: the surface is tilted by ``anti_tilt_deg`` (8–15°) relative to the perpendicular of the fall.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import geometric_mean, q
from lawful.suites.base import Law
from lawful.suites.wmle._liquids import (  # noqa: F401  (re-exported: the tests use them)
    MIN_FALL, band_x, fall_fit, surface_and_fall_measurement, surface_line,
)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world import liquids as lq
from lawful.world.appearance import object_colors
from lawful.world.scenes.vessels import dropped_ball_y, glass_beside_ball, surface_bands, surface_gravity_frames

G = 9.81
CANVAS = (720, 500)  # drawn upright on a larger canvas, then turned and cut to the frame
N_BANDS, BAND_HALF = 9, 7  # 15-px bands: 7-px ones kept a compression block's error (fit RMS 0.19 -> 0.15 px)
MIN_BANDS = 3


def perpendicularity(a: tuple[float, float] | None, slope: float | None) -> MetricScore:
    """M1: ``e1 = ∠(a, t) − 90°`` with ``t = (1, slope)`` the surface direction; ``s1 = q(e1; 5°)``."""
    if a is None or slope is None or not np.all(np.isfinite(a)) or np.hypot(*a) == 0:
        return MetricScore.operational_zero("ball acceleration or surface direction not resolved")
    av, tv = np.asarray(a, float), np.array([1.0, slope])
    ang = math.degrees(math.acos(float(np.clip(av @ tv / (np.linalg.norm(av) * np.linalg.norm(tv)), -1, 1))))
    e1 = ang - 90.0
    return MetricScore.measured(q(e1, 5.0), e1, angle_deg=ang)


def fit_quality(u_s: float | None, u_b: float | None) -> MetricScore:
    """M2: ``G(q(u_s; 3 px), q(u_b; 8 px))``."""
    if u_s is None or u_b is None:
        return MetricScore.operational_zero("surface or trajectory fit not resolved")
    return MetricScore.measured(geometric_mean([q(u_s, 3.0), q(u_b, 8.0)]), None, u_s=u_s, u_b=u_b)


class SurfaceGravity(WmleTask):
    """A ball dropped beside a glass of still liquid: the surface lies across the fall's direction."""

    name = "surface_gravity"
    label = "P23"
    family = FAMILIES[4]
    level = "M"
    required_objects = ("ball",)
    required_events = ("release", "ground_contact")
    required_known = {"surface_bands": "[[x0, y0, x1, y1], …] (px) narrow column bands across the liquid's surface, "
                                       "each inside the vessel with air above and liquid below"}

    def probes(self, case: Case) -> list[Probe]:
        return [Probe(f"surface_{i}", "level", tuple(float(v) for v in b))
                for i, b in enumerate(case.known["surface_bands"])]

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        phi = 0.0 if rng.random() < 1 / 3 else float(rng.uniform(4, 10) * rng.choice([-1, 1]))
        ground = 402.0
        vessel, x_ball, r = glass_beside_ball(rng, CANVAS[0], ground)
        y_s = float(rng.uniform(265, 295))
        y_top = float(rng.uniform(128, 138))
        height_m = float(rng.uniform(1.1, 1.6))
        ppm = (ground - r - y_top) / height_m
        hold = float(rng.uniform(0.3, 0.45))
        t_fall = math.sqrt(2 * height_m / G)
        tilt = float(rng.uniform(8, 15) * rng.choice([-1, 1]))
        color = object_colors(seed, 1)[0]
        tint = lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))]
        glass = tuple(int(v) for v in np.clip(np.asarray(lq.GLASS_TINT) + rng.uniform(-18, 18), 0, 255))
        M = lq.rotation_matrix(CANVAS, (WIDTH, HEIGHT), phi)
        bands = surface_bands(M, vessel, N_BANDS, BAND_HALF, HEIGHT)
        bx, by = lq.to_output(M, [(x_ball, y_top)])[0]
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=round(hold + t_fall + 0.8, 4),
            prompt=("Side view of a glass of coloured liquid standing still on a table, with a small steel ball "
                    f"hanging on a thread about {height_m:.1f} metres above the table beside the glass. The thread is "
                    "cut and the ball drops freely to the table; the liquid stays perfectly still throughout. "
                    + ("The camera is held level. " if phi == 0 else "The camera is held slightly tilted and does "
                       "not move. ") + "Time runs at a steady rate."),
            objects=[ObjectSpec(id="ball", shape="sphere", color=color, box=sphere_box(bx, by, r),
                                known={"radius_px": r})],
            assumptions=["the liquid is at rest", "the ball falls freely from rest (negligible air resistance)",
                         "uniform gravity", "a camera that does not move (possibly tilted)"],
            criteria=["M1: angle between the ball's acceleration and the surface − 90° (q, a = 5°)",
                      "M2: G(q(surface line-fit RMS; 3 px), q(constant-acceleration fit RMS; 8 px))"],
            known={"surface_bands": bands, "rotation_deg": phi, "vessel_canvas": vessel, "surface_row_canvas": y_s,
                   "ball_canvas": [x_ball, y_top], "radius_px": r, "ground_canvas": ground, "px_per_m": ppm,
                   "hold_s": hold, "fall_time_s": t_fall, "color": list(color), "liquid": list(tint),
                   "glass": list(glass), "style_seed": seed, "anti_tilt_deg": tilt,
                   "anti_note": "twin: the surface is turned by anti_tilt_deg from the perpendicular to the fall"},
        )
        t = frame_times(case)
        pts = lq.to_output(M, np.stack([np.full(len(t), x_ball), dropped_ball_y(case.known, t, G)], 1))
        case.truth = GroundTruth(tracks={"ball": [(float(a), float(p[0]), float(p[1])) for a, p in zip(t, pts)]},
                                 events={"release": hold, "ground_contact": hold + t_fall},
                                 quantities={"e1": 0.0, "anti_e1": abs(tilt), "rotation_deg": phi})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from surface_gravity_frames(case.known, case.width, case.height, style_of(case), CANVAS,
                                          frame_times(case), G, law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return surface_and_fall_measurement(case, tracks, MIN_BANDS)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        rs = [tracks.regions[f"surface_{i}"].readable if f"surface_{i}" in tracks.regions else 0.0
              for i in range(len(case.known["surface_bands"]))]
        return {"readable_surface": float(np.mean(rs)) if rs else 0.0}

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        a = (m.get("accel_x_px_s2"), m.get("accel_y_px_s2"))
        return {"M1": perpendicularity(a if None not in a else None, m.get("surface_slope")),
                "M2": fit_quality(m.get("surface_rms_px"), m.get("trajectory_rms_px"))}
