"""The flat renderer's drawable items: shaded spheres and bobs, blocks, cylinders, cones, strings and
springs. Each has ``bbox()`` and ``draw(img, style)``; :class:`lawful.world.draw.Scene` composes them."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from lawful.world.appearance import RGB, Style
from lawful.world.raster import SHIFT, blend, fx, light3, luma, rotated_window, shade, smoothstep, window

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
        win = window(img, self.x - r - 1.5, self.y - r - 1.5, self.x + r + 1.5, self.y + r + 1.5)
        if win is None or r <= 0:
            return
        c0, r0, c1, r1 = win
        dx = (np.arange(c0, c1, dtype=np.float32) - self.x)[None, :] / r
        dy = (np.arange(r0, r1, dtype=np.float32) - self.y)[:, None] / r
        rho2 = dx * dx + dy * dy
        alpha = np.clip((1.0 - np.sqrt(rho2)) * r + 0.5, 0.0, 1.0)
        nz = np.sqrt(np.clip(1.0 - rho2, 0.0, 1.0))
        L = light3(style)
        lam = np.clip(dx * L[0] + dy * L[1] + nz * L[2], 0.0, 1.0)
        H = L + np.array([0.0, 0.0, 1.0])
        H /= np.linalg.norm(H)
        nh = np.clip(dx * H[0] + dy * H[1] + nz * H[2], 0.0, 1.0)
        spec = self.specular * nh**40
        blend(img, win, alpha, shade(self.color, 0.38 + 0.62 * lam, spec))


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
        got = rotated_window(img, self) if self.w > 0 and self.h > 0 else None
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
        edge = smoothstep(-e - 0.75, -e + 0.75, d)
        intensity = (0.86 + 0.12 * grad) * (1.0 - 0.42 * edge)
        blend(img, win, alpha, shade(self.color, intensity))


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
        m = col * 0.3 if luma(self.color) > 110 else col + (255 - col) * 0.7
        return tuple(int(round(v)) for v in m)

    def draw(self, img: np.ndarray, style: Style) -> None:
        r = float(self.r)
        win = window(img, self.x - r - 1.5, self.y - r - 1.5, self.x + r + 1.5, self.y + r + 1.5)
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
        intensity = intensity * (1.0 - 0.3 * smoothstep(r - rim - 0.75, r - rim + 0.75, dist))
        ri = self.inner * r
        if self.hollow:
            inside = 1.0 - smoothstep(ri - 0.75, ri + 0.75, dist)
            lip = np.exp(-(((dist - ri) / max(1.0, 0.05 * r)) ** 2))  # dark inner lip
            intensity = intensity * (1.0 - inside) + 0.42 * inside
            intensity = intensity * (1.0 - 0.25 * lip)
        col = shade(self.color, intensity)
        # Radial marker stripe: centre (or inner rim) out to near the outer rim.
        ux, uy = math.cos(self.angle), math.sin(self.angle)
        t0 = ri + 0.5 if self.hollow else 0.0
        t1 = r - max(1.0, 0.08 * r)
        t = np.clip(dx * ux + dy * uy, t0, t1)
        sd = np.sqrt((dx - t * ux) ** 2 + (dy - t * uy) ** 2)
        hw = max(1.5, 0.09 * r)
        stripe = np.clip(hw - sd + 0.5, 0.0, 1.0)[..., None]
        col = col + (np.asarray(self.marker(), dtype=np.float32) - col) * stripe
        blend(img, win, alpha, col)


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
        got = rotated_window(img, self) if self.r > 0 and self.h > 0 else None
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
        L = light3(style)
        l_local = math.cos(self.angle) * L[0] + math.sin(self.angle) * L[1]
        lam = np.clip(u * l_local + np.sqrt(1.0 - u * u) * L[2], 0.0, 1.0)
        edge = smoothstep(-1.5, -0.5, d_base)
        intensity = (0.4 + 0.6 * lam) * (1.0 - 0.3 * edge)
        blend(img, win, alpha, shade(self.color, intensity))


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
        p = fx([self.p0, self.p1])
        cv2.line(img, tuple(map(int, p[0])), tuple(map(int, p[1])), tuple(map(int, self.color)),
                 self.width, cv2.LINE_AA, SHIFT)


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
        pts = fx(self.points())
        dark = tuple(int(c * 0.55) for c in self.color)
        cv2.polylines(img, [pts], False, dark, self.width + 1, cv2.LINE_AA, SHIFT)
        cv2.polylines(img, [pts], False, tuple(map(int, self.color)), max(1, self.width - 1), cv2.LINE_AA, SHIFT)


Item = Sphere | Block | Cylinder | Cone | String | Spring
