"""P13 — finite-amplitude pendulum periods, 15° versus 30° (WMLE appendix B.3).

Two pendulums of equal length are released together from rest at 15° and 30°. Beyond the
small-angle limit the period grows with amplitude: ``T(θ0) = 4 sqrt(L/g) K(sin(θ0/2))`` with ``K``
the complete elliptic integral of the first kind (modulus convention; scipy's ``ellipk`` takes the
parameter ``m = k²``), so ``r* = K(sin 15°) / K(sin 7.5°)``.

Both metrics use ``r = T_large / T_small`` (periods from centre-line crossings):

- M1 ``e1 = |r - r*|``, ``s1 = q(e1; 0.05)``;
- M2 the increase ``r - 1``, ``s2 = clip((r - 1) / (r* - 1))``.

Twin: the 30° pendulum swings with ``anti_ratio`` (0.96–0.99) times the 15° pendulum's period, i.e.
the larger swing is (slightly) faster.
"""

from __future__ import annotations

import numpy as np

from lawful.case import Case
from lawful.result import Measurement
from lawful.score.wmle import clip01, q
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle.common import MetricScore, case_rng
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.pendulums import (  # noqa: F401  (re-exported: the tests use them)
    LARGE_DEG, R_STAR, SMALL_DEG, elliptic_period_ratio,
)

IDS = ("small", "large")


def amplitude_ratio_error(r: float | None) -> MetricScore:
    """M1: ``e1 = |r - r*|``; ``s1 = q(e1; 0.05)``."""
    if r is None or not r > 0:
        return MetricScore.operational_zero("period ratio not resolved")
    e1 = abs(r - R_STAR)
    return MetricScore.measured(q(e1, 0.05), e1, r=r, r_star=R_STAR)


def amplitude_period_increase(r: float | None) -> MetricScore:
    """M2: the increase ``r - 1``; ``s2 = clip((r - 1) / (r* - 1))``."""
    if r is None or not r > 0:
        return MetricScore.operational_zero("period ratio not resolved")
    return MetricScore.measured(clip01((r - 1.0) / (R_STAR - 1.0)), r - 1.0)


class FiniteAmplitude(pk.PendulumPair):
    """Equal-length pendulums released together from 15° and 30°."""

    name = "finite_amplitude"
    label = "P13"
    level = "E"
    required_objects = IDS
    required_events = ("period_small", "period_large")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        L_px = float(rng.uniform(190.0, 230.0))
        L_m = float(rng.uniform(0.4, 0.8))
        spacing = float(rng.uniform(255.0, 290.0))
        side = int(rng.choice([-1, 1]))
        large_left = bool(rng.integers(2))
        radius = float(rng.uniform(11.0, 13.0))
        anti_ratio = float(rng.uniform(0.96, 0.99))
        c_small, c_large = object_colors(seed, 2)
        xs = (320.0 - spacing / 2, 320.0 + spacing / 2)
        x_large, x_small = xs if large_left else xs[::-1]
        small = pk.pendulum_dict("small", x_small, L_px, L_m, SMALL_DEG, side, radius, c_small)
        T_small = pk.period_of(small, pk.G)
        large = pk.pendulum_dict("large", x_large, L_px, L_m, LARGE_DEG, side, radius, c_large)
        T_large = pk.period_of(large, pk.G)
        large["anti_period_factor"] = round(anti_ratio * T_small / T_large, 8)
        pends = [small, large]
        where = ("left", "right") if large_left else ("right", "left")
        prompt = (
            "Fixed side view of two identical pendulums with strings of the same length hanging from one "
            f"metal bar. The {where[0]} bob is pulled aside to 30 degrees and the {where[1]} bob to 15 degrees, "
            "both to the same side; at the start both are let go together from rest and swing freely for "
            "several full swings. The camera and the bar do not move and time runs at a steady rate.")
        case = pk.pendulum_case(
            self, index, seed, prompt=prompt, duration=8.0, pends=pends,
            assumptions=["equal string lengths", "released together from rest at 15° and 30°",
                         "negligible air resistance and pivot friction", "fixed side view, uniform time"],
            criteria=[f"M1: T_large / T_small = r* = {R_STAR:.10f} (q, a = 0.05)",
                      "M2: the larger amplitude has the longer period: clip((r - 1) / (r* - 1))"],
            known={"r_star": R_STAR, "anti_ratio": round(anti_ratio, 6),
                   "anti_note": "twin: the 30° pendulum's period is anti_ratio times the 15° period"})
        case.truth = pk.pendulum_truth(case, {"T_small_s": T_small, "T_large_s": T_large,
                                              "r": T_large / T_small, "anti_r": anti_ratio})
        return case, next(iter(self.render(case)))

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        piv = pk.pivots(case, tracks, IDS)
        periods = {o: sw["period"] for o, sw in pk.measure_swings(m, tracks, piv, IDS).items()}
        ok = all(periods[o] for o in IDS)
        m.set("period_ratio", periods["large"] / periods["small"] if ok else None,
              "; ".join(m.missing.get(f"period_{o}_s", "") for o in IDS if not periods[o]))
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        r = m.get("period_ratio")
        return {"M1": amplitude_ratio_error(r), "M2": amplitude_period_increase(r)}
