"""P37 — capillary rise in tubes of different radii (WMLE appendix B.9).

Two dry open glass tubes, one narrow and one wide, are dipped upright into one reservoir of coloured
liquid. The liquid climbs in both to Jurin's height ``2γ cos θ / (ρ g r)``: higher in the narrower tube.

Readings: ``level`` probes in the reservoir (``case.known["reservoir_band"]``, a column band clear of the
tubes and walls) and inside each tube's bore (``case.known["tubes"]``: ``narrow`` / ``wide`` bands spanning
from near the tube's top to below the reservoir surface). ``h = y_reservoir − y_meniscus`` per sample.

- M1 ``d = median(h_narrow − h_wide)`` over the paired terminal samples (the last quarter of the clip, at
  least :data:`MIN_TERMINAL`, where all three levels were read); ``s1 = 𝟙[d > δ]``. The resolution
  ``δ = max(1 px, k σ_d)``: ``σ_d`` the larger of the pairs' stated standard error (the two menisci's
  reading sigmas in quadrature — the reservoir's row cancels in the difference; per sample, since a still
  edge's error does not average out) and the differences' robust spread (1.4826 MAD); ``k`` for
  :data:`lawful.perceive.noise.FALSE_ALARM`. ``|d| ≤ δ`` is unresolved (operational zero); ``d < −δ`` is a
  measured 0. M2 is not defined.

Twin: the two tubes' heights swapped (the wide tube rises higher). C: the share of samples where each of
the three levels was readable. The tubes are drawn magnified (widths ∝ radii), not to the heights' scale.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.suites.base import Law
from lawful.suites.wmle._liquids import resolution, terminal_rises_measurement  # noqa: F401  (tests)
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, \
    style_of
from lawful.tracks import Tracks
from lawful.world import liquids as lq
from lawful.world import melting as mt
from lawful.world.scenes.vessels import capillary_frames

MIN_TERMINAL = 5
TERMINAL_SHARE = 0.25
TUBES = ("narrow", "wide")
READINGS = ("reservoir", "narrow", "wide")


def rise_order(d: float | None, delta: float | None) -> MetricScore:
    """M1: ``s1 = 𝟙[d > δ]``; ``|d| ≤ δ`` unresolved (operational zero), ``d < −δ`` a measured 0."""
    if d is None or delta is None:
        return MetricScore.operational_zero("terminal rises not resolved")
    if abs(d) <= delta:
        return MetricScore.operational_zero(f"height difference {d:.2f} px within the resolution {delta:.2f} px",
                                            d_px=d, resolution_px=delta)
    return MetricScore.measured(1.0 if d > delta else 0.0, d, d_px=d, resolution_px=delta)


class CapillaryRise(WmleTask):
    """A narrow and a wide glass tube dipped in one reservoir: the liquid climbs higher in the narrow one."""

    name = "capillary_rise"
    label = "P37"
    family = FAMILIES[8]
    level = "E"
    required_objects = ()
    required_known = {
        "reservoir_band": "[x0, y0, x1, y1] (px) a column band in the reservoir, clear of the tubes and walls, "
                          "around its surface",
        "tubes": "{narrow, wide}: [x0, y0, x1, y1] (px) a column band inside each tube's bore, clear of its walls, "
                 "from near its top to below the reservoir surface"}

    def probes(self, case: Case) -> list[Probe]:
        k = case.known
        return [Probe("reservoir", "level", tuple(float(v) for v in k["reservoir_band"]))] + [
            Probe(f"tube_{a}", "level", tuple(float(v) for v in k["tubes"][a])) for a in TUBES]

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        narrow_left = bool(rng.integers(2))
        r_n = float(rng.uniform(0.25, 0.35))  # mm
        r_w = r_n * float(rng.uniform(2.3, 3.0))
        px_per_mm = float(rng.uniform(2.4, 2.9))  # heights' scale
        h_n = mt.jurin_height(r_n * 1e-3) * 1e3 * px_per_mm
        h_w = mt.jurin_height(r_w * 1e-3) * 1e3 * px_per_mm
        width_per_mm = 20.0  # the bores drawn magnified, widths ∝ radii
        w_n, w_w = 2 * r_n * width_per_mm, 2 * r_w * width_per_mm
        gap = float(rng.uniform(70, 120))
        xc = 320.0 + float(rng.uniform(-30, 30))
        xs = [xc - gap / 2 - (w_n if narrow_left else w_w) / 2, xc + gap / 2 - (w_w if narrow_left else w_n) / 2]
        widths = [w_n, w_w] if narrow_left else [w_w, w_n]
        bores = {}
        y_top, y_bot = float(rng.uniform(38, 48)), 292.0
        for name, x0, w in zip(("narrow", "wide") if narrow_left else ("wide", "narrow"), xs, widths):
            bores[name] = [round(x0) + 0.5, y_top, round(x0) + 0.5 + w, y_bot]
        y_res = float(rng.uniform(238, 252))
        cav = [xc - 190.0 + 0.5, 196.5, xc + 190.0 + 0.5, 316.5]
        tau_n = float(rng.uniform(0.5, 0.8))
        tau_w = mt.washburn_tau(tau_n, r_n, r_w)
        res_band_x = cav[0] + 14 if narrow_left else cav[2] - 44  # beside the tubes, away from the walls
        band = lambda b: [b[0] + 3.0, b[1] + 4.0, b[2] - 3.0, y_res + 22.0]  # noqa: E731
        tint = lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))]
        glass = tuple(int(v) for v in np.clip(np.asarray(lq.GLASS_TINT) + rng.uniform(-18, 18), 0, 255))
        duration = 5.0
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view of a wide glass basin of coloured water on a table. Two clean, dry, open glass "
                    f"tubes held upright side by side have just been dipped into it, the "
                    f"{'left' if narrow_left else 'right'} one very thin and the other about "
                    f"{r_w / r_n:.1f} times wider inside. The water creeps up inside each tube and comes to rest; "
                    "nothing else moves and the camera stays still."),
            objects=[],
            assumptions=["one liquid, wetting clean glass alike in both tubes", "tubes open at both ends, upright",
                         "fixed side view, uniform time"],
            criteria=["M1: the liquid stands higher in the narrower tube, d = median(h_narrow − h_wide) > "
                      "measurement resolution (indicator)"],
            known={"reservoir_band": [res_band_x, y_res - 30.0, res_band_x + 30.0, y_res + 30.0],
                   "tubes": {a: band(bores[a]) for a in TUBES}, "bores": bores, "cavity": cav, "ground_y": 325.0,
                   "y_reservoir": y_res, "radius_mm": {"narrow": r_n, "wide": r_w},
                   "h_px": {"narrow": h_n, "wide": h_w}, "tau_s": {"narrow": tau_n, "wide": tau_w},
                   "liquid": list(tint), "glass": list(glass), "style_seed": seed,
                   "anti_note": "twin: the tubes' heights swapped (the wide tube rises higher)"},
        )
        case.truth = GroundTruth(quantities={"d_px": h_n - h_w, "anti_d_px": h_w - h_n, "h_narrow_px": h_n,
                                             "h_wide_px": h_w})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from capillary_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return terminal_rises_measurement(tracks, TUBES, MIN_TERMINAL, TERMINAL_SHARE)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        return self.readable(tracks, {a: a if a == "reservoir" else f"tube_{a}" for a in READINGS})

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        return {"M1": rise_order(m.get("d_px"), m.get("resolution_px"))}
