"""R1 — free fall from a detected release, air drag allowed: a dropped ball starts from rest and its
downward acceleration never grows.

Objects: ``ball`` (any single falling object). ``known`` (all optional): ``fall_height_m`` — the drop of
the ball's centre from release to its first contact (m); or ``floor_to_ceiling_m`` with the ball's own
``known.diameter_m`` (a ball let go touching the ceiling falls ``floor_to_ceiling_m − diameter_m``);
``g`` (default 9.81 m/s²). Without a length the metres-free metrics M1–M3 are scored, with one M4 too.

Law. A real ball feels air drag. Falling from rest with quadratic drag its centre follows

    y(t) = y0 + (g'/κ²)·ln cosh(κ·(t − t0))        (y0 before t0)

in image pixels (``g'`` the initial acceleration in px/s², ``κ = g'/v_t`` with ``v_t`` the terminal speed;
``κ → 0`` is the drag-free parabola). Drag can only reduce the acceleration (``κ ≥ 0``), and a ball is no
feather: the fall ends below ``TANH_MAX`` (90 %) of its terminal speed (``tanh(κ·T) ≤ 0.9``), otherwise a
fall at constant speed would pass as "strong drag".

Camera model and extraction (release, fall window, the fit and its noise): :mod:`lawful.suites.recordings._falls`.
``σ`` is the track's measured noise in ``y``, ``D`` the fall distance in px, ``T`` the fall time.

Metrics (each ``q(beyond_noise(e, se), a)``):

- M1 *from-rest drag fall*: ``e1 = rms(y − y_fit) / D``, ``se1 = σ / D``; scale ``A_FIT`` = 1 % of the
  fall distance.
- M2 *starts from rest*: the departure from the fitted law (which is at rest at ``t0``) at release:
  ``r = y − y_fit = c + v0·s + b·s²/2`` (``s = t − t0``) fitted to the first third of the fall;
  ``e2 = v0 / (D/T)``, over the mean fall speed, ``se2`` from the fit's covariance with the measured ``σ``
  and from ``t0``'s (``g'·se_t0``); scale ``A_REST`` = 0.1.
- M3 *acceleration down and never growing*: accelerations ``a_j`` from least-squares velocities of the
  fall ``u`` (the image with the fitted camera undone) on ``INTERVALS`` equal intervals; ``e3`` the
  largest of ``(a_{j+1} − a_j)`` and ``−a_j`` beyond their noise, over the mean acceleration ``2U/T²``;
  scale ``A_ACC`` = 0.1.
- M4 *gravity* (a length ``H`` given and the contact seen), from the fall time and end points only (free
  of the image scale): drag only lengthens a fall, so ``g_lo = 2H/T²`` is at most ``g``; with the fitted
  drag ``β = κ·T``, ``g_hi = g_lo·β²/(2 ln cosh β)`` (``H = (g/κ²) ln cosh(κT)``) is ``g`` when the
  fit's drag is the ball's and more when part of it is a scale shrinking downwards (with the camera model
  in the fit, drag at its bound ``β = atanh 0.9``). ``e4`` = distance of ``g`` from ``[g_lo, g_hi]`` over
  ``g``; scale ``A_G`` = 5 % of ``g``.

Rendered cases: a ball on a thread cut at ``hold_s``, quadratic drag with ``v_t`` 8–40 m/s, seen by a
tilted camera (``known.perspective`` = ``λ`` in ±0.15), ``known`` holding the fall height. Anti twin
(by seed): *ease* — it speeds up then slows to land softly (smoothstep);
*steady* — it falls at constant speed from the cut; *jerk* — its acceleration grows (``d ∝ t³``); each
reaches the ground when the lawful ball does.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.suites.base import Law, TrackingPlan
from lawful.suites.recordings._falls import (
    G, acceleration_metric, drag_fall_measurement, fall_height, fit_metric, gravity_metric, rest_metric,
)
from lawful.suites.recordings.common import RecordingTask, unresolved_scores
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, frame_times, sphere_box
from lawful.suites.wmle.p02_free_fall import FreeFall
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.recordings import drag_fall_y

A_FIT, A_REST, A_ACC, A_G = 0.01, 0.10, 0.10, 0.05
ANTI_KINDS = ("ease", "steady", "jerk")


class FreeFallDrag(RecordingTask):
    name = "free_fall"
    label = "R1"
    family = FAMILIES[0]
    level = "E"
    required_objects = ("ball",)
    required_events = ("release",)
    optional_known = {"fall_height_m": "drop of the ball's centre from release to first contact (m)",
                      "floor_to_ceiling_m": "ball let go touching the ceiling: with the ball's known.diameter_m",
                      "g": "local gravity (m/s², default 9.81)"}
    plan = TrackingPlan()

    def case_problem(self, case: Case) -> str:
        why = super().case_problem(case)
        if why or "floor_to_ceiling_m" not in case.known or "fall_height_m" in case.known:
            return why
        ball = next(o for o in case.objects if o.id == "ball")
        if "diameter_m" not in ball.known:
            return "objects.ball.known.diameter_m is missing (needed with known.floor_to_ceiling_m)"
        return ""

    # --- drawn cases ----------------------------------------------------------------------------
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        H, vt = float(rng.uniform(1.5, 3.0)), float(rng.uniform(8.0, 40.0))
        r, x = float(rng.uniform(12.0, 16.0)), float(rng.uniform(200.0, 440.0))
        ground_y, top_y = float(rng.uniform(322.0, 336.0)), float(rng.uniform(40.0, 56.0))
        hold, lam = float(rng.uniform(0.25, 0.4)), float(rng.uniform(-0.15, 0.15))
        T = vt / G * math.acosh(math.exp(H * G / vt**2))
        color = object_colors(seed, 1)[0]
        case = Case(
            id=self.case_id(index), suite="recordings", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=round(hold + T + 0.5, 4),
            prompt=(f"Fixed side view. A ball hangs on a thread {H:.1f} metres above the floor. The thread is cut "
                    "and the ball falls straight down to the floor."),
            objects=[ObjectSpec(id="ball", shape="sphere", color=color, box=sphere_box(x, top_y, r),
                                known={"radius_px": r})],
            assumptions=["released from rest", "air drag", "uniform gravity", "fixed side view"],
            criteria=["M1: from-rest drag fall", "M2: starts from rest", "M3: acceleration down, never growing",
                      "M4: g within the drag bracket"],
            known={"fall_height_m": H, "g": G, "vt_m_s": vt, "fall_time_s": T, "hold_s": hold, "x": x,
                   "top_y": top_y, "ground_y": ground_y, "radius_px": r, "color": list(color), "style_seed": seed,
                   "perspective": lam, "anti": ANTI_KINDS[seed % len(ANTI_KINDS)]},
        )
        t = frame_times(case)
        rows = [(float(a), x, float(b)) for a, b in zip(t, self._y(case, t, "true"))]
        case.truth = GroundTruth(tracks={"ball": rows},
                                 events={"release": hold, "ground_contact": hold + T},
                                 quantities={"g_px_s2": G * (ground_y - r - top_y) / H})
        return case, next(self.render(case))

    def _y(self, case: Case, t: np.ndarray, law: Law) -> np.ndarray:
        return drag_fall_y(case.known, t, law)

    render = FreeFall.render  # P2's scene (ball on a thread below a bar, cut at hold_s) drawn along self._y

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return drag_fall_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if (zeros := unresolved_scores(m, ("M1", "M2", "M3"))) is not None:
            return zeros
        D, T, sigma = m.get("fall_px"), m.get("fall_time_s"), m.get("noise_px")
        out = {"M1": fit_metric(m.get("fit_rms_px"), sigma, D, A_FIT),
               "M2": rest_metric(m.get("release_speed_px_s"), m.get("release_speed_se_px_s"), D / T, A_REST),
               "M3": acceleration_metric(m.notes["accelerations_px_s2"], m.notes["acceleration_se_px_s2"],
                                         m.get("mean_acceleration_px_s2"), A_ACC)}
        if fall_height(case) is not None:
            if m.get("g_lo_m_s2") is None:
                out["M4"] = MetricScore.undefined("the first contact is not seen: no fall time for g")
            else:
                out["M4"] = gravity_metric(m.get("g_lo_m_s2"), m.get("g_hi_m_s2"), m.notes["g_lo_se"],
                                           m.notes["g_hi_se"], A_G, float(case.known.get("g", G)))
        return out
