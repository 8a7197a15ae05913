"""Rotational inertia (Principia Table 2, row 4): a solid and a hollow cylinder of equal outer radius roll
without slipping down opposite faces of a tent ramp; ``a = g sin θ / (1 + k)``, ``k = I / (m R²)``. Sides:
``F1 = t_1 / t_2`` (measured) and ``F2 = sqrt((1 + k_1) / (1 + k_2))`` (from each object's
``known['inertia_factor']``).

Objects ``cylinder_1``, ``cylinder_2`` with ``known['inertia_factor']``; ``case.known``: ``finish_y`` (one
row, or one per object). Arrival and release: :mod:`lawful.suites.principia._tent`.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world.draw import Cylinder
from lawful.world.physics import rolling_distance

from lawful.suites.principia import _scene as sc
from lawful.suites.principia._tent import FINISH_BEFORE_FOOT, FLOOR_RUN, FOOT_DX, TentRace, tent_faces, tent_layout


def hollow_inertia_factor(inner_ratio: float) -> float:
    """``I / (m R²)`` of a thick-walled tube with inner/outer radius ratio ``q``: ``(1 + q²) / 2``."""
    return (1.0 + inner_ratio**2) / 2.0


class Inertia(TentRace):
    """A solid and a hollow cylinder rolling down opposite faces: ``t1/t2 = sqrt((1+k1)/(1+k2))``."""

    name = "inertia"
    label = "Table 2: Rotational Inertia"
    phenomena = ("inertia",)
    object_ids = ("cylinder_1", "cylinder_2")
    object_known = {"inertia_factor": "I / (m R²) of the body: 0.5 solid cylinder, 1 thin hollow"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = sc.rng_for(seed)
        k = tent_layout(rng, (18.0, 30.0))
        theta = k["theta"]
        r = float(rng.uniform(13, 17))
        inner = float(rng.uniform(0.6, 0.8))
        solid = int(rng.integers(2))  # which face (0: left) carries the solid cylinder
        hollow = [i != solid for i in range(2)]
        factors = [hollow_inertia_factor(inner) if hollow[i] else 0.5 for i in range(2)]
        length = FOOT_DX / math.cos(theta)
        start = 1.5 * r + 6.0  # contact point, px down the slope from the apex
        finish = length - FINISH_BEFORE_FOOT
        t_solid = float(rng.uniform(1.0, 1.3))
        a_solid = sc.G * math.sin(theta) / 1.5
        px_per_m = (finish - start) / (0.5 * a_solid * t_solid**2)
        k.update({
            "g": sc.G, "px_per_m": round(px_per_m, 4), "radius_px": round(r, 3), "inner_ratio": round(inner, 4),
            "hollow": hollow, "inertia_factor": factors, "start_s": round(start, 3),
            "finish_s": round(finish, 3), "colors": sc.pick_colors(seed, 2), "style_seed": sc.style_seed(index, seed),
            # the twin: the solid cylinder accelerates 2.6x slower and the hollow one 2.6x faster
            "anti": {"accel_scale": [sc.ANTI_FACTOR if hollow[i] else 1 / sc.ANTI_FACTOR for i in range(2)]},
        })
        left, right = tent_faces(k)
        k["finish_y"] = {oid: round(float(face.point(finish)[1] - r * math.cos(theta) + r), 3)
                         for oid, face in zip(self.object_ids, (left, right))}
        items = self._items(k, {o: p[0] for o, p in self._poses(k, np.zeros(1), "true").items()})
        c = sc.colors(k, 2)
        objects = [sc.spec(oid, "hollow_cylinder" if hollow[i] else "cylinder", c[i], items[i],
                           inertia_factor=factors[i]) for i, oid in enumerate(self.object_ids)]
        names = [sc.color_name(x) for x in c]
        kind = ["hollow tube" if h else "solid cylinder" for h in hollow]
        prompt = (
            "A fixed camera views a tent-shaped wooden ramp from the side; its two slopes are equally steep. "
            f"A {names[0]} {kind[0]} sits on the left slope and a {names[1]} {kind[1]} with the same mass and "
            "outer radius sits on the right slope, both at the same height, seen end-on. Released from rest at "
            "the same moment, both roll down without slipping, past the lines painted near the bottom."
        )
        case = sc.make(self.name, index, seed, prompt=prompt, duration=3.0, objects=objects, known=k,
                       assumptions=["rolling without slipping", "equal mass and outer radius", "equal slope angles",
                                    "released together from rest"],
                       criteria=["inertia"])
        case.truth = self._truth(case)
        return case, next(iter(self.render(case)))

    def _paths(self, k: dict) -> list[sc.Polyline]:
        return [face.offset_path(k["radius_px"], k["start_s"], FLOOR_RUN + 10) for face in tent_faces(k)]

    def _poses(self, k: dict, t: np.ndarray, law: str) -> dict[str, np.ndarray]:
        out = {}
        r = k["radius_px"]
        for i, (oid, face, path) in enumerate(zip(self.object_ids, tent_faces(k), self._paths(k))):
            scale = k["anti"]["accel_scale"][i] if law == "anti" else 1.0
            a_px = scale * 2 * rolling_distance(1.0, k["theta"], k["inertia_factor"][i], k["g"]) * k["px_per_m"]
            on_face = float(path.cum[1])
            sigma = sc.accelerate_then_stop(t, a_px, on_face, FLOOR_RUN)
            x, y = path.at(sigma)
            out[oid] = np.column_stack([x, y, -math.pi / 2 + face.side * sigma / r])
        return out

    def _items(self, k: dict, pose: dict[str, np.ndarray]) -> list:
        c = sc.colors(k, 2)
        return [Cylinder(float(pose[o][0]), float(pose[o][1]), k["radius_px"], c[i], float(pose[o][2]),
                         hollow=bool(k["hollow"][i]), inner=k["inner_ratio"]) for i, o in enumerate(self.object_ids)]

    def _truth(self, case: Case):
        k = case.known
        t = sc.frame_times(case)
        poses = self._poses(k, t, "true")
        d = k["finish_s"] - k["start_s"]
        times = [math.sqrt(2 * d / (2 * rolling_distance(1.0, k["theta"], f, k["g"]) * k["px_per_m"]))
                 for f in k["inertia_factor"]]
        q = {f"arrival_time_{o}": ti for o, ti in zip(self.object_ids, times)}
        f1, f2 = k["inertia_factor"]
        q.update(F1=times[0] / times[1], F2=math.sqrt((1 + f1) / (1 + f2)))
        return sc.truth(t, {o: (p[:, 0], p[:, 1]) for o, p in poses.items()},
                        {f"{o}.arrival": ti for o, ti in zip(self.object_ids, times)}, q)

    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        if why := self.case_problem(case):
            return self.bad_case(why)
        m = Measurement()
        arr = self._measure_arrivals(case, tracks, m)
        t1, t2 = (arr[o] for o in self.object_ids)
        why = next((m.missing[f"arrival_time_{o}"] for o in self.object_ids if arr[o] is None), "")
        m.set("F1", t1 / t2 if not why and t2 > 0 else None, why or "cylinder_2 arrives at time 0")
        k1, k2 = (float(case.object(o).known["inertia_factor"]) for o in self.object_ids)
        m.set("F2", math.sqrt((1 + k1) / (1 + k2)))
        return m
