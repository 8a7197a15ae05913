"""Pendulum (Principia Table 2, row 8): two pendulums of different length released at the same angle.

``T = 2π sqrt(l / g)`` (the same finite-amplitude correction for both, as the release angle is
shared), so the sides are ``F1 = T_1 / T_2`` (measured periods) and ``F2 = sqrt(l_1 / l_2)``
with each length measured in pixels from the pivot (``case.known['anchors'][object]``) to the
bob's centroid in the first frame.

Half-periods (appendix A.2): the horizontal velocity of the bob reverses after it has crossed the
vertical line through its pivot (:func:`lawful.perceive.events.half_periods`). With release at
``t_r`` (a turning point, at rest: the case's ``release`` or the bobs' sustained motion onset,
:func:`lawful.perceive.onset.release_of`, not frame 0) and turning points ``τ_1 < … < τ_n``, the
mean half-period is ``(τ_n − t_r) / n`` and ``T = 2 (τ_n − t_r) / n``. Only the swings before the bob is first lost or cut by the
frame edge count (a turning point missed in a gap would change ``n``).

DCS window: release → first crossing of the pivot line; coordinate ``x``, expected direction
towards the pivot line (undefined, so unmeasurable, for a bob released within noise of that line).

Objects ``bob_1``, ``bob_2``; ``case.known``: ``anchors`` (``{object: [x, y]}``, pixels).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case
from lawful.perceive.onset import release_of
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world.physics import pendulum_period
from lawful.world.scenes.pairs import pendulum_items, pendulum_positions

from lawful.suites.principia import _scene as sc
from lawful.suites.principia._common import PrincipiaTask, finish_dcs
from lawful.suites.principia._swings import measure_bob

IDS = ("bob_1", "bob_2")


class Pendulum(PrincipiaTask):
    """Two pendulums, lengths ``l1 != l2``, same bob, same release angle, one support bar."""

    name = "pendulum"
    label = "Table 2: Pendulum"
    phenomena = ("pendulum",)
    object_ids = IDS
    dcs_direction = "image x, towards the vertical through the pivot"
    required_known = {"anchors": "pivot [x, y] in pixels of each pendulum, per object"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = sc.rng_for(seed)
        bar_y = round(float(rng.uniform(22, 34)), 1)
        r = float(rng.uniform(10, 13))
        long_px = float(rng.uniform(230, 352 - bar_y - r - 18))
        ratio = float(rng.uniform(1.5, 4.0))
        longer = int(rng.integers(2))
        lengths = [long_px / ratio, long_px / ratio]
        lengths[longer] = long_px
        theta0 = math.radians(float(rng.uniform(12, 20))) * (1 if rng.integers(2) else -1)
        long_m = float(rng.uniform(0.5, 1.0))
        px_per_m = long_px / long_m
        gap = float(rng.uniform(120, 140))
        k = {
            "bar_y": bar_y, "g": sc.G, "px_per_m": round(px_per_m, 4), "radius_px": round(r, 3),
            "length_px": [round(x, 3) for x in lengths], "length_m": [x / px_per_m for x in lengths],
            "release_angle": theta0,
            "anchors": {IDS[0]: [round(320 - gap, 2), bar_y], IDS[1]: [round(320 + gap, 2), bar_y]},
            "colors": sc.pick_colors(seed, 2), "style_seed": sc.style_seed(index, seed),
            # the twin: the longer pendulum swings 1.61x faster and the shorter 1.61x slower, so the
            # period ratio is off by 2.6x (each pendulum behaves as if under its own gravity)
            "anti": {"g_scale": [sc.ANTI_FACTOR if i == longer else 1 / sc.ANTI_FACTOR for i in range(2)]},
        }
        items = pendulum_items(k, IDS, pendulum_positions(k, IDS, np.zeros(1), "true"), 0)
        c = sc.colors(k, 2)
        objects = [sc.spec(oid, "bob", c[i], items[2 * i + 1], length=k["length_m"][i]) for i, oid in enumerate(IDS)]
        names = [sc.color_name(x) for x in c]
        side = "right" if theta0 > 0 else "left"
        prompt = (
            "A camera fixed in place films two pendulums hanging from the same horizontal bar, side by side. "
            f"They have identical {names[0]} and {names[1]} balls as bobs but strings of different length. Both "
            f"bobs are pulled out to the {side} by the same small angle and let go from rest at the same moment; "
            "they swing back and forth freely in the plane of the picture."
        )
        case = sc.make(self.name, index, seed, prompt=prompt, duration=4.0, objects=objects, known=k,
                       assumptions=["same release angle", "released together from rest", "no air resistance",
                                    "strings stay taut"],
                       criteria=["pendulum"])
        case.truth = _truth(case)
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: str = "true") -> Iterator[np.ndarray]:
        k = case.known
        pos = pendulum_positions(k, IDS, sc.frame_times(case), law)
        xs = [a[0] for a in k["anchors"].values()]
        scene = sc.new_scene(k).support(min(xs) - 60, max(xs) + 60, k["bar_y"])
        return sc.render_frames(case, scene, lambda f: pendulum_items(k, IDS, pos, f))

    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        if why := self.case_problem(case):
            return self.bad_case(why)
        m = Measurement()
        periods, lengths = {}, {}
        t_r, how = release_of(case, tracks, IDS)
        m.set("release_time_s", t_r, how)
        m.notes["release"] = how
        for oid in IDS:
            periods[oid], lengths[oid] = measure_bob(m, tracks, case, oid, t_r, how)
        finish_dcs(m, IDS, tracks, case.width)
        why = next((m.missing[f"period_{o}"] for o in IDS if periods[o] is None), "")
        m.set("F1", periods["bob_1"] / periods["bob_2"] if not why else None, why)
        why = next((m.missing[f"length_{o}"] for o in IDS if not lengths[o]), "")
        m.set("F2", math.sqrt(lengths["bob_1"] / lengths["bob_2"]) if not why else None, why)
        return m


def _truth(case: Case):
    k = case.known
    t = sc.frame_times(case)
    pos = pendulum_positions(k, IDS, t, "true")
    periods = [pendulum_period(k["length_m"][i], abs(k["release_angle"]), k["g"]) for i in range(2)]
    q = {f"period_{o}": p for o, p in zip(IDS, periods)}
    q.update({f"length_{o}": k["length_px"][i] for i, o in enumerate(IDS)})
    q.update(F1=periods[0] / periods[1], F2=math.sqrt(k["length_px"][0] / k["length_px"][1]))
    ev = {f"{o}.crossing": p / 4 for o, p in zip(IDS, periods)}
    ev.update({f"{o}.turning_1": p / 2 for o, p in zip(IDS, periods)})
    return sc.truth(t, {o: pos[i] for i, o in enumerate(IDS)}, ev, q)
