"""Projectile scenes over a flat floor: a ball fired at 45° from a small launcher (WMLE P4), and two balls fired
at 30° and 60° with one speed (P3)."""

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


def complementary_throws_xy(k: dict, t: np.ndarray, law: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Centres (px) of the 30° and 60° balls at times ``t``: at rest for ``hold_s``, then launched with ``speed_m_s``
    under ``g`` until they land at launch height (the twin's 60° ball under ``anti_gravity_factor_60`` g)."""
    g = k["g"] * k["px_per_m"]
    v = k["speed_m_s"] * k["px_per_m"]
    y0 = k["ground_y"] - k["radius_px"]
    out = []
    for x0, ang in ((k["x30"], 30.0), (k["x60"], 60.0)):
        gg = g * (k["anti_gravity_factor_60"] if (law == "anti" and ang == 60.0) else 1.0)
        a = math.radians(ang)
        T = 2 * v * math.sin(a) / gg
        s = np.clip(t - k["hold_s"], 0.0, T)
        out.append((x0 + v * math.cos(a) * s, y0 - (v * math.sin(a) * s - 0.5 * gg * s * s)))
    return out


def complementary_throws_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                                law: str) -> Iterator[np.ndarray]:
    """Floor, each launcher's painted direction guide and the two balls along :func:`complementary_throws_xy`."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    r, y0 = k["radius_px"], k["ground_y"] - k["radius_px"]
    for x0, ang in ((k["x30"], 30.0), (k["x60"], 60.0)):
        a = math.radians(ang)
        scene.marker_line((x0 + 1.8 * r * math.cos(a), y0 - 1.8 * r * math.sin(a)),
                          (x0 + 3.4 * r * math.cos(a), y0 - 3.4 * r * math.sin(a)), width=2)
    cols = [tuple(c) for c in k["colors"]]
    (x30, y30), (x60, y60) = complementary_throws_xy(k, times, law)
    for i in range(len(times)):
        yield scene.frame([Sphere(float(x30[i]), float(y30[i]), r, cols[0]),
                           Sphere(float(x60[i]), float(y60[i]), r, cols[1])])
