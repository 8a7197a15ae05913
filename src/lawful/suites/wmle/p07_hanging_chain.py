"""P7 — static shape of a hanging chain: released from a kinked shape, it settles into a catenary.

The chain carries seven coloured marker beads at equal spacing along its length (the two end beads
sit on the supports and share a colour, so colour-dependent centroid bias cancels in M2); each bead
is a tracked object, so the settled contour is read from ordinary tracks (no frame access needed).
Settled contour = the median bead positions over the last ``SETTLED_FRACTION`` of the clip; a bead out
of view then (a moving camera took it out of the picture) counts at its last sightings if they were at
rest (an end bead on its support), else the video is unresolved.

M1 fits ``y = c - a cosh((x - x0) / a)`` (image y down) to the settled beads: e1 = RMSE / measured sag.
M2 is the support-height difference over the horizontal span, from the end beads.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._chain import catenary_y, fit_catenary, settled_chain_measurement  # noqa: F401  (tests)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.chains import BEAD_R, N_BEADS, catenary_param, chain_shape, hanging_chain_frames, settled_chain

BEADS = tuple(f"bead_{i}" for i in range(N_BEADS))


def catenary_fit_metric(rmse: float, sag: float) -> MetricScore:
    """M1: e1 = RMSE / measured sag, s1 = q(e1; 0.10)."""
    if not sag > 0:
        return MetricScore.operational_zero("no measurable sag")
    e1 = rmse / sag
    return MetricScore.measured(q(e1, 0.10), e1)


def support_level_metric(dh: float, span: float) -> MetricScore:
    """M2: e2 = support-height difference / horizontal span, s2 = q(e2; 0.02)."""
    if not span > 0:
        return MetricScore.operational_zero("no horizontal span")
    e2 = abs(dh) / span
    return MetricScore.measured(q(e2, 0.02), e2)


class HangingChain(WmleTask):
    name = "hanging_chain"
    label = "P7"
    family = FAMILIES[1]
    level = "E"
    required_objects = BEADS
    required_events = ("release", "settled")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        # whole-pixel supports: both end beads rasterise alike
        span = float(round(rng.uniform(360.0, 430.0)))
        xa = float(round(rng.uniform(95.0, 545.0 - span)))
        ys = float(round(rng.uniform(55.0, 75.0)))
        ratio = float(rng.uniform(1.2, 1.35))
        length = span * ratio
        a = catenary_param(span, length)
        sag = a * (math.cosh(span / (2 * a)) - 1)
        pin_frac = float(rng.uniform(0.22, 0.36))
        colors = object_colors(seed, N_BEADS - 1)
        colors.append(colors[0])  # both end beads alike: equal colour-dependent centroid bias on the supports
        ground_y = 346.0
        known = {"supports": [[xa, ys], [xa + span, ys]], "span_px": span, "chain_length_px": length,
                 "catenary_a_px": a, "sag_px": sag, "pin_fraction": pin_frac, "ground_y": ground_y,
                 "settle_period_s": float(rng.uniform(0.9, 1.3)), "colors": [list(c) for c in colors],
                 "style_seed": seed, "anti_low_point_fraction": 0.3,
                 "anti_note": "the twin settles into a skewed curve whose lowest point sits at 30% of the span"}
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=4.0,
            prompt=("Fixed side view. A flexible chain of small dark links with seven coloured marker beads hangs "
                    "between two hooks at the same height. At the start a thin pin holds one point of the chain "
                    "up and to the side, so the chain forms a bent, lopsided shape; the pin is pulled away, the "
                    "chain swings and settles to rest under gravity. The camera does not move."),
            objects=[],
            assumptions=["uniform flexible inextensible chain", "supports at equal heights", "chain released from rest",
                     "comes to rest before the end", "fixed side view"],
            criteria=["M1: settled contour is a catenary (fit RMSE / sag)", "M2: support heights equal"],
            known=known,
        )
        start = self._shape(case, np.zeros(1), "true")[0]
        case.objects = [ObjectSpec(id=b, shape="sphere", color=colors[i], box=sphere_box(*start[i], BEAD_R))
                        for i, b in enumerate(BEADS)]
        _, _, _, rmse = fit_catenary(*settled_chain(case.known, "anti")[1].T)
        case.known["anti_e1"] = rmse / self._sag_of(settled_chain(case.known, "anti")[1])
        tt = frame_times(case)
        beads = self._shape(case, tt, "true")
        case.truth = GroundTruth(
            tracks={b: [(float(t), float(p[0]), float(p[1])) for t, p in zip(tt, beads[:, i])]
                    for i, b in enumerate(BEADS)},
            events={"settled": float(self._settle_time(case))},
            quantities={"sag_px": sag, "catenary_a_px": a, "e1": 0.0, "e2": 0.0},
        )
        return case, next(self.render(case))

    def _settle_time(self, case: Case) -> float:
        return 0.55 * case.duration

    def _shape(self, case: Case, times: np.ndarray, law: Law, n: int = N_BEADS) -> np.ndarray:
        """Chain points ``[T, n, 2]`` at equal arc-length spacing over time."""
        return chain_shape(case.known, self._settle_time(case), times, law, n)

    @staticmethod
    def _sag_of(beads: np.ndarray) -> float:
        return float(np.max(beads[:, 1]) - 0.5 * (beads[0, 1] + beads[-1, 1]))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from hanging_chain_frames(case.known, case.width, case.height, style_of(case), self._settle_time(case),
                                        frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return settled_chain_measurement(case, tracks, BEADS)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        rmse, sag = m.get("catenary_rmse_px"), m.get("sag_px")
        m1 = catenary_fit_metric(rmse, sag) if rmse is not None else MetricScore.operational_zero("no sag to fit")
        return {"M1": m1, "M2": support_level_metric(m.get("support_dh_px"), m.get("span_px"))}
