"""Raster primitives shared by the flat renderer's shapes and scenes: fixed-point points, clipped
windows, alpha compositing, shading and smooth noise. Pixels as in :mod:`lawful.world.draw`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import cv2
import numpy as np

from lawful.world.appearance import RGB, Style

SHIFT = 4  # cv2 sub-pixel bits
SCALE = 1 << SHIFT
SHADOW_COLOR = np.array([28.0, 28.0, 30.0], dtype=np.float32)




def fx(points: Iterable[Sequence[float]]) -> np.ndarray:
    """Points as cv2 fixed-point int32 ``[N, 2]`` for ``shift=SHIFT``."""
    return np.round(np.asarray(list(points), dtype=np.float64) * SCALE).astype(np.int32)


def window(img: np.ndarray, x0: float, y0: float, x1: float, y1: float):
    """Integer window clipped to the image: ``(c0, r0, c1, r1)`` or None if empty."""
    h, w = img.shape[:2]
    c0, r0 = max(int(math.floor(x0)), 0), max(int(math.floor(y0)), 0)
    c1, r1 = min(int(math.ceil(x1)) + 1, w), min(int(math.ceil(y1)) + 1, h)
    if c0 >= c1 or r0 >= r1:
        return None
    return c0, r0, c1, r1

def rotated_window(img: np.ndarray, item) -> tuple | None:
    """The window around ``item``'s box in ``img`` and each pixel's offset from the item's centre.

    Returns ``((c0, r0, c1, r1), dx, dy, qx, qy)``: ``dx, dy`` in image axes, ``qx`` along the item's
    rotated x axis and ``qy`` across it (all broadcastable ``[rows, cols]``); None when off-screen.
    """
    x0, y0, x1, y1 = item.bbox()
    win = window(img, x0 - 1.5, y0 - 1.5, x1 + 1.5, y1 + 1.5)
    if win is None:
        return None
    c0, r0, c1, r1 = win
    dx = (np.arange(c0, c1, dtype=np.float32) - item.x)[None, :]
    dy = (np.arange(r0, r1, dtype=np.float32) - item.y)[:, None]
    c, s = math.cos(item.angle), math.sin(item.angle)
    return win, dx, dy, c * dx + s * dy, -s * dx + c * dy



def blend(img: np.ndarray, win, alpha: np.ndarray, color: np.ndarray) -> None:
    """Composite ``color`` (``[h, w, 3]`` or ``[3]`` float) over ``img[win]`` with coverage ``alpha``."""
    c0, r0, c1, r1 = win
    roi = img[r0:r1, c0:c1]
    a = alpha[..., None]
    out = roi.astype(np.float32)
    out += (color - out) * a
    np.clip(out, 0, 255, out=out)
    roi[...] = (out + 0.5).astype(np.uint8)


def smoothstep(e0: float, e1: float, x: np.ndarray) -> np.ndarray:
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def light3(style: Style) -> np.ndarray:
    """Unit light vector (x right, y down, z towards the viewer)."""
    lx, ly = style.light_dir
    v = np.array([0.6 * lx, 0.6 * ly, 0.8])
    return v / np.linalg.norm(v)


def shade(color: RGB, intensity: np.ndarray, spec: np.ndarray | None = None) -> np.ndarray:
    """``color * intensity`` plus a white specular blend; hue is preserved. ``[h, w, 3]`` float32."""
    col = np.asarray(color, dtype=np.float32)[None, None, :] * intensity[..., None]
    if spec is not None:
        col += (255.0 - col) * spec[..., None]
    return col


def luma(color: Sequence[float]) -> float:
    return 0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2]


def smooth_noise(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Smooth noise in about [-1, 1], ``[h, w]`` float32, features about ``cell`` px wide."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC) * 0.6


def line_dist(v: np.ndarray, period: float) -> np.ndarray:
    """Distance (px) from coordinate ``v`` to the nearest multiple of ``period``."""
    m = np.mod(v, period)
    return np.minimum(m, period - m)


# ----------------------------------------------------------------------------- items
