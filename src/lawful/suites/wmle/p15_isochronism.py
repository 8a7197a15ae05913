"""P15 — small-angle isochronism (WMLE appendix B.3).

Two pendulums of equal length are released together from different small amplitudes (4–6° and
8–12°). For small swings the period does not depend on the amplitude and the angle is a sinusoid.

- M1 ``e1 = T_left / T_right - 1``, ``s1 = q(e1; 0.10)`` — periods from centre-line crossings.
- M2 a sinusoid fitted to each angular trajectory (angle of the bob about its first-frame pivot);
  RMS residuals ``u`` in radians, ``s2 = G(q(u_left; 0.10 rad), q(u_right; 0.10 rad))``.

Twin: the larger-amplitude pendulum's period is multiplied by ``anti_period_factor`` (1.15–1.30 or
0.75–0.87), as if the period grew or shrank with amplitude.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.result import Measurement
from lawful.score.wmle import geometric_mean, q
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle.common import MetricScore, case_rng
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors

IDS = ("left", "right")


def isochronism_ratio(T_left: float | None, T_right: float | None) -> MetricScore:
    """M1: ``e1 = T_left / T_right - 1``; ``s1 = q(e1; 0.10)``."""
    if T_left is None or T_right is None or not (T_left > 0 and T_right > 0):
        return MetricScore.operational_zero("a period was not resolved")
    e1 = T_left / T_right - 1.0
    return MetricScore.measured(q(e1, 0.10), e1, T_left=T_left, T_right=T_right)


def sinusoid_residuals(u_left: float | None, u_right: float | None) -> MetricScore:
    """M2: ``s2 = G(q(u_left; 0.10), q(u_right; 0.10))`` from RMS sinusoid residuals in radians."""
    if u_left is None or u_right is None or not (math.isfinite(u_left) and math.isfinite(u_right)):
        return MetricScore.operational_zero("an angular trajectory could not be fitted")
    s2 = geometric_mean([q(u_left, 0.10), q(u_right, 0.10)])
    return MetricScore.measured(s2, max(u_left, u_right), u_left=u_left, u_right=u_right)


def angular_trajectory(tracks: Tracks, oid: str, pivot: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Time (s) and angle (rad, from the downward vertical, positive to the right) of a bob's visible samples."""
    tr = tracks[oid]
    vis = np.asarray(tr.visible, bool)
    x, y = tr.x[vis], tr.y[vis]
    return np.asarray(tracks.t, float)[vis], np.arctan2(x - pivot[0], y - pivot[1])


class Isochronism(pk.PendulumPair):
    """Equal-length pendulums released together from two different small amplitudes."""

    name = "isochronism"
    label = "P15"
    level = "M"
    required_objects = IDS
    required_events = ("period_left", "period_right")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        L_px = float(rng.uniform(220.0, 270.0))
        L_m = float(rng.uniform(0.45, 0.9))
        small, large = float(rng.uniform(4.0, 6.0)), float(rng.uniform(8.0, 12.0))
        spacing = float(rng.uniform(200.0, 280.0))
        side = int(rng.choice([-1, 1]))
        large_left = bool(rng.integers(2))
        radius = float(rng.uniform(11.0, 13.0))
        factor = float(rng.choice([rng.uniform(1.15, 1.30), rng.uniform(0.75, 0.87)]))
        c_left, c_right = object_colors(seed, 2)
        amps = (large, small) if large_left else (small, large)
        xs = (320.0 - spacing / 2, 320.0 + spacing / 2)
        pends = [pk.pendulum_dict(oid, x, L_px, L_m, a, side, radius, c,
                                  anti_period_factor=factor if a == large else 1.0)
                 for oid, x, a, c in zip(IDS, xs, amps, (c_left, c_right))]
        T = [pk.period_of(p, pk.G) for p in pends]
        prompt = (
            "Fixed side view of two identical pendulums with strings of the same length hanging from one "
            f"metal bar. The left bob is pulled aside by about {amps[0]:.0f} degrees and the right bob by about "
            f"{amps[1]:.0f} degrees, both to the same side; at the start both are let go together from rest and "
            "swing freely for several full swings. The camera and the bar do not move and time runs at a "
            "steady rate.")
        case = pk.pendulum_case(
            self, index, seed, prompt=prompt, duration=8.0, pends=pends,
            assumptions=["equal string lengths", "small amplitudes (under 12 degrees)", "released together from rest",
                         "negligible air resistance and pivot friction", "fixed side view, uniform time"],
            criteria=["M1: T_left / T_right = 1 (q, a = 0.10)",
                      "M2: sinusoidal angle, G(q(u_left; 0.10 rad), q(u_right; 0.10 rad))"],
            known={"anti_note": "twin: the larger-amplitude pendulum's period is multiplied by its "
                                "anti_period_factor"})
        case.truth = pk.pendulum_truth(case, {"T_left_s": T[0], "T_right_s": T[1], "e1": T[0] / T[1] - 1})
        return case, next(iter(self.render(case)))

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        piv = pk.pivots(case, tracks, IDS)
        for oid, sw in pk.measure_swings(m, tracks, piv, IDS).items():
            t, a = angular_trajectory(tracks, oid, piv[oid])
            u, T_fit = pk.sinusoid_rms(t, a, sw["period"] or math.nan)
            m.set(f"sinusoid_rms_{oid}_rad", u, sw["reason"] or f"{oid}: no sinusoid fit")
            m.notes[f"sinusoid_period_{oid}_s"] = T_fit
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        return {"M1": isochronism_ratio(m.get("period_left_s"), m.get("period_right_s")),
                "M2": sinusoid_residuals(m.get("sinusoid_rms_left_rad"), m.get("sinusoid_rms_right_rad"))}
