"""P34 — eddy-current damping of a solid and a slotted plate (WMLE appendix B.7).

Two conducting plates of matched mass and inertia, one solid and one comb-slotted, hang as pendulums
from one bar and swing from the same release angle through equivalent magnet gaps. The slots break
the eddy-current loops, so the slotted plate is damped far less and completes more swings.

- M1 ``s1 = I[N_solid < N_slotted]`` — complete cycles in a common window of at least 2 s; ``N_slotted
  = 0`` scores 0 (ratio undefined). M2 not defined.

Counting (:func:`count_cycles`): each plate's angle about its pivot, ``θ = atan2(x − px, y − py)``, from
the tracked plate centroid (pivots stated by the case or fitted to the swings, pendulum kit). The
swing is cut at its crossings of the vertical; the extremum of each half-swing (from the release, or
from a crossing, to the next crossing) is an event of that half-swing's polarity; events beyond the
cutoff ``max(1°, 0.1·mean(|θ0,solid|, |θ0,slotted|))`` (θ0 the release angles) that follow one another
without a sub-cutoff swing between them form the counted run; a complete cycle joins two
same-polarity events of the run. A half-swing not closed by a crossing inside the window is
truncated and not an event.

Scene: the eddy drag is a linear damping ``2 ζ ω₀ θ'`` (``ζ`` 0.22–0.32 solid, 0.01–0.025 slotted),
the full nonlinear pendulum (:func:`lawful.world.physics_more.damped_pendulum_angle`). Twin: the
slotted plate is damped exactly as much as the solid one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.suites.base import Law
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle._damping import (  # noqa: F401  (re-exported: the tests use them)
    CUTOFF_SHARE, MIN_CUTOFF_DEG, count_cycles, cycle_counts_measurement, half_swing_extrema,
)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.pendulums import N_SLOTS, plate_angle, plate_damping_frames, plate_item
from lawful.world.scenes.pendulums import PLATES as IDS

G = 9.81
MIN_WINDOW_S = 2.0


def cycle_order(n_solid: int | None, n_slotted: int | None) -> MetricScore:
    """M1: ``s1 = I[N_solid < N_slotted]``; ``N_slotted = 0`` scores 0 with the ratio undefined."""
    if n_solid is None or n_slotted is None:
        return MetricScore.operational_zero("cycle counts not resolved")
    if n_slotted == 0:
        return MetricScore.measured(0.0, None, "rule: N_slotted = 0 scores 0 (ratio undefined)",
                                    N_solid=n_solid, N_slotted=0)
    return MetricScore.measured(float(n_solid < n_slotted), None, N_solid=n_solid, N_slotted=n_slotted,
                                ratio=n_solid / n_slotted)


class PlateDamping(WmleTask):
    """A solid and a slotted plate pendulum swinging through magnet gaps from the same angle."""

    name = "plate_damping"
    label = "P34"
    family = FAMILIES[6]
    level = "H"
    required_objects = IDS
    required_events = ("release_solid", "release_slotted")
    optional_known = {"pendulums": "[{id, pivot_x, pivot_y}] pivots in px (default: fitted to the swings)"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        L_px = float(rng.uniform(190.0, 212.0))
        L_m = float(rng.uniform(0.3, 0.45))
        amp = float(rng.uniform(22.0, 30.0))
        spacing = float(rng.uniform(270.0, 300.0))
        side = int(rng.choice([-1, 1]))
        solid_left = bool(rng.integers(2))
        zeta_solid = float(rng.uniform(0.22, 0.32))
        zeta_slot = float(rng.uniform(0.01, 0.025))
        w, h = float(rng.uniform(56.0, 66.0)), float(rng.uniform(44.0, 52.0))
        hold = float(rng.uniform(0.25, 0.4))
        c_solid, c_slot = object_colors(seed, 2)
        xs = (320.0 - spacing / 2, 320.0 + spacing / 2)
        x_solid, x_slot = xs if solid_left else xs[::-1]
        pends = []
        for oid, x, col, z in (("solid", x_solid, c_solid, zeta_solid), ("slotted", x_slot, c_slot, zeta_slot)):
            p = pk.pendulum_dict(oid, x, L_px, L_m, amp, side, 0.5 * w, col)
            p.update({"zeta": z, "anti_zeta": zeta_solid, "plate_w": w, "plate_h": h,
                      "slots": N_SLOTS if oid == "slotted" else 0})
            pends.append(p)
        duration = 5.0
        prompt = (
            "Fixed side view of two flat aluminium plates hanging as pendulums on rigid rods from one bar. The "
            f"{'left' if solid_left else 'right'} plate is solid; the other has the same mass and outline but a row "
            "of narrow slots cut up from its lower edge, like a comb. At the bottom of each swing the plate passes "
            "through the gap of a strong magnet. Both plates are pulled aside to the same angle of about "
            f"{amp:.0f} degrees and let go together; they swing for a few seconds. The camera does not move and "
            "time runs at a steady rate.")
        objects = []
        for p in pends:
            item = plate_item(p, math.radians(amp) * side)
            cx, cy = item.centre()
            r = 0.5 * math.hypot(w, h) + 1.0
            objects.append(ObjectSpec(id=p["id"], shape="other", color=tuple(p["color"]),
                                      box=(cx - r, cy - r, cx + r, cy + r),
                                      known={"length_px": L_px, "amplitude_deg": amp, "zeta": p["zeta"]}))
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=objects,
            assumptions=["matched mass, inertia and pivot distance", "same release angle, released together from rest",
                         "equivalent magnetic fields at the bottom of both swings", "fixed side view, uniform time"],
            criteria=["M1: N_solid < N_slotted complete cycles above max(1°, 0.1·mean|θ0|) in a common window ≥ 2 s"],
            known={"g": G, "ground_y": 352.0, "support_y": pk.SUPPORT_Y, "pendulums": pends, "hold_s": hold,
                   "style_seed": int(seed),
                   "anti_note": "twin: the slotted plate is damped as much as the solid one (anti_zeta)"})
        t = frame_times(case)
        tracks = {}
        for p in pends:
            th = plate_angle(case.known, p, t, "true", G)
            x, y = p["pivot_x"] + L_px * np.sin(th), p["pivot_y"] + L_px * np.cos(th)
            tracks[p["id"]] = [(float(a), float(b), float(c)) for a, b, c in zip(t, x, y)]
        n_true = {p["id"]: self._true_cycles(case, p, "true") for p in pends}
        case.truth = GroundTruth(tracks=tracks, quantities={"N_solid": n_true["solid"], "N_slotted": n_true["slotted"],
                                                            "s1": float(n_true["solid"] < n_true["slotted"])})
        return case, next(iter(self.render(case)))

    def _true_cycles(self, case: Case, p: dict, law: Law) -> int:
        t = np.arange(0, case.duration, 1e-3)
        th = np.degrees(plate_angle(case.known, p, t, law, G))
        return count_cycles(half_swing_extrema(th), max(MIN_CUTOFF_DEG, CUTOFF_SHARE * p["amplitude_deg"]))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        yield from plate_damping_frames(k, case.width, case.height, style_of(case), pk.support_span(k["pendulums"]),
                                        pk.SUPPORT_Y, frame_times(case), G, law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return cycle_counts_measurement(case, tracks, IDS, MIN_WINDOW_S)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        ns, nl = m.get("cycles_solid"), m.get("cycles_slotted")
        return {"M1": cycle_order(None if ns is None else int(ns), None if nl is None else int(nl))}
