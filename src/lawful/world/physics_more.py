"""Closed forms and small ODEs for WMLE P34, P35, P38 and P40 (SI units unless noted).

- Stokes settling (P38): :func:`stokes_speed` ``v = 2 Δρ g r² / (9 μ)``; :func:`stokes_relaxation`
  ``τ = 2 r² (ρ_s + ρ_f / 2) / (9 μ)`` (added mass included); :func:`stokes_fall` the distance fallen from
  rest, ``v (t − τ (1 − e^{−t/τ}))``.
- Eddy-damped pendulum (P34): :func:`damped_pendulum_angle` solves ``θ'' = −(g/L) sin θ − 2 ζ ω₀ θ'``
  (``ω₀ = √(g/L)``; eddy currents give a drag proportional to the angular speed);
  :func:`damped_small_angle` is its linear closed form.
- Drop coalescence (P40): :func:`merged_radius` ``(r₁³ + r₂³)^{1/3}`` (volume conserved);
  :func:`rayleigh_frequency` of the l-th shape mode ``ω² = l (l−1) (l+2) σ / (ρ R³)`` and
  :func:`shape_mode_decay` its viscous decay time ``R² / ((l−1)(2l+1) ν)`` (Lamb).
- Sand piles (P35): :func:`pile_half_width` of a conical pile of height ``h`` at repose angle ``α``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import solve_ivp

# ----------------------------------------------------------------------------- Stokes settling


def stokes_speed(r: float, rho_s: float, rho_f: float, mu: float, g: float = 9.81) -> float:
    """Terminal speed (m/s, positive down) of a sphere of radius ``r`` in creeping flow."""
    return 2.0 * (rho_s - rho_f) * g * r * r / (9.0 * mu)


def stokes_relaxation(r: float, rho_s: float, rho_f: float, mu: float) -> float:
    """Time constant (s) of the approach to terminal speed, the added mass ``ρ_f V / 2`` included."""
    return 2.0 * r * r * (rho_s + 0.5 * rho_f) / (9.0 * mu)


def stokes_fall(t, v: float, tau: float) -> np.ndarray:
    """Distance fallen (same length unit as ``v·t``) at times ``t`` after release from rest (0 before)."""
    s = np.clip(np.asarray(t, float), 0.0, None)
    return v * (s - tau * (1.0 - np.exp(-s / tau))) if tau > 0 else v * s


def reynolds(r: float, v: float, rho_f: float, mu: float) -> float:
    """Particle Reynolds number ``ρ_f v 2r / μ`` (Stokes drag holds well below 1)."""
    return rho_f * abs(v) * 2.0 * r / mu


# ----------------------------------------------------------------------------- eddy-damped pendulum


def damped_pendulum_angle(t, length: float, theta0: float, zeta: float, g: float = 9.81) -> np.ndarray:
    """Angle (rad) of a pendulum released from rest at ``theta0`` with linear (eddy-current) damping ratio
    ``zeta``: ``θ'' = −ω₀² sin θ − 2 ζ ω₀ θ'`` solved with DOP853 (rtol 1e-9). ``t ≥ 0``."""
    t = np.asarray(t, float)
    flat = t.ravel()
    if flat.size == 0:
        return t.copy()
    if np.any(flat < 0):
        raise ValueError("damped_pendulum_angle needs t >= 0")
    ts, inv = np.unique(flat, return_inverse=True)
    if ts[-1] == 0.0:
        return np.full(t.shape, float(theta0))
    w0 = math.sqrt(g / length)
    sol = solve_ivp(lambda _, y: (y[1], -w0 * w0 * np.sin(y[0]) - 2.0 * zeta * w0 * y[1]), (0.0, float(ts[-1])),
                    (theta0, 0.0), method="DOP853", t_eval=ts, rtol=1e-9, atol=1e-12)
    if not sol.success:
        raise RuntimeError(f"damped pendulum ODE failed: {sol.message}")
    return sol.y[0][inv].reshape(t.shape)


def damped_small_angle(t, length: float, theta0: float, zeta: float, g: float = 9.81) -> np.ndarray:
    """Closed form of the linearised damped pendulum (``ζ < 1``) released from rest:
    ``θ₀ e^{−ζω₀t} (cos ω_d t + ζ ω₀ / ω_d sin ω_d t)``, ``ω_d = ω₀ √(1 − ζ²)``."""
    t = np.asarray(t, float)
    w0 = math.sqrt(g / length)
    wd = w0 * math.sqrt(1.0 - zeta * zeta)
    return theta0 * np.exp(-zeta * w0 * t) * (np.cos(wd * t) + zeta * w0 / wd * np.sin(wd * t))


def peak_decrement(zeta: float) -> float:
    """Ratio of successive same-side peaks of a linear damped oscillator: ``exp(−2πζ/√(1−ζ²))``."""
    return math.exp(-2.0 * math.pi * zeta / math.sqrt(1.0 - zeta * zeta))


# ----------------------------------------------------------------------------- drops


def merged_radius(r1: float, r2: float) -> float:
    """Radius of the drop two drops of radii ``r1``, ``r2`` merge into (volume conserved)."""
    return float((r1**3 + r2**3) ** (1.0 / 3.0))


def rayleigh_frequency(R: float, sigma: float, rho: float, l: int = 2) -> float:
    """Angular frequency (rad/s) of the ``l``-th shape oscillation of a free drop of radius ``R``."""
    return math.sqrt(l * (l - 1) * (l + 2) * sigma / (rho * R**3))


def shape_mode_decay(R: float, nu: float, l: int = 2) -> float:
    """Viscous decay time (s) of the ``l``-th shape mode of a drop (kinematic viscosity ``nu``)."""
    return R * R / ((l - 1) * (2 * l + 1) * nu)


def spheroid_axes(R: float, eps: float) -> tuple[float, float]:
    """Semi-axes ``(a, b)`` of the volume-preserving spheroid ``a = R(1+ε)``, ``b = R/√(1+ε)``
    (axis of symmetry ``a``): ``a b² = R³`` for any ``ε > −1``."""
    a = R * (1.0 + eps)
    return a, R / math.sqrt(1.0 + eps)


# ----------------------------------------------------------------------------- sand piles


def pile_half_width(height: float, angle_deg: float) -> float:
    """Half the base width of a pile of ``height`` whose flanks rise at ``angle_deg``."""
    return height / math.tan(math.radians(angle_deg))
