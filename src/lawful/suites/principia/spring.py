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
from lawful.perceive import events, noise
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world.draw import Block, Spring
from lawful.world.physics import spring_position

from lawful.suites.principia import _scene as sc
from lawful.suites.principia._common import (
    DCS_FALSE_ALARM,
    PrincipiaTask,
    add_event,
    border_cut,
    coord_noise,
    first_unseen,
    finish_dcs,
    first_value,
    fit_parabola,
    parabola_vertex,
    record_dcs,
    whole,
)

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
        items = _items(k, _extensions(k, np.zeros(1), "true"), 0)
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
        ext = _extensions(k, sc.frame_times(case), law)
        scene = sc.new_scene(k).support(k["x"][0] - 70, k["x"][1] + 70, k["bar_y"])
        return sc.render_frames(case, scene, lambda f: _items(k, ext, f))

    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        if why := self.case_problem(case):
            return self.bad_case(why)
        m = Measurement()
        ext, side = {}, {}
        for oid in IDS:
            tr = tracks[oid]
            ok = whole(tr, frame=(case.width, case.height))
            y = np.where(ok, tr.y, np.nan)
            t = np.asarray(tr.t, float)
            box = np.asarray(tr.box, float)[ok]
            tracked = float(np.mean((box[:, 2] - box[:, 0] + box[:, 3] - box[:, 1]) / 2 + 1)) if len(box) else None
            m.set(f"side_tracked_{oid}", tracked, f"{oid}: not seen")
            spec_box = case.object(oid).box
            side[oid] = (spec_box[2] - spec_box[0] + spec_box[3] - spec_box[1]) / 2 if spec_box else tracked
            m.set(f"side_{oid}", side[oid], f"{oid}: not seen and no first-frame box in the case")
            y0 = first_value(y)
            # a lowest point must stand out of the noise (prominence and depth below the release row)
            deep = noise.step_threshold(coord_noise(tr, tr.y), DCS_FALSE_ALARM, floor=2.0)
            seen = np.where(np.asarray(tr.visible, bool) & ~border_cut(tr, case), tr.y, np.nan)
            turns = events.spring_turning_points(seen, prominence=max(1.0, deep / 2))
            turns = [i for i in turns if i > 0.5 and math.isfinite(y0) and seen[int(round(i))] > y0 + deep]
            # the first lowest point only: if the cube is lost or cut by the frame edge before it (or
            # around it), a later turning point would be a different event
            gone = first_unseen(tr, case)
            end = turns[0] + 2 if turns else len(y) - 1
            if gone is not None and gone <= end:
                record_dcs(m, tr, gone - 1 if gone > 1 else None)
                ext[oid] = None
                where = "cut by the frame edge" if tr.visible[gone] else "not seen"
                m.set(f"extension_{oid}", None, f"{oid}: {where} from sample {gone} on, before its first lowest "
                      "point was seen")
                continue
            record_dcs(m, tr, turns[0] if turns else None)
            ext[oid] = None
            if not turns:
                m.set(f"extension_{oid}", None, f"{oid}: no lowest point (down-to-up turn) found")
                continue
            j = int(round(turns[0]))
            win = [i for i in range(max(j - 2, 0), min(j + 3, len(y))) if np.isfinite(y[i])]
            coef = fit_parabola(t[win], y[win]) if len(win) >= 4 else None
            v = parabola_vertex(coef) if coef is not None and coef[0] < 0 else None
            if v is not None and t[win[0]] <= v[0] <= t[win[-1]]:
                idx, y_turn = float(np.interp(v[0], t, np.arange(len(t)))), v[1]
            else:
                idx, y_turn = turns[0], float(tr.y[j])
            ext[oid] = y_turn - y0
            m.set(f"extension_{oid}", ext[oid])
            add_event(m, tracks, oid, "lowest_point", idx, value=ext[oid])
        finish_dcs(m, IDS)
        why = next((m.missing[f"extension_{o}"] for o in IDS if ext[o] is None), "")
        m.set("F1", ext["cube_1"] / ext["cube_2"] if not why else None, why)
        why = next((m.missing[f"side_{o}"] for o in IDS if not side[o]), "")
        m.set("F2", (side["cube_1"] / side["cube_2"]) ** 3 if not why else None, why)
        return m


def _extensions(k: dict, t: np.ndarray, law: str) -> list[np.ndarray]:
    """Spring extension (px, down) per cube at times ``t``."""
    out = []
    for i in range(2):
        stiff = k["stiffness"] * (k["anti"]["stiffness_scale"][i] if law == "anti" else 1.0)
        m = k["mass_kg"][i]
        c = 2 * k["damping_ratio"] * math.sqrt(stiff * m)
        out.append(spring_position(t, m, stiff, k["g"], 0.0, damping=c) * k["px_per_m"])
    return out


def _items(k: dict, ext, f: int) -> list:
    c = sc.colors(k, 2)
    items = []
    for i in range(2):
        x, s = k["x"][i], k["side_px"][i]
        top = k["bar_y"] + k["rest_px"] + float(ext[i][f])
        items += [Spring((x, k["bar_y"]), (x, top), coils=9, radius=9),
                  Block(x, top + s / 2, s, s, 0.0, c[i])]
    return items


def _truth(case: Case):
    k = case.known
    t = sc.frame_times(case)
    ext = _extensions(k, t, "true")
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
