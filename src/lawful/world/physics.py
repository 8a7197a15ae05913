"""Shared physics in SI units (metres, seconds, radians, kg): closed forms and small ODEs.

Time arguments ``t`` accept scalars or arrays; results are float arrays of the same shape.
World coordinates have y up; :class:`PixelMap` converts to image pixels (y down).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp
from scipy.special import ellipk


def _t(t) -> np.ndarray:
    return np.asarray(t, dtype=float)


# ----------------------------------------------------------------------------- bouncing


def bounce_impact_times(h0: float, e: float, g: float, n: int) -> np.ndarray:
    """Times (s) of the first ``n`` ground impacts of a ball dropped from rest at height ``h0`` (m)."""
    t0 = np.sqrt(2.0 * h0 / g)
    v0 = np.sqrt(2.0 * g * h0)
    k = np.arange(n)
    flights = 2.0 * v0 * e ** k[1:] / g if n > 1 else np.zeros(0)  # flight after impact k (k >= 1)
    return t0 + np.concatenate([[0.0], np.cumsum(flights)])[:n]


def bounce_trajectory(h0: float, e: float, g: float, t) -> np.ndarray:
    """Height (m, >= 0) over time of a ball dropped from rest at ``h0`` with restitution ``e``.

    Each bounce is a parabola: after impact ``k`` (k = 1, 2, ...) the ball leaves at
    ``e**k * sqrt(2 g h0)`` and peaks at ``e**(2k) * h0``. After the bounces converge
    (time ``t0 (1 + e) / (1 - e)``) the ball rests at 0.
    """
    if h0 < 0 or g <= 0 or not 0 <= e < 1 + 1e-12:
        raise ValueError("need h0 >= 0, g > 0 and 0 <= e <= 1")
    t = _t(t)
    out = np.zeros_like(t)
    if h0 == 0:
        return out
    t0 = np.sqrt(2.0 * h0 / g)
    v0 = np.sqrt(2.0 * g * h0)
    fall = t < t0
    out[fall] = h0 - 0.5 * g * t[fall] ** 2
    tmax = float(t.max()) if t.size else 0.0
    start, v, k = t0, v0 * e, 1
    while start < tmax and v > 1e-12 * v0 and k < 100000:
        dur = 2.0 * v / g
        sel = (t >= start) & (t < start + dur)
        s = t[sel] - start
        out[sel] = v * s - 0.5 * g * s * s
        start += dur
        v *= e
        k += 1
    out[t < 0] = h0
    return np.maximum(out, 0.0)


# ----------------------------------------------------------------------------- inclines


def incline_slide(t, theta: float, mu: float, g: float) -> np.ndarray:
    """Distance (m) slid along an incline of angle ``theta`` from rest with kinetic friction ``mu``.

    ``a = g (sin theta - mu cos theta)``; zero when ``tan theta <= mu`` (the block stays put).
    """
    t = np.maximum(_t(t), 0.0)
    if np.tan(theta) <= mu:
        return np.zeros_like(t)
    return 0.5 * g * (np.sin(theta) - mu * np.cos(theta)) * t * t


K_SPHERE, K_RING = 2.0 / 5.0, 1.0  # I / (m R^2): solid ball, thin hoop
TIME_RATIO = math.sqrt((1.0 + K_RING) / (1.0 + K_SPHERE))  # hoop's / ball's time down the same incline: sqrt(10/7)


def rolling_distance(t, theta: float, inertia_factor: float, g: float) -> np.ndarray:
    """Distance (m) rolled without slipping down an incline from rest.

    ``a = g sin theta / (1 + k)`` with ``k = I / (m R^2)`` (2/5 solid ball, 1/2 solid cylinder,
    1 thin hoop, 2/3 thin shell).
    """
    t = np.maximum(_t(t), 0.0)
    return 0.5 * g * np.sin(theta) / (1.0 + inertia_factor) * t * t


# ----------------------------------------------------------------------------- pendulum


def pendulum_angle(t, length: float, theta0: float, g: float) -> np.ndarray:
    """Angle (rad) of a simple pendulum released from rest at ``theta0``: the full nonlinear ODE
    ``theta'' = -(g / length) sin theta`` solved with ``solve_ivp`` (DOP853, rtol 1e-9)."""
    t = _t(t)
    flat = t.ravel()
    if flat.size == 0:
        return t.copy()
    if np.any(flat < 0):
        raise ValueError("pendulum_angle needs t >= 0")
    ts, inv = np.unique(flat, return_inverse=True)
    if ts[-1] == 0.0:  # only the release instant: no interval to integrate over
        return np.full(t.shape, float(theta0))
    w2 = g / length
    sol = solve_ivp(lambda _, y: (y[1], -w2 * np.sin(y[0])), (0.0, float(ts[-1])), (theta0, 0.0),
                    method="DOP853", t_eval=ts, rtol=1e-9, atol=1e-12)
    if not sol.success:
        raise RuntimeError(f"pendulum ODE failed: {sol.message}")
    return sol.y[0][inv].reshape(t.shape)


def pendulum_period(length: float, theta0: float, g: float) -> float:
    """Exact period (s) for amplitude ``theta0`` (rad): ``4 sqrt(l / g) K(sin^2(theta0 / 2))``."""
    return float(4.0 * np.sqrt(length / g) * ellipk(np.sin(theta0 / 2.0) ** 2))


# ----------------------------------------------------------------------------- spring


def spring_position(t, m: float, k: float, g: float, x0: float, damping: float = 0.0) -> np.ndarray:
    """Extension (m, positive = stretched, downward) of a vertical mass-spring released from rest at ``x0``.

    ``m x'' = m g - k x - c x'`` with ``c = damping`` (N s/m); equilibrium extension ``m g / k``.
    Closed form for under-, critically and over-damped motion.
    """
    t = np.maximum(_t(t), 0.0)
    x_eq = m * g / k
    d = x0 - x_eq
    gamma = damping / (2.0 * m)
    w0sq = k / m
    if gamma * gamma < w0sq * (1 - 1e-12):
        wd = np.sqrt(w0sq - gamma * gamma)
        return x_eq + d * np.exp(-gamma * t) * (np.cos(wd * t) + gamma / wd * np.sin(wd * t))
    if gamma * gamma <= w0sq * (1 + 1e-12):
        return x_eq + d * (1.0 + gamma * t) * np.exp(-gamma * t)
    s = np.sqrt(gamma * gamma - w0sq)
    r1, r2 = -gamma + s, -gamma - s
    return x_eq + d * (r1 * np.exp(r2 * t) - r2 * np.exp(r1 * t)) / (r1 - r2)


def spring_equilibrium(m: float, k: float, g: float) -> float:
    """Static extension (m) of a vertical spring carrying mass ``m``: ``m g / k``."""
    return m * g / k


# ----------------------------------------------------------------------------- projectile


def projectile(t, x0: float, y0: float, vx: float, vy: float, g: float) -> tuple[np.ndarray, np.ndarray]:
    """Position ``(x, y)`` (m, y up) of a drag-free projectile launched at ``(x0, y0)`` with ``(vx, vy)``."""
    t = _t(t)
    return x0 + vx * t, y0 + vy * t - 0.5 * g * t * t


# ----------------------------------------------------------------------------- pixels


@dataclass(frozen=True)
class PixelMap:
    """Metres <-> pixels for one case: ``px_per_m`` and the pixel ``(u, v)`` of world origin.

    World: x right, y up (m). Image: u right, v down (px).
    """

    px_per_m: float
    origin_px: tuple[float, float] = (0.0, 0.0)

    def to_px(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        """World metres -> image pixels ``(u, v)``."""
        ox, oy = self.origin_px
        return ox + _t(x) * self.px_per_m, oy - _t(y) * self.px_per_m

    def to_m(self, u, v) -> tuple[np.ndarray, np.ndarray]:
        """Image pixels -> world metres ``(x, y)``."""
        ox, oy = self.origin_px
        return (_t(u) - ox) / self.px_per_m, (oy - _t(v)) / self.px_per_m

    def px(self, metres):
        """A length in metres as pixels."""
        return _t(metres) * self.px_per_m

    def m(self, pixels):
        """A length in pixels as metres."""
        return _t(pixels) / self.px_per_m
