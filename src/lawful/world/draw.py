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
from dataclasses import dataclass

import cv2
import numpy as np

from lawful.world.appearance import RGB, Style, style_variant

_SHIFT = 4  # cv2 sub-pixel bits
_SCALE = 1 << _SHIFT
SHADOW_COLOR = np.array([28.0, 28.0, 30.0], dtype=np.float32)


# ----------------------------------------------------------------------------- helpers


def _fx(points: Iterable[Sequence[float]]) -> np.ndarray:
    """Points as cv2 fixed-point int32 ``[N, 2]`` for ``shift=_SHIFT``."""
    return np.round(np.asarray(list(points), dtype=np.float64) * _SCALE).astype(np.int32)


def _window(img: np.ndarray, x0: float, y0: float, x1: float, y1: float):
    """Integer window clipped to the image: ``(c0, r0, c1, r1)`` or None if empty."""
    h, w = img.shape[:2]
    c0, r0 = max(int(math.floor(x0)), 0), max(int(math.floor(y0)), 0)
    c1, r1 = min(int(math.ceil(x1)) + 1, w), min(int(math.ceil(y1)) + 1, h)
    if c0 >= c1 or r0 >= r1:
        return None
    return c0, r0, c1, r1

def _rotated_window(img: np.ndarray, item) -> tuple | None:
    """The window around ``item``'s box in ``img`` and each pixel's offset from the item's centre.

    Returns ``((c0, r0, c1, r1), dx, dy, qx, qy)``: ``dx, dy`` in image axes, ``qx`` along the item's
    rotated x axis and ``qy`` across it (all broadcastable ``[rows, cols]``); None when off-screen.
    """
    x0, y0, x1, y1 = item.bbox()
    win = _window(img, x0 - 1.5, y0 - 1.5, x1 + 1.5, y1 + 1.5)
    if win is None:
        return None
    c0, r0, c1, r1 = win
    dx = (np.arange(c0, c1, dtype=np.float32) - item.x)[None, :]
    dy = (np.arange(r0, r1, dtype=np.float32) - item.y)[:, None]
    c, s = math.cos(item.angle), math.sin(item.angle)
    return win, dx, dy, c * dx + s * dy, -s * dx + c * dy



def _blend(img: np.ndarray, win, alpha: np.ndarray, color: np.ndarray) -> None:
    """Composite ``color`` (``[h, w, 3]`` or ``[3]`` float) over ``img[win]`` with coverage ``alpha``."""
    c0, r0, c1, r1 = win
    roi = img[r0:r1, c0:c1]
    a = alpha[..., None]
    out = roi.astype(np.float32)
    out += (color - out) * a
    np.clip(out, 0, 255, out=out)
    roi[...] = (out + 0.5).astype(np.uint8)


def _smoothstep(e0: float, e1: float, x: np.ndarray) -> np.ndarray:
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _light3(style: Style) -> np.ndarray:
    """Unit light vector (x right, y down, z towards the viewer)."""
    lx, ly = style.light_dir
    v = np.array([0.6 * lx, 0.6 * ly, 0.8])
    return v / np.linalg.norm(v)


def _shade(color: RGB, intensity: np.ndarray, spec: np.ndarray | None = None) -> np.ndarray:
    """``color * intensity`` plus a white specular blend; hue is preserved. ``[h, w, 3]`` float32."""
    col = np.asarray(color, dtype=np.float32)[None, None, :] * intensity[..., None]
    if spec is not None:
        col += (255.0 - col) * spec[..., None]
    return col


def _luma(color: Sequence[float]) -> float:
    return 0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2]


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Smooth noise in about [-1, 1], ``[h, w]`` float32, features about ``cell`` px wide."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC) * 0.6


def _line_dist(v: np.ndarray, period: float) -> np.ndarray:
    """Distance (px) from coordinate ``v`` to the nearest multiple of ``period``."""
    m = np.mod(v, period)
    return np.minimum(m, period - m)


# ----------------------------------------------------------------------------- items


@dataclass
class Sphere:
    """A ball: centre ``(x, y)``, radius ``r`` px; Lambert shading with a specular highlight."""

    x: float
    y: float
    r: float
    color: RGB
    specular: float = 0.55

    casts_shadow = True

    def bbox(self) -> tuple[float, float, float, float]:
        return (self.x - self.r, self.y - self.r, self.x + self.r, self.y + self.r)

    def size(self) -> float:
        return self.r

    def draw(self, img: np.ndarray, style: Style) -> None:
        r = float(self.r)
        win = _window(img, self.x - r - 1.5, self.y - r - 1.5, self.x + r + 1.5, self.y + r + 1.5)
        if win is None or r <= 0:
            return
        c0, r0, c1, r1 = win
        dx = (np.arange(c0, c1, dtype=np.float32) - self.x)[None, :] / r
        dy = (np.arange(r0, r1, dtype=np.float32) - self.y)[:, None] / r
        rho2 = dx * dx + dy * dy
        alpha = np.clip((1.0 - np.sqrt(rho2)) * r + 0.5, 0.0, 1.0)
        nz = np.sqrt(np.clip(1.0 - rho2, 0.0, 1.0))
        L = _light3(style)
        lam = np.clip(dx * L[0] + dy * L[1] + nz * L[2], 0.0, 1.0)
        H = L + np.array([0.0, 0.0, 1.0])
        H /= np.linalg.norm(H)
        nh = np.clip(dx * H[0] + dy * H[1] + nz * H[2], 0.0, 1.0)
        spec = self.specular * nh**40
        _blend(img, win, alpha, _shade(self.color, 0.38 + 0.62 * lam, spec))


@dataclass
class Bob(Sphere):
    """A pendulum bob: a shaded sphere with a sharper, brighter highlight (same signature as Sphere)."""

    specular: float = 0.7


@dataclass
class Block:
    """A rectangle ``w`` x ``h`` px centred at ``(x, y)``, turned by ``angle``; face shading, darker edge."""

    x: float
    y: float
    w: float
    h: float
    angle: float
    color: RGB

    casts_shadow = True

    def _corners(self) -> np.ndarray:
        c, s = math.cos(self.angle), math.sin(self.angle)
        hw, hh = self.w / 2, self.h / 2
        local = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
        return local @ np.array([[c, s], [-s, c]]) + [self.x, self.y]

    def bbox(self) -> tuple[float, float, float, float]:
        p = self._corners()
        return (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max()))

    def size(self) -> float:
        return max(self.w, self.h) / 2

    def draw(self, img: np.ndarray, style: Style) -> None:
        got = _rotated_window(img, self) if self.w > 0 and self.h > 0 else None
        if got is None:
            return
        win, dx, dy, qx, qy = got
        ex = np.abs(qx) - self.w / 2
        ey = np.abs(qy) - self.h / 2
        d = np.sqrt(np.maximum(ex, 0) ** 2 + np.maximum(ey, 0) ** 2) + np.minimum(np.maximum(ex, ey), 0)
        alpha = np.clip(0.5 - d, 0.0, 1.0)
        lx, ly = style.light_dir
        half_diag = 0.5 * math.hypot(self.w, self.h)
        grad = (dx * lx + dy * ly) / half_diag
        e = min(max(0.1 * min(self.w, self.h), 1.5), 4.0)
        edge = _smoothstep(-e - 0.75, -e + 0.75, d)
        intensity = (0.86 + 0.12 * grad) * (1.0 - 0.42 * edge)
        _blend(img, win, alpha, _shade(self.color, intensity))


@dataclass
class Cylinder:
    """A cylinder seen end-on: a disc of radius ``r`` at ``(x, y)`` with a radial marker stripe at ``angle``.

    ``hollow=True`` draws a ring (outer rim, inner disc in a darker shade of ``color``,
    inner radius ``inner * r``). ``marker_color`` None picks a dark or light shade of
    ``color`` that contrasts with it.
    """

    x: float
    y: float
    r: float
    color: RGB
    angle: float = 0.0
    hollow: bool = False
    inner: float = 0.62
    marker_color: RGB | None = None

    casts_shadow = True

    def bbox(self) -> tuple[float, float, float, float]:
        return (self.x - self.r, self.y - self.r, self.x + self.r, self.y + self.r)

    def size(self) -> float:
        return self.r

    def marker(self) -> RGB:
        if self.marker_color is not None:
            return self.marker_color
        col = np.asarray(self.color, dtype=float)
        m = col * 0.3 if _luma(self.color) > 110 else col + (255 - col) * 0.7
        return tuple(int(round(v)) for v in m)

    def draw(self, img: np.ndarray, style: Style) -> None:
        r = float(self.r)
        win = _window(img, self.x - r - 1.5, self.y - r - 1.5, self.x + r + 1.5, self.y + r + 1.5)
        if win is None or r <= 0:
            return
        c0, r0, c1, r1 = win
        dx = (np.arange(c0, c1, dtype=np.float32) - self.x)[None, :]
        dy = (np.arange(r0, r1, dtype=np.float32) - self.y)[:, None]
        dist = np.sqrt(dx * dx + dy * dy)
        alpha = np.clip(r - dist + 0.5, 0.0, 1.0)
        lx, ly = style.light_dir
        rho = dist / r
        intensity = 0.95 - 0.1 * rho * rho + 0.07 * (dx * lx + dy * ly) / r
        rim = max(1.5, 0.1 * r)
        intensity = intensity * (1.0 - 0.3 * _smoothstep(r - rim - 0.75, r - rim + 0.75, dist))
        ri = self.inner * r
        if self.hollow:
            inside = 1.0 - _smoothstep(ri - 0.75, ri + 0.75, dist)
            lip = np.exp(-(((dist - ri) / max(1.0, 0.05 * r)) ** 2))  # dark inner lip
            intensity = intensity * (1.0 - inside) + 0.42 * inside
            intensity = intensity * (1.0 - 0.25 * lip)
        col = _shade(self.color, intensity)
        # Radial marker stripe: centre (or inner rim) out to near the outer rim.
        ux, uy = math.cos(self.angle), math.sin(self.angle)
        t0 = ri + 0.5 if self.hollow else 0.0
        t1 = r - max(1.0, 0.08 * r)
        t = np.clip(dx * ux + dy * uy, t0, t1)
        sd = np.sqrt((dx - t * ux) ** 2 + (dy - t * uy) ** 2)
        hw = max(1.5, 0.09 * r)
        stripe = np.clip(hw - sd + 0.5, 0.0, 1.0)[..., None]
        col = col + (np.asarray(self.marker(), dtype=np.float32) - col) * stripe
        _blend(img, win, alpha, col)


@dataclass
class Cone:
    """An isosceles triangle of base half-width ``r`` and height ``h`` px, apex up at ``angle = 0``.

    ``(x, y)`` is the centre of the unrotated bounding box (mid-height); the triangle turns
    about it. Shading varies across the cone (a horizontal gradient) as on a lit cone.
    """

    x: float
    y: float
    r: float
    h: float
    angle: float
    color: RGB

    casts_shadow = True

    def _corners(self) -> np.ndarray:
        c, s = math.cos(self.angle), math.sin(self.angle)
        local = np.array([[0.0, -self.h / 2], [self.r, self.h / 2], [-self.r, self.h / 2]])
        return local @ np.array([[c, s], [-s, c]]) + [self.x, self.y]

    def bbox(self) -> tuple[float, float, float, float]:
        p = self._corners()
        return (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max()))

    def size(self) -> float:
        return max(self.r, self.h / 2)

    def draw(self, img: np.ndarray, style: Style) -> None:
        got = _rotated_window(img, self) if self.r > 0 and self.h > 0 else None
        if got is None:
            return
        win, dx, dy, qx, qy = got
        hh, r = self.h / 2, self.r
        n = math.hypot(self.h, r)
        d_base = qy - hh
        d_right = (self.h * qx - r * (qy + hh)) / n
        d_left = (-self.h * qx - r * (qy + hh)) / n
        d = np.maximum(d_base, np.maximum(d_right, d_left))
        alpha = np.clip(0.5 - d, 0.0, 1.0)
        half_w = np.maximum(r * (qy + hh) / self.h, 1e-3)
        u = np.clip(qx / half_w, -1.0, 1.0)
        L = _light3(style)
        l_local = math.cos(self.angle) * L[0] + math.sin(self.angle) * L[1]
        lam = np.clip(u * l_local + np.sqrt(1.0 - u * u) * L[2], 0.0, 1.0)
        edge = _smoothstep(-1.5, -0.5, d_base)
        intensity = (0.4 + 0.6 * lam) * (1.0 - 0.3 * edge)
        _blend(img, win, alpha, _shade(self.color, intensity))


@dataclass
class String:
    """A thin anti-aliased dark line from ``p0`` to ``p1`` (pendulum string)."""

    p0: tuple[float, float]
    p1: tuple[float, float]
    color: RGB = (38, 38, 40)
    width: int = 1

    casts_shadow = False

    def bbox(self) -> tuple[float, float, float, float]:
        (a, b), (c, d) = self.p0, self.p1
        return (min(a, c), min(b, d), max(a, c), max(b, d))

    def draw(self, img: np.ndarray, style: Style) -> None:
        p = _fx([self.p0, self.p1])
        cv2.line(img, tuple(map(int, p[0])), tuple(map(int, p[1])), tuple(map(int, self.color)),
                 self.width, cv2.LINE_AA, _SHIFT)


@dataclass
class Spring:
    """A zig-zag coil from ``p0`` to ``p1`` with ``coils`` turns of half-width ``radius`` px."""

    p0: tuple[float, float]
    p1: tuple[float, float]
    coils: int = 10
    radius: float = 8.0
    color: RGB = (84, 86, 92)
    width: int = 2

    casts_shadow = False

    def bbox(self) -> tuple[float, float, float, float]:
        p = self.points()
        return (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max()))

    def points(self) -> np.ndarray:
        """Polyline vertices ``[2 * coils + 4, 2]`` in px."""
        a, b = np.asarray(self.p0, float), np.asarray(self.p1, float)
        v = b - a
        length = float(np.hypot(*v))
        if length < 1e-9:
            return np.stack([a, b])
        u = v / length
        nrm = np.array([-u[1], u[0]])
        lead = min(0.08 * length, 10.0)
        n = 2 * max(int(self.coils), 1)
        t = lead + (length - 2 * lead) * (np.arange(n) + 0.5) / n
        side = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        zig = a + t[:, None] * u + (side * self.radius)[:, None] * nrm
        ends = [a, a + lead * u], [b - lead * u, b]
        return np.vstack([ends[0], zig, ends[1]])

    def draw(self, img: np.ndarray, style: Style) -> None:
        pts = _fx(self.points())
        dark = tuple(int(c * 0.55) for c in self.color)
        cv2.polylines(img, [pts], False, dark, self.width + 1, cv2.LINE_AA, _SHIFT)
        cv2.polylines(img, [pts], False, tuple(map(int, self.color)), max(1, self.width - 1), cv2.LINE_AA, _SHIFT)


Item = Sphere | Block | Cylinder | Cone | String | Spring


# ----------------------------------------------------------------------------- scene


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
        win = _window(img, cx - 1.6 * a, gy, cx + 1.6 * a, cy + 1.6 * b)
        if win is None:
            return
        c0, r0, c1, r1 = win
        ex = ((np.arange(c0, c1, dtype=np.float32) - cx) / a)[None, :]
        ey = ((np.arange(r0, r1, dtype=np.float32) - cy) / b)[:, None]
        q = ex * ex + ey * ey
        alpha = self.style.shadow_strength * fade * np.exp(-1.8 * q) * (q < 2.56)
        rows = np.arange(r0, r1, dtype=np.float32)[:, None]
        alpha = alpha * np.clip(rows - gy + 0.5, 0.0, 1.0)
        _blend(img, win, alpha.astype(np.float32), SHADOW_COLOR)

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
        m = 1.0 + 0.05 * _smooth_noise(rng, h - r0, w, 24) + 0.025 * _smooth_noise(rng, h - r0, w, 4)
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
            butt = _line_dist(xo, board_len)
            m = m - 0.14 * np.exp(-(butt**2) / 1.0)
            m = m + 0.04 * ((row_id * 7919) % 5 - 2) / 2
        elif st.ground_texture == "stripes":
            band = np.floor(np.maximum(depth, 0) / 14.0)
            m = m + 0.05 * (((band * 31 + 3) % 3) - 1)
            tick = _line_dist(cols + 37.0 * band, 90.0)
            m = m - 0.12 * np.exp(-(tick**2) / 1.5) * (band % 2 == 0)
        else:  # speckle: stone-like blotches and a few dark flecks
            m = m + 0.05 * _smooth_noise(rng, h - r0, w, 10)
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
        win = _window(out, p[:, 0].min() - 2, p[:, 1].min() - 2, p[:, 0].max() + 2, p[:, 1].max() + 2)
        if win is None:
            return
        c0, r0, c1, r1 = win
        mask = np.zeros((r1 - r0, c1 - c0), np.uint8)
        cv2.fillPoly(mask, [_fx(p - [c0, r0])], 255, cv2.LINE_AA, _SHIFT)
        # Wood grain running along the polygon's longest edge.
        e = np.roll(p, -1, axis=0) - p
        k = int(np.argmax(np.hypot(e[:, 0], e[:, 1])))
        u = e[k] / max(np.hypot(*e[k]), 1e-9)
        xs = np.arange(c0, c1, dtype=np.float32)[None, :]
        ys = np.arange(r0, r1, dtype=np.float32)[:, None]
        across = -u[1] * xs + u[0] * ys
        along = u[0] * xs + u[1] * ys
        rng = self._rng(3 + len(pts) + int(p.sum()) % 997)
        warp = _smooth_noise(rng, r1 - r0, c1 - c0, 30)
        grain = np.sin(2 * np.pi * across / 7.0 + 2.5 * warp)
        m = 1.0 + 0.06 * grain + 0.03 * _smooth_noise(rng, r1 - r0, c1 - c0, 6)
        joints = _line_dist(along + 53.0 * np.floor(across / 22.0), 160.0)  # plank ends
        m = m - 0.12 * np.exp(-(joints**2) / 1.0)
        _blend(out, win, mask.astype(np.float32) / 255.0, base * m[..., None])
        cv2.polylines(out, [_fx(p)], True, tuple(int(c * 0.55) for c in base), 2, cv2.LINE_AA, _SHIFT)

    def _paint_bar(self, out: np.ndarray, x0: float, x1: float, y: float, thick: float) -> None:
        x0, x1 = sorted((x0, x1))
        rect = [(x0, y - thick), (x1, y - thick), (x1, y), (x0, y)]
        cv2.fillPoly(out, [_fx(rect)], (74, 76, 82), cv2.LINE_AA, _SHIFT)
        cv2.line(out, tuple(map(int, _fx([(x0 + 1, y - thick + 1)])[0])),
                 tuple(map(int, _fx([(x1 - 1, y - thick + 1)])[0])), (150, 152, 158), 1, cv2.LINE_AA, _SHIFT)
        cv2.polylines(out, [_fx(rect)], True, (40, 41, 44), 1, cv2.LINE_AA, _SHIFT)

    def _paint_line(self, out, p0, p1, color: RGB | None, width: int) -> None:
        if color is None:
            mid = (int(np.clip((p0[1] + p1[1]) / 2, 0, self.height - 1)), int(np.clip((p0[0] + p1[0]) / 2, 0, self.width - 1)))
            color = (40, 40, 42) if _luma(out[mid]) > 120 else (236, 236, 232)
        p = _fx([p0, p1])
        cv2.line(out, tuple(map(int, p[0])), tuple(map(int, p[1])), tuple(map(int, color)), width, cv2.LINE_AA, _SHIFT)


def _backdrop_pattern(st: Style, h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Brightness pattern in about [-1.5, 1] (``[h, w]`` float32) with edges and corners to track."""
    s = float(st.texture_scale)
    xs = np.arange(w, dtype=np.float32)[None, :]
    ys = np.arange(h, dtype=np.float32)[:, None]
    noise = 0.25 * _smooth_noise(rng, h, w, 6)
    jitter = rng.uniform(-1.0, 1.0, size=4096).astype(np.float32)

    def cell_shade(ix, iy):
        idx = (np.abs(ix.astype(np.int64) * 73 + iy.astype(np.int64) * 151)) % jitter.size
        return jitter[idx]

    def groove(dist, width=1.0):
        return np.exp(-(dist**2) / width)

    if st.texture == "tiles":
        ix, iy = np.floor(xs / s), np.floor(ys / s)
        d = np.minimum(_line_dist(xs, s), _line_dist(ys, s))
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
        d = np.minimum(_line_dist(xo, s), _line_dist(ys, bh))
        return 0.6 * cell_shade(ix, iy) - 1.5 * groove(d, 1.5) + 1.2 * noise
    if st.texture == "planks":
        pw = 0.6 * s
        ix = np.floor(xs / pw)
        offs = (cell_shade(ix, ix * 0 + 7) + 1.0) * 2.0 * s
        yo = ys + offs
        iy = np.floor(yo / (4.0 * s))
        d_side = _line_dist(xs, pw)
        d_end = _line_dist(yo, 4.0 * s)
        grain = 0.3 * np.sin(xs * 0.9 + 3.0 * _smooth_noise(rng, h, w, 20))
        return 0.5 * cell_shade(ix, iy) - 1.4 * groove(np.minimum(d_side, d_end), 1.2) + grain + noise
    # grid: thin lines and a fiducial dot near some crossings
    d = np.minimum(_line_dist(xs, s), _line_dist(ys, s))
    ix, iy = np.floor(xs / s + 0.5), np.floor(ys / s + 0.5)
    near = np.hypot(xs - ix * s - 6, ys - iy * s - 6)
    dots = groove(near, 4.0) * (cell_shade(ix, iy) > 0)
    return 0.35 * cell_shade(np.floor(xs / s), np.floor(ys / s)) - 1.2 * groove(d, 0.8) - 1.3 * dots + noise
