"""R4 — one pendulum: a constant period, set by the length alone, on a sinusoidal swing; also one that strikes a wall.

Objects: ``bob``. Case ``known``: ``anchor`` ``[x, y]`` the pivot in first-frame pixels (required); optional
``length_m`` (pivot to bob centre, metres; case level or the bob's ``known``), ``length_px``, ``g`` (9.81),
``wall``: ``"left"`` / ``"right"`` / a pixel column, or ``"none"`` (default: detected, see below). Time is real
seconds (``capture_fps`` for slow-motion clips). Release: :func:`~lawful.suites.recordings.common.release_time`.

The swing coordinate is the bob's angle about the anchor, ``θ = atan2(x − x_a, y − y_a)`` (rad), ``σ_θ`` its
measured localisation noise (:func:`lawful.perceive.noise.sigma`), ``L`` the median anchor–bob distance (px).
Every period is reduced to small amplitude by the finite-amplitude law ``T(A) = T0·f(A)``,
``f(A) = (2/π)·K(sin²(A/2))`` (``K`` the complete elliptic integral, parameter convention), so a lawful
pendulum gives the same ``T0`` at every amplitude.

Periods, free swing or one that strikes a wall (detected when not stated): :mod:`lawful.suites.recordings._swings`.

Metrics (residual ``e``, standard error ``se`` from the measured noise, ``q(beyond_noise(e, se); a)``):

- M1 period constancy: ``e1`` = inverse-variance weighted CV of the ``T0`` values, ``se1 = √((n−1)/Σw)/T̄0``;
  ``a = 0.10`` (a 10 % period scatter halves the score, the WMLE pendulum scale). Needs 2 values.
- M2 isochronism: relative change of ``T0`` over the measured amplitude range from a weighted line in ``A²``
  (the finite-amplitude law already removed, so the law predicts 0); ``a = 0.10``. Needs 3 values.
- M3 sinusoidal swing: RMS residual (px) of the law's curve — free: ``c + A0·e^{−γτ−βτ²}·cos(φ0 + ω0∫dτ/f(A))``
  from release on; wall: the joint arc fit — beyond ``σ`` (px), over the largest amplitude (px); ``a = 0.03``.
- M4 length law (only with ``length_m``): ``e4 = T̄0 / (2π√(L/g)) − 1``, ``se4`` from ``T̄0``'s; ``a = 0.05``.

No release, or no period → operational zero with the reason. A bob that stops dead mid-swing and rests for longer
than its longest period (:func:`lawful.suites.wmle._pendulums.halt`) multiplies C by the share of its tracked time
before the halt (``swinging``). Twin (``known.anti``): the period grows or shrinks
steadily (``chirp``), depends strongly on the amplitude (``amplitude``), the bob speeds up at the turning points
(``turning``: a triangle-like swing) or the period does not match the length (``period``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.recordings import _oscillation as osc
from lawful.suites.recordings._swings import swing_measurement
from lawful.suites.recordings.common import RecordingTask, beyond_noise
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, frame_times, style_of
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.recordings import pendulum_swing_angles, string_pendulum_frames

G = 9.81
A_PERIOD, A_RESID, A_LENGTH = 0.10, 0.03, 0.05


class Pendulum(RecordingTask):
    """One pendulum (optionally striking a wall): constant small-amplitude period, sinusoidal swing, T = 2π√(L/g)."""

    name = "pendulum"
    label = "R4"
    family = FAMILIES[2]
    level = "E"
    required_objects = ("bob",)
    required_events = ("release",)
    required_known = {"anchor": "pivot [x, y] of the string in first-frame pixels"}
    optional_known = {"length_m": "pivot to bob centre in metres (adds M4: T vs 2π√(L/g))",
                      "length_px": "pivot to bob centre in px (default: measured from the swing)",
                      "g": "local gravity (m/s², default 9.81)",
                      "wall": "'left', 'right', a px column or 'none': a wall the bob strikes (default: detected)"}

    # -------------------------------------------------------------------------- case and render
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        L_px = float(rng.uniform(200.0, 255.0))
        L_m = float(rng.uniform(0.4, 0.9))
        amp = float(rng.uniform(16.0, 28.0))
        side = int(rng.choice([-1, 1]))
        pivot_x = float(320.0 + rng.uniform(-30.0, 30.0))
        radius = float(rng.uniform(11.0, 13.0))
        hold = float(rng.uniform(0.3, 0.6))
        duration = 8.0
        gamma = -math.log(float(rng.uniform(0.45, 0.65))) / (duration - hold)  # amplitude decay over the clip
        kind = str(rng.choice(["chirp", "amplitude", "turning", "period"]))
        value = {"chirp": float(rng.choice([-1, 1]) * rng.uniform(0.25, 0.4)),
                 "amplitude": float(rng.uniform(0.35, 0.55)), "turning": float(rng.uniform(0.75, 0.95)),
                 "period": float(rng.choice([rng.uniform(0.72, 0.8), rng.uniform(1.25, 1.4)]))}[kind]
        color = object_colors(seed, 1)[0]
        p = pk.pendulum_dict("bob", pivot_x, L_px, L_m, amp, side, radius, color)
        p.update(gamma=round(gamma, 6), hold_s=round(hold, 4))
        T0 = 2 * math.pi / math.sqrt(G / L_m - gamma**2)
        prompt = ("Fixed side view of a pendulum: a small ball on a thin string hanging from a metal bar. A hand "
                  f"holds the ball aside by about {amp:.0f} degrees, lets go, and the pendulum swings freely back "
                  "and forth, slowly losing amplitude. The camera does not move and time runs at a steady rate.")
        case = Case(id=self.case_id(index), suite=self.suite, task=self.name, seed=int(seed), variant=f"style-{seed}",
                    width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt,
                    objects=[pk.object_spec(p)], assumptions=["a thin string of fixed length", "released from rest",
                                                              "light air drag", "fixed side view, uniform time"],
                    criteria=["M1 period constancy", "M2 isochronism", "M3 sinusoidal swing", "M4 T = 2π√(L/g)"],
                    known={"anchor": [p["pivot_x"], p["pivot_y"]], "length_m": p["length_m"], "g": G,
                           "ground_y": 352.0, "style_seed": int(seed), "pendulum": p,
                           "anti": {"kind": kind, "value": round(value, 5)}})
        t = frame_times(case)
        th = self._angles(case, t, "true")
        x, y = pk.bob_position(p, th)
        case.truth = GroundTruth(
            tracks={"bob": [(round(float(a), 5), round(float(b), 3), round(float(c), 3)) for a, b, c in zip(t, x, y)]},
            events={"release": hold}, quantities={"period_s": T0, "release_s": hold, "length_px": L_px})
        return case, next(iter(self.render(case)))

    @staticmethod
    def _angles(case: Case, t: np.ndarray, law: str) -> np.ndarray:
        return pendulum_swing_angles(case.known, case.duration, t, law, float(case.known.get("g", G)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        p = case.known["pendulum"]
        x, y = pk.bob_position(p, self._angles(case, frame_times(case), law))
        return string_pendulum_frames(p, case.known["ground_y"], case.width, case.height, style_of(case), x, y)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        if why := self.case_problem(case):
            m.set("period_s", None, why)
            return m
        return swing_measurement(case, tracks)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        return pk.swinging(m)  # a bob that stops dead mid-swing (:func:`lawful.suites.wmle._pendulums.halt`)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        sig = float(m.notes.get("noise_px", math.nan))
        resolved = m.get("period_cv") is not None  # fewer periods than M2 needs: M2 undefined, not a violation
        out = {"M1": osc.noise_metric(m, "period_cv", "period_cv_se", A_PERIOD, missing="operational_zero"),
               "M2": osc.noise_metric(m, "period_trend", "period_trend_se", A_PERIOD,
                                      missing="undefined" if resolved else "operational_zero"),
               "M3": osc.noise_metric(m, "fit_rms_px", None, A_RESID, "amplitude_px", sigma=sig,
                                      missing="operational_zero")}
        L_m = case.known.get("length_m") or case.object("bob").known.get("length_m")
        T, se = m.get("period_s"), m.get("period_se_s")
        if not L_m:
            out["M4"] = MetricScore.undefined("no known.length_m: the period is not compared with 2π√(L/g)")
        elif T is None:
            out["M4"] = MetricScore.operational_zero(m.missing.get("period_s", "no period"))
        else:
            Tp = 2 * math.pi * math.sqrt(float(L_m) / float(case.known.get("g", G)))
            e = beyond_noise(T / Tp - 1, (se or 0) / Tp)
            out["M4"] = MetricScore.measured(q(e, A_LENGTH), e, raw=T / Tp - 1, T_pred=Tp)
        return out
