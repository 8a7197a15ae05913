"""P4 — oblique projectile at 45°: apex height over range is 1/4; uniform v_x, uniform Δv_y, parabolic path.

Extraction uses :func:`~lawful.suites.wmle.p03_complementary_angle_throws.projectile_arc` (gross centroid
errors left out); ``v_x`` and ``v_y`` are least-squares slopes on equal time intervals of the flight
(:func:`interval_velocities`), ``Δv_y`` the increments between them scaled to the mean spacing of the
slopes' own times (on a parabola, a line's least-squares slope is the velocity at a known time, so a
sample left out of an interval does not fake an acceleration change).

Noise: ``CV(v_x)``, ``CV(Δv_y)`` and the fit RMS are spreads, which the tracker's centroid noise
inflates even on an exact parabola (``σ`` = 1 px makes ``CV(Δv_y)`` ≈ 0.007 on a 0.4 s interval). Each
is scored net of the part the track's measured noise explains (:func:`excess_cv`,
:func:`~lawful.suites.wmle.p03_complementary_angle_throws.excess_rms`): the variance a noise-free
path would add is removed, so a lawful clip scores near 1 and a real non-uniformity keeps its size; the
raw values are in the notes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import cv, geometric_mean, q
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, frame_times,
    sphere_box, steady_visible, style_of,
)
from lawful.suites.wmle.kinematics import interval_velocities
from lawful.suites.wmle._projectile import excess_rms, flight_noise, projectile_arc
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.draw import Scene, Sphere

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




def excess_cv(values: np.ndarray, D: np.ndarray, se: np.ndarray) -> tuple[float, float]:
    """``(raw, excess)`` CV of ``values = D @ s`` where ``s`` are estimates with independent errors ``se``.

    Noise adds ``tr(C D diag(se²) Dᵀ) / k`` (``C`` the centring matrix) to the population variance of the
    ``k`` values on average; the excess CV is ``sqrt(max(0, var - that)) / |mean|``. NaN se counts as 0.
    """
    vals = np.asarray(values, float)
    raw = cv(vals)
    k = len(vals)
    if not math.isfinite(raw):
        return raw, raw
    C = np.eye(k) - 1.0 / k
    S = np.diag(np.nan_to_num(np.asarray(se, float)) ** 2)
    bias = float(np.trace(C @ D @ S @ D.T)) / k
    return raw, math.sqrt(max(0.0, float(np.var(vals)) - bias)) / abs(float(np.mean(vals)))


def velocity_uniformity(t: np.ndarray, x: np.ndarray, y: np.ndarray, sigma_x: float, sigma_y: float) -> dict:
    """``v_x`` on :data:`VX_INTERVALS` and ``Δv_y`` between :data:`VY_INTERVALS` equal time intervals, with
    their raw and noise-excess CVs (:func:`excess_cv`)."""
    vx, _, se_x = interval_velocities(t, x, VX_INTERVALS, sigma_x)
    vy, ty, se_y = interval_velocities(t, y, VY_INTERVALS, sigma_y)
    dt = np.diff(ty)
    D = np.zeros((len(dt), len(vy)))
    for j, d in enumerate(dt):
        D[j, j], D[j, j + 1] = -np.mean(dt) / d, np.mean(dt) / d
    dvy = D @ vy
    raw_x, cv_x = excess_cv(vx, np.eye(len(vx)), se_x)
    raw_y, cv_y = excess_cv(dvy, D, se_y)
    return {"vx": vx, "dvy": dvy, "cv_vx": cv_x, "cv_dvy": cv_y, "cv_vx_raw": raw_x, "cv_dvy_raw": raw_y}


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
        k = case.known
        T, R = k["flight_time_s"], k["range_px"]
        s = np.clip((t - k["hold_s"]) / T, 0.0, 1.0)
        H = R / 4 * (k["anti_height_factor"] if law == "anti" else 1.0)
        return k["x0"] + R * s, k["ground_y"] - k["radius_px"] - 4 * H * s * (1 - s)

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        r, x0, y0 = k["radius_px"], k["x0"], k["ground_y"] - k["radius_px"]
        c = math.sqrt(0.5)
        scene.marker_line((x0 + 1.8 * r * c, y0 - 1.8 * r * c), (x0 + 3.4 * r * c, y0 - 3.4 * r * c), width=2)
        color = tuple(k["color"])
        x, y = self._xy(case, frame_times(case), law)
        for xi, yi in zip(x, y):
            yield scene.frame([Sphere(float(xi), float(yi), r, color)])

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        tr = tracks["ball"]
        arc = projectile_arc(tracks.t, tr.x, tr.y, steady_visible(tr, (case.width, case.height)),
                             radius=0.25 * float(tr.width_px[0] + tr.height_px[0] + 2))
        if isinstance(arc, str):
            m.notes["unresolved"] = arc
            return m
        idx = np.arange(len(tracks))
        m.events.append(event("ball", "launch", float(np.interp(arc.t_launch, tracks.t, idx)), tracks))
        if arc.apex_seen:
            t_apex = float(-arc.yt[1] / (2 * arc.yt[0]))
            m.events.append(event("ball", "apex", float(np.interp(t_apex, tracks.t, idx)), tracks))
        if arc.t_land is not None:
            m.events.append(event("ball", "landing", float(np.interp(arc.t_land, tracks.t, idx)), tracks))
        m.set("apex_height_px", arc.height)
        m.set("range_px", arc.range, "ball did not come back to its launch height")
        descent = bool(arc.apex_seen and arc.y[-1] > arc.apex[1] + 2.0)
        m.set("apex_x_from_launch_px", abs(arc.apex[0] - arc.x_launch) if descent else None,
              "apex and descent not both seen")
        nz = flight_noise(tracks, "ball", arc, (case.width, case.height))
        vel = velocity_uniformity(arc.t, arc.x, arc.y, nz.sigma_x, nz.sigma_y)
        m.notes.update({k: [float(v) for v in vel[k]] for k in ("vx", "dvy")})
        m.notes.update(sigma_px=[nz.sigma_x, nz.sigma_y], gross_errors=arc.notes["gross_errors"])
        for k in ("cv_vx", "cv_dvy", "cv_vx_raw", "cv_dvy_raw"):
            m.set(k, vel[k] if math.isfinite(vel[k]) else None, "velocity profile not resolved")
        R = arc.range if arc.range else (2 * m.get("apex_x_from_launch_px") if m.get("apex_x_from_launch_px") else None)
        m.set("fit_rms_over_range", excess_rms(arc, nz.sigma_x, nz.sigma_y) / R if R else None, "range not resolved")
        m.set("fit_rms_raw_over_range", arc.rms / R if R else None, "range not resolved")
        return m

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
