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
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, frame_times, steady_xy, style_of,
)
from lawful.tracks import Tracks
from lawful.world import physics_more as pm
from lawful.world.appearance import object_colors
from lawful.world.draw import Scene
from lawful.world import matter

IDS = ("solid", "slotted")
G = 9.81
MIN_WINDOW_S = 2.0
MIN_CUTOFF_DEG = 1.0
CUTOFF_SHARE = 0.1
N_SLOTS = 5


def cycle_order(n_solid: int | None, n_slotted: int | None) -> MetricScore:
    """M1: ``s1 = I[N_solid < N_slotted]``; ``N_slotted = 0`` scores 0 with the ratio undefined."""
    if n_solid is None or n_slotted is None:
        return MetricScore.operational_zero("cycle counts not resolved")
    if n_slotted == 0:
        return MetricScore.measured(0.0, None, "rule: N_slotted = 0 scores 0 (ratio undefined)",
                                    N_solid=n_solid, N_slotted=0)
    return MetricScore.measured(float(n_solid < n_slotted), None, N_solid=n_solid, N_slotted=n_slotted,
                                ratio=n_solid / n_slotted)


def half_swing_extrema(theta: np.ndarray) -> list[tuple[int, float]]:
    """``(index, θ)`` of the extremum of each half-swing closed by a crossing of zero: from the first
    sample (the release) or a crossing to the next crossing in the other direction. NaN samples are not
    bridged (a crossing across them does not count)."""
    th = np.asarray(theta, float)
    cr = pk.crossing_indices(th, 0.0)
    kept: list[tuple[float, int]] = []
    for c, d in cr:  # back-and-forth jitter at zero: crossings must alternate
        if kept and kept[-1][1] == d:
            continue
        kept.append((c, d))
    bounds = [0.0] + [c for c, _ in kept]
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        i0, i1 = int(math.ceil(a)), int(math.floor(b))
        seg = th[i0:i1 + 1]
        if not np.isfinite(seg).any():
            continue
        j = int(np.nanargmax(np.abs(seg))) + i0
        out.append((j, float(th[j])))
    return out


def count_cycles(extrema: list[tuple[int, float]], cutoff: float) -> int:
    """Complete cycles of a run of extrema beyond ``cutoff``: pairs of same-polarity events, the run ending
    at the first extremum within the cutoff; the larger count of the two polarities."""
    run = []
    for _, v in extrema:
        if abs(v) <= cutoff:
            break
        if run and np.sign(v) == np.sign(run[-1]):
            break  # a missed half-swing: the run is not a clean alternation
        run.append(v)
    pos = sum(1 for a, b in zip(run[:-2], run[2:]) if a > 0 and b > 0)
    neg = sum(1 for a, b in zip(run[:-2], run[2:]) if a < 0 and b < 0)
    return max(pos, neg)


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
            item = self._item(p, math.radians(amp) * side)
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
            th = self._angle(case, p, t, "true")
            x, y = p["pivot_x"] + L_px * np.sin(th), p["pivot_y"] + L_px * np.cos(th)
            tracks[p["id"]] = [(float(a), float(b), float(c)) for a, b, c in zip(t, x, y)]
        n_true = {p["id"]: self._true_cycles(case, p, "true") for p in pends}
        case.truth = GroundTruth(tracks=tracks, quantities={"N_solid": n_true["solid"], "N_slotted": n_true["slotted"],
                                                            "s1": float(n_true["solid"] < n_true["slotted"])})
        return case, next(iter(self.render(case)))

    @staticmethod
    def _angle(case: Case, p: dict, t: np.ndarray, law: Law) -> np.ndarray:
        z = p["zeta"] if law == "true" else p["anti_zeta"]
        s = np.clip(np.asarray(t, float) - case.known["hold_s"], 0.0, None)
        return int(p["side"]) * pm.damped_pendulum_angle(s, p["length_m"], math.radians(p["amplitude_deg"]), z, G)

    def _true_cycles(self, case: Case, p: dict, law: Law) -> int:
        t = np.arange(0, case.duration, 1e-3)
        th = np.degrees(self._angle(case, p, t, law))
        return count_cycles(half_swing_extrema(th), max(MIN_CUTOFF_DEG, CUTOFF_SHARE * p["amplitude_deg"]))

    @staticmethod
    def _item(p: dict, angle: float) -> matter.PlatePendulum:
        return matter.PlatePendulum(p["pivot_x"], p["pivot_y"], p["length_px"], float(angle), p["plate_w"], p["plate_h"],
                             tuple(p["color"]), slots=int(p["slots"]))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        pends = k["pendulums"]
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        x0, x1 = pk.support_span(pends)
        scene.support(x0, x1, pk.SUPPORT_Y)
        base = scene.frame()
        for p in pends:
            matter.PolePair(p["pivot_x"], p["pivot_y"] + p["length_px"], 0.8 * p["plate_w"], 0.7 * p["plate_h"]).draw(
                base, scene.style)
        t = frame_times(case)
        ang = [self._angle(case, p, t, law) for p in pends]
        for i in range(len(t)):
            img = base.copy()
            for p, a in zip(pends, ang):
                self._item(p, float(a[i])).draw(img, scene.style)
            yield img

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        piv = pk.pivots(case, tracks, IDS)
        theta, ends, th0 = {}, {}, {}
        for oid in IDS:
            tr, t, vis, x, y = steady_xy(case, tracks, oid)
            px, py = piv[oid]
            th = np.degrees(np.arctan2(x - px, y - py))
            theta[oid] = th
            idx = np.flatnonzero(np.isfinite(th))
            if len(idx) < 3:
                m.notes["unresolved"] = f"{oid}: not tracked"
                return m
            ends[oid] = (int(idx[0]), int(idx[-1]))
            th0[oid] = float(np.median(th[idx[:3]]))
            m.set(f"theta0_{oid}_deg", th0[oid])
            m.events.append(event(oid, f"release_{oid}", float(idx[0]), tracks))
        i0 = max(e[0] for e in ends.values())
        i1 = min(e[1] for e in ends.values())
        t = np.asarray(tracks.t, float)
        span = float(t[i1] - t[i0]) if i1 > i0 else 0.0
        m.set("window_s", span)
        if span < MIN_WINDOW_S:
            m.notes["unresolved"] = f"common window {span:.2f} s < {MIN_WINDOW_S} s"
            return m
        cutoff = max(MIN_CUTOFF_DEG, CUTOFF_SHARE * 0.5 * (abs(th0["solid"]) + abs(th0["slotted"])))
        m.set("cutoff_deg", cutoff)
        for oid in IDS:
            ex = half_swing_extrema(theta[oid][i0:i1 + 1])
            n = count_cycles(ex, cutoff)
            m.set(f"cycles_{oid}", float(n))
            m.notes[f"extrema_{oid}"] = [[int(j + i0), round(v, 3)] for j, v in ex]
            for j, v in ex:
                if abs(v) > cutoff:
                    m.events.append(event(oid, "swing_extremum", float(j + i0), tracks, v))
        m.notes["interval"] = [int(i0), int(i1) + 1]
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        ns, nl = m.get("cycles_solid"), m.get("cycles_slotted")
        return {"M1": cycle_order(None if ns is None else int(ns), None if nl is None else int(nl))}
