"""Pendulum scenes: a solid and a slotted plate swinging through magnet gaps (WMLE P34)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from scipy.special import ellipk

from lawful.world import matter
from lawful.world import physics_more as pm
from lawful.world.appearance import Style
from lawful.world.draw import Scene

SMALL_DEG, LARGE_DEG = 15.0, 30.0  # P13's release amplitudes
PLATES = ("solid", "slotted")  # P34's plates
N_SLOTS = 5  # slots across P34's slotted plate


def elliptic_period_ratio(large_deg: float = LARGE_DEG, small_deg: float = SMALL_DEG) -> float:
    """``K(sin(θ_large/2)) / K(sin(θ_small/2))`` (modulus ``k``; scipy's ``ellipk`` takes ``m = k²``)."""
    k_large = math.sin(math.radians(large_deg) / 2)
    k_small = math.sin(math.radians(small_deg) / 2)
    return float(ellipk(k_large**2) / ellipk(k_small**2))


R_STAR = elliptic_period_ratio()  # ≈ 1.0130520869


def plate_angle(k: dict, p: dict, t: np.ndarray, law: str, g: float) -> np.ndarray:
    """Angle (rad) of plate pendulum ``p`` held until ``hold_s``, then swinging damped by ``zeta``
    (twin: ``anti_zeta``)."""
    z = p["zeta"] if law == "true" else p["anti_zeta"]
    s = np.clip(np.asarray(t, float) - k["hold_s"], 0.0, None)
    return int(p["side"]) * pm.damped_pendulum_angle(s, p["length_m"], math.radians(p["amplitude_deg"]), z, g)


def plate_item(p: dict, angle: float) -> matter.PlatePendulum:
    """Plate pendulum ``p`` turned to ``angle`` (rad)."""
    return matter.PlatePendulum(p["pivot_x"], p["pivot_y"], p["length_px"], float(angle), p["plate_w"],
                                 p["plate_h"], tuple(p["color"]), slots=int(p["slots"]))


def plate_damping_frames(k: dict, width: int, height: int, style: Style | None, support_span: tuple[float, float],
                         support_y: float, times: np.ndarray, g: float, law: str) -> Iterator[np.ndarray]:
    """The support bar, a magnet pole pair under each plate and the plates swinging (``k``: P34's known)."""
    pends = k["pendulums"]
    scene = Scene(width, height, style).ground(k["ground_y"])
    x0, x1 = support_span
    scene.support(x0, x1, support_y)
    base = scene.frame()
    for p in pends:
        matter.PolePair(p["pivot_x"], p["pivot_y"] + p["length_px"], 0.8 * p["plate_w"], 0.7 * p["plate_h"]).draw(
            base, scene.style)
    t = times
    ang = [plate_angle(k, p, t, law, g) for p in pends]
    for i in range(len(t)):
        img = base.copy()
        for p, a in zip(pends, ang):
            plate_item(p, float(a[i])).draw(img, scene.style)
        yield img
