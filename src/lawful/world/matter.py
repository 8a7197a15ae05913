"""Drawing items for the matter scenes of WMLE P34, P35, P38 and P40 (anti-aliased, area-weighted edges).

Items follow :mod:`lawful.world.draw`'s protocol (``bbox``, ``size``, ``draw(img, style)``, ``casts_shadow``)
and its conventions (pixels with centres at integers, y down, angles clockwise on screen, RGB 0–255):

- :class:`Tank`        a glass tank filled to a row with a tinted liquid (glycerin): walls, floor, meniscus;
- :class:`PolePair`    the two pole faces of a magnet seen along its gap, behind a swinging plate;
- :class:`PlatePendulum` a rod from a pivot to a rectangular plate, solid or comb-slotted, turned by ``angle``;
- :class:`Drop`        a free liquid drop (a spheroid seen side-on, or two drops joined by a neck while they
  merge) with a refraction tint, a rim and a highlight;
- :class:`SandPile`    a triangular pile of grainy sand on the floor, with a thin stream falling on its apex.

:func:`tinted` mixes a colour with a liquid's (an object seen through it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lawful.world.appearance import RGB, Style
from lawful.world.raster import blend, smooth_noise, window

GLYCERIN: RGB = (198, 142, 46)
GLASS: RGB = (214, 226, 232)
POLE: RGB = (84, 86, 94)  # dark steel: no hue a palette object could share
SAND: RGB = (206, 172, 112)
WATER: RGB = (120, 170, 225)


def tinted(color, liquid, k: float) -> RGB:
    """``color`` seen through a liquid: ``(1 − k)·color + k·liquid``."""
    c = (1.0 - k) * np.asarray(color, float) + k * np.asarray(liquid, float)
    return tuple(int(round(v)) for v in c)


def _cover(d: np.ndarray) -> np.ndarray:
    """Coverage of a pixel whose centre lies ``d`` px inside an edge (box-filtered edge)."""
    return np.clip(d + 0.5, 0.0, 1.0).astype(np.float32)


def _grid(img, x0, y0, x1, y1):
    win = window(img, x0 - 1.5, y0 - 1.5, x1 + 1.5, y1 + 1.5)
    if win is None:
        return None
    c0, r0, c1, r1 = win
    return win, np.arange(c0, c1, dtype=np.float32)[None, :], np.arange(r0, r1, dtype=np.float32)[:, None]


def _rect_alpha(X, Y, x0, y0, x1, y1) -> np.ndarray:
    """Coverage of the axis-aligned rectangle ``[x0, x1] × [y0, y1]`` (edges between pixel centres)."""
    return _cover(np.minimum(X - x0, x1 - X) + 0.0) * _cover(np.minimum(Y - y0, y1 - Y) + 0.0)


# ----------------------------------------------------------------------------- glycerin tank (P38)


@dataclass
class Tank:
    """A glass tank ``[x0, x1] × [y0, y1]`` (outer walls, floor at ``y1``), filled to row ``fill_y`` with ``liquid``."""

    x0: float
    y0: float
    x1: float
    y1: float
    fill_y: float
    liquid: RGB = GLYCERIN
    wall: float = 5.0
    seed: int = 0

    casts_shadow = False

    def bbox(self):
        return (self.x0, self.y0, self.x1, self.y1 + 8)

    def size(self):
        return 0.5 * (self.x1 - self.x0)

    def inner(self) -> tuple[float, float, float, float]:
        """The liquid's box ``(x0, fill_y, x1, y1)`` inside the walls."""
        return (self.x0 + self.wall, self.fill_y, self.x1 - self.wall, self.y1)

    def draw(self, img: np.ndarray, style: Style) -> None:
        g = _grid(img, self.x0, self.y0, self.x1, self.y1 + 8)
        if g is None:
            return
        win, X, Y = g
        w = self.wall
        outer = _rect_alpha(X, Y, self.x0, self.y0, self.x1, self.y1 + 8)
        glass = np.asarray(GLASS, np.float32)
        blend(img, win, 0.55 * outer, glass)  # the walls and the air space above the liquid: faint glass
        ix0, fy, ix1, iy1 = self.inner()
        a = _rect_alpha(X, Y, ix0, fy, ix1, iy1)
        depth = np.clip((Y - fy) / max(iy1 - fy, 1.0), 0, 1)
        rng = np.random.default_rng([self.seed & 0xFFFFFFFF, 0x61])
        h, wd = a.shape
        swirl = smooth_noise(rng, h, wd, 40.0)
        shade = (1.02 - 0.16 * depth + 0.03 * swirl)[..., None]
        col = np.asarray(self.liquid, np.float32)[None, None, :] * shade
        blend(img, win, a, col)
        # meniscus: a bright line along the surface, a thin dark floor and bright wall edges
        men = _rect_alpha(X, Y, ix0, fy - 1.0, ix1, fy + 1.0)
        blend(img, win, 0.6 * men, np.asarray((250, 236, 200), np.float32))
        floor = _rect_alpha(X, Y, self.x0, iy1, self.x1, iy1 + 8)
        blend(img, win, floor, np.asarray((70, 74, 80), np.float32))
        for xa, xb in ((self.x0, self.x0 + w), (self.x1 - w, self.x1)):
            blend(img, win, 0.8 * _rect_alpha(X, Y, xa, self.y0, xb, iy1), glass)
            blend(img, win, 0.7 * _rect_alpha(X, Y, xa + 1, self.y0, xa + 2, iy1),
                   np.asarray((252, 252, 252), np.float32))


# ----------------------------------------------------------------------------- plate pendulums between poles (P34)


@dataclass
class PolePair:
    """A magnet's pole face seen along its gap (the near pole left out so the plate stays in view): a dark
    yoke block ``w × h`` centred at ``(x, y)`` with a lighter pole face and a gap line."""

    x: float
    y: float
    w: float
    h: float
    color: RGB = POLE

    casts_shadow = False

    def bbox(self):
        return (self.x - self.w / 2 - 8, self.y - self.h / 2, self.x + self.w / 2 + 8, self.y + self.h / 2 + 30)

    def size(self):
        return 0.5 * self.w

    def draw(self, img: np.ndarray, style: Style) -> None:
        x0, y0, x1, y1 = self.bbox()
        g = _grid(img, x0, y0, x1, y1)
        if g is None:
            return
        win, X, Y = g
        col = np.asarray(self.color, np.float32)
        yoke = _rect_alpha(X, Y, x0, self.y + self.h / 2 - 4, x1, y1)  # the yoke under the gap
        blend(img, win, yoke, 0.55 * col)
        face = _rect_alpha(X, Y, self.x - self.w / 2, self.y - self.h / 2, self.x + self.w / 2, self.y + self.h / 2)
        shade = (0.8 + 0.2 * np.clip((Y - self.y) / self.h + 0.5, 0, 1))[..., None]
        blend(img, win, face, col[None, None, :] * shade)
        rim = face - _rect_alpha(X, Y, self.x - self.w / 2 + 3, self.y - self.h / 2 + 3, self.x + self.w / 2 - 3,
                                 self.y + self.h / 2 - 3)
        blend(img, win, 0.5 * np.clip(rim, 0, 1), np.asarray((235, 235, 235), np.float32))


@dataclass
class PlatePendulum:
    """A rod from the pivot ``(px, py)`` to a ``w × h`` plate whose centre is ``length`` px down the rod, the
    whole turned by ``angle`` (rad, positive swings to the right). ``slots`` > 0 cuts that many comb slots
    (width ``slot_w``) up from the plate's lower edge through ``slot_depth`` of its height."""

    px: float
    py: float
    length: float
    angle: float
    w: float
    h: float
    color: RGB
    slots: int = 0
    slot_w: float = 5.0
    slot_depth: float = 0.72
    rod: RGB = (92, 94, 100)

    casts_shadow = False

    def bbox(self):
        reach = self.length + math.hypot(self.w, self.h) / 2
        return (self.px - reach, self.py - 2, self.px + reach, self.py + reach)

    def size(self):
        return 0.5 * self.w

    def centre(self) -> tuple[float, float]:
        return (self.px + self.length * math.sin(self.angle), self.py + self.length * math.cos(self.angle))

    def plate_alpha(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Coverage of the plate (slots cut out) on pixel grid ``X [1, w]``, ``Y [h, 1]``."""
        s, c = math.sin(self.angle), math.cos(self.angle)
        dx, dy = X - self.px, Y - self.py
        v = dx * s + dy * c  # along the rod, from the pivot
        u = dx * c - dy * s  # across it
        top, bot = self.length - self.h / 2, self.length + self.h / 2
        a = _cover(np.minimum(u + self.w / 2, self.w / 2 - u)) * _cover(np.minimum(v - top, bot - v))
        if self.slots > 0:
            cut_top = bot - self.slot_depth * self.h
            pitch = self.w / (self.slots + 1)
            for j in range(self.slots):
                uj = -self.w / 2 + pitch * (j + 1)
                hole = _cover(np.minimum(u - (uj - self.slot_w / 2), (uj + self.slot_w / 2) - u)) * _cover(v - cut_top)
                a = a * (1.0 - hole)
        return a

    def draw(self, img: np.ndarray, style: Style) -> None:
        s, c = math.sin(self.angle), math.cos(self.angle)
        top = self.length - self.h / 2 + 2
        ex, ey = self.px + top * s, self.py + top * c
        g = _grid(img, min(self.px, ex) - 2, min(self.py, ey) - 2, max(self.px, ex) + 2, max(self.py, ey) + 2)
        if g is not None:
            win, X, Y = g
            dx, dy = X - self.px, Y - self.py
            v, u = dx * s + dy * c, dx * c - dy * s
            blend(img, win, _cover(1.2 - np.abs(u)) * _cover(np.minimum(v, top - v)), np.asarray(self.rod, np.float32))
        cx, cy = self.centre()
        half = 0.5 * math.hypot(self.w, self.h)
        g = _grid(img, cx - half, cy - half, cx + half, cy + half)
        if g is None:
            return
        win, X, Y = g
        u = (X - self.px) * c - (Y - self.py) * s
        a = self.plate_alpha(X, Y)
        sheen = (0.9 + 0.12 * np.cos(u / max(self.w, 1.0) * math.pi * 1.5 + 0.6))[..., None]  # brushed metal
        blend(img, win, a, np.asarray(self.color, np.float32)[None, None, :] * sheen)


# ----------------------------------------------------------------------------- drops (P40)


def _smooth_max(d1: np.ndarray, d2: np.ndarray, k: float) -> np.ndarray:
    """Polynomial smooth maximum of two signed distances (a neck of width ~``k`` where they meet)."""
    if k <= 0:
        return np.maximum(d1, d2)
    h = np.clip(0.5 + 0.5 * (d1 - d2) / k, 0.0, 1.0)
    return d2 + (d1 - d2) * h + k * h * (1.0 - h)


@dataclass
class Drop:
    """A liquid drop seen side-on: a spheroid with horizontal semi-axis ``a`` and vertical ``b`` at ``(x, y)``
    or, with ``other = (x2, y2, r2)`` and ``neck`` > 0, two round drops (radius ``a``, ``b`` ignored) joined by
    a smooth neck while they merge. Shading: the dye deeper where the drop is thicker, a refraction-brightened lower body
    and a soft highlight (the body keeps within a third of the way to white)."""

    x: float
    y: float
    a: float
    b: float
    color: RGB
    other: tuple[float, float, float] | None = None
    neck: float = 0.0

    casts_shadow = False

    def bbox(self):
        boxes = [(self.x - self.a, self.y - max(self.a, self.b), self.x + self.a, self.y + max(self.a, self.b))]
        if self.other is not None:
            x2, y2, r2 = self.other
            boxes.append((x2 - r2, y2 - r2, x2 + r2, y2 + r2))
        b = np.array(boxes)
        return (b[:, 0].min() - self.neck, b[:, 1].min() - self.neck, b[:, 2].max() + self.neck,
                b[:, 3].max() + self.neck)

    def size(self):
        return max(self.a, self.b)

    def signed_distance(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Approximate signed distance (px, positive inside) of pixel centres to the outline."""
        dx, dy = X - self.x, Y - self.y
        if self.other is None:
            if abs(self.a - self.b) < 1e-9:
                return self.a - np.hypot(dx, dy)
            rho = np.sqrt((dx / self.a) ** 2 + (dy / self.b) ** 2)
            grad = np.sqrt((dx / self.a**2) ** 2 + (dy / self.b**2) ** 2) / np.maximum(rho, 1e-6)
            return (1.0 - rho) / np.maximum(grad, 1e-6)  # first-order distance to the ellipse
        x2, y2, r2 = self.other
        return _smooth_max(self.a - np.hypot(dx, dy), r2 - np.hypot(X - x2, Y - y2), self.neck)

    def draw(self, img: np.ndarray, style: Style) -> None:
        g = _grid(img, *self.bbox())
        if g is None:
            return
        win, X, Y = g
        d = self.signed_distance(X, Y)
        alpha = _cover(d)
        R = max(self.a, self.b)
        thick = np.sqrt(np.clip(d / R, 0, 1) * np.clip(2 - d / R, 0, 2))  # path length through the dye
        body = 1.0 - 0.14 * thick  # deeper colour where the drop is thicker (Beer–Lambert)
        lower = 1.0 + 0.1 * np.clip((Y - self.y) / R, 0, 1) * np.clip(d / (0.3 * R), 0, 1)  # light focused below
        col = np.asarray(self.color, np.float32)[None, None, :] * (body * lower)[..., None]
        hx, hy = self.x - 0.38 * self.a, self.y - 0.4 * self.b
        spot = 0.33 * np.exp(-((X - hx) ** 2 + (Y - hy) ** 2) / (2 * (0.16 * R) ** 2))
        col = col + (255.0 - col) * spot[..., None]
        blend(img, win, alpha, np.clip(col, 0, 255))


# ----------------------------------------------------------------------------- sand piles (P35)


def grain_texture(seed: int, h: int, w: int) -> np.ndarray:
    """A static sand texture ``[h, w]`` around 1: per-pixel grain (±6 %), a few darker grains, soft patches."""
    rng = np.random.default_rng([seed & 0xFFFFFFFF, 0x5A4D])
    tex = 1.0 + 0.06 * rng.uniform(-1, 1, (h, w)).astype(np.float32)
    tex -= 0.12 * (rng.random((h, w)) < 0.04)
    tex *= 1.0 + 0.04 * smooth_noise(rng, h, w, 10.0)
    return tex.astype(np.float32)


@dataclass
class SandPile:
    """A pile of sand on the floor row ``base_y``: apex at ``(x, base_y − h)``, flanks rising at ``left_deg`` and
    ``right_deg``; the apex rounded over ``round_px``. ``texture`` ``[H, W]`` (frame-sized, see
    :func:`grain_texture`) modulates the colour; ``stream_top`` draws a thin falling stream from that row to the
    apex (``stream_w`` px wide, flickering with ``phase``)."""

    x: float
    base_y: float
    h: float
    left_deg: float
    right_deg: float
    color: RGB = SAND
    texture: np.ndarray | None = None
    stream_top: float | None = None
    stream_w: float = 2.5
    phase: int = 0
    round_px: float = 3.0

    casts_shadow = False

    def half_widths(self) -> tuple[float, float]:
        return (self.h / math.tan(math.radians(self.left_deg)), self.h / math.tan(math.radians(self.right_deg)))

    def bbox(self):
        wl, wr = self.half_widths()
        top = self.base_y - self.h if self.stream_top is None else min(self.stream_top, self.base_y - self.h)
        return (self.x - wl, top, self.x + wr, self.base_y)

    def size(self):
        return self.h

    def signed_distance(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Distance (px, positive inside) of pixel centres to the pile's outline (flanks and floor)."""
        ay = self.base_y - self.h
        out = []
        for deg, sgn in ((self.left_deg, -1.0), (self.right_deg, 1.0)):
            a = math.radians(deg)
            # inward normal of the flank through the apex going down at angle a on side sgn
            nx, ny = -sgn * math.sin(a), math.cos(a)
            out.append((X - self.x) * nx + (Y - ay) * ny)
        d = np.minimum(out[0], out[1])
        if self.round_px > 0:  # round the apex: soften the min where both flanks are close
            k = self.round_px
            hh = np.clip(0.5 + 0.5 * (out[1] - out[0]) / k, 0, 1)
            d = out[1] + (out[0] - out[1]) * hh - k * hh * (1 - hh)
        return np.minimum(d, self.base_y - Y)

    def draw(self, img: np.ndarray, style: Style) -> None:
        col = np.asarray(self.color, np.float32)
        ay = self.base_y - self.h

        def tex_of(win):
            c0, r0, c1, r1 = win
            return self.texture[r0:r1, c0:c1] if self.texture is not None else np.ones((r1 - r0, c1 - c0), np.float32)

        if self.stream_top is not None:
            g = _grid(img, self.x - self.stream_w, self.stream_top, self.x + self.stream_w, ay + 2)
            if g is not None:
                win, X, Y = g
                flick = 0.92 + 0.08 * np.cos(0.9 * Y + 2.1 * self.phase)
                s = _cover(self.stream_w / 2 - np.abs(X - self.x)) * _cover(np.minimum(Y - self.stream_top, ay + 2 - Y))
                blend(img, win, s, col[None, None, :] * (tex_of(win) * flick)[..., None])
        wl, wr = self.half_widths()
        g = _grid(img, self.x - wl, ay, self.x + wr, self.base_y)
        if g is None:
            return
        win, X, Y = g
        a = _cover(self.signed_distance(X, Y))
        lit = 1.0 + 0.05 * np.sign(X - self.x) * (1.0 if style.light_dir[0] > 0 else -1.0)  # the lit flank
        blend(img, win, a, col[None, None, :] * (tex_of(win) * lit)[..., None])
