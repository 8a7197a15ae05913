"""P24 — expansion when water freezes (WMLE appendix B.6).

Water in a straight-sided glass vessel freezes completely, nothing added or removed. Mass is conserved
and the cross-section is fixed, so the column grows by ``ρ_water / ρ_ice = 1000/917`` (9 %).

Readings: a ``level`` probe learning its two media in every frame (``case.known["surface_band"]``: a
column band clear of the walls spanning the rows the top can reach, the top kept away from the band's
first and last rows — the sample turns from water to ice), and a ``blobs`` probe for the two walls in a
horizontal strip across the vessel (``case.known["wall_strip"]``, colour ``known["wall"]``). The container
bottom is the stated inner bottom row ``known["bottom_y"]``; ``H = bottom_y − surface row``; ``W`` the gap
between the walls' inner edges, or between their valleys' centres where blur mixed a wall out of its colour
(:func:`~lawful.suites.wmle._ice.wall_spacing`: one rule for the clip; the sample fills the vessel).

- M1 ``e1 = H_ice / H_water − 1000/917``, ``H_water`` the median over the first 15 % of the samples,
  ``H_ice`` over the last 25 % (each at least 3 readings; ``wmle._ice.FREEZE_*``);
  ``s1 = q(e1; 1.0)``.
- M2 ``e2 = |W_final − W_initial| / max(W_initial, 1 px)`` over the same windows; ``s2 = q(e2; 1.0)``.
- A window with too few readings: that metric is an operational zero.

Twin: the column keeps the water's height while it freezes. C: the share of samples where the surface and
both walls were read.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._ice import freeze_measurement, wall_spacing
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, \
    style_of
from lawful.tracks import Tracks
from lawful.world import liquids as lq
from lawful.world.scenes.ice import EXPANSION, WATER_TINTS, freezing_frames



def height_expansion(h_water: float | None, h_ice: float | None) -> MetricScore:
    """M1: ``e1 = H_ice / H_water − 1000/917``; ``s1 = q(e1; 1.0)``."""
    if h_water is None or h_ice is None or h_water <= 0:
        return MetricScore.operational_zero("initial or final height not resolved")
    e1 = h_ice / h_water - EXPANSION
    return MetricScore.measured(q(e1, 1.0), e1, H_water=h_water, H_ice=h_ice)


def width_stability(w_initial: float | None, w_final: float | None) -> MetricScore:
    """M2: ``e2 = |W_final − W_initial| / max(W_initial, 1 px)``; ``s2 = q(e2; 1.0)``."""
    if w_initial is None or w_final is None:
        return MetricScore.operational_zero("initial or final width not resolved")
    e2 = abs(w_final - w_initial) / max(w_initial, 1.0)
    return MetricScore.measured(q(e2, 1.0), e2, W_initial=w_initial, W_final=w_final)


class FreezingExpansion(WmleTask):
    """A water column freezing in a straight-sided vessel: the ice stands 1000/917 times as high."""

    name = "freezing_expansion"
    label = "P24"
    family = FAMILIES[5]
    level = "E"
    required_objects = ()
    required_known = {
        "surface_band": "[x0, y0, x1, y1] (px) a column band inside the vessel, clear of the walls, spanning the rows "
                        "the sample's top can reach with a margin above and below",
        "bottom_y": "inner bottom row of the vessel (px)",
        "wall_strip": "[x0, y0, x1, y1] (px) a horizontal strip across both walls, below the sample's top",
        "wall": "[r, g, b] the vessel walls' colour"}

    def probes(self, case: Case) -> list[Probe]:
        k = case.known
        return [Probe("surface", "level", tuple(float(v) for v in k["surface_band"]), learn="each"),
                Probe("walls", "blobs", tuple(float(v) for v in k["wall_strip"]), color=tuple(k["wall"]), count=2,
                      pick="walls", fit="none", edges="subpixel")]

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        w = float(rng.integers(90, 141))
        x0 = float(np.round(320 - w / 2 + rng.uniform(-60, 60))) + 0.5
        x1 = x0 + w
        y_b = 300.5
        h_w = float(rng.uniform(125, 165))
        y_top = float(np.floor(y_b - h_w * EXPANSION - 45)) + 0.5
        t0, t1 = float(rng.uniform(0.9, 1.1)), float(rng.uniform(3.2, 3.6))
        water = WATER_TINTS[int(rng.integers(len(WATER_TINTS)))]
        glass = tuple(int(v) for v in np.clip(np.asarray(lq.GLASS_TINT) + rng.uniform(-18, 18), 0, 255))
        y_s = y_b - h_w
        band = [x0 + 10.0, y_s - (EXPANSION - 1) * h_w - 26.0, x1 - 10.0, y_s + 26.0]
        strip = [max(x0 - 45.0, 2.0), y_b - 60.0, min(x1 + 45.0, WIDTH - 3.0), y_b - 30.0]  # walls stay in it if the view drifts
        duration = 5.0
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view, time-lapse, of a straight-walled glass jar standing on a table, filled part way "
                    "with water. The water freezes solid from a clear liquid into white, cloudy ice; nothing is "
                    "added or taken away, the jar keeps its shape, and the camera does not move."),
            objects=[],
            assumptions=["mass conserved: nothing added, spilled or evaporated", "straight vessel, fixed cross-section",
                         "freezing completes within the clip", "fixed side view"],
            criteria=["M1: height expansion H_ice/H_water − 1000/917 (q, a = 1.0)",
                      "M2: width stability |W_final − W_initial| / W_initial (q, a = 1.0)"],
            known={"surface_band": band, "bottom_y": y_b, "wall_strip": strip, "wall": list(lq.WALL),
                   "cavity": [x0, y_top, x1, y_b], "ground_y": y_b + 3.0 + 2.0, "h_water_px": h_w,
                   "freeze_s": [t0, t1], "water": list(water), "glass": list(glass), "style_seed": seed,
                   "texture_seed": int(rng.integers(1 << 30)),
                   "anti_note": "twin: the ice keeps the water's height"},
        )
        case.truth = GroundTruth(quantities={"H_water_px": h_w, "H_ice_px": h_w * EXPANSION, "e1": 0.0,
                                             "anti_e1": 1.0 - EXPANSION, "W_px": w})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from freezing_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law,
                                   EXPANSION)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return freeze_measurement(case, tracks)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        out = self.readable(tracks, ["surface"])
        wl = tracks.regions.get("walls")
        out["readable_walls"] = 0.0 if wl is None else float(np.mean(np.isfinite(wall_spacing(wl))))
        return out

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        return {"M1": height_expansion(m.get("H_water_px"), m.get("H_ice_px")),
                "M2": width_stability(m.get("W_initial_px"), m.get("W_final_px"))}
