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
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world.scenes.tents import launch_balls, launch_paths, launch_ramps, launch_speed, launch_table

from lawful.suites.principia import _scene as sc
from lawful.suites.principia._common import PrincipiaTask, finish_dcs, first_value, release_heights
from lawful.suites.principia._landing import measure_range

IDS = ("ball_1", "ball_2")


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
        ramps = launch_ramps(k)
        length = ramps[0].length
        high_start = r + 4.0  # contact point, px down the slope from the ramp's top
        high_drop = length - high_start
        drops = [high_drop / ratio, high_drop / ratio]
        drops[higher] = high_drop
        k["start_s"] = [round(length - d, 3) for d in drops]  # contact arc of each ball from its ramp top
        k["launch_x"] = {oid: round(float(f.foot[0]), 3) for oid, f in zip(IDS, ramps)}
        speeds = [launch_speed(k, i) for i in range(2)]
        # the twin swaps the launch speeds: the ball released lower leaves faster and lands farther
        k["anti"] = {"launch_speed_px": [speeds[1], speeds[0]]}
        items = launch_balls(k, [(p[0][0], p[1][0]) for p in launch_paths(k, np.zeros(1), "true")])
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
        paths = launch_paths(k, sc.frame_times(case), law)
        scene = launch_table(sc.new_scene(k), k)
        return sc.render_frames(case, scene, lambda i: launch_balls(k, [(p[0][i], p[1][i]) for p in paths]))

    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        if why := self.case_problem(case):
            return self.bad_case(why)
        m = Measurement()
        ranges, start_y = {}, {}
        for oid in IDS:
            start_y[oid] = first_value(tracks[oid].y)
            ranges[oid] = measure_range(m, tracks, case, oid)
        finish_dcs(m, IDS, tracks, case.width)
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


def _truth(case: Case):
    k = case.known
    t = sc.frame_times(case)
    paths = launch_paths(k, t, "true")
    fine = np.linspace(0, case.duration, 4001)
    q, ev = {}, {}
    for i, oid in enumerate(IDS):
        x, y = launch_paths(k, fine, "true")[i]
        j = int(np.argmax(y >= k["ground_y"] - k["radius_px"] - 1e-9))
        ev[f"{oid}.landing"] = float(fine[j])
        q[f"range_{oid}"] = abs(float(x[j]) - k["launch_x"][oid])
    hi = IDS[int(np.argmin(k["start_s"]))]
    lo = IDS[1] if hi == IDS[0] else IDS[0]
    q.update(F1=q[f"range_{hi}"], F2=q[f"range_{lo}"])
    return sc.truth(t, {o: paths[i] for i, o in enumerate(IDS)}, ev, q)
