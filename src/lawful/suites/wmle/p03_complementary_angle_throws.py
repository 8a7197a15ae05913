"""P3 — complementary-angle projectiles: at equal launch speed, 30° and 60° throws land equally far.

Extraction (shared with P4 through :func:`lawful.suites.wmle._projectile.projectile_arc`): the airborne stretch is the first run of
samples above the launch height, less its gross centroid errors (``gross_errors``: a blurred ball
whose faint half the segmentation lost, a ball merged with its launch rail); ``y(x)`` is fitted with a
parabola (range between its roots at the launch height, apex at its vertex, fit RMS), ``x(t)`` with a
line and ``y(t)`` with a parabola (launch time at the first root, launch speed from both derivatives there).

M2's fit residual (``excess_rms``) is the RMS *distance* of the samples from the fitted parabola
(a vertical residual on the steep flanks of a 60° arc multiplies the horizontal centroid noise by the
slope) with the part that the track's measured centroid noise explains removed: a noise-free
parabola scores ``u = 0`` whatever the tracker's jitter, a bent path keeps its bend. The noise is the
flight's own (``flight_noise``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import geometric_mean, q
from lawful.suites.base import Law
from lawful.suites.wmle._projectile import excess_rms, flight_noise, projectile_arc
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, contrasting_colors, event, frame_times,
    sphere_box, steady_visible, style_of,
)
from lawful.tracks import Tracks
from lawful.world.scenes.throws import complementary_throws_frames, complementary_throws_xy

G = 9.81


def complementary_range_metric(R30: float, R60: float) -> MetricScore:
    """M1: e1 = R30/R60 - 1, s1 = q(e1; 0.15)."""
    e1 = R30 / R60 - 1.0
    return MetricScore.measured(q(e1, 0.15), e1)


def complementary_fit_metric(u30: float, u60: float, v30: float, v60: float) -> MetricScore:
    """M2: G(q(u30; 0.30), q(u60; 0.30), q(e_v; 0.20)), u = fit RMS / diameter, e_v = |v30/v60 - 1|."""
    e_v = abs(v30 / v60 - 1.0)
    s2 = geometric_mean([q(u30, 0.30), q(u60, 0.30), q(e_v, 0.20)])
    return MetricScore.measured(s2, e_v, u30=u30, u60=u60)


class ComplementaryAngleThrows(WmleTask):
    name = "complementary_angle_throws"
    label = "P3"
    family = FAMILIES[0]
    level = "M"
    required_objects = ("ball_30", "ball_60")
    required_events = ("launch", "landing")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        r = float(rng.uniform(12.0, 14.0))
        ground_y = float(rng.uniform(322.0, 336.0))
        xa = float(rng.uniform(45.0, 70.0))
        xb = xa + float(rng.uniform(44.0, 52.0))
        R = float(rng.uniform(400.0, min(470.0, 600.0 - xb)))
        v = float(rng.uniform(7.5, 9.0))
        ppm = R / (v * v * math.sin(math.radians(60)) / G)
        hold = float(rng.uniform(0.2, 0.3))
        t60 = 2 * v * math.sin(math.radians(60)) / G
        colors = contrasting_colors(seed, 2)
        y0 = ground_y - r
        duration = round(hold + t60 + 0.45, 4)
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view of a flat floor. Two identical balls sit side by side at the left, each on "
                    "its own launcher: the first aims 30 degrees above the floor, the second 60 degrees. Both "
                    "are fired at the same moment with the same speed, fly in separate lanes and land back on "
                    "the floor, where they stop. The camera does not move and time runs at a steady rate."),
            objects=[ObjectSpec(id="ball_30", shape="sphere", color=colors[0], box=sphere_box(xa, y0, r),
                                known={"angle_deg": 30.0}),
                     ObjectSpec(id="ball_60", shape="sphere", color=colors[1], box=sphere_box(xb, y0, r),
                                known={"angle_deg": 60.0})],
            assumptions=["identical balls", "equal launch speeds", "launch angles 30 and 60 degrees",
                         "landing at launch height", "negligible air resistance", "fixed side view, uniform time"],
            criteria=["M1: equal ranges R30 = R60", "M2: parabolic paths and equal launch speeds"],
            known={"g": G, "speed_m_s": v, "px_per_m": ppm, "ground_y": ground_y, "radius_px": r,
                   "x30": xa, "x60": xb, "range_px": R, "hold_s": hold, "colors": [list(c) for c in colors],
                   "style_seed": seed, "anti_gravity_factor_60": 1.3,
                   "anti_note": "in the twin the 60-degree ball falls with 1.3 g: its range is R/1.3 (e1 = 0.3)"},
        )
        tt = frame_times(case)
        (x30, y30), (x60, y60) = complementary_throws_xy(case.known, tt, "true")
        case.truth = GroundTruth(
            tracks={"ball_30": [(float(a), float(b), float(c)) for a, b, c in zip(tt, x30, y30)],
                    "ball_60": [(float(a), float(b), float(c)) for a, b, c in zip(tt, x60, y60)]},
            events={"launch": hold, "landing_30": hold + t60 / math.sqrt(3), "landing_60": hold + t60},
            quantities={"range_px": R, "e1": 0.0},
        )
        return case, next(self.render(case))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        return complementary_throws_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        idx = np.arange(len(tracks))
        for oid, tag in (("ball_30", "30"), ("ball_60", "60")):
            tr = tracks[oid]
            arc = projectile_arc(tracks.t, tr.x, tr.y, steady_visible(tr, (case.width, case.height)),
                                 radius=0.25 * float(tr.width_px[0] + tr.height_px[0] + 2))
            if isinstance(arc, str):
                m.notes[f"unresolved_{tag}"] = arc
                continue
            m.events.append(event(oid, "launch", float(np.interp(arc.t_launch, tracks.t, idx)), tracks))
            if arc.t_land is not None:
                m.events.append(event(oid, "landing", float(np.interp(arc.t_land, tracks.t, idx)), tracks))
            diameter = float(np.nanmean([tr.width_px[0], tr.height_px[0]])) + 1.0
            m.set(f"range_{tag}_px", arc.range, "ball did not come back to its launch height")
            nz = flight_noise(tracks, oid, arc, (case.width, case.height))
            m.set(f"fit_rms_{tag}_diam", excess_rms(arc, nz.sigma_x, nz.sigma_y) / diameter)
            m.set(f"fit_rms_raw_{tag}_diam", arc.rms / diameter)
            m.set(f"speed_{tag}_px_s", arc.speed)
            m.notes[f"gross_errors_{tag}"] = arc.notes["gross_errors"]
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        R30, R60 = m.get("range_30_px"), m.get("range_60_px")
        if R30 is not None and R60 is not None and R60 > 0:
            m1 = complementary_range_metric(R30, R60)
        else:
            m1 = MetricScore.operational_zero(self._why(m, "range"))
        vals = [m.get(k) for k in ("fit_rms_30_diam", "fit_rms_60_diam", "speed_30_px_s", "speed_60_px_s")]
        if all(v is not None for v in vals) and vals[3] > 0:
            m2 = complementary_fit_metric(*vals)
        else:
            m2 = MetricScore.operational_zero(self._why(m, "flight"))
        return {"M1": m1, "M2": m2}

    @staticmethod
    def _why(m: Measurement, what: str) -> str:
        reasons = [f"{k[-2:]}°: {v}" for k, v in m.notes.items() if k.startswith("unresolved_")]
        reasons += [f"{k}: {v}" for k, v in m.missing.items()]
        return f"{what} not resolved ({'; '.join(reasons) or 'unknown'})"
