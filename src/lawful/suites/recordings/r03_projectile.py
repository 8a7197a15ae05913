"""R3 — projectile: a ball launched at any angle, from any height, flies on one parabola until it lands.

Object ``ball``. ``known`` (optional): ``landing_height_px``, the image row (px, y down) of the ball's
centre where its flight ends (a floor, a table, a hoop's rim); without it the flight ends at the
ball's first impact (:func:`lawful.suites.wmle.p02_free_fall.first_impact`: it stops moving down beyond
its noise) and the landing level is the centre row there. Nothing needs calibrating: launch speed,
angle and the gravity in px/s² are fitted.

Extraction (launch, landing, the samples left out, the fits in ``τ = t − t_mid`` and their standard errors from
``N_DRAWS`` noise draws): :mod:`lawful.suites.recordings._throws`.

Metrics (``q(beyond_noise(e, se), a)``):

- M1 uniform horizontal velocity: ``e1 = a_x / a_y`` (horizontal acceleration in units of the fitted
  gravity), ``A_HORIZONTAL = 0.10`` (air drag on a basketball at free-throw speed is about 0.1 g);
- M2 constant vertical acceleration: ``e2 = j·T / a_y`` (the change of the vertical acceleration over
  the flight time ``T``, relative to it) from the cubic fit, ``A_VERTICAL = 0.20``;
- M3 one trajectory: the first half of the flight (``y`` parabola, ``x`` line) predicts where the ball
  is at the landing time; observed: where (and when) the last third of the flight reaches the landing
  level. ``e3 = |p_pred − p_obs| / D``, ``D`` the flight's extent (√(range² + vertical span²)),
  ``A_LANDING = 0.05``. Operational zero when the landing is not seen.

Too short a flight or none: operational zeros with the reason.

Drawn case: a ball on a launcher on a platform or the floor is fired (either direction, at the angle
its drawn apex height and range give: about 30–70°) and lands on the floor, where it rolls to a stop;
even seeds state ``landing_height_px``. Anti twin (by seed): a cartoon path (straight along the launch
direction for the first ``ANTI_STRAIGHT`` of the flight, then falling, landing at the same time and
place) or a horizontal velocity that decays (``v_x e^{-s/τ}``, ``τ`` = the flight time).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.recordings._throws import flight_measurement
from lawful.suites.recordings.common import RecordingTask, beyond_noise, unresolved_scores
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.recordings import ball_frames, launched_ball_xy, launcher_scene

A_HORIZONTAL, A_VERTICAL, A_LANDING = 0.10, 0.20, 0.05
ANTI_STRAIGHT = 0.35
STOP_PX = 14.0


class Projectile(RecordingTask):
    name = "projectile"
    label = "R3"
    family = FAMILIES[0]
    level = "M"
    required_objects = ("ball",)
    required_events = ("launch", "landing")
    required_known: dict[str, str] = {}
    optional_known = {"landing_height_px": "image row (px, y down) of the ball's centre where its flight ends; "
                                           "default: its first impact"}

    # --- case ----------------------------------------------------------------------------------
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        r = float(rng.uniform(9.0, 13.0))
        ground_y = float(rng.uniform(318.0, 336.0))
        lift = float(rng.choice([0.0, rng.uniform(40.0, 130.0)]))  # launch platform height (px)
        y_launch = ground_y - lift - r
        direction = float(rng.choice([-1.0, 1.0]))
        H = float(rng.uniform(70.0, min(200.0, y_launch - 40.0)))  # apex above launch (px)
        t_apex = float(rng.uniform(0.38, 0.55))
        g = 2 * H / t_apex**2
        vy = g * t_apex
        t_land = (vy + math.sqrt(vy * vy + 2 * g * lift)) / g
        R = float(rng.uniform(260.0, 480.0))
        vx = R / t_land
        x0 = 320.0 - direction * R / 2 + float(rng.uniform(-30.0, 30.0))
        hold = float(rng.uniform(0.25, 0.35))
        duration = hold + t_land + 0.5
        color = object_colors(seed, 1)[0]
        known = {"g_px_s2": g, "vx_px_s": direction * vx, "vy_px_s": vy, "x0": x0, "y_launch": y_launch,
                 "ground_y": ground_y, "lift_px": lift, "radius_px": r, "hold_s": hold, "flight_time_s": t_land,
                 "angle_deg": math.degrees(math.atan2(vy, vx)), "color": list(color), "style_seed": seed,
                 "anti_kind": "cartoon" if seed % 2 == 0 else "drag",
                 "anti_note": "twin: cartoon path (straight for the first 35 % of the flight, then falling) on even "
                              "seeds, horizontal velocity decaying as exp(-s/T) on odd seeds"}
        if seed % 2 == 0:
            known["landing_height_px"] = ground_y - r
        case = Case(
            id=self.case_id(index), suite="recordings", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=round(duration, 4),
            prompt=("Fixed side view. A ball sits on a small launcher; it is fired upwards at an angle, flies in an "
                    "arc across the picture and lands on the floor, where it rolls to a stop."),
            objects=[ObjectSpec(id="ball", shape="sphere", color=color, box=sphere_box(x0, y_launch, r))],
            assumptions=["negligible air resistance", "fixed camera", "uniform time"],
            criteria=["M1: uniform horizontal velocity", "M2: constant vertical acceleration",
                      "M3: the first half of the flight predicts the landing"],
            known=known,
        )
        tt = frame_times(case)
        xs, ys = self._xy(case, tt, "true")
        case.truth = GroundTruth(tracks={"ball": [(float(a), float(b), float(c)) for a, b, c in zip(tt, xs, ys)]},
                                 events={"launch": hold, "landing": hold + t_land},
                                 quantities={"g_px_s2": g, "vx_px_s": vx, "range_px": R, "e1": 0.0, "e2": 0.0,
                                             "e3": 0.0})
        return case, next(self.render(case))

    def _xy(self, case: Case, t: np.ndarray, law: Law) -> tuple[np.ndarray, np.ndarray]:
        return launched_ball_xy(case.known, t, law, ANTI_STRAIGHT, STOP_PX)

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k, style = case.known, style_of(case)
        xs, ys = self._xy(case, frame_times(case), law)
        return ball_frames(k, case.width, case.height, style, xs, ys, launcher_scene(k, case.width, case.height, style))

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return flight_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if (zeros := unresolved_scores(m, ("M1", "M2", "M3"))) is not None:
            return zeros
        e, se = m.notes["residuals"], m.notes["se"]
        out = {}
        for key, name, a in (("M1", "e1", A_HORIZONTAL), ("M2", "e2", A_VERTICAL), ("M3", "e3", A_LANDING)):
            if math.isfinite(e[name]) and math.isinf(se[name]):
                out[key] = MetricScore.operational_zero(f"{name} not resolved in most noise draws")
            elif math.isfinite(e[name]):
                out[key] = MetricScore.measured(q(beyond_noise(e[name], se[name]), a), e[name], se=se[name])
            else:
                why = "landing not seen" if name == "e3" else "flight does not curve downwards"
                out[key] = MetricScore.operational_zero(why)
        return out
