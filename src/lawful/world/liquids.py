"""Liquids in glass vessels (WMLE hydrostatics P21–P26): area-sampled drawing and the motions it follows.

Drawing works on axis-aligned parts in pixel coordinates (x right, y down, pixel centres at integers,
as :mod:`lawful.world.draw`). Every edge is *area-sampled*: a pixel's colour is the blend of the media
weighted by the share of its area each covers, so a level drawn at a fractional row is read back at that
row (the region reader's sub-pixel estimate is exact on such an edge). A tilted scene is drawn upright
and turned by :func:`rotate_frame`.

- :func:`span_cover`, :func:`box_cover`, :func:`surface_cover`: coverage maps;
- :class:`Tank`: a glass vessel made of rectangular cavities (one for a beaker, three for a U-tube),
  with :meth:`Tank.draw` painting walls, the glass-tinted air inside and the liquid below a surface
  given per cavity (a row, a tilt about the cavity's centre, and a small meniscus at the walls);
- :func:`draw_ice`: a floating ice column, pale above the waterline and water-tinted below it;
  :func:`draw_stone`: a round stone, seen through ice or water.

Motions: :func:`damped` (a release from rest, decaying oscillation), :func:`u_tube_levels` (two arms
sloshing with volume conserved), :func:`ice_draft` (the submerged fraction ρ_ice/ρ_water), :func:`melt_side`
(a block melting at a steady rate of volume).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from lawful.world.appearance import RGB

RHO_ICE, RHO_WATER = 917.0, 1000.0
ICE: RGB = (232, 240, 247)
GLASS_TINT: RGB = (128, 138, 146)  # what the air inside a glass vessel looks like over a mid backdrop
WALL: RGB = (70, 78, 86)
LIQUID_TINTS: tuple[RGB, ...] = ((40, 95, 200), (30, 150, 120), (200, 70, 40), (120, 60, 170), (30, 120, 170))
MENISCUS_PX, MENISCUS_DECAY_PX = 2.5, 2.0


# ----------------------------------------------------------------------------- motions


def damped(t, z0: float, period: float, zeta: float, t0: float = 0.0) -> np.ndarray:
    """A release from rest at displacement ``z0`` at time ``t0``: ``z0 e^{-ζω t}(cos ω_d t + ζω/ω_d sin ω_d t)``
    (``period`` the damped period in s, ``zeta`` the damping ratio); ``z0`` before ``t0``."""
    u = np.clip(np.asarray(t, float) - t0, 0.0, None)
    wd = 2 * math.pi / period
    g = zeta * wd / math.sqrt(1 - zeta * zeta)
    return z0 * np.exp(-g * u) * (np.cos(wd * u) + (g / wd) * np.sin(wd * u))


def u_tube_levels(t, y_eq: float, z0_left: float, area_left: float, area_right: float, period: float,
                  zeta: float, offset: float = 0.0, offset_tau: float = 0.8) -> tuple[np.ndarray, np.ndarray]:
    """Left and right surface rows of a U-tube released from rest with the left level ``z0_left`` px above
    ``y_eq`` (the shared rest level). Volume is conserved: ``A_l Δy_l = -A_r Δy_r``. ``offset`` > 0 (a twin)
    makes the left level end that many px above the right one (growing in with time constant ``offset_tau``
    s from the same first frame), volume still conserved."""
    zl = damped(t, z0_left, period, zeta)
    a = area_left / area_right
    offset = offset * (1.0 - np.exp(-np.clip(np.asarray(t, float), 0, None) / offset_tau))
    # rest levels with the offset: y_l = y_eq - d_l, y_r = y_eq + d_r, A_l d_l = A_r d_r, d_l + d_r = offset
    d_l = offset / (1 + a)
    d_r = offset - d_l
    return y_eq - d_l - zl, y_eq + d_r + a * zl


def ice_draft(rho_ice: float = RHO_ICE, rho_water: float = RHO_WATER) -> float:
    """The submerged share of a floating column's height (Archimedes): ``ρ_ice / ρ_water``."""
    return rho_ice / rho_water


# ----------------------------------------------------------------------------- coverage


def span_cover(a0: float, a1: float, c: np.ndarray) -> np.ndarray:
    """Share of each pixel ``[c - ½, c + ½]`` inside ``[a0, a1]``."""
    return np.clip(np.minimum(c + 0.5, a1) - np.maximum(c - 0.5, a0), 0.0, 1.0)


def box_cover(box, cols: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Area share ``[rows, cols]`` of each pixel inside the axis-aligned ``box`` ``(x0, y0, x1, y1)``."""
    x0, y0, x1, y1 = box
    return span_cover(y0, y1, rows)[:, None] * span_cover(x0, x1, cols)[None, :]


def box_block(box, cols: np.ndarray, rows: np.ndarray):
    """:func:`box_cover` on its non-zero block only: ``(row slice, column slice, cover of the block)`` (the same
    values as ``box_cover(...)[rows, cols]``), or None when the box covers no pixel."""
    x0, y0, x1, y1 = box
    sr, sc = span_cover(y0, y1, rows), span_cover(x0, x1, cols)
    r, c = np.flatnonzero(sr), np.flatnonzero(sc)
    if len(r) == 0 or len(c) == 0:
        return None
    rs, cs = slice(int(r[0]), int(r[-1]) + 1), slice(int(c[0]), int(c[-1]) + 1)
    return rs, cs, sr[rs][:, None] * sc[cs][None, :]


def surface_cover(s: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Share ``[rows, cols]`` of each pixel below a surface at row ``s`` ``[cols]`` (exact for a level surface;
    for a tilted one its error is symmetric about the line, so a column band's mean row stays unbiased)."""
    return np.clip(rows[:, None] + 0.5 - s[None, :], 0.0, 1.0)


def meniscus(cols: np.ndarray, walls: list[float], height: float = MENISCUS_PX,
             decay: float = MENISCUS_DECAY_PX) -> np.ndarray:
    """How far (px) a wetting liquid climbs at each column near the given wall x positions."""
    if not walls:
        return np.zeros(cols.shape)
    d = np.min(np.abs(cols[None, :] - np.asarray(walls, float)[:, None]), axis=0)
    return height * np.exp(-d / decay)


def over(img: np.ndarray, color, alpha: np.ndarray) -> None:
    """Composite ``color`` (``[3]`` or ``[h, w, 3]``) over the float image ``img`` with coverage ``alpha``
    (only the block where ``alpha`` is non-zero is touched)."""
    x, y, w, h = cv2.boundingRect((alpha != 0).view(np.uint8))  # the non-zero block (NaN counts, as in any())
    if w == 0:
        return
    sl = np.s_[y:y + h, x:x + w]
    c = np.asarray(color, np.float32)
    c = np.broadcast_to(c, img.shape)[sl] if c.ndim == 3 else c
    a, dst = alpha[sl][..., None], img[sl]
    d = c - dst
    # in place where the product keeps d's type (same roundings as d * a); a float64 alpha keeps its float64 product
    dst += np.multiply(d, a, out=d) if np.result_type(d, a) == d.dtype else d * a


# ----------------------------------------------------------------------------- vessels


@dataclass
class Tank:
    """A glass vessel: the union of rectangular ``cavities`` ``(x0, y0, x1, y1)`` (its inside), walls
    ``wall`` px thick around them (open at the top of every cavity listed in ``open_top``), a liquid of
    ``liquid`` colour. ``liquid_cavities``: cavities wholly full (a U-tube's bottom channel)."""

    cavities: list[tuple[float, float, float, float]]
    liquid: RGB
    wall: float = 3.0
    open_top: tuple[int, ...] = ()
    liquid_cavities: tuple[int, ...] = ()
    wall_color: RGB = WALL
    glass: RGB = GLASS_TINT
    meniscus_px: float = MENISCUS_PX
    extra_walls: dict[int, list[float]] = field(default_factory=dict)
    _empty: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def bbox(self) -> tuple[float, float, float, float]:
        c = np.asarray(self.cavities, float)
        w = self.wall + 2
        return (c[:, 0].min() - w, c[:, 1].min() - w, c[:, 2].max() + w, c[:, 3].max() + w)

    def draw(self, img: np.ndarray, surfaces: dict[int, tuple[float, float]], layers=()) -> np.ndarray:
        """Paint into the uint8 frame ``img`` (in place) and return it. ``surfaces``: cavity index → ``(row at
        the cavity's centre column, tilt in radians, y down positive clockwise)`` of the liquid in it;
        ``layers``: callables ``(win, cols, rows)`` painting over the liquid (a floating column, :func:`draw_ice`)."""
        x0, y0, x1, y1 = self.bbox()
        h, w = img.shape[:2]
        c0, r0 = max(0, int(math.floor(x0))), max(0, int(math.floor(y0)))
        c1, r1 = min(w, int(math.ceil(x1)) + 1), min(h, int(math.ceil(y1)) + 1)
        win = img[r0:r1, c0:c1].astype(np.float32)
        cols = np.arange(c0, c1, dtype=np.float32)
        rows = np.arange(r0, r1, dtype=np.float32)
        key = img[r0:r1, c0:c1]
        if self._empty is not None and self._empty[0].shape == key.shape and np.array_equal(self._empty[0], key):
            win = self._empty[1].copy()  # the same backdrop as last time: walls and glass as drawn then
        else:
            self._walls_and_glass(win, cols, rows)
            self._empty = (key.copy(), win.copy())
        t = self.wall
        # each layer is painted on the block its box covers (box_block): the pixels outside it get alpha 0
        for i, cav in enumerate(self.cavities):
            blk = box_block(cav, cols, rows) if i in self.liquid_cavities or i in surfaces else None
            if blk is None:
                continue
            rs, cs, cov = blk
            if i in self.liquid_cavities:
                over(win[rs, cs], self.liquid, 0.9 * cov)
                continue
            row, tilt = surfaces[i]
            xc = 0.5 * (cav[0] + cav[2])
            walls = [cav[0], cav[2]] + self.extra_walls.get(i, [])
            s = row + math.tan(tilt) * (cols - xc) - meniscus(cols, walls, self.meniscus_px)
            over(win[rs, cs], self.liquid, 0.9 * cov * surface_cover(s[cs], rows[rs]))
        for fn in layers:  # things floating in the liquid, drawn in front of it
            fn(win, cols, rows)
        # a thin highlight down each wall's outer edge
        for (a0, b0, a1, b1) in self.cavities:
            blk = box_block((a0 - t, b0, a0 - t + 1.0, b1), cols, rows)
            if blk is not None:
                over(win[blk[0], blk[1]], (235, 238, 240), 0.35 * blk[2])
        img[r0:r1, c0:c1] = np.clip(win + 0.5, 0, 255).astype(np.uint8)
        return img

    def _walls_and_glass(self, win: np.ndarray, cols: np.ndarray, rows: np.ndarray) -> None:
        """Walls (the cavities grown by the wall thickness) and the glass-tinted inside, over ``win``."""
        t = self.wall
        grown = np.zeros(win.shape[:2], np.float32)
        inside = np.zeros(win.shape[:2], np.float32)
        for i, (a0, b0, a1, b1) in enumerate(self.cavities):
            top = b0 if i in self.open_top else b0 - t
            grown = np.maximum(grown, box_cover((a0 - t, top, a1 + t, b1 + t), cols, rows))
            inside = np.maximum(inside, box_cover((a0, b0, a1, b1), cols, rows))
        over(win, self.wall_color, np.clip(grown - inside, 0.0, 1.0))
        # glass: the backdrop seen through it, mostly the tint (keeps the backdrop's texture faint)
        over(win, self.glass, 0.8 * inside)


def draw_ice(box, waterline: float, water: RGB, ice: RGB = ICE, seen_through: float = 0.55):
    """A layer for :meth:`Tank.draw`: an ice column ``box`` ``(x0, y0, x1, y1)``, full ``ice`` colour above
    ``waterline`` and, below it, ``ice`` seen through the water (``seen_through`` of ice over ``water``)."""
    sub = tuple(float(seen_through * a + (1 - seen_through) * b) for a, b in zip(ice, water))

    def layer(win, cols, rows):
        cov = box_cover(box, cols, rows)
        below = np.clip(rows[:, None] + 0.5 - waterline, 0.0, 1.0)
        shade = 1.0 - 0.06 * np.clip((cols[None, :] - box[0]) / max(box[2] - box[0], 1.0), 0, 1)  # a faint side shade
        over(win, np.asarray(ice, np.float32) * shade[..., None], cov * (1 - below))
        over(win, np.asarray(sub, np.float32) * shade[..., None], cov * below)
    return layer


def rotate_frame(canvas: np.ndarray, out_size: tuple[int, int], angle_deg: float) -> np.ndarray:
    """The ``out_size`` ``(w, h)`` view of ``canvas`` around its centre, turned by ``angle_deg``
    (counter-clockwise on screen); linear resampling keeps area-sampled edges at their sub-pixel place."""
    return cv2.warpAffine(canvas, rotation_matrix(canvas.shape[1::-1], out_size, angle_deg), out_size,
                          flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def rotation_matrix(canvas_size: tuple[int, int], out_size: tuple[int, int], angle_deg: float) -> np.ndarray:
    """``[2, 3]`` affine map from canvas pixels to output pixels used by :func:`rotate_frame`."""
    cw, ch = canvas_size
    ow, oh = out_size
    M = cv2.getRotationMatrix2D(((cw - 1) / 2, (ch - 1) / 2), angle_deg, 1.0)
    M[:, 2] += np.array([(ow - cw) / 2, (oh - ch) / 2])
    return M


def to_output(M: np.ndarray, pts) -> np.ndarray:
    """Canvas points ``[N, 2]`` in output pixels."""
    p = np.asarray(pts, float).reshape(-1, 2)
    return p @ M[:, :2].T + M[:, 2]


def draw_stone(cx: float, cy: float, r: float, color: RGB, veil: RGB | None = None, veil_share: float = 0.0):
    """A layer: a round stone of radius ``r`` (area-sampled rim), seen through ``veil`` (ice) when given."""
    col = np.asarray(color, np.float32)
    if veil is not None:
        col = (1 - veil_share) * col + veil_share * np.asarray(veil, np.float32)

    def layer(win, cols, rows):
        d = np.hypot(cols[None, :] - cx, rows[:, None] - cy)
        over(win, col, np.clip(r - d + 0.5, 0.0, 1.0))
    return layer


def melt_side(t, side0: float, t_start: float, t_end: float) -> np.ndarray:
    """Side (px) of a melting ice block: its volume falls linearly from ``side0³`` at ``t_start`` to 0 at ``t_end``."""
    u = np.clip((np.asarray(t, float) - t_start) / (t_end - t_start), 0.0, 1.0)
    return side0 * np.cbrt(1.0 - u)
