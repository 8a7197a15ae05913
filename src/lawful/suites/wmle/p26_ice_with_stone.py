"""P26 — melting floating ice that holds a stone: the level drops (WMLE appendix B.6).

A block of ice with a dense stone frozen inside floats in a glass of water and melts (time-lapse); the
freed stone sinks. Afloat, the stone displaced its weight of water; on the bottom it displaces only its
volume, so the level falls by ``V_stone (ρ_s/ρ_w − 1) / A``. The ice itself melts into exactly the water
it displaced.

Readings: as P25 (:class:`~lawful.suites.wmle.p25_ice_melt_fresh.MeltingScene`: water bands beside the ice,
the ice blob for the melt; no walls needed); the ice counts as seen in a sample only when a neighbouring sample
sees it too (:func:`lawful.suites.wmle._ice.persistent`). Per band, ``d = y_before − y_after`` (rows; negative when the level falls),
the medians over the *before* and *after* windows, and its resolution ``δ = max(1 px, k σ_d)``,
``σ_d = √(σ_b² + σ_a²)``, each window's ``σ`` the larger of its readings' median stated error and the robust
spread (1.4826 MAD) of its rows; ``k`` for :data:`lawful.perceive.noise.FALSE_ALARM`. The bands are independent
looks at one level: a band whose ``|d| ≤ δ`` says nothing about the sign (a compression block that kept the old
surface); ``d`` and ``δ`` are the means over the bands that resolve a change, or over all bands when none does.

- M1 ``e1 = d / H_initial`` (``H_initial``: the liquid's initial height, the vessel's inside bottom minus
  ``y_before``); ``s1 = 𝟙[e1 < 0]``, scored only when the melt is seen (ice present before, gone after) and a
  band resolves a change; otherwise, or when bands resolve changes of opposite signs, an operational zero
  ("unresolved"). M2 is not defined.

Twin: the level rises by ``anti_rise_px`` when the stone is freed.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.suites.base import Law
from lawful.suites.wmle._ice import stone_melt_measurement
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.suites.wmle.p25_ice_melt_fresh import WATER_BANDS, MeltingScene
from lawful.tracks import Tracks
from lawful.world.scenes.ice import stone_melt_frames

def level_drop(d: float | None, delta: float | None, h_initial: float) -> MetricScore:
    """M1: ``s1 = 𝟙[e1 < 0]``, ``e1 = d / H_initial``; ``|d| ≤ δ`` unresolved (operational zero)."""
    if d is None or delta is None or not h_initial > 0:
        return MetricScore.operational_zero("levels before and after not resolved")
    e1 = d / h_initial
    if abs(d) <= delta:
        return MetricScore.operational_zero(f"level change {d:.2f} px within the resolution {delta:.2f} px",
                                            d_px=d, resolution_px=delta)
    return MetricScore.measured(1.0 if e1 < 0 else 0.0, e1, d_px=d, resolution_px=delta)


class IceWithStone(WmleTask):
    """Ice with a stone frozen in it melting afloat: the freed stone sinks and the level falls."""

    name = "ice_with_stone"
    label = "P26"
    family = FAMILIES[5]
    level = "H"
    required_objects = ()
    required_known = {
        "bands": "{water_left, water_right}: [x0, y0, x1, y1] (px) column bands in the open water beside the ice "
                 "(air over water), clear of the ice's widest extent",
        "ice": "[x0, y0, x1, y1] (px) a box around the floating ice", "ice_color": "[r, g, b] the ice's colour",
        "vessel": "[x0, y0, x1, y1] (px) the vessel's inside"}

    def probes(self, case: Case) -> list[Probe]:
        """P25's level bands and ice blob, without its wall strip (not required here, so a case may lack it)."""
        k = case.known
        return ([Probe(b, "level", tuple(float(v) for v in k["bands"][b])) for b in WATER_BANDS]
                + [Probe("ice", "blobs", tuple(k["ice"]), color=tuple(k["ice_color"]), fit="none")])

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        known = MeltingScene.layout(rng)
        drop = float(rng.uniform(5, 8))
        known.update({"melt_start_s": float(rng.uniform(0.5, 0.7)), "melt_end_s": float(rng.uniform(4.3, 4.7)),
                      "stone_r": float(rng.uniform(9, 12)), "level_drop_px": drop, "style_seed": seed,
                      "anti_rise_px": float(rng.uniform(4, 7)),
                      "anti_note": "twin: the level rises by anti_rise_px when the stone is freed"})
        v = known["vessel"]
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=6.0,
            prompt=("Time-lapse side view of a straight-sided clear glass of water on a table. A block of ice with a "
                    "dark, heavy pebble frozen inside it floats in the middle. The ice slowly melts away; when the "
                    "pebble comes free it sinks to the bottom of the glass. Nothing is poured in or taken out and "
                    "the camera does not move."),
            objects=[],
            assumptions=["freshwater ice in fresh water", "the stone is denser than water", "no water added, "
                         "spilled or evaporated", "fixed side view"],
            criteria=["M1: the final level is lower than the initial one, once the melt and a level change beyond "
                      "the measurement resolution are seen (indicator)"],
            known=known)
        case.truth = GroundTruth(quantities={"level_change_px": drop, "e1": -drop / (v[3] - known["waterline0"])})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        return stone_melt_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return stone_melt_measurement(tracks)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        return self.readable(tracks, WATER_BANDS)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        yb = m.get("level_before_px")
        h0 = float(case.known["vessel"][3] - yb) if yb is not None else 0.0
        return {"M1": level_drop(m.get("level_change_px"), m.get("resolution_px"), h0)}
