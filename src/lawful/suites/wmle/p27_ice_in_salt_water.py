"""P27 — freshwater ice melting in salt water (WMLE appendix B.6).

A block of freshwater ice floats in strong brine in a straight-sided glass tank and melts completely,
its fresh meltwater streaking into the brine; nothing is added or removed. Floating, the ice displaces
``m/ρ_s``; melted, its water takes ``m/ρ_f > m/ρ_s``: the level rises by ``m (1/ρ_f − 1/ρ_s) / A``.

Readings: ``level`` probes in column bands either side of the ice (``case.known["level_bands"]``: clear of
the walls and of the ice, around the surface), averaged where both read; a ``blobs`` probe of ice-coloured
pixels in the tank below the water surface (``known["ice_region"]``, colour ``known["ice"]``: ice seen
through the brine): the solid evidence ``E`` is the summed area of its pieces (0 when none is found).

- M1 ``Δy = y_before − y_after`` (medians over the first :data:`INITIAL_SHARE` and the last
  :data:`TERMINAL_SHARE` of the samples), residual ``e1 = Δy / H_initial`` (``H_initial = bottom_y −
  y_before``); ``s1 = 𝟙[Δy > δ_y]``, ``δ_y = max(1 px, k √(σ_before² + σ_after²))``, each window's σ the
  larger of its readings' median stated sigma and their robust spread (1.4826 MAD), ``k`` for
  :data:`lawful.perceive.noise.FALSE_ALARM`. ``|Δy| ≤ δ_y``: unresolved (operational zero); ``Δy < −δ_y``:
  a measured 0.
- M2 ``r_s = E_terminal / E_initial`` (medians over the same windows), ``s2 = clip(1 − r_s)``, overridden
  by 0 when residual ice is confirmed: ice read in every sample of the terminal window (a solid does not come and
  go; at least :data:`CONFIRM` samples), its largest piece overlapping the one before in each
  (:func:`~lawful.suites.wmle._ice.one_piece`: a solid stays where it is). No initial ice seen: operational zero.

Twin: the level falls by the same amount, or stays (``known["anti_mode"]``), the ice melting alike.
C: the share of samples where the level (either band) and the ice (initial window) were read.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import clip01
from lawful.suites.base import Law
from lawful.suites.wmle._ice import (  # noqa: F401  (re-exported: the tests use window_level)
    INITIAL_SHARE, MIN_SAMPLES, level_and_ice_measurement, level_change_uncertainty, window_level,
)
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, \
    style_of
from lawful.tracks import Tracks
from lawful.world.scenes.ice import SEEN_THROUGH, brine_layout, brine_melt_frames

SIDES = ("left", "right")


def level_rise(dy: float | None, delta: float | None, h_initial: float | None) -> MetricScore:
    """M1: ``s1 = 𝟙[Δy > δ_y]`` (rows grow downward: a rise is Δy > 0); within ``±δ_y`` unresolved."""
    if dy is None or delta is None:
        return MetricScore.operational_zero("initial or final level not resolved")
    e1 = dy / h_initial if h_initial else None
    if abs(dy) <= delta:
        return MetricScore.operational_zero(f"level change {dy:.2f} px within its uncertainty {delta:.2f} px",
                                            dy_px=dy, delta_px=delta)
    return MetricScore.measured(1.0 if dy > delta else 0.0, e1, dy_px=dy, delta_px=delta)


def solid_melted(e_initial: float | None, e_terminal: float | None, residual_confirmed: bool) -> MetricScore:
    """M2: ``s2 = clip(1 − E_terminal / E_initial)``, 0 when residual ice is confirmed in the final frames."""
    if not e_initial:
        return MetricScore.operational_zero("no initial solid evidence")
    if e_terminal is None:
        return MetricScore.operational_zero("terminal solid evidence not read")
    r = e_terminal / e_initial
    if residual_confirmed:
        return MetricScore.measured(0.0, r, reason="residual ice confirmed in the final frames", r_s=r)
    return MetricScore.measured(clip01(1.0 - r), r, r_s=r)


class IceInSaltWater(WmleTask):
    """Freshwater ice melting in brine: the level rises and no ice remains."""

    name = "ice_in_salt_water"
    label = "P27"
    family = FAMILIES[5]
    level = "H"
    required_objects = ()
    required_known = {
        "level_bands": "{left, right}: [x0, y0, x1, y1] (px) column bands beside the ice, clear of it and of the "
                       "walls, around the water surface",
        "ice_region": "[x0, y0, x1, y1] (px) the inside of the vessel below the water surface, clear of the walls",
        "ice": "[r, g, b] the ice's colour seen under the water",
        "bottom_y": "inner bottom row of the vessel (px)"}

    def probes(self, case: Case) -> list[Probe]:
        k = case.known
        return [Probe(f"level_{s}", "level", tuple(float(v) for v in k["level_bands"][s])) for s in SIDES] + [
            Probe("ice", "blobs", tuple(float(v) for v in k["ice_region"]), color=tuple(k["ice"]), count=4,
                  learn="each", fit="none")]

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        k = brine_layout(rng)
        duration = 6.0
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view, time-lapse, of a straight-sided glass tank on a table holding strongly salted, "
                    "dyed water. A large block of ice made from fresh water floats in it and melts away completely; "
                    "the clear meltwater streaks into the brine as it mixes. Nothing is added or removed and the "
                    "camera stays still."),
            objects=[],
            assumptions=["ice of fresh water, brine denser than fresh water", "no material exchange, no evaporation",
                         "straight-sided vessel", "fixed side view"],
            criteria=["M1: the level rises after melting, Δy = y_before − y_after beyond its uncertainty (indicator)",
                      "M2: no ice remains, clip(1 − E_solid,terminal / E_solid,initial), 0 if residual ice is seen"],
            known={**k, "style_seed": seed, "anti_mode": ["falls", "stays"][int(rng.integers(2))],
                   "anti_note": "twin: the level falls by rise_px (anti_mode 'falls') or stays ('stays')"},
        )
        rise = k["rise_px"]
        case.truth = GroundTruth(quantities={"rise_px": rise, "e1": rise / (k["bottom_y"] - k["y_surface"]),
                                             "s2": 1.0})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from brine_melt_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law,
                                     SEEN_THROUGH)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return level_and_ice_measurement(case, tracks, SIDES)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        lv = [tracks.regions[f"level_{s}"].ok for s in SIDES if f"level_{s}" in tracks.regions]
        out = {"readable_level": float(np.mean(np.any(lv, 0))) if lv else 0.0}
        ice = tracks.regions.get("ice")
        T = len(tracks.frames)
        n0 = max(MIN_SAMPLES, int(np.ceil(INITIAL_SHARE * T)))
        out["readable_ice"] = float(np.mean(ice.ok[:n0])) if ice is not None and T else 0.0
        return out

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        y_b = float(case.known["bottom_y"])
        yb = m.get("y_before_px")
        return {"M1": level_rise(m.get("dy_px"), m.get("delta_y_px"), None if yb is None else y_b - yb),
                "M2": solid_melted(m.get("E_initial_px2"), m.get("E_terminal_px2"),
                                   bool(m.notes.get("residual_ice_confirmed")))}
