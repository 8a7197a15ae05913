"""Side-view scene rendering: a cached static layer plus shaded, anti-aliased objects.

Coordinates are pixels with x right and y down; pixel ``(row i, column j)`` has its centre
at ``(x=j, y=i)``. Angles are radians measured clockwise on screen (the image-axis
convention, y down), so a wheel rolling right by ``d`` pixels turns by ``+d / r``.
Colours are RGB tuples 0-255; frames are ``uint8`` RGB arrays ``[H, W, 3]``.

>>> scene = Scene(640, 360, style_variant(None)); scene.ground(300)
>>> img = scene.frame([Sphere(320, 280, 20, (220, 40, 40))])
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import cv2
import numpy as np

from lawful.world.appearance import RGB, Style, style_variant
from lawful.world.raster import SHADOW_COLOR, SHIFT, blend, fx, line_dist, luma, smooth_noise, window
# The items a Scene draws live in lawful.world.shapes; importing them from here keeps working.
from lawful.world.shapes import Block, Bob, Cone, Cylinder, Item, Sphere, Spring, String  # noqa: F401


class Scene:
    """A ``width`` x ``height`` side view: a static layer (backdrop, ground, ramps, supports)
    built once and cached, and :meth:`frame` drawing per-frame items over a copy of it."""

    def __init__(self, width: int, height: int, style: Style | None = None):
        self.width, self.height = int(width), int(height)
        self.style = style if style is not None else style_variant(None)
        self.ground_y: float | None = None
        self._ops: list[tuple] = []
        self._static: np.ndarray | None = None
        self.static_builds = 0  # how many times the static layer was built (caching check)

    # -- static layer description (each call invalidates the cache)
    def ground(self, y: float) -> Scene:
        """Floor surface at pixel row ``y``; everything below is ground."""
        self.ground_y = float(y)
        self._static = None
        return self

    def ramp(self, points: Sequence[tuple[float, float]], color: RGB | None = None) -> Scene:
        """Filled wooden polygon (incline, tent ramp, launch ramp, table) with a darker outline."""
        if len(points) < 3:
            raise ValueError("a ramp needs at least 3 points")
        self._ops.append(("poly", [tuple(map(float, p)) for p in points], color))
        self._static = None
        return self

    def platform(self, x0: float, y0: float, x1: float, y1: float, color: RGB | None = None) -> Scene:
        """Rectangular table / shelf / support block with corners ``(x0, y0)`` and ``(x1, y1)``."""
        x0, x1 = sorted((float(x0), float(x1)))
        y0, y1 = sorted((float(y0), float(y1)))
        return self.ramp([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], color)

    def support(self, x0: float, x1: float, y: float, thickness: float = 6.0) -> Scene:
        """Horizontal metal bar from ``x0`` to ``x1`` whose bottom edge is at row ``y``."""
        self._ops.append(("bar", float(x0), float(x1), float(y), float(thickness)))
        self._static = None
        return self

    def marker_line(self, p0: tuple[float, float], p1: tuple[float, float],
                    color: RGB | None = None, width: int = 2) -> Scene:
        """Thin painted line (finish line); ``color`` None picks dark or light grey for contrast."""
        self._ops.append(("line", tuple(map(float, p0)), tuple(map(float, p1)), color, int(width)))
        self._static = None
        return self

    # -- rendering
    @property
    def static_layer(self) -> np.ndarray:
        """The cached static layer ``[H, W, 3]`` uint8 (read-only; built on first use)."""
        if self._static is None:
            self._static = self._build_static()
            self._static.flags.writeable = False
            self.static_builds += 1
        return self._static

    def frame(self, items: Iterable[Item] = ()) -> np.ndarray:
        """A new ``[H, W, 3]`` uint8 RGB frame: the static layer, contact shadows, then ``items`` in order."""
        img = self.static_layer.copy()
        items = list(items)
        if self.ground_y is not None:
            for it in items:
                if it.casts_shadow:
                    self._shadow(img, it)
        for it in items:
            it.draw(img, self.style)
        return img

    def _shadow(self, img: np.ndarray, item) -> None:
        """Soft elliptical contact shadow on the ground under ``item`` (within 3 sizes above it)."""
        gy = self.ground_y
        x0, _, x1, bottom = item.bbox()
        size = max(item.size(), 1.0)
        gap = max(gy - bottom, 0.0)
        reach = 3.0 * size
        if gap >= reach or bottom > gy + size:
            return
        fade = (1.0 - gap / reach) ** 1.5
        cx = 0.5 * (x0 + x1) - 0.15 * self.style.light_dir[0] * gap
        a = max(0.5 * (x1 - x0), 2.0) * (0.95 + 0.35 * gap / reach)
        b = max(3.0, 0.28 * a)
        cy = gy + 0.45 * b
        win = window(img, cx - 1.6 * a, gy, cx + 1.6 * a, cy + 1.6 * b)
        if win is None:
            return
        c0, r0, c1, r1 = win
        ex = ((np.arange(c0, c1, dtype=np.float32) - cx) / a)[None, :]
        ey = ((np.arange(r0, r1, dtype=np.float32) - cy) / b)[:, None]
        q = ex * ex + ey * ey
        alpha = self.style.shadow_strength * fade * np.exp(-1.8 * q) * (q < 2.56)
        rows = np.arange(r0, r1, dtype=np.float32)[:, None]
        alpha = alpha * np.clip(rows - gy + 0.5, 0.0, 1.0)
        blend(img, win, alpha.astype(np.float32), SHADOW_COLOR)

    # -- static layer construction
    def _rng(self, salt: int) -> np.random.Generator:
        return np.random.default_rng([self.style.seed & 0xFFFFFFFF, self.width, self.height, salt])

    def _build_static(self) -> np.ndarray:
        h, w, st = self.height, self.width, self.style
        t = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None, None]
        top, bot = (np.asarray(c, np.float32) for c in (st.backdrop_top, st.backdrop_bottom))
        img = np.empty((h, w, 3), np.float32)
        img[...] = top + (bot - top) * t
        img *= (1.0 + st.texture_contrast * _backdrop_pattern(st, h, w, self._rng(1)))[..., None]
        if self.ground_y is not None:
            self._paint_ground(img)
        out = np.clip(img + 0.5, 0, 255).astype(np.uint8)
        for op in self._ops:
            if op[0] == "poly":
                self._paint_poly(out, op[1], op[2])
            elif op[0] == "bar":
                self._paint_bar(out, *op[1:])
            elif op[0] == "line":
                self._paint_line(out, *op[1:])
        return out

    def _paint_ground(self, img: np.ndarray) -> None:
        h, w, st, gy = self.height, self.width, self.style, self.ground_y
        r0 = max(int(math.floor(gy)), 0)
        if r0 >= h:
            return
        rng = self._rng(2)
        rows = np.arange(r0, h, dtype=np.float32)[:, None]
        cols = np.arange(w, dtype=np.float32)[None, :]
        depth = rows - gy  # px below the floor edge
        m = 1.0 + 0.05 * smooth_noise(rng, h - r0, w, 24) + 0.025 * smooth_noise(rng, h - r0, w, 4)
        m = m - 0.06 * np.clip(depth / max(h - gy, 1.0), 0, 1)  # slightly darker towards the viewer
        if st.ground_texture == "boards":
            # Floor boards: joints spaced wider further down (mild perspective), staggered butt joints.
            a_sp, b_sp = 7.0, 0.5  # board k starts at depth a k + b k^2
            kf = (-a_sp + np.sqrt(a_sp**2 + 4 * b_sp * np.maximum(depth, 0))) / (2 * b_sp)
            row_id = np.floor(kf)
            joint = np.abs(kf - np.round(kf)) * (a_sp + 2 * b_sp * kf)
            m = m - 0.16 * np.exp(-(joint**2) / 1.2)
            board_len = 150.0
            xo = cols + row_id * 67.0
            butt = line_dist(xo, board_len)
            m = m - 0.14 * np.exp(-(butt**2) / 1.0)
            m = m + 0.04 * ((row_id * 7919) % 5 - 2) / 2
        elif st.ground_texture == "stripes":
            band = np.floor(np.maximum(depth, 0) / 14.0)
            m = m + 0.05 * (((band * 31 + 3) % 3) - 1)
            tick = line_dist(cols + 37.0 * band, 90.0)
            m = m - 0.12 * np.exp(-(tick**2) / 1.5) * (band % 2 == 0)
        else:  # speckle: stone-like blotches and a few dark flecks
            m = m + 0.05 * smooth_noise(rng, h - r0, w, 10)
            flecks = (rng.random((h - r0, w)) < 0.004).astype(np.float32)
            flecks = cv2.GaussianBlur(flecks, (3, 3), 0.7)
            m = m - 0.9 * flecks
        ground = np.asarray(st.ground_color, np.float32) * m[..., None]
        cover = np.clip(rows - gy + 0.5, 0.0, 1.0)[..., None]
        img[r0:] += (ground - img[r0:]) * cover
        # Visible edge line along the floor surface (about 2 px, anti-aliased).
        edge = np.exp(-(((rows - (gy + 0.5)) / 1.1) ** 2))[..., None]
        img[r0:] += (np.asarray(st.ground_edge, np.float32) - img[r0:]) * edge
        if r0 > 0:  # the fractional part above row r0
            row = np.float32(r0 - 1)
            e = math.exp(-(((row - (gy + 0.5)) / 1.1) ** 2))
            img[r0 - 1] += (np.asarray(st.ground_edge, np.float32) - img[r0 - 1]) * e

    def _paint_poly(self, out: np.ndarray, pts, color: RGB | None) -> None:
        base = np.asarray(color if color is not None else self.style.ramp_color, np.float32)
        p = np.asarray(pts, np.float64)
        win = window(out, p[:, 0].min() - 2, p[:, 1].min() - 2, p[:, 0].max() + 2, p[:, 1].max() + 2)
        if win is None:
            return
        c0, r0, c1, r1 = win
        mask = np.zeros((r1 - r0, c1 - c0), np.uint8)
        cv2.fillPoly(mask, [fx(p - [c0, r0])], 255, cv2.LINE_AA, SHIFT)
        # Wood grain running along the polygon's longest edge.
        e = np.roll(p, -1, axis=0) - p
        k = int(np.argmax(np.hypot(e[:, 0], e[:, 1])))
        u = e[k] / max(np.hypot(*e[k]), 1e-9)
        xs = np.arange(c0, c1, dtype=np.float32)[None, :]
        ys = np.arange(r0, r1, dtype=np.float32)[:, None]
        across = -u[1] * xs + u[0] * ys
        along = u[0] * xs + u[1] * ys
        rng = self._rng(3 + len(pts) + int(p.sum()) % 997)
        warp = smooth_noise(rng, r1 - r0, c1 - c0, 30)
        grain = np.sin(2 * np.pi * across / 7.0 + 2.5 * warp)
        m = 1.0 + 0.06 * grain + 0.03 * smooth_noise(rng, r1 - r0, c1 - c0, 6)
        joints = line_dist(along + 53.0 * np.floor(across / 22.0), 160.0)  # plank ends
        m = m - 0.12 * np.exp(-(joints**2) / 1.0)
        blend(out, win, mask.astype(np.float32) / 255.0, base * m[..., None])
        cv2.polylines(out, [fx(p)], True, tuple(int(c * 0.55) for c in base), 2, cv2.LINE_AA, SHIFT)

    def _paint_bar(self, out: np.ndarray, x0: float, x1: float, y: float, thick: float) -> None:
        x0, x1 = sorted((x0, x1))
        rect = [(x0, y - thick), (x1, y - thick), (x1, y), (x0, y)]
        cv2.fillPoly(out, [fx(rect)], (74, 76, 82), cv2.LINE_AA, SHIFT)
        cv2.line(out, tuple(map(int, fx([(x0 + 1, y - thick + 1)])[0])),
                 tuple(map(int, fx([(x1 - 1, y - thick + 1)])[0])), (150, 152, 158), 1, cv2.LINE_AA, SHIFT)
        cv2.polylines(out, [fx(rect)], True, (40, 41, 44), 1, cv2.LINE_AA, SHIFT)

    def _paint_line(self, out, p0, p1, color: RGB | None, width: int) -> None:
        if color is None:
            mid = (int(np.clip((p0[1] + p1[1]) / 2, 0, self.height - 1)), int(np.clip((p0[0] + p1[0]) / 2, 0, self.width - 1)))
            color = (40, 40, 42) if luma(out[mid]) > 120 else (236, 236, 232)
        p = fx([p0, p1])
        cv2.line(out, tuple(map(int, p[0])), tuple(map(int, p[1])), tuple(map(int, color)), width, cv2.LINE_AA, SHIFT)


def _backdrop_pattern(st: Style, h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Brightness pattern in about [-1.5, 1] (``[h, w]`` float32) with edges and corners to track."""
    s = float(st.texture_scale)
    xs = np.arange(w, dtype=np.float32)[None, :]
    ys = np.arange(h, dtype=np.float32)[:, None]
    noise = 0.25 * smooth_noise(rng, h, w, 6)
    jitter = rng.uniform(-1.0, 1.0, size=4096).astype(np.float32)

    def cell_shade(ix, iy):
        idx = (np.abs(ix.astype(np.int64) * 73 + iy.astype(np.int64) * 151)) % jitter.size
        return jitter[idx]

    def groove(dist, width=1.0):
        return np.exp(-(dist**2) / width)

    if st.texture == "tiles":
        ix, iy = np.floor(xs / s), np.floor(ys / s)
        d = np.minimum(line_dist(xs, s), line_dist(ys, s))
        return 0.5 * cell_shade(ix, iy) - 1.5 * groove(d, 1.2) + noise
    if st.texture == "panels":
        pw, ph = 2.0 * s, 1.5 * s
        fx, fy = np.mod(xs, pw), np.mod(ys, ph)
        ix, iy = np.floor(xs / pw), np.floor(ys / ph)
        bevel = 0.8 * (groove(fx, 2.0) + groove(fy, 2.0)) - 1.2 * (groove(pw - fx, 2.0) + groove(ph - fy, 2.0))
        screws = groove(np.hypot(fx - 8, fy - 8), 3.0) + groove(np.hypot(pw - 8 - fx, fy - 8), 3.0)
        return 0.4 * cell_shade(ix, iy) + bevel - 1.0 * screws + noise
    if st.texture == "bricks":
        bh = s / 2
        iy = np.floor(ys / bh)
        xo = xs + (iy % 2) * (s / 2)
        ix = np.floor(xo / s)
        d = np.minimum(line_dist(xo, s), line_dist(ys, bh))
        return 0.6 * cell_shade(ix, iy) - 1.5 * groove(d, 1.5) + 1.2 * noise
    if st.texture == "planks":
        pw = 0.6 * s
        ix = np.floor(xs / pw)
        offs = (cell_shade(ix, ix * 0 + 7) + 1.0) * 2.0 * s
        yo = ys + offs
        iy = np.floor(yo / (4.0 * s))
        d_side = line_dist(xs, pw)
        d_end = line_dist(yo, 4.0 * s)
        grain = 0.3 * np.sin(xs * 0.9 + 3.0 * smooth_noise(rng, h, w, 20))
        return 0.5 * cell_shade(ix, iy) - 1.4 * groove(np.minimum(d_side, d_end), 1.2) + grain + noise
    # grid: thin lines and a fiducial dot near some crossings
    d = np.minimum(line_dist(xs, s), line_dist(ys, s))
    ix, iy = np.floor(xs / s + 0.5), np.floor(ys / s + 0.5)
    near = np.hypot(xs - ix * s - 6, ys - iy * s - 6)
    dots = groove(near, 4.0) * (cell_shade(ix, iy) > 0)
    return 0.35 * cell_shade(np.floor(xs / s), np.floor(ys / s)) - 1.2 * groove(d, 0.8) - 1.3 * dots + noise
