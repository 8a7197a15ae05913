"""Projectile (Principia Table 2, row 5): two balls roll off a table in opposite directions.

Two identical launch ramps stand back to back on a table; each slopes down to one table edge.
The balls start at different heights on their ramps, roll down, leave the edge at the same
angle and land on the floor. Launch speed grows with release height (``v ∝ sqrt(h)``), so the
range does too: the ball released higher must land farther from its launch point. Ordering
test: ``F1`` = range of the ball that starts higher (smaller first-frame ``y``), ``F2`` = range
of the other; the order holds when ``F1 > F2`` (score 1, else 0).

Landing (appendix A.2): the first time, after release, that the ball's centroid moving down
reaches the floor level (ground line ``case.known['ground_y']`` minus the ball's median box
half-height, or the lowest row the ball reaches if a little above that; less a quarter of the
half-height), refined to sub-frame by extrapolating the last flight samples
(``y`` quadratic, ``x`` linear in time) to the floor level; range = ``|x_landing - launch_x|`` with the launch point the end of
the ramp at the table edge (``case.known['launch_x'][object]``). DCS window: release → landing.
A ball lost or cut by the frame edge before it is seen landing has no range (unmeasurable); up to
``events.MAX_BRIDGED_GAP`` samples missed at the impact (a small ball blurred over its contact shadow),
with the ball seen on the floor right after, are not a loss: the landing comes from the flight samples.

Objects ``ball_1``, ``ball_2``; ``case.known``: ``ground_y``, ``launch_x`` (per object).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case
from lawful.perceive import events
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world.draw import Sphere
from lawful.world.physics import projectile, rolling_distance

from lawful.suites.principia import _scene as sc
from lawful.suites.principia._common import (
    PrincipiaTask,
    add_event,
    finish_dcs,
    first_unseen,
    first_value,
    fit_parabola,
    half_height,
    parabola_level_time,
    per_object,
    record_dcs,
    release_heights,
    value_at,
)

IDS = ("ball_1", "ball_2")
K_BALL = 0.4  # I / (m R²) of a solid ball
CENTRE_GAP = 4.0  # px between the two ramps' backs
STOP_PX = 14.0  # px a landed ball rolls before it stops


class Projectile(PrincipiaTask):
    """Balls launched off a table from ramps at release heights ``h1 != h2``; the higher lands farther."""

    name = "projectile"
    label = "Table 2: Projectile"
    phenomena = ("projectile",)
    ordering_columns = ("projectile",)
    object_ids = IDS
    dcs_direction = "image y, downwards (down the ramp, then falling)"
    required_known = {"ground_y": "pixel row of the floor line",
                      "launch_x": "pixel column of each ball's launch point (the end of its ramp), per object"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = sc.rng_for(seed)
        ground_y = round(float(rng.uniform(322, 332)), 1)
        half_w = float(rng.uniform(72, 92))
        table_h = float(rng.uniform(105, 140))
        theta = math.radians(float(rng.uniform(22, 32)))
        r = float(rng.uniform(9, 11))
        ratio = float(rng.uniform(1.5, 3.0))
        higher = int(rng.integers(2))
        table_m = float(rng.uniform(0.6, 1.0))
        k = {
            "ground_y": ground_y, "table_y": round(ground_y - table_h, 3), "table_half_width": round(half_w, 3),
            "theta": theta, "radius_px": round(r, 3), "g": sc.G, "px_per_m": round(table_h / table_m, 4),
            "colors": sc.pick_colors(seed, 2), "style_seed": sc.style_seed(index, seed),
        }
        ramps = _ramps(k)
        length = ramps[0].length
        high_start = r + 4.0  # contact point, px down the slope from the ramp's top
        high_drop = length - high_start
        drops = [high_drop / ratio, high_drop / ratio]
        drops[higher] = high_drop
        k["start_s"] = [round(length - d, 3) for d in drops]  # contact arc of each ball from its ramp top
        k["launch_x"] = {oid: round(float(f.foot[0]), 3) for oid, f in zip(IDS, ramps)}
        speeds = [_launch_speed(k, i) for i in range(2)]
        # the twin swaps the launch speeds: the ball released lower leaves faster and lands farther
        k["anti"] = {"launch_speed_px": [speeds[1], speeds[0]]}
        items = _items(k, [(p[0][0], p[1][0]) for p in _paths(k, np.zeros(1), "true")])
        c = sc.colors(k, 2)
        objects = [sc.spec(oid, "sphere", c[i], items[i]) for i, oid in enumerate(IDS)]
        names = [sc.color_name(x) for x in c]
        prompt = (
            "The camera is fixed and looks at a table from the side. On the table stand two identical ramps back "
            "to back, one sloping down to the left edge of the table and one to the right edge. "
            f"A {names[0]} ball rests on the left ramp and a {names[1]} ball of the same size on the right ramp, "
            "one placed higher up its ramp than the other. Both are let go from rest at once; they roll down, "
            "shoot off the table edges in opposite directions and fall to the floor."
        )
        case = sc.make(self.name, index, seed, prompt=prompt, duration=2.5, objects=objects, known=k,
                       assumptions=["identical ramps with the same angle", "rolling without slipping on the ramps",
                                    "no air resistance", "released together from rest"],
                       criteria=["projectile"])
        case.truth = _truth(case)
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: str = "true") -> Iterator[np.ndarray]:
        k = case.known
        paths = _paths(k, sc.frame_times(case), law)
        scene = sc.new_scene(k).ground(k["ground_y"])
        hw = k["table_half_width"]
        scene.platform(320 - hw - 6, k["table_y"], 320 + hw + 6, k["table_y"] + 10)  # table top
        scene.platform(320 - hw + 6, k["table_y"] + 10, 320 + hw - 6, k["ground_y"])  # cabinet below
        for f in _ramps(k):
            scene.ramp([f.apex, f.foot, (f.apex[0], f.foot[1])])
        return sc.render_frames(case, scene, lambda i: _items(k, [(p[0][i], p[1][i]) for p in paths]))

    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        if why := self.case_problem(case):
            return self.bad_case(why)
        m = Measurement()
        ranges, start_y = {}, {}
        for oid in IDS:
            tr = tracks[oid]
            start_y[oid] = first_value(tr.y)
            half = half_height(tr)
            land = floor = None
            if math.isfinite(half):
                # centroid row of a ball resting on the floor; a mask that loses the ball's shaded
                # underside sits a little higher, so the lowest row the ball reaches is used if close
                floor = float(case.known["ground_y"]) - half
                lowest = float(np.nanmax(tr.y)) if np.isfinite(tr.y).any() else -math.inf
                if lowest >= floor - max(4.0, 0.6 * half):
                    floor = min(floor, lowest)
                    land = events.crossing(tr.y, floor - max(2.0, 0.25 * half), +1)
                    bounce = _first_floor_turn(tr.y, floor, max(4.0, 0.6 * half))
                    if bounce is not None and (land is None or bounce < land):
                        land = float(bounce)  # a ball that bounces: its first impact, not after the rebound
            record_dcs(m, tr, land)
            ranges[oid] = None
            gone = first_unseen(tr, case, bridge=events.MAX_BRIDGED_GAP)  # a blurred impact sample, seen after
            if gone is not None and (land is None or gone <= math.ceil(land) + 1):
                where = "cut by the frame edge" if tr.visible[gone] else "not seen"
                ranges[oid] = None
                m.set(f"range_{oid}", None, f"{oid}: {where} from sample {gone} on, before it is seen landing")
                continue
            if land is None:
                m.set(f"range_{oid}", None, f"{oid}: never lands on the floor")
                continue
            launch_x = per_object(case, "launch_x", oid)
            land, x_land = _landing(tr, land, floor, launch_x)
            if not math.isfinite(x_land):
                m.set(f"range_{oid}", None, f"{oid}: not seen where it lands")
                continue
            ranges[oid] = abs(x_land - launch_x)
            m.set(f"range_{oid}", ranges[oid])
            add_event(m, tracks, oid, "landing", land, value=ranges[oid])
        finish_dcs(m, IDS)
        ys = [start_y[o] for o in IDS]
        known = release_heights(case, IDS)
        if known is not None:  # the case says which ball starts higher (roles, not image rows)
            hi, lo = (IDS[0], IDS[1]) if known[0] > known[1] else (IDS[1], IDS[0])
        elif not all(math.isfinite(v) for v in ys) or abs(ys[0] - ys[1]) < 1.0:
            why = "the balls do not start at clearly different heights"
            m.set("F1", None, why)
            m.set("F2", None, why)
            return m
        else:
            hi, lo = (IDS[0], IDS[1]) if ys[0] < ys[1] else (IDS[1], IDS[0])
        m.notes["higher"] = hi
        m.set("F1", ranges[hi], m.missing.get(f"range_{hi}", ""))
        m.set("F2", ranges[lo], m.missing.get(f"range_{lo}", ""))
        return m


def _first_floor_turn(y, floor: float, tol: float) -> int | None:
    """First sample near the floor where the ball stops going down (a local maximum of ``y``): the
    first impact of a ball that bounces. Near: within ``tol`` px of ``floor``, or within half the
    falling step that brought it there (the larger of the last two, per sample): a motion-blurred impact frame is located at mid-exposure, which for a
    ball that hits the floor late in the exposure lies up to half a frame's travel above it.
    Up to ``events.MAX_BRIDGED_GAP`` missing samples between neighbours are bridged; a turn seen
    right after such a gap happened in it: the last missing sample is returned (the flight fit of
    :func:`_landing` then ends before the gap and reaches the floor by the sample after it)."""
    y = np.asarray(y, float)
    idx = np.flatnonzero(np.isfinite(y))
    near = events.MAX_BRIDGED_GAP + 1
    for q in range(1, len(idx) - 1):
        p, i, n = idx[q - 1], idx[q], idx[q + 1]
        if i - p > near or n - i > near or not (y[i] >= y[p] and y[i] >= y[n]):
            continue
        fall = (y[i] - y[p]) / (i - p)
        if q >= 2 and p - idx[q - 2] <= near:
            fall = max(fall, (y[p] - y[idx[q - 2]]) / (p - idx[q - 2]))
        if y[i] >= floor - max(tol, 0.5 * fall):  # the impact may fall between two samples: the faster step
            return int(i - 1 if i - p > 1 else i)
    return None


def _landing(tr, coarse: float, floor: float, launch_x: float) -> tuple[float, float]:
    """Sub-frame landing ``(index, x)``: the flight samples just before ``coarse`` (past the launch
    point) fitted with ``y`` quadratic and ``x`` linear in time, solved for ``y = floor``."""
    t, x, y = (np.asarray(a, float) for a in (tr.t, tr.x, tr.y))
    j = int(math.floor(coarse))
    seen = np.flatnonzero(np.isfinite(x[:j + 1]))  # the side it flies to: its last sighting up to ``coarse``
    out = np.sign(x[seen[-1]] - launch_x) if len(seen) else 0.0
    fly = [i for i in range(max(j - 5, 0), j + 1) if np.isfinite(x[i]) and np.isfinite(y[i])
           and (x[i] - launch_x) * out > 0 and y[i] < floor - 0.5]
    if len(fly) >= 3:
        cy = fit_parabola(t[fly], y[fly])
        tl = parabola_level_time(cy, floor, after=t[fly[-1]]) if cy is not None else None
        if tl is not None and tl <= t[min(j + 1, len(t) - 1)] + 1e-9:
            cx = np.polyfit(t[fly], x[fly], 1)
            return float(np.interp(tl, t, np.arange(len(t)))), float(np.polyval(cx, tl))
    return coarse, value_at(x, coarse)


def _ramps(k: dict) -> list[sc.Face]:
    """The two launch ramps' slopes: top at the table centre, foot at each table edge."""
    hw, ty = k["table_half_width"], k["table_y"]
    rise = (hw - CENTRE_GAP) * math.tan(k["theta"])
    return [sc.Face((320 - CENTRE_GAP, ty - rise), (320 - hw, ty)), sc.Face((320 + CENTRE_GAP, ty - rise), (320 + hw, ty))]


def _launch_speed(k: dict, i: int) -> float:
    """Speed (px/s) at the table edge of ball ``i`` rolling from rest (``v² = 2 a d``)."""
    a = 2 * rolling_distance(1.0, k["theta"], K_BALL, k["g"]) * k["px_per_m"]
    return math.sqrt(2 * a * (_ramps(k)[i].length - k["start_s"][i]))


def _paths(k: dict, t: np.ndarray, law: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Centre ``(x, y)`` px of each ball at times ``t``: roll, fly, land and stop."""
    out = []
    r, g_px = k["radius_px"], k["g"] * k["px_per_m"]
    for i, face in enumerate(_ramps(k)):
        d = face.length - k["start_s"][i]  # px to roll before the edge
        v = k["anti"]["launch_speed_px"][i] if law == "anti" else _launch_speed(k, i)
        a = v * v / (2 * d)
        t_edge = v / a
        s = np.minimum(0.5 * a * t * t, d)
        p0 = face.point(k["start_s"][i]) + r * face.n
        x, y = p0[0] + s * face.u[0], p0[1] + s * face.u[1]
        # flight from the edge, image y down: y = y0 + vy t + g t²/2
        x0, y0 = p0 + d * face.u
        vx, vy = v * face.u
        floor = k["ground_y"] - r
        t_fly = (-vy + math.sqrt(vy * vy + 2 * g_px * (floor - y0))) / g_px
        tau = np.clip(t - t_edge, 0.0, t_fly)
        fx, fy = projectile(tau, x0, -y0, vx, -vy, g_px)
        fly = t >= t_edge
        x, y = np.where(fly, fx, x), np.where(fly, -fy, y)
        # on the floor: the horizontal speed dies away over STOP_PX
        dec = vx * vx / (2 * STOP_PX)
        tau = np.clip(t - t_edge - t_fly, 0.0, abs(vx) / dec)
        land = t >= t_edge + t_fly
        x = np.where(land, x0 + vx * t_fly + np.sign(vx) * (abs(vx) * tau - 0.5 * dec * tau * tau), x)
        y = np.where(land, floor, y)
        out.append((x, y))
    return out


def _items(k: dict, centres) -> list[Sphere]:
    c = sc.colors(k, 2)
    return [Sphere(float(x), float(y), k["radius_px"], c[i]) for i, (x, y) in enumerate(centres)]


def _truth(case: Case):
    k = case.known
    t = sc.frame_times(case)
    paths = _paths(k, t, "true")
    fine = np.linspace(0, case.duration, 4001)
    q, ev = {}, {}
    for i, oid in enumerate(IDS):
        x, y = _paths(k, fine, "true")[i]
        j = int(np.argmax(y >= k["ground_y"] - k["radius_px"] - 1e-9))
        ev[f"{oid}.landing"] = float(fine[j])
        q[f"range_{oid}"] = abs(float(x[j]) - k["launch_x"][oid])
    hi = IDS[int(np.argmin(k["start_s"]))]
    lo = IDS[1] if hi == IDS[0] else IDS[0]
    q.update(F1=q[f"range_{hi}"], F2=q[f"range_{lo}"])
    return sc.truth(t, {o: paths[i] for i, o in enumerate(IDS)}, ev, q)
