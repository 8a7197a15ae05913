"""P35 — scale consistency of sand-pile repose angles (WMLE appendix B.8).

Two piles of the same dry sand, one small and one large, grow on the floor under thin streams falling
on their apexes; both keep the same angle of repose whatever their size.

- M1 ``e1 = |α_small / α_large − 1|``, ``s1 = q(e1; 1.0)``;
- M2 ``e2 = max(|α_small,l − α_small,r|, |α_large,l − α_large,r|)`` in degrees, ``s2 = q(e2; 90°)``.

Reading: a ``profile`` probe over each pile's stretch of floor (regions stated by the case,
``known["piles"][].region``, the floor row ``known["floor_y"]``) gives per column the top row of the sand.
Per frame and pile: a running median over ``MEDIAN_COLUMNS`` columns removes the falling stream (a few
columns wide) before the apex is located (the highest filtered column; height ``H`` above the floor);
each flank is the columns on its side whose height lies within ``[TRIM_BASE·H, TRIM_APEX·H]`` (the rounded
apex and the toe left out), fitted by a least-squares line on the raw tops less those read well below it (sand a
shade or highlight hid from the colour selection: :func:`~lawful.suites.wmle._granular._flank`); its angle
``atan|slope|``.
A flank with fewer than ``MIN_COLUMNS`` columns is not read in that frame. Each angle is the median over
the frames where all four flanks are read (at least ``MIN_FRAMES``, else an operational zero); a pile's
angle is the mean of its two flanks.

Twin: the small pile stands 9–14° steeper than the large one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._granular import flank_angles, repose_measurement  # noqa: F401  (tests use flank_angles)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world.matter import SAND
from lawful.world.scenes.granular import PILES as IDS
from lawful.world.scenes.granular import sand_piles_frames

STREAM_TOP = 6.0


def angle_ratio(a_small: float | None, a_large: float | None) -> MetricScore:
    """M1: ``e1 = |α_small / α_large − 1|``, ``s1 = q(e1; 1.0)``."""
    if a_small is None or a_large is None or not a_large > 0:
        return MetricScore.operational_zero("a repose angle was not resolved")
    e1 = abs(a_small / a_large - 1.0)
    return MetricScore.measured(q(e1, 1.0), e1, alpha_small=a_small, alpha_large=a_large)


def flank_asymmetry(small_lr: tuple | None, large_lr: tuple | None) -> MetricScore:
    """M2: ``e2 = max(|α_s,l − α_s,r|, |α_l,l − α_l,r|)`` (degrees), ``s2 = q(e2; 90)``."""
    if small_lr is None or large_lr is None or None in (*small_lr, *large_lr):
        return MetricScore.operational_zero("a flank angle was not resolved")
    e2 = max(abs(small_lr[0] - small_lr[1]), abs(large_lr[0] - large_lr[1]))
    return MetricScore.measured(q(e2, 90.0), e2)


class SandPileAngles(WmleTask):
    """A small and a large sand pile growing under thin streams, at one repose angle."""

    name = "sand_pile_angles"
    label = "P35"
    family = FAMILIES[7]
    level = "E"
    required_events = ("angles_read",)
    required_known = {"floor_y": "the floor's row (px) under both piles",
                      "piles": "{small, large}: {region: [x0, y0, x1, y1]} (px) each pile's stretch of floor up to above "
                               "its apex, ending just above the floor and holding no other sand"}
    optional_known = {"sand_color": "RGB of the sand (default: a dry-sand tan)"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        alpha = float(rng.uniform(30.0, 36.0))
        steeper = float(rng.uniform(9.0, 14.0))
        floor_y = float(rng.uniform(300.0, 320.0))
        room_l, room_s = 150.0, 105.0  # largest half-widths
        h_l = float(rng.uniform(0.8, 0.95)) * room_l * math.tan(math.radians(alpha))
        h_s = h_l * float(rng.uniform(0.55, 0.65))
        small_left = bool(rng.integers(2))
        x_s = 30 + room_s if small_left else WIDTH - 30 - room_s
        x_l = WIDTH - 30 - room_l if small_left else 30 + room_l
        x_s += float(rng.uniform(-8, 8))
        x_l += float(rng.uniform(-8, 8))
        piles = {}
        for oid, x, h, room in (("small", x_s, h_s, room_s), ("large", x_l, h_l, room_l)):
            region = [max(1.0, x - room - 8), max(STREAM_TOP + 6, floor_y - h / 0.8 * 1.0 - 30), min(WIDTH - 2.0, x + room + 8),
                      floor_y - 1.5]
            piles[oid] = {"x": x, "h_end": h, "alpha_deg": alpha, "anti_alpha_deg": alpha + (steeper if oid == "small" else 0.0),
                          "region": [round(v, 2) for v in region]}
        duration = float(rng.uniform(3.5, 4.5))
        t0 = float(rng.uniform(0.6, 1.0)) * duration  # the piles already hold sand at the start
        prompt = (
            "Fixed side view of two piles of the same dry sand on a flat floor, a small one and a large one. A thin "
            "stream of sand falls steadily onto the top of each pile, so both grow slowly; sand slides down their "
            "sides, which stay straight. The camera does not move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=round(duration, 3), prompt=prompt, objects=[],
            assumptions=["the same dry, non-cohesive sand in both piles", "piles fed gently at their apexes",
                         "fixed side view, the floor level"],
            criteria=["M1: equal repose angles α_small = α_large (q, a = 1.0)",
                      "M2: each pile's left and right flanks at the same angle (q, a = 90°)"],
            known={"floor_y": floor_y, "piles": piles, "grow_t0_s": t0, "sand_color": list(SAND),
                   "style_seed": int(seed),
                   "anti_note": "twin: the small pile's flanks are steeper by the difference of anti_alpha_deg"})
        case.truth = GroundTruth(quantities={"alpha_deg": alpha, "e1": 0.0, "e2": 0.0,
                                             "anti_e1": steeper / alpha})
        return case, next(iter(self.render(case)))

    def probes(self, case: Case) -> list[Probe]:
        col = tuple(case.known.get("sand_color", SAND))
        return [Probe(f"pile_{o}", "profile", tuple(case.known["piles"][o]["region"]), color=col) for o in IDS]

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from sand_piles_frames(case.known, case.width, case.height, style_of(case), case.seed, case.duration,
                                     frame_times(case), STREAM_TOP, law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return repose_measurement(case, tracks, IDS)

    def extra_consistency(self, case: Case, tracks: Tracks, measurement: Measurement) -> dict[str, float]:
        regs = [tracks.regions.get(f"pile_{o}") for o in IDS] if tracks.regions else []
        return {"piles_readable": min((r.readable for r in regs if r is not None), default=0.0) if len(regs) == 2
                else 0.0}

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        side = {o: (m.get(f"alpha_{o}_left_deg"), m.get(f"alpha_{o}_right_deg")) for o in IDS}
        return {"M1": angle_ratio(m.get("alpha_small_deg"), m.get("alpha_large_deg")),
                "M2": flank_asymmetry(side["small"], side["large"])}
