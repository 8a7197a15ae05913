"""Freezing, melting and capillarity (WMLE P24, P27, P28, P37): the physics the clips follow and their drawing.

Physics (closed forms, tested):

- :func:`jurin_height` — capillary rise ``2γ cos θ / (ρ g r)``, so heights go as ``1/r``;
  :func:`washburn_rise` — the rise in time with gravity (Lucas–Washburn), ``h/h_eq = 1 + W₀(−e^{−1−t/τ})``,
  the exact solution of ``t/τ = −u − ln(1 − u)``; :func:`washburn_tau` — ``τ ∝ 1/r³`` at fixed liquid;
- :func:`freezing_expansion` — a column's height factor ``ρ_water / ρ_ice`` (1000/917) at constant
  cross-section; :func:`freeze_fraction` — a smooth 0 → 1 freezing progress;
- :func:`melt_level_change` — the level rise ``m (1/ρ_f − 1/ρ_s) / A`` when floating freshwater ice of
  mass ``m`` melts in salt water of density ``ρ_s`` (vessel cross-section ``A``);
- :func:`cube_sizes`, :func:`melted_fraction` — ice melting at a rate proportional to its surface area
  (``dm/dt = −k S``): every cube's edge recedes at one constant speed, so ``N`` pieces of the mass of one
  block (edge ``N^{-1/3}`` of it) are gone ``N^{1/3}`` times sooner.

Drawing (area-sampled, on the window conventions of :mod:`lawful.world.liquids`):
:func:`draw_tube` (an open glass tube dipped in a reservoir, its liquid column with a concave meniscus),
:func:`ice_texture` (a freezing column's cloudy streaks and bubbles), :func:`draw_pieces` (ice cubes,
pale above the waterline, seen through the water below), :func:`mixing_streaks` (fresh meltwater
trailing through salt water).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import lambertw

from lawful.world.liquids import RHO_ICE, RHO_WATER, box_cover, over, span_cover

SURFACE_TENSION_WATER = 0.072  # N/m
G = 9.81
RHO_BRINE_RANGE = (1150.0, 1200.0)  # strongly salted water (kg/m³)


# ----------------------------------------------------------------------------- physics


def jurin_height(r: float, gamma: float = SURFACE_TENSION_WATER, theta_deg: float = 0.0, rho: float = RHO_WATER,
                 g: float = G) -> float:
    """Equilibrium capillary rise (m) in a tube of inner radius ``r`` (m): ``2γ cos θ / (ρ g r)``."""
    return 2.0 * gamma * math.cos(math.radians(theta_deg)) / (rho * g * r)


def washburn_tau(tau_ref: float, r_ref: float, r: float) -> float:
    """The rise time constant of a tube of radius ``r`` given ``tau_ref`` at ``r_ref``: ``τ = h_eq² / K`` with
    ``h_eq ∝ 1/r`` and the Poiseuille coefficient ``K ∝ r`` makes ``τ ∝ r⁻³``."""
    return float(tau_ref * (r_ref / r) ** 3)


def washburn_rise(t, h_eq: float, tau: float) -> np.ndarray:
    """Height of a column rising from 0 toward ``h_eq`` (Lucas–Washburn with gravity, ``dh/dt = K (h_eq − h) / h``):
    ``h = h_eq (1 + W₀(−e^{−1 − t/τ}))``; 0 for ``t ≤ 0``."""
    t = np.clip(np.asarray(t, float), 0.0, None)
    z = np.maximum(-np.exp(-1.0 - t / tau), -math.exp(-1.0))  # the branch point −1/e at t = 0, not below it
    u = 1.0 + np.real(lambertw(z, 0))
    return h_eq * np.clip(np.nan_to_num(u, nan=0.0), 0.0, 1.0)


def freezing_expansion(rho_water: float = RHO_WATER, rho_ice: float = RHO_ICE) -> float:
    """Height factor of a column that freezes at constant cross-section (mass conserved): ``ρ_water / ρ_ice``."""
    return rho_water / rho_ice


def freeze_fraction(t, t0: float, t1: float) -> np.ndarray:
    """Share frozen: 0 before ``t0``, 1 after ``t1``, a smoothstep between (no jumps in the drawn height)."""
    u = np.clip((np.asarray(t, float) - t0) / max(t1 - t0, 1e-9), 0.0, 1.0)
    return u * u * (3 - 2 * u)


def melt_level_change(mass: float, area: float, rho_fresh: float = RHO_WATER, rho_salt: float = 1025.0) -> float:
    """Level rise when floating freshwater ice of ``mass`` melts in salt water: before, it displaces
    ``m/ρ_s``; after, its water takes ``m/ρ_f`` (volumes add): ``Δh = m (1/ρ_f − 1/ρ_s) / A``."""
    return mass * (1.0 / rho_fresh - 1.0 / rho_salt) / area


def cube_sizes(t, s0, speed: float) -> np.ndarray:
    """Edges ``[T, N]`` of cubes of initial edges ``s0`` ``[N]`` melting at a rate ∝ their surface: ``dm/dt = −k S``
    with ``m = ρ s³``, ``S ∝ s²`` gives ``ds/dt = −speed`` (a constant) until each is gone."""
    t = np.asarray(t, float).reshape(-1, 1)
    return np.clip(np.asarray(s0, float).reshape(1, -1) - speed * np.clip(t, 0.0, None), 0.0, None)


def melted_fraction(t, s0, speed: float) -> np.ndarray:
    """Share of the ice mass ``[T]`` melted: ``1 − Σ s(t)³ / Σ s0³``."""
    s = cube_sizes(t, s0, speed)
    return 1.0 - (s**3).sum(1) / float(np.sum(np.asarray(s0, float) ** 3))


# ----------------------------------------------------------------------------- drawing


def draw_tube(img: np.ndarray, bore: tuple[float, float, float, float], column_row: float, liquid, glass,
              wall_color=(205, 212, 218), wall: float = 2.0, meniscus_px: float | None = None) -> None:
    """Paint an open glass tube into the uint8 frame ``img`` (in place): inner ``bore`` ``(x0, y0, x1, y1)``,
    walls ``wall`` px of pale glass either side, the liquid filling it from ``column_row`` (its centre row)
    down with a concave meniscus (a circular arc of the bore's radius, depth ``meniscus_px``, default the
    radius / 3)."""
    x0, y0, x1, y1 = bore
    h, w = img.shape[:2]
    c0, r0 = max(0, int(math.floor(x0 - wall - 1))), max(0, int(math.floor(y0 - 1)))
    c1, r1 = min(w, int(math.ceil(x1 + wall + 1)) + 1), min(h, int(math.ceil(y1 + 1)) + 1)
    win = img[r0:r1, c0:c1].astype(np.float32)
    cols = np.arange(c0, c1, dtype=np.float32)
    rows = np.arange(r0, r1, dtype=np.float32)
    inside = box_cover(bore, cols, rows)
    over(win, glass, 0.8 * inside)
    r = 0.5 * (x1 - x0)
    xc = 0.5 * (x0 + x1)
    depth = r / 3.0 if meniscus_px is None else meniscus_px
    d = np.clip(np.abs(cols - xc) / r, 0.0, 1.0)
    s = column_row - depth * (1.0 - np.sqrt(1.0 - d * d))  # higher (smaller row) at the walls
    below = np.clip(rows[:, None] + 0.5 - s[None, :], 0.0, 1.0)
    over(win, liquid, 0.9 * inside * below)
    walls = box_cover((x0 - wall, y0, x0, y1), cols, rows) + box_cover((x1, y0, x1 + wall, y1), cols, rows)
    over(win, wall_color, 0.75 * np.clip(walls, 0, 1))
    img[r0:r1, c0:c1] = np.clip(win + 0.5, 0, 255).astype(np.uint8)


def ice_texture(box, frozen: float, seed: int, color=(150, 175, 200), n: int = 60):
    """A layer for :meth:`lawful.world.liquids.Tank.draw`: a freezing column's faint texture (short vertical
    streaks of trapped air) in ``box`` ``(x0, y0, x1, y1)``, fading in with ``frozen`` (0–1). The streaks sit
    at fixed places (seeded) and the column's top is ``box[1]``; they are thin and sparse, so a column band's
    mean colour moves by a few levels at most."""
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = box
    u = rng.uniform(size=(n, 3))
    cx = x0 + 3 + u[:, 0] * (x1 - x0 - 6)
    length = 4 + 8 * u[:, 2]
    cy = y1 - 4 - length - u[:, 1] * max(y1 - y0 - 10 - length.max(), 1)  # fixed from the bottom up

    def layer(win, cols, rows):
        if frozen <= 0:
            return
        a = np.zeros(win.shape[:2], np.float32)
        for x, y, L in zip(cx, cy, length):
            a += span_cover(y, y + L, rows)[:, None] * span_cover(x - 0.6, x + 0.6, cols)[None, :]
        a *= span_cover(y0 + 4.0, y1, rows)[:, None]  # none within 4 px of the top
        over(win, color, 0.35 * frozen * np.clip(a, 0.0, 1.0))
    return layer


def draw_pieces(boxes, waterline: float, water, ice=(232, 240, 247), seen_through: float = 0.55):
    """A layer for :meth:`Tank.draw`: ice cubes ``boxes`` ``[(x0, y0, x1, y1), …]``, full ``ice`` colour above
    ``waterline`` and ``ice`` seen through ``water`` below it; a cube with an empty box is skipped."""
    sub = np.asarray([seen_through * a + (1 - seen_through) * b for a, b in zip(ice, water)], np.float32)
    ice_c = np.asarray(ice, np.float32)

    def layer(win, cols, rows):
        below = np.clip(rows[:, None] + 0.5 - waterline, 0.0, 1.0)
        for b in boxes:
            if b[2] - b[0] <= 0.05 or b[3] - b[1] <= 0.05:
                continue
            cov = box_cover(b, cols, rows)
            over(win, ice_c, cov * (1 - below))
            over(win, sub, cov * below)
    return layer


def mixing_streaks(x0: float, x1: float, y0: float, y1: float, strength: float, phase: float, color,
                   n: int = 5):
    """A layer: ``n`` faint wavy streaks of lighter (fresher) water from ``y0`` down to ``y1`` between columns
    ``x0`` and ``x1``, opacity ``strength`` (0–1) fading with depth, drifting with ``phase`` (rad)."""
    xs = np.linspace(x0, x1, n + 2)[1:-1]

    def layer(win, cols, rows):
        if strength <= 0:
            return
        fade = np.clip((y1 - rows) / max(y1 - y0, 1.0), 0.0, 1.0) * (rows >= y0)
        for i, xc in enumerate(xs):
            cx = xc + 3.0 * np.sin(rows / 9.0 + phase + i)
            cov = np.clip(1.5 - np.abs(cols[None, :] - cx[:, None]), 0.0, 1.0)
            over(win, color, strength * 0.3 * cov * fade[:, None])
    return layer
