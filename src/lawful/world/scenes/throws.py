"""Projectile scenes: a ball fired at 45° from a small launcher over a flat floor (WMLE P4)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.world.appearance import Style
from lawful.world.draw import Scene, Sphere


def oblique_throw_xy(k: dict, t: np.ndarray, law: str) -> tuple[np.ndarray, np.ndarray]:
    """Ball centre (px) at times ``t``: at rest for ``hold_s``, then a parabola of range ``range_px`` and apex height
    a quarter of it (the twin's ``anti_height_factor`` times that) over ``flight_time_s``, then at rest."""
    T, R = k["flight_time_s"], k["range_px"]
    s = np.clip((t - k["hold_s"]) / T, 0.0, 1.0)
    H = R / 4 * (k["anti_height_factor"] if law == "anti" else 1.0)
    return k["x0"] + R * s, k["ground_y"] - k["radius_px"] - 4 * H * s * (1 - s)


def oblique_throw_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                         law: str) -> Iterator[np.ndarray]:
    """Floor, the launcher's 45° marker and the ball along :func:`oblique_throw_xy`."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    r, x0, y0 = k["radius_px"], k["x0"], k["ground_y"] - k["radius_px"]
    c = math.sqrt(0.5)
    scene.marker_line((x0 + 1.8 * r * c, y0 - 1.8 * r * c), (x0 + 3.4 * r * c, y0 - 3.4 * r * c), width=2)
    color = tuple(k["color"])
    x, y = oblique_throw_xy(k, times, law)
    for xi, yi in zip(x, y):
        yield scene.frame([Sphere(float(xi), float(yi), r, color)])
