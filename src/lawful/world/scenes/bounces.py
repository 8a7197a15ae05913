"""Falling and bouncing scenes: a ball dropped onto a hard floor (WMLE P1); a ball cut loose to fall (P2)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.world.appearance import Style
from lawful.world.draw import Scene, Sphere, String
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


def free_fall_y(k: dict, t: np.ndarray, law: str) -> np.ndarray:
    """P2's ball centre row at times ``t``: held until ``hold_s``, then a free fall from rest (law) or a fall with
    linear drag (time constant ``anti_drag_tau_s``) reaching the ground at the same time (twin)."""
    s = np.clip(t - k["hold_s"], 0.0, k["fall_time_s"])
    drop = k["ground_y"] - k["radius_px"] - k["top_y"]
    if law == "true":
        d = 0.5 * k["g"] * k["px_per_m"] * s * s
    else:
        tau, T = k["anti_drag_tau_s"], k["fall_time_s"]
        shape = lambda u: tau * (u / tau - 1 + np.exp(-u / tau))  # noqa: E731
        d = drop * shape(s) / shape(T)
    return k["top_y"] + np.minimum(d, drop)


def free_fall_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                     ys: np.ndarray) -> Iterator[np.ndarray]:
    """P2's clip: a ball on a thread below a bar (the thread cut at ``hold_s``) drawn at rows ``ys``."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    bar_y = k["top_y"] - k["radius_px"] - 14
    scene.support(k["x"] - 30, k["x"] + 30, bar_y)
    color = tuple(k["color"])
    for ti, y in zip(times, ys):
        items = []
        if ti < k["hold_s"]:
            items.append(String((k["x"], bar_y), (k["x"], float(y) - k["radius_px"])))
        items.append(Sphere(k["x"], float(y), k["radius_px"], color))
        yield scene.frame(items)
