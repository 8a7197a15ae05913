"""Drawing scenarios with the world renderer, plus the exact instance masks of what was drawn.

A :class:`Camera` maps world metres (x right, y up) to pixels (x right, y down): a fixed
pinhole camera facing the plane ``z = 0``, so ``pixels_per_metre`` is the same everywhere
in that plane. Masks follow the renderer's geometry: a pixel belongs to an object when its
centre lies inside the shape (the renderer's coverage is then at least one half).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from lawful.suites.applepi.scenes import Body, Scenario
from lawful.world.appearance import Style, style_variant
from lawful.world.draw import Block, Cone, Cylinder, Scene, Sphere

GROUND_FRACTION = 0.86  # floor surface at this fraction of the image height
TRACK_COLOR = (96, 98, 104)


@dataclass(frozen=True)
class Camera:
    width: int
    height: int
    ppm: float  # pixels per metre in the motion plane
    x0: float  # world x at pixel column 0
    ground_row: float  # pixel row of the floor (world y = 0)
    distance: float = 10.0  # metres from the camera to the motion plane (for intrinsics and depth)

    def px(self, x, y):
        """Pixel coordinates of world points (arrays broadcast)."""
        return (np.asarray(x) - self.x0) * self.ppm, self.ground_row - np.asarray(y) * self.ppm

    def intrinsic(self) -> list[list[float]]:
        f = self.ppm * self.distance
        return [[f, 0.0, self.width / 2], [0.0, f, self.height / 2], [0.0, 0.0, 1.0]]

    def extrinsic(self) -> list[list[float]]:
        """World-to-camera ``[R | t]`` (OpenCV axes: x right, y down, z forward)."""
        cx = self.x0 + self.width / 2 / self.ppm
        cy = (self.ground_row - self.height / 2) / self.ppm
        r = np.diag([1.0, -1.0, -1.0])
        t = -r @ np.array([cx, cy, self.distance])
        return np.hstack([r, t[:, None]]).tolist()

    @classmethod
    def fit(cls, scenario: Scenario, width: int, height: int) -> "Camera":
        wx0, _, wx1, wy1 = scenario.extent()
        ground = GROUND_FRACTION * height
        ppm = min(0.84 * width / (wx1 - wx0), (ground - 0.12 * height) / max(wy1, 1e-6))
        x0 = wx0 - (0.12 * width + 0.5 * (0.84 * width - ppm * (wx1 - wx0))) / ppm  # room for the axes at the left
        return cls(width, height, float(ppm), float(x0), float(ground))


def body_item(body: Body, cam: Camera, x: float, y: float, angle: float):
    """The world-renderer item for ``body`` with centre at world ``(x, y)``."""
    X, Y = cam.px(x, y)
    X, Y = float(X), float(Y)
    w, h = body.width * cam.ppm, body.height * cam.ppm
    if body.shape == "sphere":
        return Sphere(X, Y, w / 2, body.color)
    if body.shape == "cube":
        return Block(X, Y, w, h, float(angle), body.color)
    if body.shape == "cylinder":
        return Cylinder(X, Y, w / 2, body.color, float(angle))
    if body.shape == "cone":
        return Cone(X, Y, w / 2, h, float(angle), body.color)
    raise ValueError(f"unknown shape {body.shape!r}")


def item_mask(item, shape: tuple[int, int]) -> np.ndarray:
    """``bool [H, W]``: pixels whose centre lies inside the item's silhouette."""
    h, w = shape
    x0, y0, x1, y1 = item.bbox()
    c0, r0 = max(int(math.floor(x0)) - 1, 0), max(int(math.floor(y0)) - 1, 0)
    c1, r1 = min(int(math.ceil(x1)) + 2, w), min(int(math.ceil(y1)) + 2, h)
    out = np.zeros((h, w), bool)
    if c0 >= c1 or r0 >= r1:
        return out
    dx = (np.arange(c0, c1, dtype=np.float32) - item.x)[None, :]
    dy = (np.arange(r0, r1, dtype=np.float32) - item.y)[:, None]
    if isinstance(item, (Sphere, Cylinder)):
        inside = dx * dx + dy * dy <= item.r * item.r
    else:
        c, s = math.cos(item.angle), math.sin(item.angle)
        qx = c * dx + s * dy
        qy = -s * dx + c * dy
        if isinstance(item, Block):
            inside = (np.abs(qx) <= item.w / 2) & (np.abs(qy) <= item.h / 2)
        else:  # Cone
            hh, r = item.h / 2, item.r
            n = math.hypot(item.h, r)
            d = np.maximum(qy - hh, np.maximum((item.h * qx - r * (qy + hh)) / n, (-item.h * qx - r * (qy + hh)) / n))
            inside = d <= 0
    out[r0:r1, c0:c1] = inside
    return out


class Renderer:
    """Renders one scenario at one resolution: frames, instance maps, bodies-only images."""

    def __init__(self, scenario: Scenario, width: int, height: int, style: Style | None = None):
        self.scenario = scenario
        self.cam = Camera.fit(scenario, width, height)
        self.style = style if style is not None else style_variant(None)
        self.scene = Scene(width, height, self.style)
        self.scene.ground(self.cam.ground_row)
        for poly in scenario.ramps:
            self.scene.ramp([tuple(map(float, self.cam.px(x, y))) for x, y in poly])
        for x0, y0, x1, y1 in scenario.platforms:
            (X0, Y0), (X1, Y1) = self.cam.px(x0, y0), self.cam.px(x1, y1)
            self.scene.platform(float(X0), float(Y0), float(X1), float(Y1))

    @property
    def shape(self) -> tuple[int, int]:
        return self.cam.height, self.cam.width

    def items(self, pos: np.ndarray, ang: np.ndarray) -> list:
        """Renderer items for one time step: ``pos [N, 2]`` world centres, ``ang [N]``."""
        return [body_item(b, self.cam, pos[i, 0], pos[i, 1], ang[i]) for i, b in enumerate(self.scenario.bodies)]

    def _tracks(self, img: np.ndarray) -> None:
        th = max(2, round(self.cam.height / 80))
        for cx, cy, r in self.scenario.loops:
            X, Y = self.cam.px(cx, cy)
            rp = r * self.cam.ppm + th / 2 + 0.5
            cv2.circle(img, (int(round(X * 16)), int(round(float(Y) * 16))), int(round(rp * 16)), TRACK_COLOR, th,
                       cv2.LINE_AA, 4)

    def frame(self, pos: np.ndarray, ang: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """RGB ``[H, W, 3]`` and instance ids ``uint8 [H, W]`` (0 background, i+1 body i; later bodies on top)."""
        items = self.items(pos, ang)
        img = self.scene.frame(items)
        self._tracks(img)
        inst = np.zeros(self.shape, np.uint8)
        for i, it in enumerate(items):
            inst[item_mask(it, self.shape)] = i + 1
        return img, inst

    def on_canvas(self, canvas: np.ndarray, pos: np.ndarray, ang: np.ndarray) -> np.ndarray:
        """Bodies drawn over a given canvas (e.g. white), without scene or shadows."""
        img = canvas.copy()
        for it in self.items(pos, ang):
            it.draw(img, self.style)
        return img

    def state(self, law: str, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pos, vel, ang = self.scenario.motion(law, [t])
        return pos[0], vel[0], ang[0]

    def render(self, law: str, t: float) -> tuple[np.ndarray, np.ndarray]:
        pos, _, ang = self.state(law, t)
        return self.frame(pos, ang)
