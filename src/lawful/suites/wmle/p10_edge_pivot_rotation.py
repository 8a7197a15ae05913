"""P10 — forced rotation about a support edge (WMLE appendix B.2).

A tall block stands on the floor. A horizontal rod pushes its upper left face until the block turns
about its lower right edge past the tipping angle, then it falls over about that same edge and
lies on its right face, without sliding away. A rigid block pivoting about a fixed edge keeps the
pivot in place, stays in contact with the floor and keeps its edge lengths.

M1 ``E = max(e_pivot, e_contact, e_shape)`` and ``s1 = I[Δθ ≥ 5°] · q(E; 0.02)``; M2 is not defined.
``e_pivot``: drift of the support edge carried back from the centroid, ``e_contact``: gap of the
lowest corner from the floor, ``e_shape``: change of the edge lengths, each beyond the pixel noise and
divided by the block's diagonal; ``Δθ``: the largest rotation seen in one run of visible samples.
Positions are compared with the first frame's: where the camera estimate is unreliable and the resting
block shows the frame moving beyond the noise, M1 is unmeasurable (extraction:
:mod:`lawful.suites.wmle._pivots`; scene: :mod:`lawful.world.scenes.pivots`).

The block carries a painted spot so that its turning is visible to a generator; the extraction does
not rely on it.

Twin: the block's support edge slides right by ``anti_slide_fraction`` (0.15–0.30) of its diagonal
as it turns over.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._pivots import edge_pivot_measurement
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, \
    frame_times, style_of
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.pivots import block_pose, pivot_block_frames, tilt

G = 9.81
MIN_ROTATION_DEG = 5.0
ROD_BAND = (0.1, 0.35)  # the rod's band kept out of the camera estimate: above and below the block's top, in heights


def rotation_about_edge(e_pivot: float | None, e_contact: float | None, e_shape: float | None,
                        rotation_deg: float | None) -> MetricScore:
    """M1: ``s1 = I[Δθ ≥ 5°] q(max(e_pivot, e_contact, e_shape); 0.02)``."""
    if rotation_deg is None:
        return MetricScore.operational_zero("no posed interval to measure the rotation")
    if rotation_deg < MIN_ROTATION_DEG:
        return MetricScore.measured(0.0, None, f"rotation {rotation_deg:.1f}° < {MIN_ROTATION_DEG:g}°",
                                    rotation_deg=rotation_deg)
    errs = [e_pivot, e_contact, e_shape]
    if any(e is None for e in errs):
        return MetricScore.operational_zero("pivot, contact or shape error not resolved", rotation_deg=rotation_deg)
    E = max(errs)
    return MetricScore.measured(q(E, 0.02), E, e_pivot=e_pivot, e_contact=e_contact, e_shape=e_shape,
                                rotation_deg=rotation_deg)


class EdgePivotRotation(WmleTask):
    """A rod pushes a tall block over about its lower right edge."""

    name = "edge_pivot_rotation"
    label = "P10"
    family = FAMILIES[1]
    level = "M"
    required_objects = ("block",)
    required_events = ("rotation_start",)

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        w = float(rng.uniform(44.0, 56.0))
        h = float(rng.uniform(84.0, 100.0))
        ground_y = float(rng.uniform(296.0, 318.0))
        px = float(rng.uniform(320.0, 380.0))
        h_m = float(rng.uniform(0.2, 0.35))
        ppm = h / h_m
        phi_tip = math.degrees(math.atan2(w, h))
        color = object_colors(seed, 1)[0]
        k = {
            "g": G, "w_px": round(w, 3), "h_px": round(h, 3), "ground_y": round(ground_y, 2), "pivot_x": round(px, 3),
            "px_per_m": round(ppm, 4), "diag_px": round(math.hypot(w, h), 4),
            "diag_m": round(math.hypot(w, h) / ppm, 6),
            "contact_s": round(float(rng.uniform(0.35, 0.55)), 4),
            "push_rate_deg_s": round(float(rng.uniform(32.0, 44.0)), 3),
            "push_to_deg": round(phi_tip + float(rng.uniform(3.0, 5.0)), 4),
            "rod_y": round(ground_y - float(rng.uniform(0.74, 0.84)) * h, 2), "rod_speed_px_s": 90.0,
            "spot": [round(-0.2 * w, 3), round(-0.3 * h, 3), round(0.26 * w, 3)],
            "color": list(color), "style_seed": int(seed),
            "anti_slide_fraction": round(float(rng.uniform(0.15, 0.30)), 5),
            "anti_note": "twin: the support edge slides right by anti_slide_fraction of the diagonal as the "
                         "block turns",
        }
        duration = 3.0
        cx, cy = block_pose(k, 0.0, px)
        objects = [ObjectSpec(id="block", shape="block", color=tuple(color),
                              box=(cx - w / 2 - 1, cy - h / 2 - 1, cx + w / 2 + 1, cy + h / 2 + 1),
                              known={"width_px": w, "height_px": h})]
        prompt = (
            "Fixed side view of a tall rectangular block with a dark spot painted near its upper left corner, "
            "standing upright on a flat floor. A grey metal rod comes in horizontally from the left, touches the "
            "block's left face near the top and pushes it slowly to the right. The block tips over about its "
            "lower right edge, which stays in place on the floor, and falls onto its right side, where it lies "
            "still. It does not slide. The camera does not move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=objects,
            assumptions=["rigid block", "no sliding at the support edge", "the floor is flat and fixed",
                         "fixed side view, uniform time"],
            criteria=["M1: I[rotation >= 5 deg] q(max(pivot drift, ground gap, shape change); 0.02)"], known=k)
        t = frame_times(case)
        phi = tilt(k, t)
        rows = [(round(float(a), 5), *map(lambda v: round(v, 3), block_pose(k, float(p), px))) for a, p in zip(t, phi)]
        case.truth = GroundTruth(tracks={"block": rows},
                                 events={"rotation_start": k["contact_s"]},
                                 quantities={"E": 0.0, "rotation_deg": 90.0,
                                             "anti_e_pivot": k["anti_slide_fraction"]})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from pivot_block_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def movers(self, case: Case) -> list:
        """Where the rod moves, as the prompt places it: a band over the block's upper part (it touches the left
        face near the top), from the left edge to the block's right side, and the band's mirror image below the
        floor line (a polished floor shows the rod): the camera must not take the rod for background. On a plain
        wall the rod's tip and its reflection were all that pinned a camera estimate along x, which then followed the
        rod (a still studio camera estimated 41 px along the push)."""
        x0, top, x1, ground = case.objects[0].box
        h = ground - top
        y0, y1 = top - ROD_BAND[0] * h, top + ROD_BAND[1] * h
        return [(0.0, y0, x1, y1), (0.0, 2 * ground - y1, x1, 2 * ground - y0)]

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return edge_pivot_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        return {"M1": rotation_about_edge(m.get("e_pivot"), m.get("e_contact"), m.get("e_shape"),
                                          m.get("rotation_deg"))}
