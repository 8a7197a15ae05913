"""Friction (Principia Table 2, row 3): two blocks of the same material but different mass (size) slide down
opposite faces of a tent ramp with the same angle. ``a = g (sin θ - μ cos θ)`` does not depend on mass, so
the arrival times are equal: ``F = t`` per block, ``S(t_1, t_2)``.

Objects ``block_1``, ``block_2``; ``case.known``: ``finish_y`` (one row, or one per object). Arrival and
release: :mod:`lawful.suites.principia._tent`.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world.draw import Block
from lawful.world.physics import incline_slide

from lawful.suites.principia import _scene as sc
from lawful.suites.principia._tent import FINISH_BEFORE_FOOT, FLOOR_RUN, FOOT_DX, TentRace, tent_faces, tent_layout


class Friction(TentRace):
    """Blocks of different mass, same material, sliding down opposite faces: equal arrival times."""

    name = "friction"
    label = "Table 2: Friction"
    phenomena = ("friction",)
    object_ids = ("block_1", "block_2")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = sc.rng_for(seed)
        k = tent_layout(rng, (26.0, 34.0))
        theta = k["theta"]
        mu = float(rng.uniform(0.15, min(0.35, math.tan(theta) - 0.25)))
        small = float(rng.uniform(22, 27))
        ratio = float(rng.uniform(1.3, 1.5))
        heavy = int(rng.integers(2))  # which block (0: left face) is the big, heavy one
        sides = [small, small]
        sides[heavy] = small * ratio
        length = FOOT_DX / math.cos(theta)
        start = max(sides) + 8.0  # front corners start here (px down the slope from the apex)
        finish = length - FINISH_BEFORE_FOOT
        t_arrive = float(rng.uniform(1.0, 1.35))
        a = sc.G * (math.sin(theta) - mu * math.cos(theta))
        px_per_m = (finish - start) / (0.5 * a * t_arrive**2)
        density = float(rng.uniform(500, 900))  # kg/m^3 (wood)
        masses = [density * (s / px_per_m) ** 3 for s in sides]
        k.update({
            "mu": round(mu, 4), "g": sc.G, "px_per_m": round(px_per_m, 4), "start_s": round(start, 3),
            "finish_s": round(finish, 3), "side_px": [round(s, 3) for s in sides],
            "mass_kg": [round(x, 5) for x in masses],
            "colors": sc.pick_colors(seed, 2), "style_seed": sc.style_seed(index, seed),
            # the twin: the heavy block accelerates 2.6x faster, the light one 2.6x slower
            "anti": {"accel_scale": [sc.ANTI_FACTOR if i == heavy else 1 / sc.ANTI_FACTOR for i in range(2)]},
        })
        left, right = tent_faces(k)
        k["finish_y"] = {oid: round(float(face.point(finish)[1]), 3) for oid, face in zip(self.object_ids, (left, right))}
        t = np.zeros(1)
        items = self._items(k, {o: p[0] for o, p in self._poses(k, t, "true").items()})
        c = sc.colors(k, 2)
        objects = [sc.spec(oid, "block", c[i], items[i], mass=masses[i]) for i, oid in enumerate(self.object_ids)]
        names = [sc.color_name(x) for x in c]
        size = ["small", "small"]
        size[heavy] = "large"
        prompt = (
            "A still camera looks from the side at a wooden ramp shaped like a tent: two equally steep slopes "
            f"meet at the top. A {size[0]} {names[0]} block rests on the left slope and a {size[1]} {names[1]} "
            "block of the same wood rests on the right slope, both at the same height. At the start both are let "
            "go from rest and slide down their slopes, past the painted lines near the bottom and onto the floor."
        )
        case = sc.make(self.name, index, seed, prompt=prompt, duration=3.0, objects=objects, known=k,
                       assumptions=["same surface material and slope angle on both faces", "released together from rest",
                                    "blocks slide without tipping"],
                       criteria=["friction"])
        case.truth = self._truth(case)
        return case, next(iter(self.render(case)))

    def _front_s(self, k: dict, t: np.ndarray, law: str) -> list[np.ndarray]:
        """Arc position (px from the apex) of each block's front lower corner."""
        out = []
        length = FOOT_DX / math.cos(k["theta"])
        for i in range(2):
            scale = k["anti"]["accel_scale"][i] if law == "anti" else 1.0
            a_px = scale * 2 * incline_slide(1.0, k["theta"], k["mu"], k["g"]) * k["px_per_m"]
            out.append(k["start_s"] + sc.accelerate_then_stop(t, a_px, length - k["start_s"], FLOOR_RUN))
        return out

    def _poses(self, k: dict, t: np.ndarray, law: str) -> dict[str, np.ndarray]:
        """``[T, 3]`` (x, y, angle) of each block's centre."""
        faces = tent_faces(k)
        out = {}
        for i, (oid, face, s) in enumerate(zip(self.object_ids, faces, self._front_s(k, t, law))):
            w = k["side_px"][i]
            length = face.length
            on = np.asarray(face.apex) + (s - w / 2)[:, None] * face.u + (w / 2) * face.n  # centre while on the face
            front_x = face.foot[0] + face.side * (s - length)
            off = np.stack([front_x - face.side * w / 2, np.full_like(s, k["ground_y"] - w / 2)], axis=1)
            lam = sc.smoothstep(length, length + w / 2, s)[:, None]
            xy = (1 - lam) * on + lam * off
            out[oid] = np.column_stack([xy, (1 - lam[:, 0]) * face.draw_angle])
        return out

    def _items(self, k: dict, pose: dict[str, np.ndarray]) -> list:
        c = sc.colors(k, 2)
        return [Block(float(pose[o][0]), float(pose[o][1]), k["side_px"][i], k["side_px"][i], float(pose[o][2]), c[i])
                for i, o in enumerate(self.object_ids)]

    def _truth(self, case: Case):
        k = case.known
        t = sc.frame_times(case)
        poses = self._poses(k, t, "true")
        a = incline_slide(1.0, k["theta"], k["mu"], k["g"]) * 2 * k["px_per_m"]
        t_arr = math.sqrt(2 * (k["finish_s"] - k["start_s"]) / a)
        q = {f"arrival_time_{o}": t_arr for o in self.object_ids}
        q.update(F1=t_arr, F2=t_arr)
        return sc.truth(t, {o: (p[:, 0], p[:, 1]) for o, p in poses.items()},
                        {f"{o}.arrival": t_arr for o in self.object_ids}, q)

    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        if why := self.case_problem(case):
            return self.bad_case(why)
        m = Measurement()
        arr = self._measure_arrivals(case, tracks, m)
        for side, oid in (("F1", "block_1"), ("F2", "block_2")):
            m.set(side, arr[oid], m.missing.get(f"arrival_time_{oid}", ""))
        return m
