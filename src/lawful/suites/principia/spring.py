"""Mass-spring (Principia Table 2, row 9): two identical springs carrying cubes of different size.

Released from rest with the springs unstretched, a cube of mass ``m`` falls to a first lowest
point at extension ``x = 2 m g / k`` (twice the static ``m g / k``; with the same damping ratio
for both the factor is common), so ``x_1 / x_2 = m_1 / m_2``. Sides: ``F1 = x_1 / x_2`` (measured
extensions) and ``F2 = m_1 / m_2 = (l_1 / l_2)^3``, the masses estimated from the cubes' side
lengths ``l`` in pixels (same material, appendix A.2).

Maximum extension of the first oscillation: the first turning point where the vertical velocity
turns from down (+y) to up (first maximum of image ``y``, sub-frame by a parabola through the
samples around it); ``x = y_turn - y_0``.

Side length: the mean of width and height of the cube's first-frame box in the case (the
annotated first frame the video starts from); without a case box, the mean over the clip of the
tracked box (``side_tracked_<id>`` is recorded either way). The case box is preferred because
colour masks lose the shaded rim of a cube unevenly (1-3 px on one side), an error the cube
law triples. DCS window: release → first lowest point.

A cube lost, or cut by the frame edge (its box touching it), between release and its first
lowest point makes its extension unmeasurable: a later turning point would be another event.
A turning point must stand out of the track's measured noise.

Objects ``cube_1``, ``cube_2``; nothing else needed in ``case.known``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world.scenes.pairs import hanging_cubes, spring_extensions

from lawful.suites.principia import _scene as sc
from lawful.suites.principia._common import PrincipiaTask, finish_dcs
from lawful.suites.principia._swings import measure_cube

IDS = ("cube_1", "cube_2")


class MassSpring(PrincipiaTask):
    """Two identical springs hung from one bar, cubes of side ``l1 != l2`` (``m ∝ l³``)."""

    name = "spring"
    label = "Table 2: Mass-Spring"
    phenomena = ("spring",)
    object_ids = IDS
    dcs_direction = "image y, downwards (the cubes drop on their springs)"

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = sc.rng_for(seed)
        bar_y = round(float(rng.uniform(22, 32)), 1)
        small = int(rng.integers(48, 56))
        ratio = float(rng.uniform(1.25, 1.45))
        heavy = int(rng.integers(2))
        sides = [float(small), float(small)]
        sides[heavy] = float(round(small * ratio))
        rest = float(rng.uniform(40, 52))  # unstretched spring length, px
        x_max_heavy = 350 - bar_y - rest - max(sides) - float(rng.uniform(0, 20))  # px, first lowest point
        zeta = float(rng.uniform(0.02, 0.05))
        x_max = [x_max_heavy * (s / max(sides)) ** 3 for s in sides]
        px_per_m = float(rng.uniform(260, 340))
        density = float(rng.uniform(500, 900))
        masses = [density * (s / px_per_m) ** 3 for s in sides]
        factor = 1 + math.exp(-math.pi * zeta / math.sqrt(1 - zeta**2))  # first peak / static extension
        stiffness = factor * masses[heavy] * sc.G / (x_max[heavy] / px_per_m)  # N/m, shared
        gap = float(rng.uniform(95, 125))
        k = {
            "bar_y": bar_y, "g": sc.G, "px_per_m": round(px_per_m, 4), "rest_px": round(rest, 3),
            "side_px": [round(s, 3) for s in sides], "mass_kg": masses, "stiffness": stiffness,
            "damping_ratio": round(zeta, 5),
            "x": [round(320 - gap, 2), round(320 + gap, 2)],
            "colors": sc.pick_colors(seed, 2), "style_seed": sc.style_seed(index, seed),
            # the twin: the heavy cube's spring is 1.61x stiffer and the light one's 1.61x softer,
            # so the extension ratio is off from the mass ratio by 2.6x
            "anti": {"stiffness_scale": [math.sqrt(sc.ANTI_FACTOR) if i == heavy else 1 / math.sqrt(sc.ANTI_FACTOR)
                                         for i in range(2)]},
        }
        items = hanging_cubes(k, spring_extensions(k, np.zeros(1), "true"), 0)
        c = sc.colors(k, 2)
        objects = [sc.spec(oid, "block", c[i], items[2 * i + 1], mass=masses[i]) for i, oid in enumerate(IDS)]
        names = [sc.color_name(x) for x in c]
        size = ["small", "small"]
        size[heavy] = "large"
        prompt = (
            "The camera stays fixed on two identical coil springs hanging side by side from one horizontal bar. "
            f"A {size[0]} {names[0]} wooden cube hangs from the left spring and a {size[1]} {names[1]} cube of the "
            "same wood from the right one. Both cubes are held up so the springs are relaxed, then let go from "
            "rest together: they drop, stretch their springs and bob up and down around their resting points."
        )
        case = sc.make(self.name, index, seed, prompt=prompt, duration=3.0, objects=objects, known=k,
                       assumptions=["identical springs (same stiffness and rest length)", "cubes of the same material",
                                    "released together from rest with the springs unstretched"],
                       criteria=["spring"])
        case.truth = _truth(case)
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: str = "true") -> Iterator[np.ndarray]:
        k = case.known
        ext = spring_extensions(k, sc.frame_times(case), law)
        scene = sc.new_scene(k).support(k["x"][0] - 70, k["x"][1] + 70, k["bar_y"])
        return sc.render_frames(case, scene, lambda f: hanging_cubes(k, ext, f))

    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        if why := self.case_problem(case):
            return self.bad_case(why)
        m = Measurement()
        ext, side = {}, {}
        for oid in IDS:
            ext[oid], side[oid] = measure_cube(m, tracks, case, oid)
        finish_dcs(m, IDS, tracks, case.width)
        why = next((m.missing[f"extension_{o}"] for o in IDS if ext[o] is None), "")
        m.set("F1", ext["cube_1"] / ext["cube_2"] if not why else None, why)
        why = next((m.missing[f"side_{o}"] for o in IDS if not side[o]), "")
        m.set("F2", (side["cube_1"] / side["cube_2"]) ** 3 if not why else None, why)
        return m


def _truth(case: Case):
    k = case.known
    t = sc.frame_times(case)
    ext = spring_extensions(k, t, "true")
    zeta = k["damping_ratio"]
    factor = 1 + math.exp(-math.pi * zeta / math.sqrt(1 - zeta**2))
    x_max = [factor * m * k["g"] / k["stiffness"] * k["px_per_m"] for m in k["mass_kg"]]
    t_turn = [math.pi / math.sqrt(k["stiffness"] / m * (1 - zeta**2)) for m in k["mass_kg"]]
    q = {f"extension_{o}": x for o, x in zip(IDS, x_max)}
    q.update({f"side_{o}": s for o, s in zip(IDS, k["side_px"])})
    q.update(F1=x_max[0] / x_max[1], F2=k["mass_kg"][0] / k["mass_kg"][1])
    tracks = {o: (np.full_like(t, k["x"][i]), k["bar_y"] + k["rest_px"] + ext[i] + k["side_px"][i] / 2)
              for i, o in enumerate(IDS)}
    return sc.truth(t, tracks, {f"{o}.lowest_point": tt for o, tt in zip(IDS, t_turn)}, q)
