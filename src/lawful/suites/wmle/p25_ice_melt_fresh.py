"""P25 — floating freshwater ice melting in fresh water leaves the level unchanged (WMLE appendix B.6).

A block of freshwater ice floats in a straight-sided glass of fresh water and melts away completely
(time-lapse). Floating, it displaces its own weight of water; melted, it becomes exactly that water, so
the level does not move.

Readings (``case.known``): ``bands`` — ``water_left`` / ``water_right``, ``level`` probes in the open water
beside the ice (clear of its widest extent); ``ice`` — a box around the block, read as the ``blobs`` of the
ice colour ``ice_color`` (the block is there while a blob is); ``walls`` — a horizontal strip across both
walls below the waterline, read as the two ``blobs`` of the wall colour ``wall_color`` (or, where blur has
mixed a thin wall out of its colour, as the centre of the valley it leaves); ``W`` the inside width between the
walls' inner edges, or between their valleys' centres where the colour missed a wall in some sample
(:func:`~lawful.suites.wmle._ice.wall_spacing`: one rule for the clip).
*Before*: the first :data:`BEFORE_SHARE` of the samples; *after*: the last :data:`AFTER_SHARE` (at least
:data:`MIN_WINDOW` each). The level is the median over a
window of the two bands' mean row, in the samples where the bands, both read, agree within the metric's scale
(0.05 ``H_vessel``: one surface; C factor ``levels_agree``, the share of those samples that do).

- M1 ``e1 = (y_before − y_after) / H_vessel`` (``H_vessel``: the inside height of ``known["vessel"]``);
  ``s1 = q(e1; 0.05)``.
- M2 ``e2 = |W_after − W_before| / W_before``; ``s2 = q(e2; 0.05)``.
- The melt must be seen (ice found in most of the *before* samples and in none of the last
  :data:`AFTER_SHARE`); otherwise both metrics are operational zeros.

Twin: the level rises by ``anti_rise_px`` in step with the melted volume.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._ice import (  # noqa: F401  (re-exported: P26 and the tests use them)
    LEVEL_SCALE, WATER_BANDS, MeltingScene, level_agreement, levels_agree, wall_spacing, melt_level_measurement,
    melt_seen, water_level, windows,
)
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, \
    style_of
from lawful.tracks import Tracks
from lawful.world.scenes.ice import DRAFT, fresh_melt_frames  # noqa: F401  (DRAFT: the studio scene uses it)


def level_change(y_before: float | None, y_after: float | None, h_vessel: float) -> MetricScore:
    """M1: ``e1 = (y_before − y_after) / H_vessel``; ``s1 = q(e1; 0.05)``."""
    if y_before is None or y_after is None:
        return MetricScore.operational_zero("levels before and after not resolved")
    e1 = (y_before - y_after) / h_vessel
    return MetricScore.measured(q(e1, LEVEL_SCALE), e1, y_before=y_before, y_after=y_after)


def width_change(w_before: float | None, w_after: float | None) -> MetricScore:
    """M2: ``e2 = |W_after − W_before| / W_before``; ``s2 = q(e2; 0.05)``."""
    if w_before is None or w_after is None or not w_before > 0:
        return MetricScore.operational_zero("vessel widths not resolved")
    e2 = abs(w_after - w_before) / w_before
    return MetricScore.measured(q(e2, 0.05), e2, w_before=w_before, w_after=w_after)


class IceMeltFresh(WmleTask):
    """A floating ice block melting away in fresh water: the level stays where it was."""

    name = "ice_melt_fresh"
    label = "P25"
    family = FAMILIES[5]
    level = "H"
    required_objects = ()
    required_known = {
        "bands": "{water_left, water_right}: [x0, y0, x1, y1] (px) column bands in the open water beside the ice "
                 "(air over water), clear of the ice's widest extent",
        "ice": "[x0, y0, x1, y1] (px) a box around the floating ice", "ice_color": "[r, g, b] the ice's colour",
        "walls": "[x0, y0, x1, y1] (px) a horizontal strip across both vessel walls, below the waterline",
        "wall_color": "[r, g, b] the vessel walls' colour", "vessel": "[x0, y0, x1, y1] (px) the vessel's inside"}

    def probes(self, case: Case) -> list[Probe]:
        return MeltingScene.probes(case)

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        known = MeltingScene.layout(rng)
        known.update({"melt_start_s": float(rng.uniform(0.5, 0.7)), "melt_end_s": float(rng.uniform(4.3, 4.7)),
                      "style_seed": seed, "anti_rise_px": float(rng.uniform(8, 14)),
                      "anti_note": "twin: the level rises by anti_rise_px as the ice melts"})
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=6.0,
            prompt=("Time-lapse side view of a straight-sided clear glass of fresh water on a table, with a block of "
                    "freshwater ice floating in the middle. The ice slowly melts until nothing of it is left; nothing "
                    "is poured in or taken out and the water does not evaporate. The camera does not move."),
            objects=[],
            assumptions=["freshwater ice floating in fresh water", "no water added, spilled or evaporated",
                         "the glass keeps its shape and temperature changes of density are negligible",
                         "fixed side view"],
            criteria=["M1: level before minus after, over the vessel height (q, a = 0.05)",
                      "M2: relative change of the vessel's inside width (q, a = 0.05)"],
            known=known)
        H = known["vessel"][3] - known["vessel"][1]
        case.truth = GroundTruth(quantities={"e1": 0.0, "e2": 0.0, "anti_e1": known["anti_rise_px"] / H})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from fresh_melt_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return melt_level_measurement(case, tracks)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        out = self.readable(tracks, WATER_BANDS)
        out["levels_agree"] = levels_agree(tracks, level_agreement(case))
        w = tracks.regions.get("walls")
        seen = w is not None and "x0" in w.values
        out["readable_walls"] = float(np.mean(np.isfinite(wall_spacing(w)))) if seen else 0.0
        return out

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        v = case.known["vessel"]
        return {"M1": level_change(m.get("level_before_px"), m.get("level_after_px"), float(v[3] - v[1])),
                "M2": width_change(m.get("width_before_px"), m.get("width_after_px"))}
