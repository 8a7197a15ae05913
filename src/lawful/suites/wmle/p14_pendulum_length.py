"""P14 — pendulum period versus length, 1 : 2 (WMLE appendix B.3).

Identical bobs hang on strings whose lengths are in the ratio 1 : 2 and are released together from
the same small angle. ``T ∝ sqrt(L)``, so ``(T_short / T_long)² = L_short / L_long``.

- M1 ``e1 = |(T_short / T_long)² / (L_short / L_long) - 1|``, ``s1 = q(e1; 0.20)``; the lengths are
  measured in the first frame from the pivots to the bobs: the pivots the case states (the strings'
  attachments on the bar, first-frame image geometry like a stated radius), else those recovered
  from the swings (circle fits sharing the bar's row). A swing of ~14° is a short arc: a motion-blurred
  bob at the bottom of the swing sits a little inside it, and the fitted row moves by several px
  (a studio clip: 3.5 px, both lengths 1.5-3.6 % short, M1 0.89).
- M2 cycle-to-cycle variability ``c = CV(full cycles)`` of each pendulum,
  ``s2 = G(q(c_short; 0.20), q(c_long; 0.20))``; needs at least two full cycles per pendulum.

Twin: the long pendulum's period is ``2**anti_exponent`` times the short one's, with the exponent
drawn from [0.0, 0.2] (period nearly independent of length) or [0.85, 1.1] (period ∝ length).
"""

from __future__ import annotations

import numpy as np

from lawful.case import Case
from lawful.result import Measurement
from lawful.score.wmle import cv, geometric_mean, q
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle.common import MetricScore, case_rng
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors

IDS = ("short", "long")


def length_scaling(T_short: float | None, T_long: float | None, L_short: float | None,
                   L_long: float | None) -> MetricScore:
    """M1: ``e1 = |(T_s/T_l)² / (L_s/L_l) - 1|``; ``s1 = q(e1; 0.20)``."""
    vals = (T_short, T_long, L_short, L_long)
    if any(v is None or not v > 0 for v in vals):
        return MetricScore.operational_zero("a period or a length was not resolved")
    e1 = abs((T_short / T_long) ** 2 / (L_short / L_long) - 1.0)
    return MetricScore.measured(q(e1, 0.20), e1, T_ratio=T_short / T_long, L_ratio=L_short / L_long)


def cycle_regularity(cycles_short: list[float], cycles_long: list[float]) -> MetricScore:
    """M2: ``s2 = G(q(CV(T_short cycles); 0.20), q(CV(T_long cycles); 0.20))``; ≥ 2 cycles each."""
    if len(cycles_short) < 2 or len(cycles_long) < 2:
        return MetricScore.operational_zero("fewer than two full cycles of a pendulum")
    c_s, c_l = cv(cycles_short), cv(cycles_long)
    s2 = geometric_mean([q(c_s, 0.20), q(c_l, 0.20)])
    return MetricScore.measured(s2, max(c_s, c_l), c_short=c_s, c_long=c_l)


class PendulumLength(pk.PendulumPair):
    """Two pendulums with string lengths 1 : 2 released together from the same small angle."""

    name = "pendulum_length"
    label = "P14"
    level = "E"
    required_objects = IDS
    required_events = ("period_short", "period_long")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        L_long_px = float(rng.uniform(250.0, 285.0))
        L_long_m = float(rng.uniform(0.7, 1.1))
        amp = float(rng.uniform(10.0, 14.0))
        spacing = float(rng.uniform(220.0, 280.0))
        side = int(rng.choice([-1, 1]))
        long_left = bool(rng.integers(2))
        radius = float(rng.uniform(11.0, 13.0))
        p = float(rng.choice([rng.uniform(0.0, 0.2), rng.uniform(0.85, 1.1)]))
        c_short, c_long = object_colors(seed, 2)
        xs = (320.0 - spacing / 2, 320.0 + spacing / 2)
        x_long, x_short = xs if long_left else xs[::-1]
        short = pk.pendulum_dict("short", x_short, L_long_px / 2, L_long_m / 2, amp, side, radius, c_short)
        long = pk.pendulum_dict("long", x_long, L_long_px, L_long_m, amp, side, radius, c_long)
        T_short, T_long = pk.period_of(short, pk.G), pk.period_of(long, pk.G)
        long["anti_period_factor"] = round(2**p * T_short / T_long, 8)
        where = ("left", "right") if long_left else ("right", "left")
        prompt = (
            "Fixed side view of two pendulums with identical bobs hanging from one metal bar. The "
            f"{where[0]} string is twice as long as the {where[1]} one. Both bobs are pulled aside to the same "
            f"small angle of about {amp:.0f} degrees and let go together at the start; they swing freely for "
            "several full swings. The camera and the bar do not move and time runs at a steady rate.")
        case = pk.pendulum_case(
            self, index, seed, prompt=prompt, duration=8.0, pends=[short, long],
            assumptions=["string lengths in the ratio 1:2", "identical bobs released together from the same small "
                         "angle", "negligible air resistance and pivot friction", "fixed side view, uniform time"],
            criteria=["M1: (T_short/T_long)^2 = L_short/L_long (q, a = 0.20)",
                      "M2: steady cycles, G(q(CV_short; 0.20), q(CV_long; 0.20))"],
            known={"anti_exponent": round(p, 6),
                   "anti_note": "twin: T_long = 2**anti_exponent * T_short instead of sqrt(2) * T_short"})
        case.truth = pk.pendulum_truth(case, {"T_short_s": T_short, "T_long_s": T_long, "e1": 0.0,
                                              "anti_e1": abs(4**p / 2 - 1)})
        return case, next(iter(self.render(case)))

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        piv = pk.pivots(case, tracks, IDS)
        pk.measure_swings(m, tracks, piv, IDS)
        lengths = pk.swing_lengths(tracks, IDS, m)
        stated = {p["id"] for p in case.known.get("pendulums", []) if "pivot_x" in p and "pivot_y" in p}
        if all(oid in stated for oid in IDS):
            for oid in IDS:
                x0, y0 = pk.first_visible_xy(tracks, oid)
                lengths[oid] = float(np.hypot(x0 - piv[oid][0], y0 - piv[oid][1])) if np.isfinite(x0) else None
            m.notes["lengths_from"] = "stated pivots"
        for oid in IDS:
            m.set(f"length_{oid}_px", lengths[oid], f"{oid}: no pivot from the swing")
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        return {"M1": length_scaling(m.get("period_short_s"), m.get("period_long_s"), m.get("length_short_px"),
                                     m.get("length_long_px")),
                "M2": cycle_regularity(m.notes.get("cycles_short", []), m.notes.get("cycles_long", []))}
