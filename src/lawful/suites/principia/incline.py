"""Friction and rotational inertia (Principia Table 2, rows 3-4): races down the two faces of a tent ramp.

- ``friction``: two blocks of the same material but different mass (size) slide down opposite
  faces with the same angle. ``a = g (sin θ - μ cos θ)`` does not depend on mass, so the arrival
  times are equal: ``F = t`` per block, ``S(t_1, t_2)``.
- ``inertia``: a solid and a hollow cylinder of equal outer radius roll without slipping down
  opposite faces; ``a = g sin θ / (1 + k)``, ``k = I / (m R²)``. Sides: ``F1 = t_1 / t_2``
  (measured) and ``F2 = sqrt((1 + k_1) / (1 + k_2))`` (from each object's ``known['inertia_factor']``).

Arrival (appendix A.2): the first time the object's lowest pixel (lower edge of its mask box)
reaches the finish row ``case.known['finish_y'][object]`` painted near the foot of its face;
sub-frame by a local parabola through the lower-edge samples around the crossing.
Release is the case's ``release`` or the objects' earliest sustained motion onset
(:func:`lawful.perceive.onset.release_of`; they start together from rest), not frame 0. DCS window: release → arrival.

Objects ``block_1``, ``block_2`` (friction) or ``cylinder_1``, ``cylinder_2`` with
``known['inertia_factor']`` (inertia); ``case.known``: ``finish_y`` (one row, or one per object).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case
from lawful.perceive import events
from lawful.perceive.onset import release_of
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world.draw import Block, Cylinder
from lawful.world.physics import incline_slide, rolling_distance

from lawful.suites.principia import _scene as sc
from lawful.suites.principia._common import (
    PrincipiaTask,
    add_event,
    finish_dcs,
    fit_parabola,
    parabola_level_time,
    per_object,
    record_dcs,
)

FOOT_DX = 200.0  # px from the apex to each foot
FINISH_BEFORE_FOOT = 18.0  # px up the slope from the foot
FLOOR_RUN = 40.0  # px an object travels on the floor after the foot before it stops


def arrival_index(tracks: Tracks, oid: str, finish_y: float) -> float | None:
    """Fractional sample index where the object's lower edge first reaches ``finish_y`` (None if never)."""
    tr = tracks[oid]
    edge = np.asarray(tr.bottom, float) + 0.5  # box rows are inclusive: the edge is half a pixel lower
    c = events.crossing(edge, finish_y, +1)
    if c is None:
        return None
    t = np.asarray(tr.t, float)
    j = int(math.floor(c))
    win = [i for i in range(max(0, j - 5), min(len(edge), j + 3)) if np.isfinite(edge[i])]
    coef = fit_parabola(t[win], edge[win]) if len(win) >= 4 else None
    if coef is not None:
        tc = parabola_level_time(coef, finish_y, after=t[max(j - 1, 0)])
        if tc is not None and tc <= t[min(j + 2, len(t) - 1)]:
            return float(np.interp(tc, t, np.arange(len(t))))
    return c


class _TentRace(PrincipiaTask):
    """Two objects released together from the same height on opposite faces of a tent ramp."""

    object_ids = ("left", "right")  # overridden
    dcs_direction = "image y, downwards (down the slope)"
    required_known = {"finish_y": "pixel row of the finish line: one value, or one per object"}

    def _measure_arrivals(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float | None]:
        out = {}
        t_r, how = release_of(case, tracks, self.object_ids)
        m.set("release_time_s", t_r, how)
        for oid in self.object_ids:
            idx = arrival_index(tracks, oid, per_object(case, "finish_y", oid))
            record_dcs(m, tracks[oid], idx)
            if idx is None or t_r is None:
                m.set(f"arrival_time_{oid}", None, f"{oid}: never reaches its finish line" if idx is None
                      else f"release not found ({how})")
                out[oid] = None
            else:
                t = add_event(m, tracks, oid, "arrival", idx) - t_r
                m.set(f"arrival_time_{oid}", t)
                out[oid] = t
        finish_dcs(m, self.object_ids)
        return out

    def render(self, case: Case, law: str = "true") -> Iterator[np.ndarray]:
        k = case.known
        t = sc.frame_times(case)
        poses = self._poses(k, t, law)
        left, right = _faces(k)
        scene = sc.new_scene(k).ground(k["ground_y"]).ramp(sc.tent_polygon(left, right))
        for face in (left, right):
            p = face.point(k["finish_s"])
            scene.marker_line(tuple(p), tuple(p + 14 * (-face.n)), width=2)
        return sc.render_frames(case, scene, lambda f: self._items(k, {o: p[f] for o, p in poses.items()}))

    def _poses(self, k: dict, t: np.ndarray, law: str) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def _items(self, k: dict, pose: dict[str, np.ndarray]) -> list:
        raise NotImplementedError


def _faces(k: dict) -> tuple[sc.Face, sc.Face]:
    return sc.tent(320.0, k["apex_y"], FOOT_DX, k["ground_y"])


def _tent_layout(rng: np.random.Generator, theta_deg: tuple[float, float]) -> dict:
    ground_y = round(float(rng.uniform(316, 330)), 1)
    theta = math.radians(float(rng.uniform(*theta_deg)))
    apex_y = round(ground_y - FOOT_DX * math.tan(theta), 3)
    return {"ground_y": ground_y, "apex_y": apex_y, "theta": theta}


# ----------------------------------------------------------------------------- friction


class Friction(_TentRace):
    """Blocks of different mass, same material, sliding down opposite faces: equal arrival times."""

    name = "friction"
    label = "Table 2: Friction"
    phenomena = ("friction",)
    object_ids = ("block_1", "block_2")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = sc.rng_for(seed)
        k = _tent_layout(rng, (26.0, 34.0))
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
        left, right = _faces(k)
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
        faces = _faces(k)
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


# ----------------------------------------------------------------------------- rotational inertia


def hollow_inertia_factor(inner_ratio: float) -> float:
    """``I / (m R²)`` of a thick-walled tube with inner/outer radius ratio ``q``: ``(1 + q²) / 2``."""
    return (1.0 + inner_ratio**2) / 2.0


class Inertia(_TentRace):
    """A solid and a hollow cylinder rolling down opposite faces: ``t1/t2 = sqrt((1+k1)/(1+k2))``."""

    name = "inertia"
    label = "Table 2: Rotational Inertia"
    phenomena = ("inertia",)
    object_ids = ("cylinder_1", "cylinder_2")
    object_known = {"inertia_factor": "I / (m R²) of the body: 0.5 solid cylinder, 1 thin hollow"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = sc.rng_for(seed)
        k = _tent_layout(rng, (18.0, 30.0))
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
        left, right = _faces(k)
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
        return [face.offset_path(k["radius_px"], k["start_s"], FLOOR_RUN + 10) for face in _faces(k)]

    def _poses(self, k: dict, t: np.ndarray, law: str) -> dict[str, np.ndarray]:
        out = {}
        r = k["radius_px"]
        for i, (oid, face, path) in enumerate(zip(self.object_ids, _faces(k), self._paths(k))):
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
