"""P4 — oblique projectile at 45°: apex height over range is 1/4; uniform v_x, uniform Δv_y, parabolic path.

Extraction (:func:`~lawful.suites.wmle._projectile.oblique_flight_measurement`) uses
:func:`~lawful.suites.wmle._projectile.projectile_arc` (gross centroid errors left out); ``v_x`` and ``v_y``
are least-squares slopes on equal time intervals of the flight
(:func:`~lawful.suites.wmle.kinematics.interval_velocities`), ``Δv_y`` the increments between them scaled to
the mean spacing of the slopes' own times (on a parabola, a line's least-squares slope is the velocity at a
known time, so a sample left out of an interval does not fake an acceleration change).

Noise: ``CV(v_x)``, ``CV(Δv_y)`` and the fit RMS are spreads, which the tracker's centroid noise
inflates even on an exact parabola (``σ`` = 1 px makes ``CV(Δv_y)`` ≈ 0.007 on a 0.4 s interval). Each
is scored net of the part the track's measured noise explains (:mod:`lawful.suites.wmle._projectile`:
``excess_cv``, ``excess_rms``): the variance a noise-free path would add is removed, so a lawful clip
scores near 1 and a real non-uniformity keeps its size; the raw values are in the notes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import geometric_mean, q
from lawful.suites.base import Law
from lawful.suites.wmle._projectile import (  # noqa: F401  (tests use excess_cv, interval_velocities)
    excess_cv, interval_velocities, oblique_flight_measurement,
)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.throws import oblique_throw_frames, oblique_throw_xy

G = 9.81
VX_INTERVALS = 4
VY_INTERVALS = 3


def apex_range_metric(H: float, R: float | None = None, x_apex: float | None = None) -> MetricScore:
    """M1: e1 = H/R - 1/4 (s1 = q(e1; 0.10)); with no landing, the partial-arc H/(2 X_apex) - 1/4."""
    if R is not None and R > 0:
        e1 = H / R - 0.25
        return MetricScore.measured(q(e1, 0.10), e1)
    if x_apex is not None and x_apex > 0:
        e1 = H / (2 * x_apex) - 0.25
        return MetricScore.measured(q(e1, 0.10), e1, "partial arc: landing not seen, H/(2 X_apex) used")
    return MetricScore.operational_zero("apex or range not resolved")


def projectile_uniformity_metric(c_vx: float, c_dvy: float, u: float) -> MetricScore:
    """M2: G(q(CV(v_x); 0.10), q(CV(Δv_y); 0.10), q(u; 0.05)), u = parabola-fit RMS / R (CVs given)."""
    if not (math.isfinite(c_vx) and math.isfinite(c_dvy) and math.isfinite(u)):
        return MetricScore.operational_zero("velocity profile not resolved")
    s2 = geometric_mean([q(c_vx, 0.10), q(c_dvy, 0.10), q(u, 0.05)])
    return MetricScore.measured(s2, None, cv_vx=c_vx, cv_dvy=c_dvy, u=u)


class ObliqueProjectile(WmleTask):
    name = "oblique_projectile"
    label = "P4"
    family = FAMILIES[0]
    level = "H"
    required_objects = ("ball",)
    required_events = ("launch", "apex", "landing")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        r = float(rng.uniform(10.0, 13.0))
        ground_y = float(rng.uniform(318.0, 336.0))
        x0 = float(rng.uniform(45.0, 85.0))
        R = float(rng.uniform(430.0, min(520.0, 610.0 - x0)))
        v = float(rng.uniform(10.0, 13.0))
        ppm = R / (v * v / G)
        hold = float(rng.uniform(0.2, 0.3))
        T = math.sqrt(2.0) * v / G
        color = object_colors(seed, 1)[0]
        duration = round(hold + T + 0.45, 4)
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view of a flat floor. A ball rests on a small launcher at the left, aimed 45 degrees "
                    "above the floor. It is fired, rises to its highest point and comes back down to the floor "
                    "level further right, where it stops. The whole flight stays in view; the camera does not move "
                    "and time runs at a steady rate."),
            objects=[ObjectSpec(id="ball", shape="sphere", color=color,
                                box=sphere_box(x0, ground_y - r, r), known={"angle_deg": 45.0})],
            assumptions=["launch angle 45 degrees", "landing at launch height", "negligible air resistance",
                         "fixed side view, uniform time"],
            criteria=["M1: apex height / range = 1/4", "M2: uniform v_x, uniform Δv_y, parabolic path"],
            known={"g": G, "speed_m_s": v, "px_per_m": ppm, "ground_y": ground_y, "radius_px": r, "x0": x0,
                   "range_px": R, "hold_s": hold, "flight_time_s": T, "color": list(color), "style_seed": seed,
                   "anti_height_factor": 1.4,
                   "anti_note": "twin's heights are 1.4 x the law's (H/R = 0.35, e1 = 0.10), same range and timing"},
        )
        tt = frame_times(case)
        x, y = self._xy(case, tt, "true")
        case.truth = GroundTruth(
            tracks={"ball": [(float(a), float(b), float(c)) for a, b, c in zip(tt, x, y)]},
            events={"launch": hold, "apex": hold + T / 2, "landing": hold + T},
            quantities={"H_over_R": 0.25, "range_px": R, "apex_height_px": R / 4},
        )
        return case, next(self.render(case))

    def _xy(self, case: Case, t: np.ndarray, law: Law):
        return oblique_throw_xy(case.known, t, law)

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from oblique_throw_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return oblique_flight_measurement(case, tracks, VX_INTERVALS, VY_INTERVALS)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        H = m.get("apex_height_px")
        m1 = apex_range_metric(H, m.get("range_px"), m.get("apex_x_from_launch_px"))
        u = m.get("fit_rms_over_range")
        c_vx, c_dvy = m.get("cv_vx"), m.get("cv_dvy")
        m2 = (projectile_uniformity_metric(c_vx, c_dvy, u) if u is not None and c_vx is not None and c_dvy is not None
              else MetricScore.operational_zero("range or velocity profile not resolved"))
        return {"M1": m1, "M2": m2}
