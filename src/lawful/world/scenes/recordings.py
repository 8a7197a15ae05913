"""Scenes of the recordings suite's rendered cases (:mod:`lawful.suites.recordings`): each task's motion as a
function of its case's ``known`` and the frames drawn along it. R1 draws with WMLE P2's fall scene
(:func:`~lawful.world.scenes.bounces.free_fall_frames`)."""

from __future__ import annotations

import math

import numpy as np


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
