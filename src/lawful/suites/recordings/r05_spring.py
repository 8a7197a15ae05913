"""R5 — one mass on a vertical spring: a constant period, a damped sinusoid about a fixed equilibrium.

Objects: ``mass``. Case ``known`` (all optional): ``anchor`` ``[x, y]`` the spring's upper end in first-frame
pixels (the motion is measured along anchor → mass; without it along image ``y``), ``g``. Time is real seconds
(``capture_fps``). Release: :func:`~lawful.suites.recordings.common.release_time`. Samples where the mass is
cut by the frame edge or unseen are left out; what stays visible is measured, too little is unmeasurable.

Measurement on ``s(t)`` (px along the spring, ``σ`` its measured localisation noise; turning points, periods,
centres and amplitudes): :mod:`lawful.suites.recordings._springs`.

Metrics (``q(beyond_noise(e, se); a)``, ``se`` from the measured noise):

- M1 period constancy: ``e1`` = inverse-variance weighted CV of the periods,
  ``se1 = √((n−1)/Σw)/T̄``; ``a = 0.10``. Needs 2 periods.
- M2 damped sinusoid: RMS residual (px) of ``c + A0·e^{−γτ−βτ²}·cos(φ0 + ω0τ)`` fitted from release on, beyond
  ``σ``, over the first amplitude (px); ``a = 0.03``.
- M3 equilibrium constant: drift of the centres over the clip (weighted straight line × time span, px) over the
  first amplitude; ``a = 0.05``. Needs 2 centres (4 turning points).
- M4 energy does not grow: growth of the amplitude over the clip, ``max(0, b)·D`` from a weighted line
  ``ln A = a + b t`` (``D`` the time span, ``se`` from ``σ/A``); ``a = 0.10``. Needs 3 turning points.

No release or too few turning points → operational zero (or undefined for the later metrics) with the reason.
Twin (``known.anti``): the frequency chirps (``chirp``), the amplitude grows (``growing``) or the equilibrium
drifts (``drift``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.suites.base import Law
from lawful.suites.recordings import _oscillation as osc
from lawful.suites.recordings._springs import spring_measurement
from lawful.suites.recordings.common import RecordingTask
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, frame_times, style_of
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.recordings import hanging_block_frames, spring_extension

G = 9.81
A_PERIOD, A_RESID, A_EQUIL, A_GROWTH = 0.10, 0.03, 0.05, 0.10


class MassSpring(RecordingTask):
    """One mass on a vertical spring: constant period, damped sinusoid, fixed equilibrium, no energy gain."""

    name = "spring"
    label = "R5"
    family = FAMILIES[2]
    level = "E"
    required_objects = ("mass",)
    required_events = ("release",)
    required_known: dict[str, str] = {}
    optional_known = {"anchor": "[x, y] px where the spring hangs: the oscillation is measured along anchor → mass "
                                "(default: the direction of the motion)"}

    # -------------------------------------------------------------------------- case and render
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        T = float(rng.uniform(0.8, 1.2))
        mass = float(rng.uniform(0.2, 0.6))
        stiff = mass * (2 * math.pi / T) ** 2
        eq_m = mass * G / stiff
        ppm = min(float(rng.uniform(250, 330)), 190.0 / (2 * eq_m))
        zeta = float(rng.uniform(0.01, 0.03))
        side = float(rng.uniform(40, 52))
        x = float(320 + rng.uniform(-60, 60))
        bar_y, rest = float(rng.uniform(22, 32)), float(rng.uniform(40, 55))
        hold = float(rng.uniform(0.3, 0.6))
        kind = str(rng.choice(["chirp", "growing", "drift"]))
        value = {"chirp": float(rng.choice([-1, 1]) * rng.uniform(0.25, 0.4)), "growing": float(rng.uniform(1.6, 2.2)),
                 "drift": float(rng.choice([-1, 1]) * rng.uniform(0.3, 0.5))}[kind]
        color = object_colors(seed, 1)[0]
        k = {"bar_y": round(bar_y, 2), "rest_px": round(rest, 2), "side_px": round(side, 2), "x": round(x, 2),
             "mass_kg": round(mass, 5), "stiffness": round(stiff, 5), "damping_ratio": round(zeta, 5),
             "px_per_m": round(ppm, 3), "hold_s": round(hold, 4), "g": G, "style_seed": int(seed),
             "color": [int(v) for v in color], "anchor": [round(x, 2), round(bar_y, 2)],
             "anti": {"kind": kind, "value": round(value, 5)}}
        duration = 6.0
        prompt = ("Fixed side view of a coloured block hanging from a coil spring under a metal bar. A hand holds the "
                  "block up with the spring relaxed, lets go, and the block bobs up and down around its resting point, "
                  "slowly settling. The camera does not move and time runs at a steady rate.")
        top = bar_y + rest
        spec = ObjectSpec(id="mass", shape="block", color=tuple(color),
                          box=(x - side / 2 - 1, top - 1, x + side / 2 + 1, top + side + 1), known={"mass": mass})
        case = Case(id=self.case_id(index), suite=self.suite, task=self.name, seed=int(seed), variant=f"style-{seed}",
                    width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=[spec],
                    assumptions=["a linear spring", "released from rest", "light damping", "fixed side view"],
                    criteria=["M1 period constancy", "M2 damped sinusoid", "M3 fixed equilibrium", "M4 no energy gain"],
                    known=k)
        t = frame_times(case)
        y = self._centre_y(case, t, "true")
        wd = math.sqrt(stiff / mass) * math.sqrt(1 - zeta**2)
        case.truth = GroundTruth(
            tracks={"mass": [(round(float(a), 5), x, round(float(b), 3)) for a, b in zip(t, y)]},
            events={"release": hold},
            quantities={"period_s": 2 * math.pi / wd, "equilibrium_px": top + side / 2 + eq_m * ppm,
                        "amplitude_px": eq_m * ppm, "release_s": hold})
        return case, next(iter(self.render(case)))

    @staticmethod
    def _extension(case: Case, t: np.ndarray, law: str) -> np.ndarray:
        """Spring extension (px, down) at times ``t``."""
        return spring_extension(case.known, case.duration, t, law)

    def _centre_y(self, case: Case, t: np.ndarray, law: str) -> np.ndarray:
        k = case.known
        return k["bar_y"] + k["rest_px"] + self._extension(case, t, law) + k["side_px"] / 2

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        ext = self._extension(case, frame_times(case), law)
        return hanging_block_frames(case.known, case.width, case.height, style_of(case), ext)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return spring_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if m.get("period_cv") is None:
            reason = m.missing.get("period_cv") or m.missing.get("period_s", "no period")
            return {k: MetricScore.operational_zero(reason) for k in ("M1", "M2", "M3", "M4")}
        sig = float(m.notes.get("noise_px", math.nan))
        return {"M1": osc.noise_metric(m, "period_cv", "period_cv_se", A_PERIOD),
                "M2": osc.noise_metric(m, "fit_rms_px", None, A_RESID, "amplitude_px", sigma=sig),
                "M3": osc.noise_metric(m, "equilibrium_drift_px", "equilibrium_drift_se_px", A_EQUIL, "amplitude_px"),
                "M4": osc.noise_metric(m, "amplitude_growth", "amplitude_growth_se", A_GROWTH)}
