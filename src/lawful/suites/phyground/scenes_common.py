"""What every drawn PhyGround scene shares: frame size and units, the :class:`Drawn` protocol, and small
painting helpers (objects partly under a liquid, a flattened ball, a liquid stream of varying width).

Units: 640 x 360 px side views, 24 fps, 3 s; physics at 150 px per metre, g = 9.81 m/s² (1471.5 px/s²).
Painting follows :mod:`lawful.world.liquids`: area-sampled edges on float images, y down.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lawful.world.appearance import RGB, Style
from lawful.world.liquids import box_cover, over
from lawful.world.raster import blend, light3, shade, window
from lawful.world.shapes import Sphere

W, H, FPS, DURATION = 640, 360, 24.0, 3.0
PX_PER_M, G = 150.0, 9.81
G_PX = G * PX_PER_M
GROUND = 310.0
RED, BLUE, ORANGE, GREEN = (214, 40, 40), (40, 90, 220), (240, 140, 20), (40, 170, 70)
WATER: RGB = (40, 95, 200)
STEEL: RGB = (96, 104, 122)
WOOD: RGB = (164, 108, 52)
STONE: RGB = (118, 116, 110)


@dataclass(frozen=True)
class Drawn:
    """A drawn scene: ``setup(scene)`` builds the static layer, ``items(t, law)`` the Scene items at time ``t``
    (``law`` 'true' or 'anti'), and ``paint(img, t, law, scene)`` (optional) paints liquids, mirrors or cast shadows
    over the frame afterwards. ``state(t, law)`` (optional) gives the quantities the scene claims (levels,
    image positions …) so tests can hold the pixels to them."""

    setup: Callable
    items: Callable
    paint: Callable | None = None
    state: Callable | None = None

    def frame(self, scene, t: float, law: str) -> np.ndarray:
        img = scene.frame(self.items(t, law))
        if self.paint is not None:
            self.paint(img, t, law, scene)
        return img


@dataclass
class Unlit(Sphere):
    """A ball without the renderer's soft contact shadow (scenes whose lamp casts its own)."""

    casts_shadow = False


@dataclass
class Blob:
    """A shaded ellipse (a squashed ball of clay): centre ``(x, y)``, semi-axes ``a`` across, ``b`` up."""

    x: float
    y: float
    a: float
    b: float
    color: RGB

    casts_shadow = True

    def bbox(self):
        return (self.x - self.a, self.y - self.b, self.x + self.a, self.y + self.b)

    def size(self):
        return max(self.a, self.b)

    def draw(self, img: np.ndarray, style: Style) -> None:
        win = window(img, self.x - self.a - 1.5, self.y - self.b - 1.5, self.x + self.a + 1.5, self.y + self.b + 1.5)
        if win is None:
            return
        c0, r0, c1, r1 = win
        dx = (np.arange(c0, c1, dtype=np.float32) - self.x)[None, :] / self.a
        dy = (np.arange(r0, r1, dtype=np.float32) - self.y)[:, None] / self.b
        rho = np.sqrt(dx * dx + dy * dy)
        alpha = np.clip((1.0 - rho) * min(self.a, self.b) + 0.5, 0.0, 1.0)
        nz = np.sqrt(np.clip(1.0 - rho * rho, 0.0, 1.0))
        L = light3(style)
        lam = np.clip(dx * L[0] + dy * L[1] + nz * L[2], 0.0, 1.0)
        blend(img, win, alpha, shade(self.color, 0.4 + 0.6 * lam, 0.15 * lam**30))


_BUF: dict[tuple, np.ndarray] = {}


def on_float(img: np.ndarray, fn, box=None) -> None:
    """Run ``fn(f)`` on a float32 frame holding ``img`` within ``box`` ``(x0, y0, x1, y1)`` (default: all of it)
    and write that box back, rounded; ``fn`` paints in frame coordinates and must stay inside the box."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = box if box is not None else (0, 0, w, h)
    c0, r0 = max(0, int(math.floor(x0)) - 2), max(0, int(math.floor(y0)) - 2)
    c1, r1 = min(w, int(math.ceil(x1)) + 3), min(h, int(math.ceil(y1)) + 3)
    if c0 >= c1 or r0 >= r1:
        return
    f = _BUF.get(img.shape)
    if f is None:
        f = _BUF[img.shape] = np.zeros(img.shape, np.float32)
    f[r0:r1, c0:c1] = img[r0:r1, c0:c1]
    fn(f)
    img[r0:r1, c0:c1] = np.clip(f[r0:r1, c0:c1] + 0.5, 0, 255).astype(np.uint8)


def _view(f: np.ndarray, x0: float, y0: float, x1: float, y1: float):
    """The window of ``f`` around a box (2 px margin) as an in-place view, with its column and row centres."""
    h, w = f.shape[:2]
    c0, r0 = max(0, int(math.floor(x0)) - 2), max(0, int(math.floor(y0)) - 2)
    c1, r1 = min(w, int(math.ceil(x1)) + 3), min(h, int(math.ceil(y1)) + 3)
    if c0 >= c1 or r0 >= r1:
        return None, None, None
    return f[r0:r1, c0:c1], np.arange(c0, c1, dtype=np.float32), np.arange(r0, r1, dtype=np.float32)


def fill_box(f: np.ndarray, box, color: RGB, alpha: float = 0.92) -> None:
    """A flat area-sampled rectangle ``(x0, y0, x1, y1)`` (a puddle, a film of water, a shadow band)."""
    v, cols, rows = _view(f, *box)
    if v is not None and box[2] > box[0] and box[3] > box[1]:
        over(v, color, alpha * box_cover(box, cols, rows))


def paint_box(f: np.ndarray, box, color: RGB, waterline: float | None = None, water: RGB = WATER,
              seen: float = 0.55) -> None:
    """An axis-aligned block ``(x0, y0, x1, y1)``: ``color`` above ``waterline``, seen through water below it
    (``seen`` of its colour kept); a thin darker outline."""
    v, cols, rows = _view(f, *box)
    if v is None:
        return
    cov = box_cover(box, cols, rows)
    below = 0.0 if waterline is None else np.clip(rows[:, None] + 0.5 - waterline, 0.0, 1.0)
    sub = tuple(seen * a + (1 - seen) * b for a, b in zip(color, water))
    over(v, color, cov * (1 - below))
    if waterline is not None:
        over(v, sub, cov * below)
    x0, y0, x1, y1 = box
    inner = box_cover((x0 + 1.5, y0 + 1.5, x1 - 1.5, y1 - 1.5), cols, rows)
    over(v, tuple(0.6 * c for c in color), 0.5 * np.clip(cov - inner, 0.0, 1.0))


def paint_disc(f: np.ndarray, x: float, y: float, r: float, color: RGB, waterline: float | None = None,
               water: RGB = WATER, seen: float = 0.55) -> None:
    """A flat-shaded ball of radius ``r`` (area-sampled rim), seen through water below ``waterline``."""
    v, cols, rows = _view(f, x - r, y - r, x + r, y + r)
    if v is None:
        return
    cov = np.clip(r - np.hypot(cols[None, :] - x, rows[:, None] - y) + 0.5, 0.0, 1.0)
    lit = 1.0 - 0.25 * np.clip((rows[:, None] - (y - r)) / (2 * r), 0, 1)  # darker towards the bottom
    col = np.asarray(color, np.float32)[None, None, :] * lit[..., None] * np.ones_like(cov)[..., None]
    below = 0.0 if waterline is None else np.clip(rows[:, None] + 0.5 - waterline, 0.0, 1.0)
    over(v, col, cov * (1 - below))
    if waterline is not None:
        over(v, seen * col + (1 - seen) * np.asarray(water, np.float32), cov * below)


def paint_stream(f: np.ndarray, pts, widths, color: RGB = WATER, alpha: float = 0.92) -> None:
    """A liquid stream along the polyline ``pts`` ``[N, 2]`` whose width (px) at each point is ``widths``
    ``[N]``: each pixel is covered by its distance to the nearest segment against the local half-width."""
    p = np.asarray(pts, float)
    w = np.asarray(widths, float)
    h, wd = f.shape[:2]
    cov = np.zeros((h, wd), np.float32)
    for (a, b), (wa, wb) in zip(zip(p[:-1], p[1:]), zip(w[:-1], w[1:])):
        pad = max(wa, wb) / 2 + 2
        c0, r0 = max(0, int(math.floor(min(a[0], b[0]) - pad))), max(0, int(math.floor(min(a[1], b[1]) - pad)))
        c1, r1 = min(wd, int(math.ceil(max(a[0], b[0]) + pad)) + 1), min(h, int(math.ceil(max(a[1], b[1]) + pad)) + 1)
        if c0 >= c1 or r0 >= r1:
            continue
        xs = np.arange(c0, c1, dtype=np.float64)[None, :]
        ys = np.arange(r0, r1, dtype=np.float64)[:, None]
        d = b - a
        s = np.clip(((xs - a[0]) * d[0] + (ys - a[1]) * d[1]) / max(float(d @ d), 1e-12), 0.0, 1.0)
        dist = np.hypot(xs - a[0] - s * d[0], ys - a[1] - s * d[1])
        part = np.clip(0.5 * (wa + (wb - wa) * s) + 0.5 - dist, 0.0, 1.0)
        np.maximum(cov[r0:r1, c0:c1], part, out=cov[r0:r1, c0:c1])
    over(f, color, alpha * cov)


def ballistic(x0: float, y0: float, vx: float, vy: float, t) -> tuple[np.ndarray, np.ndarray]:
    """Position (px) of a free particle launched from ``(x0, y0)`` with velocity ``(vx, vy)`` px/s after ``t`` s."""
    t = np.asarray(t, float)
    return x0 + vx * t, y0 + vy * t + 0.5 * G_PX * t * t


def fall_time(height_px: float, v0: float = 0.0) -> float:
    """Seconds to fall ``height_px`` from a downward speed ``v0`` px/s under g."""
    return (-v0 + math.sqrt(v0 * v0 + 2 * G_PX * height_px)) / G_PX


def linear_bounce(h0_px: float, e: float, t: float, t_fall: float = 1.0) -> float:
    """Height (px) above rest of the anti twin's ball: falls and rebounds at constant speed (no gravity),
    each rebound ``e²`` as high as the last."""
    speed, start, h = h0_px / t_fall, 0.0, h0_px
    if t < t_fall:
        return h0_px - speed * t
    start, h = t_fall, h0_px * e * e
    while h > 0.5:
        dur = 2 * h / speed
        if t < start + dur:
            u = t - start
            return h - abs(h - speed * u)
        start, h = start + dur, h * e * e
    return 0.0
