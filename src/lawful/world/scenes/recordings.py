"""Scenes of the recordings suite's rendered cases (:mod:`lawful.suites.recordings`): each task's motion as a
function of its case's ``known`` and the frames drawn along it. R1 draws with WMLE P2's fall scene
(:func:`~lawful.world.scenes.bounces.free_fall_frames`)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.world.appearance import Style
from lawful.world.draw import Scene, Sphere
from lawful.world.physics import bounce_trajectory, projectile


def ball_frames(k: dict, width: int, height: int, style: Style | None, xs: np.ndarray, ys: np.ndarray,
                scene: Scene | None = None) -> Iterator[np.ndarray]:
    """The ball (``radius_px``, ``color``) at centres ``xs``, ``ys`` over ``scene`` (default: a floor at
    ``ground_y``)."""
    scene = scene if scene is not None else Scene(width, height, style).ground(k["ground_y"])
    color = tuple(k["color"])
    for x, y in zip(xs, ys):
        yield scene.frame([Sphere(float(x), float(y), k["radius_px"], color)])


# --- R1: a fall with quadratic drag seen by a tilted camera -----------------------------------


def lncosh(z: np.ndarray) -> np.ndarray:
    """``ln cosh z`` without overflow (large ``z``) or cancellation (small ``z``: ``log1p(2 sinh²(z/2))``)."""
    z = np.abs(np.asarray(z, float))
    small = np.log1p(2.0 * np.sinh(np.minimum(z, 1.0) / 2.0) ** 2)
    return np.where(z < 1.0, small, z + np.log1p(np.exp(-2.0 * z)) - math.log(2.0))


def drag_fall(t: np.ndarray, y0: float, t0: float, g: float, kappa: float) -> np.ndarray:
    """Position ``[T]`` of a body let go from rest at ``(t0, y0)`` with initial acceleration ``g`` and quadratic
    drag rate ``kappa = g / v_t`` (1/s; 0 = no drag), any consistent units; ``y0`` before ``t0``."""
    s = np.maximum(np.asarray(t, float) - t0, 0.0)
    if kappa < 1e-9:
        return y0 + 0.5 * g * s * s
    return y0 + g / kappa**2 * lncosh(kappa * s)


def image_of(u: np.ndarray, lam: float, span: float) -> np.ndarray:
    """Image displacement of a fall displacement ``u`` (px at the release's scale) seen by a tilted camera:
    ``u / (1 + lam·u/span)`` (the projective map of a line; ``lam < 0``: the scale grows along the fall)."""
    return np.asarray(u, float) / (1.0 + lam * np.asarray(u, float) / span)


def fall_of(d: np.ndarray, lam: float, span: float) -> np.ndarray:
    """Inverse of :func:`image_of`: the fall displacement behind image displacement ``d``."""
    return np.asarray(d, float) / (1.0 - lam * np.asarray(d, float) / span)


def drag_fall_y(k: dict, t: np.ndarray, law: str) -> np.ndarray:
    """Ball centre row (px) at times ``t``: held until ``hold_s``, then the drag fall of ``fall_height_m``
    (terminal speed ``vt_m_s``) or the twin's ``anti`` profile (ease / steady / jerk) over ``fall_time_s``, seen
    with the camera's ``perspective``."""
    D, T = k["ground_y"] - k["radius_px"] - k["top_y"], k["fall_time_s"]
    s = np.clip(np.asarray(t, float) - k["hold_s"], 0.0, T)
    u = s / T
    if law == "true":
        g = k["g"] * D / k["fall_height_m"]
        d = drag_fall(s, 0.0, 0.0, g, k["g"] / k["vt_m_s"])
    elif k["anti"] == "ease":
        d = D * (3 * u**2 - 2 * u**3)
    elif k["anti"] == "steady":
        d = D * u
    else:
        d = D * u**3
    lam = k.get("perspective", 0.0)  # a tilted camera: the image scale changes along the fall
    return k["top_y"] + D * image_of(np.minimum(d, D), lam, D) / image_of(D, lam, D)


# --- R2: a ball dropped from rest, bouncing with a slight sideways drift -----------------------


def drifting_bounce_xy(k: dict, t: np.ndarray, law: str) -> tuple[np.ndarray, np.ndarray]:
    """Ball centre (px) at times ``t``: held until ``hold_s``, dropped ``h0_px`` and bouncing with ``restitution``
    under ``g_px_s2`` while drifting at ``vx_px_s``; the twin's heights decay as ``e²`` per bounce but its k-th
    rebound lasts ``anti_float^k`` times what its height allows."""
    s = np.asarray(t, float) - k["hold_s"]
    h0, e, g = k["h0_px"], k["restitution"], k["g_px_s2"]
    if law == "true":
        h = np.where(s < 0, h0, bounce_trajectory(h0, e, g, np.maximum(s, 0.0)))
    else:
        t0 = math.sqrt(2 * h0 / g)
        h = np.where(s < 0, h0, h0 - 0.5 * g * s * s)
        start, j = t0, 1
        while start < float(s.max()) and j < 50:
            dur = 2 * e**j * t0 * k["anti_float"] ** j
            u = (s - start) / dur
            sel = (u >= 0) & (u < 1)
            h = np.where(sel, 4 * h0 * e ** (2 * j) * u * (1 - u), h)
            start += dur
            j += 1
    x = k["x"] + k["vx_px_s"] * np.maximum(s, 0.0)
    return x, k["ground_y"] - k["radius_px"] - np.maximum(h, 0.0)



# --- R3: a ball fired from a launcher, landing on the floor and rolling to a stop ----------------


def launched_ball_xy(k: dict, t: np.ndarray, law: str, straight: float,
                     stop_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Ball centre (px) at times ``t``: at rest until ``hold_s``, a projectile under ``g_px_s2`` for ``flight_time_s``,
    then rolling ``stop_px`` to a stop. Twin (``anti_kind``): *cartoon*, straight for the first ``straight`` of
    the flight, then falling to the same landing; *drag*, a horizontal velocity decaying as ``exp(−s/T)``."""
    T, g = k["flight_time_s"], k["g_px_s2"]
    s = np.clip(np.asarray(t, float) - k["hold_s"], 0.0, None)
    sf = np.minimum(s, T)
    x, h = projectile(sf, k["x0"], 0.0, k["vx_px_s"], k["vy_px_s"], g)
    if law == "anti" and k["anti_kind"] == "cartoon":
        sc = straight * T
        kappa = (k["vy_px_s"] * T + k["lift_px"]) / (0.5 * g * (T - sc) ** 2)
        h = k["vy_px_s"] * sf - 0.5 * kappa * g * np.maximum(0.0, sf - sc) ** 2
    elif law == "anti":
        x = k["x0"] + k["vx_px_s"] * T * (1 - np.exp(-sf / T))
    roll = stop_px * (1 - np.exp(-3 * (s - sf) / 0.3)) * np.sign(k["vx_px_s"])
    return x + roll, np.minimum(k["y_launch"] - h, k["ground_y"] - k["radius_px"])


def launcher_scene(k: dict, width: int, height: int, style: Style | None) -> Scene:
    """The floor, a platform of height ``lift_px`` under the launch point (if any) and the launcher's marker
    along the launch direction (``angle_deg``, the sign of ``vx_px_s``)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    r, x0, y0 = k["radius_px"], k["x0"], k["y_launch"]
    if k["lift_px"] > 0:
        scene.platform(x0 - 3 * r, y0 + r, x0 + 3 * r, k["ground_y"])
    a = math.radians(k["angle_deg"])
    ux, uy = math.cos(a) * np.sign(k["vx_px_s"]), -math.sin(a)
    scene.marker_line((x0 - 1.6 * r * ux, y0 - 1.6 * r * uy), (x0 - 3.2 * r * ux, y0 - 3.2 * r * uy), width=2)
    return scene
