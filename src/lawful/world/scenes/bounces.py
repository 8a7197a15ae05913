"""Bouncing scenes: a ball dropped onto a hard floor (WMLE P1)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.world.appearance import Style
from lawful.world.draw import Scene, Sphere
from lawful.world.physics import bounce_trajectory


def bounce_y(k: dict, t: np.ndarray, law: str) -> np.ndarray:
    """Centre row of the ball at times ``t``: dropped from rest, bouncing with restitution ``e``; the twin keeps
    the heights but every flight lasts ``anti_flight_ratio`` times the one before."""
    h0, e, g = k["h0_m"], k["restitution"], k["g"]
    if law == "true":
        h = bounce_trajectory(h0, e, g, t)
    else:
        t0 = math.sqrt(2 * h0 / g)
        ratio = k["anti_flight_ratio"]
        d1 = 2 * e * t0
        h = np.where(t < t0, h0 - 0.5 * g * t * t, 0.0)
        start, j = t0, 1
        while start < float(t.max()) and j < 200:
            dur = d1 * ratio ** (j - 1)
            hk = h0 * e ** (2 * j)
            s = (t - start) / dur
            sel = (s >= 0) & (s < 1)
            h = np.where(sel, 4 * hk * s * (1 - s), h)
            start += dur
            j += 1
    return k["ground_y"] - k["radius_px"] - np.maximum(h, 0.0) * k["px_per_m"]


def bouncing_ball_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                         law: str) -> Iterator[np.ndarray]:
    """The floor and the bouncing ball (``k``: P1's known)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    ys = bounce_y(k, times, law)
    color = tuple(k["color"])
    for y in ys:
        yield scene.frame([Sphere(k["x"], float(y), k["radius_px"], color)])
