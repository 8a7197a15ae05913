"""Paired-object scenes (Principia): what the anti-physics twins of both render styles share, and the
flat-style motion and drawing of the two balls dropped, two cubes on springs and two pendulums."""

from __future__ import annotations

import math

import numpy as np

from lawful.world.draw import Block, Bob, Sphere, Spring, String
from lawful.world.physics import bounce_trajectory, pendulum_angle, spring_position

# Anti-physics twins break an invariant by this factor on the ratio of the two sides, so
# S = 2 / (K + 1) = 0.56 (the suite's pass mark for a counterfactual is S <= 0.6).
ANTI_FACTOR = 2.6


# ----------------------------------------------------------------------------- shared by the builders below
# A builder reads the numbers a task stores in ``case.known`` (``k``): ``colors`` (one RGB per object),
# the per-object lists the task draws, and ``k['anti']`` for the twin (``law='anti'``).


def _colors(k: dict) -> list[tuple[int, int, int]]:
    return [tuple(c) for c in k["colors"][:2]]


# ----------------------------------------------------------------------------- two balls dropped (drop)


def drop_height_px(k: dict, i: int, t: np.ndarray, law: str) -> np.ndarray:
    """Height (px) of ball ``i``'s lower edge above the ground line at times ``t``."""
    g = k["g"] * (k["anti"]["g_scale"][i] if law == "anti" else 1.0)
    e = k["anti"]["restitution"][i] if law == "anti" else k["restitution"]
    return bounce_trajectory(k["drop_height_m"][i], e, g, t) * k["px_per_m"]


def dropped_balls(k: dict, heights_px: list[float]) -> list[Sphere]:
    """The two balls with their lower edges ``heights_px`` above the ground line."""
    c = _colors(k)
    r = k["radius_px"]
    return [Sphere(k["x"][i], k["ground_y"] - r - float(heights_px[i]), r, c[i]) for i in range(2)]


# ----------------------------------------------------------------------------- two cubes on springs (spring)


def spring_extensions(k: dict, t: np.ndarray, law: str) -> list[np.ndarray]:
    """Spring extension (px, down) per cube at times ``t``."""
    out = []
    for i in range(2):
        stiff = k["stiffness"] * (k["anti"]["stiffness_scale"][i] if law == "anti" else 1.0)
        m = k["mass_kg"][i]
        c = 2 * k["damping_ratio"] * math.sqrt(stiff * m)
        out.append(spring_position(t, m, stiff, k["g"], 0.0, damping=c) * k["px_per_m"])
    return out


def hanging_cubes(k: dict, ext, f: int) -> list:
    """Spring and cube of each side at frame ``f`` of the extensions ``ext`` (spring, cube, spring, cube)."""
    c = _colors(k)
    items = []
    for i in range(2):
        x, s = k["x"][i], k["side_px"][i]
        top = k["bar_y"] + k["rest_px"] + float(ext[i][f])
        items += [Spring((x, k["bar_y"]), (x, top), coils=9, radius=9),
                  Block(x, top + s / 2, s, s, 0.0, c[i])]
    return items


# ----------------------------------------------------------------------------- two pendulums (pendulum)


def pendulum_positions(k: dict, ids, t: np.ndarray, law: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Bob centre ``(x, y)`` px per pendulum (pivots ``k['anchors'][id]``) at times ``t``."""
    out = []
    for i, oid in enumerate(ids):
        g = k["g"] * (k["anti"]["g_scale"][i] if law == "anti" else 1.0)
        th = pendulum_angle(t, k["length_m"][i], k["release_angle"], g)
        ax, ay = k["anchors"][oid]
        out.append((ax + k["length_px"][i] * np.sin(th), ay + k["length_px"][i] * np.cos(th)))
    return out


def pendulum_items(k: dict, ids, pos, f: int) -> list:
    """String and bob of each pendulum at frame ``f`` of ``pos`` (string, bob, string, bob)."""
    c = _colors(k)
    items = []
    for i, oid in enumerate(ids):
        ax, ay = k["anchors"][oid]
        x, y = float(pos[i][0][f]), float(pos[i][1][f])
        items += [String((ax, ay), (x, y)), Bob(x, y, k["radius_px"], c[i])]
    return items


def drop_truth(k: dict, ids, t: np.ndarray) -> tuple[dict, dict, dict]:
    """True ``(tracks, events, quantities)`` of the dropped balls ``ids``: centroid paths at times
    ``t``, first impact and rebound apex times (s), fall times, drop and rebound heights and both columns' sides."""
    tracks, ev, q = {}, {}, {}
    fall, reb = [], []
    for i, oid in enumerate(ids):
        hp = drop_height_px(k, i, t, "true")
        tracks[oid] = (np.full_like(t, k["x"][i]), k["ground_y"] - k["radius_px"] - hp)
        h_m = k["drop_height_m"][i]
        t0 = math.sqrt(2 * h_m / k["g"])
        ev[f"{oid}.impact"] = t0
        ev[f"{oid}.rebound_apex"] = t0 * (1 + k["restitution"])
        fall.append(t0)
        reb.append(k["restitution"] ** 2 * k["drop_height_px"][i])
        q[f"fall_time_{oid}"] = t0
        q[f"drop_height_{oid}"] = k["drop_height_px"][i]
        q[f"rebound_height_{oid}"] = reb[-1]
    h = k["drop_height_px"]
    q.update(restitution_F1=k["restitution"], restitution_F2=k["restitution"], gravity_F1=h[0] / h[1],
             gravity_F2=(fall[0] / fall[1]) ** 2)
    return tracks, ev, q
