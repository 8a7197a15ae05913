"""P22 — submerged fraction of a floating ice column (WMLE appendix B.5).

An upright column of freshwater ice is let go in a glass of water; it bobs and settles floating, clear of
the walls and not melting. Archimedes: the submerged share of its height is ρ_ice / ρ_water = 0.917.

Readings (``level`` probes, boxes in ``case.known["bands"]``): the waterline in the open water left and
right of the ice (air over water), the ice's top (air over dry ice, in a band across the column above the
waterline) and its bottom (water-tinted ice over water, below the waterline). Per sample
``h_total = y_bottom − y_top`` and ``h_sub = y_bottom − (y_l + y_r)/2``. Settled samples: the last
:data:`SETTLED_SHARE` of the clip where all four readings exist (at least :data:`MIN_SETTLED`).

- M1 ``e1 = |median(h_sub / h_total) − 0.917|``; ``s1 = q(e1; 0.10)``.
- M2 ``e2 = median(|y_l − y_r|) / W_vessel`` (``W_vessel``: the inside width of ``known["vessel"]``);
  ``s2 = q(e2; 0.05)``.
- Fewer settled samples, or a column of no height: both metrics are operational zeros.

Twin: the column floats at ``anti_fraction`` (0.65–0.78) of its height. C: the share of samples where each
of the four levels was readable.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._liquids import FLOAT_BANDS as BANDS
from lawful.suites.wmle._liquids import floating_measurement, settled_readings  # noqa: F401  (tests)
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, \
    style_of
from lawful.tracks import Tracks
from lawful.world import liquids as lq
from lawful.world.scenes.vessels import floating_column_rows, floating_ice_frames

DRAFT = 0.917


def submerged_fraction(ratio: float | None) -> MetricScore:
    """M1: ``e1 = |median(h_sub / h_total) − 0.917|``; ``s1 = q(e1; 0.10)``."""
    if ratio is None:
        return MetricScore.operational_zero("submerged share not resolved")
    e1 = abs(ratio - DRAFT)
    return MetricScore.measured(q(e1, 0.10), e1, ratio=ratio)


def waterline_agreement(median_gap_px: float | None, width_px: float) -> MetricScore:
    """M2: ``e2 = median |y_l − y_r| / W_vessel``; ``s2 = q(e2; 0.05)``."""
    if median_gap_px is None or not width_px > 0:
        return MetricScore.operational_zero("waterlines not resolved")
    e2 = median_gap_px / width_px
    return MetricScore.measured(q(e2, 0.05), e2, median_gap_px=median_gap_px)


class FloatingIce(WmleTask):
    """An upright ice column settling afloat in a glass of water."""

    name = "floating_ice"
    label = "P22"
    family = FAMILIES[4]
    level = "E"
    required_objects = ()
    required_known = {
        "bands": "{water_left, water_right, ice_top, ice_bottom}: [x0, y0, x1, y1] (px) column bands: open water "
                 "left and right of the ice (air over water), across the ice above the waterline (air over ice) "
                 "and below it (ice over water)",
        "vessel": "[x0, y0, x1, y1] (px) the vessel's inside"}

    def probes(self, case: Case) -> list[Probe]:
        return [Probe(b, "level", tuple(float(v) for v in case.known["bands"][b])) for b in BANDS]

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        W_v = float(rng.integers(230, 271))
        xv0 = float(np.round(320 - W_v / 2 + rng.uniform(-60, 60))) - 0.5
        yv0, yv1 = 29.5, 321.5
        w_i = float(rng.uniform(46, 60))
        h_i = float(rng.uniform(170, 190))
        xi0 = xv0 + W_v / 2 - w_i / 2 + float(rng.uniform(-12, 12))
        y_w_eq = float(rng.uniform(118, 128))  # the law's settled waterline
        f0 = float(rng.uniform(0.72, 0.8))  # released floating too high
        period, zeta = float(rng.uniform(0.7, 1.0)), float(rng.uniform(0.4, 0.5))
        f_anti = float(rng.uniform(0.65, 0.78))
        r_area = (w_i / W_v) ** 2  # column and glass cross-sections
        tint = lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))]
        water = tuple(int(0.55 * c + 0.45 * 235) for c in tint)  # water: a light tint
        glass = tuple(int(v) for v in np.clip(np.asarray(lq.GLASS_TINT) + rng.uniform(-18, 10), 0, 255))
        # bounds on the waterline (it moves by tenths of a px as the ice bobs), with ≥ 1 px margin
        w_lo = y_w_eq - r_area * h_i * (0.8 - DRAFT) - 2
        w_hi = y_w_eq + r_area * h_i * (DRAFT - 0.65) + 2
        m = 9.0
        bands = {"water_left": [xv0 + m, yv0 + 4, xi0 - m, yv1 - 4],
                 "water_right": [xi0 + w_i + m, yv0 + 4, xv0 + W_v - m, yv1 - 4],
                 "ice_top": [xi0 + 8, yv0 + 4, xi0 + w_i - 8, w_lo - 3],
                 "ice_bottom": [xi0 + 8, w_hi + 5, xi0 + w_i - 8, yv1 - 4]}
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=5.0,
            prompt=("Fixed side view of a tall clear glass half full of tinted water on a table. A tall, narrow, "
                    "upright column of clear freshwater ice has just been set into the water, a little too high, and "
                    "let go: it bobs up and down a few times and comes to rest floating upright in the middle, "
                    "without touching the glass. The ice does not melt during the clip and the camera does not move."),
            objects=[],
            assumptions=["freshwater ice (density 917 kg/m³) in fresh water (1000 kg/m³)", "no melting",
                         "the column floats upright and touches neither the walls nor the bottom",
                         "fixed side view, uniform time"],
            criteria=["M1: settled submerged share of the column's height = 0.917 (q, a = 0.10)",
                      "M2: equal waterlines left and right of the ice, |y_l − y_r| / W_vessel (q, a = 0.05)"],
            known={"bands": bands, "vessel": [xv0, yv0, xv0 + W_v, yv1], "ice_box0": [xi0, w_i, h_i],
                   "waterline_eq": y_w_eq, "release_fraction": f0, "period_s": period, "zeta": zeta,
                   "area_ratio": r_area, "ground_y": yv1 + 3.5, "water": list(water), "glass": list(glass),
                   "style_seed": seed, "anti_fraction": f_anti,
                   "anti_note": "twin: the column floats with anti_fraction of its height under water"},
        )
        case.truth = GroundTruth(quantities={"fraction": DRAFT, "e1": 0.0, "e2": 0.0,
                                             "anti_e1": abs(f_anti - DRAFT)})
        return case, next(iter(self.render(case)))

    def motion(self, case: Case, law: Law) -> tuple[np.ndarray, np.ndarray]:
        """Waterline and ice-top rows per frame."""
        return floating_column_rows(case.known, frame_times(case), law, DRAFT)

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from floating_ice_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law,
                                       DRAFT)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return floating_measurement(tracks)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        return self.readable(tracks, BANDS)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        v = case.known["vessel"]
        return {"M1": submerged_fraction(m.get("submerged_fraction")),
                "M2": waterline_agreement(m.get("waterline_gap_px"), float(v[2] - v[0]))}
