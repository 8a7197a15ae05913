"""Electromagnetism scenes (WMLE P29–P33): drawing items and the motions they follow.

Items follow :mod:`lawful.world.draw`'s protocol (``bbox``, ``size``, ``draw(img, style)``,
``casts_shadow``) and its conventions (pixels, y down, angles clockwise on screen, RGB 0–255):

- :class:`Magnet`   a bar magnet: its north half in a saturated colour, its south half pale, turned by ``angle``;
- :class:`Compass`  a compass seen from above: pale face, dark rim, ticks, a two-coloured needle;
- :class:`Coil`     a wound rectangle (copper turns) with an optional grey core rod along its axis;
- :class:`Ring`     a metal ring seen side-on around a core, closed or split (a vertical gap showing the core);
- :class:`Led`      a small indicator lamp: dark lens when off, bright glow with a halo when lit.

Motions (all in pixels and seconds): :func:`eddy_travel` (a slide from rest under constant drive and a
drag proportional to speed), :func:`settle` (a damped step from one value to another), :func:`jump_height`
(a ballistic hop that lands back on its seat).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from lawful.world.appearance import RGB, Style
from lawful.world.draw import Block
from lawful.world.raster import blend, fx, shade, smoothstep, window

RINGS = ("closed", "split")  # P33: the closed ring that jumps and the split one that barely stirs
COPPER: RGB = (176, 112, 74)
STEEL: RGB = (128, 130, 136)
PALE: RGB = (226, 226, 220)


def colors_clear_of(seed: int, k: int, avoid: RGB, min_gap_deg: float = 40.0) -> list[RGB]:
    """``k`` contrasting palette colours (seed order) whose hues lie at least ``min_gap_deg`` from ``avoid``'s
    (object colours that a tracker must not confuse with a coloured apparatus: copper plate, coil turns)."""
    import colorsys

    from lawful.world.appearance import OBJECT_PALETTE, object_colors

    def hue(c):
        return 360.0 * colorsys.rgb_to_hsv(*(v / 255 for v in c))[0]

    h0 = hue(avoid)
    ok = [c for c in object_colors(seed, len(OBJECT_PALETTE)) if min(abs(hue(c) - h0), 360 - abs(hue(c) - h0)) >= min_gap_deg]
    return ok[:k]


# ----------------------------------------------------------------------------- motions


def eddy_travel(t, accel: float, tau: float | None) -> np.ndarray:
    """Distance (px) slid from rest by ``t`` (s) under acceleration ``accel`` (px/s²) and a drag ``-v/tau``.

    ``tau`` None: no drag, ``accel t²/2``. With drag the speed tends to the terminal ``accel·tau``:
    ``s = accel·tau·(t - tau(1 - e^{-t/tau}))``. Times before 0 give 0.
    """
    t = np.clip(np.asarray(t, float), 0.0, None)
    if tau is None:
        return 0.5 * accel * t * t
    return accel * tau * (t - tau * (1.0 - np.exp(-t / tau)))


def settle(t, t_on: float, start: float, end: float, period: float, zeta: float) -> np.ndarray:
    """A damped step (underdamped second-order response) from ``start`` to ``end`` beginning at ``t_on``.

    ``period`` (s) is the damped oscillation period, ``zeta`` the damping ratio (0 < zeta < 1).
    """
    t = np.asarray(t, float)
    u = np.clip(t - t_on, 0.0, None)
    wd = 2 * math.pi / period
    wn = wd / math.sqrt(1 - zeta * zeta)
    g = zeta * wn
    resp = 1.0 - np.exp(-g * u) * (np.cos(wd * u) + (g / wd) * np.sin(wd * u))
    return start + (end - start) * resp


def jump_height(t, t_on: float, v0: float, g: float) -> np.ndarray:
    """Height (px, up positive) of a body kicked upward at ``t_on`` with speed ``v0`` (px/s) under ``g``
    (px/s²), back on its seat (0) after ``2 v0 / g``."""
    u = np.clip(np.asarray(t, float) - t_on, 0.0, None)
    return np.clip(v0 * u - 0.5 * g * u * u, 0.0, None)


# ----------------------------------------------------------------------------- items


def _poly(img: np.ndarray, pts, color, gain: float = 1.0) -> None:
    """Anti-aliased filled polygon (float points) of ``color`` times ``gain``."""
    p = np.asarray(pts, float)
    win = window(img, p[:, 0].min() - 1, p[:, 1].min() - 1, p[:, 0].max() + 1, p[:, 1].max() + 1)
    if win is None:
        return
    c0, r0, c1, r1 = win
    mask = np.zeros((r1 - r0, c1 - c0), np.uint8)
    cv2.fillPoly(mask, [fx(p - [c0, r0])], 255, cv2.LINE_AA, 4)
    blend(img, win, mask.astype(np.float32) / 255.0, np.asarray(color, np.float32) * gain)


@dataclass
class Magnet:
    """A bar magnet ``w`` x ``h`` px centred at ``(x, y)``, turned by ``angle``; the north half
    (``color``) is the half towards ``+x`` in its own frame when ``north_first``, the south half pale."""

    x: float
    y: float
    w: float
    h: float
    angle: float
    color: RGB
    south: RGB = PALE
    north_first: bool = True

    casts_shadow = True

    def halves(self) -> tuple[Block, Block]:
        """(north, south) blocks."""
        c, s = math.cos(self.angle), math.sin(self.angle)
        d = self.w / 4 * (1 if self.north_first else -1)
        n = Block(self.x + d * c, self.y + d * s, self.w / 2, self.h, self.angle, self.color)
        so = Block(self.x - d * c, self.y - d * s, self.w / 2, self.h, self.angle, self.south)
        return n, so

    def bbox(self) -> tuple[float, float, float, float]:
        return Block(self.x, self.y, self.w, self.h, self.angle, self.color).bbox()

    def size(self) -> float:
        return max(self.w, self.h) / 2

    def draw(self, img: np.ndarray, style: Style) -> None:
        n, so = self.halves()
        so.draw(img, style)
        n.draw(img, style)


@dataclass
class Compass:
    """A compass seen from above at ``(x, y)``, face radius ``r``; the needle points its north end
    (``color``) at screen angle ``angle`` (radians, clockwise from +x) and its south end the other way."""

    x: float
    y: float
    r: float
    angle: float
    color: RGB
    south: RGB = (70, 74, 84)
    face: RGB = (238, 236, 226)

    casts_shadow = False

    def bbox(self) -> tuple[float, float, float, float]:
        return (self.x - self.r - 3, self.y - self.r - 3, self.x + self.r + 3, self.y + self.r + 3)

    def size(self) -> float:
        return self.r

    def north_polygon(self) -> np.ndarray:
        """The needle's north half (a triangle: two base corners and the tip) in pixels."""
        L, hw = 0.82 * self.r, 0.13 * self.r
        u = np.array([math.cos(self.angle), math.sin(self.angle)])
        v = np.array([-u[1], u[0]])
        c = np.array([self.x, self.y])
        return np.array([c + hw * v, c + L * u, c - hw * v])

    def draw(self, img: np.ndarray, style: Style) -> None:
        win = window(img, *self.bbox())
        if win is None:
            return
        c0, r0, c1, r1 = win
        dx = (np.arange(c0, c1, dtype=np.float32) - self.x)[None, :]
        dy = (np.arange(r0, r1, dtype=np.float32) - self.y)[:, None]
        d = np.sqrt(dx * dx + dy * dy)
        rim_r = self.r + 2.5
        blend(img, win, np.clip(rim_r - d + 0.5, 0, 1), np.asarray((58, 58, 62), np.float32))
        lit = 0.97 - 0.05 * (d / self.r) ** 2
        blend(img, win, np.clip(self.r - d + 0.5, 0, 1), shade(self.face, lit))
        for k in range(8):  # ticks
            a = k * math.pi / 4
            p0 = (self.x + 0.86 * self.r * math.cos(a), self.y + 0.86 * self.r * math.sin(a))
            p1 = (self.x + 0.97 * self.r * math.cos(a), self.y + 0.97 * self.r * math.sin(a))
            p = fx([p0, p1])
            cv2.line(img, tuple(map(int, p[0])), tuple(map(int, p[1])), (90, 90, 96), 1, cv2.LINE_AA, 4)
        north = self.north_polygon()
        c = np.array([self.x, self.y])
        south = 2 * c - north  # point reflection: the south half
        _poly(img, south, self.south)
        _poly(img, north, self.color)
        cap = window(img, self.x - 3, self.y - 3, self.x + 3, self.y + 3)
        if cap is not None:
            a0, b0, a1, b1 = cap
            ddx = (np.arange(a0, a1, dtype=np.float32) - self.x)[None, :]
            ddy = (np.arange(b0, b1, dtype=np.float32) - self.y)[:, None]
            blend(img, cap, np.clip(1.6 - np.sqrt(ddx * ddx + ddy * ddy) + 0.5, 0, 1),
                   np.asarray((40, 40, 44), np.float32))


@dataclass
class Coil:
    """A coil of copper turns filling the rectangle ``(x0, y0, x1, y1)``; turns run across the axis
    (``vertical=True``: a stack whose axis is vertical, turns horizontal). ``core``: a grey rod along the
    axis reaching ``core_to`` (its far end: a row above the coil when vertical, a column otherwise)."""

    x0: float
    y0: float
    x1: float
    y1: float
    vertical: bool = True
    turns: int = 12
    color: RGB = COPPER
    core_w: float = 0.0
    core_to: float | None = None

    casts_shadow = False

    def bbox(self) -> tuple[float, float, float, float]:
        return (self.x0, self.y0, self.x1, self.y1)

    def size(self) -> float:
        return max(self.x1 - self.x0, self.y1 - self.y0) / 2

    def draw(self, img: np.ndarray, style: Style) -> None:
        if self.core_w > 0 and self.core_to is not None:
            if self.vertical:
                cx = 0.5 * (self.x0 + self.x1)
                rod = [(cx - self.core_w / 2, self.core_to), (cx + self.core_w / 2, self.core_to),
                       (cx + self.core_w / 2, self.y1), (cx - self.core_w / 2, self.y1)]
            else:
                cy = 0.5 * (self.y0 + self.y1)
                rod = [(self.x0, cy - self.core_w / 2), (self.core_to, cy - self.core_w / 2),
                       (self.core_to, cy + self.core_w / 2), (self.x0, cy + self.core_w / 2)]
            _poly(img, rod, STEEL)
        win = window(img, self.x0, self.y0, self.x1, self.y1)
        if win is None:
            return
        c0, r0, c1, r1 = win
        xs = np.arange(c0, c1, dtype=np.float32)[None, :]
        ys = np.arange(r0, r1, dtype=np.float32)[:, None]
        inside = (np.clip(xs - self.x0 + 0.5, 0, 1) * np.clip(self.x1 - xs + 0.5, 0, 1)
                  * np.clip(ys - self.y0 + 0.5, 0, 1) * np.clip(self.y1 - ys + 0.5, 0, 1))
        along, span = (ys - self.y0, self.y1 - self.y0) if self.vertical else (xs - self.x0, self.x1 - self.x0)
        pitch = span / self.turns
        ph = np.mod(along, pitch) / pitch  # 0..1 within one turn
        round_ = np.sin(np.pi * ph) ** 0.6  # each turn a rounded wire
        if self.vertical:
            across = (xs - self.x0) / max(self.x1 - self.x0, 1)
        else:
            across = (ys - self.y0) / max(self.y1 - self.y0, 1)
        body = 0.55 + 0.45 * round_ * np.clip(np.sin(np.pi * np.clip(across, 0, 1)), 0, 1) ** 0.5
        blend(img, win, inside.astype(np.float32) * np.ones_like(body), shade(self.color, body))


@dataclass
class Ring:
    """A metal ring seen side-on around a vertical core: a band ``w`` x ``h`` px centred at ``(x, y)``.

    ``gap`` > 0 cuts a vertical slit that wide (px) at ``gap_at`` (share of the width from the left),
    through which ``core_color`` shows: the split ring.
    """

    x: float
    y: float
    w: float
    h: float
    color: RGB
    gap: float = 0.0
    gap_at: float = 0.3
    core_color: RGB = STEEL

    casts_shadow = True

    def bbox(self) -> tuple[float, float, float, float]:
        return (self.x - self.w / 2, self.y - self.h / 2, self.x + self.w / 2, self.y + self.h / 2)

    def size(self) -> float:
        return self.w / 2

    def draw(self, img: np.ndarray, style: Style) -> None:
        x0, y0, x1, y1 = self.bbox()
        win = window(img, x0 - 1, y0 - 1, x1 + 1, y1 + 1)
        if win is None:
            return
        c0, r0, c1, r1 = win
        u = (np.arange(c0, c1, dtype=np.float32) - self.x)[None, :] / (self.w / 2)  # -1..1 across
        v = (np.arange(r0, r1, dtype=np.float32) - self.y)[:, None]
        ex = (np.abs(u) - 1.0) * self.w / 2
        ey = np.abs(v) - self.h / 2
        d = np.maximum(ex, ey)
        alpha = np.clip(0.5 - d, 0.0, 1.0)
        cyl = np.sqrt(np.clip(1 - u * u, 0, 1))  # a cylinder's side: brightest facing the viewer
        intensity = 0.55 + 0.45 * cyl - 0.12 * smoothstep(-2.0, 0.0, ey)
        col = shade(self.color, intensity)
        if self.gap > 0:
            gx = x0 + self.gap_at * self.w
            xs = np.arange(c0, c1, dtype=np.float32)[None, :]
            slit = np.clip(self.gap / 2 - np.abs(xs - gx) + 0.5, 0.0, 1.0)[..., None] * np.ones_like(col)
            col = col + (np.asarray(self.core_color, np.float32) * 0.8 - col) * slit
        blend(img, win, alpha * np.ones_like(intensity), col)


@dataclass
class Led:
    """An indicator lamp at ``(x, y)``, lens radius ``r``: a dark lens when ``level`` is 0, a bright lens
    of ``color`` with a soft halo of radius ``3 r`` when 1 (in between: dimmed)."""

    x: float
    y: float
    r: float
    color: RGB
    level: float = 0.0

    casts_shadow = False

    def bbox(self) -> tuple[float, float, float, float]:
        R = 3 * self.r
        return (self.x - R, self.y - R, self.x + R, self.y + R)

    def size(self) -> float:
        return self.r

    def draw(self, img: np.ndarray, style: Style) -> None:
        win = window(img, *self.bbox())
        if win is None:
            return
        c0, r0, c1, r1 = win
        dx = (np.arange(c0, c1, dtype=np.float32) - self.x)[None, :]
        dy = (np.arange(r0, r1, dtype=np.float32) - self.y)[:, None]
        d = np.sqrt(dx * dx + dy * dy)
        lv = float(min(max(self.level, 0.0), 1.0))
        if lv > 0:
            halo = lv * 0.55 * np.exp(-((d / (1.4 * self.r)) ** 2))
            blend(img, win, halo.astype(np.float32), np.asarray(self.color, np.float32))
        blend(img, win, np.clip(self.r + 1.5 - d + 0.5, 0, 1), np.asarray((44, 44, 48), np.float32))  # socket
        dim = np.asarray(self.color, np.float32) * 0.25
        lit = np.asarray(self.color, np.float32) + (255 - np.asarray(self.color, np.float32)) * 0.55
        lens = dim + (lit - dim) * lv
        blend(img, win, np.clip(self.r - d + 0.5, 0, 1), lens)
