"""P12 — pendulum period independent of bob mass (WMLE appendix B.3).

Two pendulums of equal length hang side by side from one bar: a large (heavy) bob and a small
(light) bob of the same material, released together from the same angle. The period of a simple
pendulum does not depend on the bob's mass.

- M1 ``e1 = T_heavy / T_light - 1``, ``s1 = q(e1; 0.10)`` — periods from centre-line crossings.
- M2 ``e2 = |L_left - L_right| / mean(L_left, L_right)``, ``s2 = q(e2; 0.10)`` — each length is the
  distance from the pivot recovered from the swings (circle fits sharing the bar's row, see
  :func:`~lawful.suites.wmle._pendulums.fit_pivots_on_one_bar`) to the bob's first-frame position.

Twin: the heavy pendulum's swing is replayed on a clock stretched by ``anti_period_factor``
(0.78–0.86 or 1.16–1.28), so its period is off by that factor while the lengths stay equal.
"""

from __future__ import annotations

import numpy as np

from lawful.case import Case
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle.common import MetricScore, case_rng
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors

IDS = ("heavy", "light")


def period_mass_ratio(T_heavy: float | None, T_light: float | None) -> MetricScore:
    """M1: ``e1 = T_heavy / T_light - 1``; ``s1 = q(e1; 0.10)``."""
    if T_heavy is None or T_light is None or not (T_heavy > 0 and T_light > 0):
        return MetricScore.operational_zero("a period was not resolved")
    e1 = T_heavy / T_light - 1.0
    return MetricScore.measured(q(e1, 0.10), e1, T_heavy=T_heavy, T_light=T_light)


def length_equality(L_left: float | None, L_right: float | None) -> MetricScore:
    """M2: ``e2 = |L_l - L_r| / mean(L_l, L_r)``; ``s2 = q(e2; 0.10)``."""
    if L_left is None or L_right is None or not (L_left > 0 and L_right > 0):
        return MetricScore.operational_zero("a pendulum length was not resolved")
    e2 = abs(L_left - L_right) / (0.5 * (L_left + L_right))
    return MetricScore.measured(q(e2, 0.10), e2, L_left=L_left, L_right=L_right)


class PendulumMass(pk.PendulumPair):
    """Equal-length pendulums with a heavy and a light bob, released together from the same angle."""

    name = "pendulum_mass"
    label = "P12"
    level = "E"
    required_objects = IDS
    required_events = ("period_heavy", "period_light")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        L_px = float(rng.uniform(200.0, 245.0))
        L_m = float(rng.uniform(0.45, 0.8))
        amp = float(rng.uniform(18.0, 25.0))
        spacing = float(rng.uniform(255.0, 290.0))
        side = int(rng.choice([-1, 1]))
        heavy_left = bool(rng.integers(2))
        factor = float(rng.choice([rng.uniform(0.78, 0.86), rng.uniform(1.16, 1.28)]))
        c_heavy, c_light = object_colors(seed, 2)
        xs = (320.0 - spacing / 2, 320.0 + spacing / 2)
        x_heavy, x_light = xs if heavy_left else xs[::-1]
        pends = [
            pk.pendulum_dict("heavy", x_heavy, L_px, L_m, amp, side, float(rng.uniform(15.0, 18.0)), c_heavy,
                             anti_period_factor=factor),
            pk.pendulum_dict("light", x_light, L_px, L_m, amp, side, float(rng.uniform(9.0, 11.0)), c_light),
        ]
        T = pk.period_of(pends[0], pk.G)
        prompt = (
            "Fixed side view of two pendulums hanging from the same metal bar. Their strings have the same "
            f"length; the left one carries a {'large, heavy' if heavy_left else 'small, light'} bob and the right "
            f"one a {'small, light' if heavy_left else 'large, heavy'} bob of the same material. Both bobs are "
            f"pulled aside to the same angle of about {amp:.0f} degrees and let go together at the start; they "
            "swing back and forth freely for several full swings. The camera and the bar do not move and time "
            "runs at a steady rate.")
        case = pk.pendulum_case(
            self, index, seed, prompt=prompt, duration=6.0, pends=pends,
            assumptions=["equal string lengths", "same release angle, released together from rest",
                         "negligible air resistance and friction at the pivots", "fixed side view, uniform time"],
            criteria=["M1: T_heavy / T_light = 1 (q, a = 0.10)",
                      "M2: equal lengths from swing-fitted pivots (q, a = 0.10)"],
            known={"anti_note": "twin: the heavy bob's period is multiplied by its anti_period_factor"})
        case.truth = pk.pendulum_truth(case, {"period_s": T, "e1": 0.0, "e2": 0.0,
                                              "anti_e1": factor - 1.0})
        return case, next(iter(self.render(case)))

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        piv = pk.pivots(case, tracks, IDS)
        pk.measure_swings(m, tracks, piv, IDS)
        left, right = sorted(IDS, key=lambda o: piv[o][0])
        lengths = pk.swing_lengths(tracks, (left, right), m)
        m.set("length_left_px", lengths[left], f"{left}: no pivot from the swing")
        m.set("length_right_px", lengths[right], f"{right}: no pivot from the swing")
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        return {"M1": period_mass_ratio(m.get("period_heavy_s"), m.get("period_light_s")),
                "M2": length_equality(m.get("length_left_px"), m.get("length_right_px"))}
