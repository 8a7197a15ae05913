"""P28 — crushed ice versus one ice block (WMLE appendix B.6).

Two identical glass vessels hold the same shallow layer of cold water; equal masses of ice go in at the
same moment, one as a heap of small pieces, one as a single block. Melting goes with the ice's surface
area (an edge recedes at one speed), so the pieces — ``N^{1/3}`` times smaller — melt sooner and the
crushed side's meltwater stands higher while both melt.

Readings: per vessel, ``level`` probes in column bands either side of the ice (``case.known["bands"]``:
``{crushed, intact}: {left, right}`` bands clear of the walls and the ice, from the water layer up past the
highest level), averaged where both read; vessel bottom and height from ``known["vessels"]`` (inner boxes).

- M1 liquid heights ``h = (bottom_y − row) / H_vessel``. A sample *leads* when ``h_crushed − h_intact``
  exceeds the summed localisation uncertainties ``k σ_c / H_c + k σ_i / H_i`` (``σ`` the samples' stated
  standard errors, ``k`` for :data:`lawful.perceive.noise.FALSE_ALARM`), never less than one pixel.
  ``s1 = 1`` for a run of consecutive jointly readable leading samples lasting ≥ :data:`LEAD_S`;
  otherwise ``s1 = 0`` when some run of consecutive jointly readable samples lasts ≥ :data:`EVIDENCE_S`;
  otherwise unresolved (operational zero). Gaps (a sample where either side is unreadable) break runs;
  they are not interpolated. M2 is not defined.

Twin: the block melts as fast as the crushed ice (the levels rise together). C: the share of samples
where each vessel's level was read. The drawn level is the water layer plus the meltwater over the
cross-section (the ice resting on the bottom; its displacement is left out).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.events import runs
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.suites.base import Law
from lawful.suites.wmle._ice import lead_measurement, side_levels
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world.scenes.ice import SIDES, crushed_vs_intact_frames, crushed_vs_intact_layout, melt_fractions

LEAD_S = 0.25
EVIDENCE_S = 0.50
BANDS = ("left", "right")


def lead_indicator(t: np.ndarray, h_c: np.ndarray, h_i: np.ndarray, u_c: np.ndarray, u_i: np.ndarray,
                   floor: float) -> MetricScore:
    """M1 from per-sample relative heights ``h`` and uncertainties ``u`` (NaN where unreadable); ``floor`` the
    smallest lead counted (one pixel over the vessel height). A run of ``n`` samples lasts ``n·dt``."""
    t = np.asarray(t, float)
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    joint = np.isfinite(h_c) & np.isfinite(h_i)
    with np.errstate(invalid="ignore"):
        thr = np.maximum(np.nan_to_num(u_c) + np.nan_to_num(u_i), floor)
        lead = joint & (h_c - h_i > thr)
    longest_lead = max([(b - a) * dt for a, b in runs(lead)], default=0.0)
    longest_joint = max([(b - a) * dt for a, b in runs(joint)], default=0.0)
    diff = np.where(joint, h_c - h_i, np.nan)
    best = float(np.nanmax(diff)) if joint.any() else None
    if longest_lead >= LEAD_S - 1e-9:
        return MetricScore.measured(1.0, best, lead_s=longest_lead, readable_run_s=longest_joint)
    if longest_joint >= EVIDENCE_S - 1e-9:
        return MetricScore.measured(0.0, best, reason=f"no lead beyond the summed uncertainties for {LEAD_S} s "
                                    f"over {longest_joint:.2f} s of joint readings", lead_s=longest_lead,
                                    readable_run_s=longest_joint)
    return MetricScore.operational_zero(f"longest joint reading {longest_joint:.2f} s < {EVIDENCE_S} s and no "
                                        f"lead of {LEAD_S} s", lead_s=longest_lead, readable_run_s=longest_joint)


class CrushedVsIntactIce(WmleTask):
    """Equal masses of crushed ice and one block melting side by side: the crushed side's water rises first."""

    name = "crushed_vs_intact_ice"
    label = "P28"
    family = FAMILIES[5]
    level = "H"
    required_objects = ()
    required_known = {
        "vessels": "{crushed, intact}: [x0, y0, x1, y1] (px) each vessel's inside (top row to bottom row)",
        "bands": "{crushed, intact}: {left, right}: [x0, y0, x1, y1] (px) column bands beside the ice, clear of it "
                 "and the walls, from inside the initial water up past the highest level"}

    def probes(self, case: Case) -> list[Probe]:
        b = case.known["bands"]
        return [Probe(f"{s}_{side}", "level", tuple(float(v) for v in b[s][side])) for s in SIDES for side in BANDS]

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        k = crushed_vs_intact_layout(rng)
        crushed_left = k["vessels"]["crushed"][0] < k["vessels"]["intact"][0]
        duration = 6.0
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view, time-lapse, of two identical glass jars side by side on a table, each with the "
                    "same shallow layer of cold water. At the same moment equal masses of ice are put in: in the "
                    f"{'left' if crushed_left else 'right'} jar a heap of crushed ice, in the other one single "
                    "block. Both melt at room temperature and the water in each jar rises; nothing else is added "
                    "and the camera does not move."),
            objects=[],
            assumptions=["equal ice masses, same temperature", "identical vessels and surroundings",
                         "meltwater stays in its vessel", "fixed side view, uniform time"],
            criteria=["M1: the crushed side's liquid height leads the intact side's by more than the summed "
                      "uncertainties for ≥ 0.25 s (indicator; 0 after ≥ 0.5 s of joint evidence without a lead)"],
            known={**k, "style_seed": seed, "anti_note": "twin: the block melts as fast as the crushed ice"},
        )
        t = frame_times(case)
        f_c, f_b = melt_fractions(t, k["melt_start_s"], k["edge_speed_px_s"], *k["edge_px"].values())
        case.truth = GroundTruth(quantities={"max_lead_px": float(np.max(f_c - f_b) * k["rise_px"]), "s1": 1.0,
                                             "anti_s1": 0.0})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from crushed_vs_intact_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return lead_measurement(case, tracks, SIDES, BANDS)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        return {f"readable_{s}": float(np.mean(np.isfinite(side_levels(tracks, s, BANDS)[0]))) if len(tracks.frames)
                else 0.0 for s in SIDES}

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        hs, us = m.notes.get("heights"), m.notes.get("uncertainties")
        if not hs:
            return {"M1": MetricScore.operational_zero("no level read")}
        t = np.asarray(m.notes.get("t", []), float)
        hc, hi = (np.array([np.nan if v is None else v for v in hs[s]], float) for s in SIDES)
        uc, ui = (np.array([np.nan if v is None else v for v in us[s]], float) for s in SIDES)
        if len(t) != len(hc):
            t = np.arange(len(hc)) / case.fps
        return {"M1": lead_indicator(t, hc, hi, uc, ui, float(m.notes["floor"]))}
