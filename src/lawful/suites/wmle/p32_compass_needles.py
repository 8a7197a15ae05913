"""P32 — final directions of two compass needles beside a current (WMLE appendix B.7).

Seen from above, a straight wire passes vertically through a board between two compasses. At rest
both needles point along the Earth's field. When a strong current is switched on, its magnetic
field circles the wire: on opposite sides of the wire it points in opposite directions, so the
needles turn and settle pointing (nearly) opposite ways.

- M1 ``d`` the median smallest angle (degrees, 0–180) between the two needles' north directions over
  the jointly readable samples among the clip's final five (at least two needed, else an operational
  zero); ``s1 = (1 - cos(π d / 180)) / 2``. M2 is not defined.

A needle's direction is that of its north half's tracked centroid from its dial's centre
(``case.known["dials"]``); a sample is readable when both are seen and each centroid lies farther from
its centre than ``k·σ`` (σ its measured localisation noise, at least 1 px). Extra consistency factor
``readable``: the share of the final five samples that were readable.

Twin: the needles end parallel (the right needle settles to the left one's direction).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.suites.base import Law
from lawful.suites.wmle._electro import (  # noqa: F401  (re-exported: the tests use separation_deg)
    MIN_VALID, needle_separation_measurement, separation_deg,
)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, contrasting_colors, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world.scenes.electro import COMPASSES as IDS
from lawful.world.scenes.electro import compass_frames, dial_items, needle_angles



def opposition(d_deg: float | None, n_valid: int = MIN_VALID) -> MetricScore:
    """M1: ``s1 = (1 - cos(π d / 180)) / 2`` from the median separation ``d`` (degrees)."""
    if d_deg is None or n_valid < MIN_VALID:
        return MetricScore.operational_zero(f"fewer than {MIN_VALID} jointly readable final samples ({n_valid})")
    return MetricScore.measured((1.0 - math.cos(math.pi * d_deg / 180.0)) / 2.0, d_deg, n_valid=n_valid)


class CompassNeedles(WmleTask):
    """Two compasses either side of a vertical wire; the current turns the needles opposite ways."""

    name = "compass_needles"
    label = "P32"
    family = FAMILIES[6]
    level = "M"
    required_objects = IDS
    required_events = ("rotation_left", "rotation_right")
    required_known = {"dials": "{left: [x, y], right: [x, y]} first-frame centres (px) of the compass dials"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        R = float(rng.uniform(48.0, 60.0))
        sep = float(rng.uniform(250.0, 300.0))
        cy = float(rng.uniform(165.0, 195.0))
        cx = float(rng.uniform(305.0, 335.0))
        north = float(rng.uniform(-55.0, 55.0)) + 180.0 * int(rng.integers(2))  # >= 35 deg off the wire fields
        ratio = float(rng.uniform(12.0, 25.0))  # wire field / Earth field at the needles
        sgn = 1.0 if rng.integers(2) else -1.0  # current up or down: which way the field circles
        final = {}
        for b, side in zip(IDS, (-1.0, 1.0)):
            bw = np.array([0.0, sgn * side]) * ratio  # field of the wire: vertical on screen, opposite each side
            be = np.array([math.cos(math.radians(north)), math.sin(math.radians(north))])
            v = bw + be
            final[b] = round(math.degrees(math.atan2(v[1], v[0])), 4)
        k = {
            "dials": {"left": [round(cx - sep / 2, 3), round(cy, 3)], "right": [round(cx + sep / 2, 3), round(cy, 3)]},
            "dial_r_px": round(R, 3), "wire": [round(cx, 3), round(cy, 3)], "north_deg": round(north, 4),
            "final_deg": final, "field_ratio": round(ratio, 4), "t_on_s": round(float(rng.uniform(0.5, 1.0)), 4),
            "period_s": round(float(rng.uniform(0.6, 0.9)), 4), "zeta": round(float(rng.uniform(0.25, 0.35)), 4),
            "colors": {b: list(c) for b, c in zip(IDS, contrasting_colors(seed, 2))}, "style_seed": int(seed),
            "anti_note": "twin: both needles settle to the left needle's direction",
        }
        first = dial_items(k, {b: math.radians(north) for b in IDS})
        objects = []
        for b, it in zip(IDS, first):
            p = it.north_polygon()
            objects.append(ObjectSpec(id=b, shape="other", color=tuple(k["colors"][b]),
                                      box=(float(p[:, 0].min()) - 1, float(p[:, 1].min()) - 1,
                                           float(p[:, 0].max()) + 1, float(p[:, 1].max()) + 1)))
        prompt = (
            "Top-down view of a wooden board with two magnetic compasses lying on it, one to the left and one to the "
            "right of a straight copper wire that passes vertically through a small hole in the middle of the "
            "board. Each compass needle has a coloured north half and a dark south half; at first both needles "
            "point the same way, along the Earth's field. Shortly after the start a strong steady current is "
            "switched on in the wire; the needles swing round, oscillate briefly and come to rest. The camera does "
            "not move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=3.5, prompt=prompt, objects=objects,
            assumptions=["a long straight wire perpendicular to the board", "the wire's field far stronger than "
                         "the Earth's at the compasses", "free, damped needles", "fixed top view, uniform time"],
            criteria=["M1: final needle directions opposite, s1 = (1 - cos(π d/180)) / 2 with d the median "
                      "separation over the final five frames"], known=k)
        t = frame_times(case)
        ang = needle_angles(k, t)
        tracks = {}
        for b in IDS:
            c = np.array(k["dials"][b])
            off = 0.82 * R / 3  # the north triangle's centroid
            tracks[b] = [(round(float(a), 5), round(float(c[0] + off * math.cos(v)), 3),
                          round(float(c[1] + off * math.sin(v)), 3)) for a, v in zip(t, ang[b])]
        d_true = float(separation_deg(math.radians(final["left"]), math.radians(final["right"])))
        case.truth = GroundTruth(tracks=tracks, quantities={"d_deg": d_true, "anti_d_deg": 0.0})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from compass_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return needle_separation_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        return {"M1": opposition(m.get("separation_deg"), int(m.notes.get("final_readable", 0)))}

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        return {"readable": m.notes.get("final_readable", 0) / max(m.notes.get("final_samples", 0), 1)}
