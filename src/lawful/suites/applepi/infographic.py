"""The annotated first frame and every reference image the five subtracks compare against.

An :class:`Overlay` is an RGBA layer (``color [H, W, 3]`` float, ``alpha [H, W]`` in 0-1):
the infographic is the clean first frame with the overlay composited on top, and the
annotations-only reference is the same overlay on white. The target-time reference draws
each body where it is at ``t*`` with a borderless orange arrow from its centre along its
velocity and a ``v = number`` label (speed in m/s, no unit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from lawful.suites.applepi.render import Renderer

TEXT_COLOR = (20, 20, 20)
AXES_COLOR = (30, 30, 30)
ARROW_COLOR = (25, 35, 110)  # initial-velocity arrows (dark navy, never orange)
ORANGE = (255, 140, 0)  # target-time velocity arrows
WHITE = (255, 255, 255)


@lru_cache(maxsize=8)
def font(size: int) -> ImageFont.FreeTypeFont:
    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def font_size(height: int) -> int:
    return max(9, round(height / 26))


@dataclass
class Overlay:
    """An RGBA annotation layer; ``boxes`` are the occupied rectangles (x0, y0, x1, y1) for label placement."""

    height: int
    width: int
    color: np.ndarray = field(init=False)
    alpha: np.ndarray = field(init=False)
    boxes: list[tuple[float, float, float, float]] = field(default_factory=list)

    def __post_init__(self):
        self.color = np.zeros((self.height, self.width, 3), np.float32)
        self.alpha = np.zeros((self.height, self.width), np.float32)

    def paint(self, coverage: np.ndarray, color) -> None:
        """Composite a solid ``color`` with ``coverage`` (0-1, ``[H, W]``) over the layer."""
        a = coverage.astype(np.float32)
        new_alpha = a + self.alpha * (1 - a)
        safe = np.maximum(new_alpha, 1e-6)[..., None]
        self.color = (np.asarray(color, np.float32) * a[..., None]
                      + self.color * (self.alpha * (1 - a))[..., None]) / safe
        self.alpha = new_alpha

    def text(self, xy: tuple[float, float], lines: list[str], size: int, color=TEXT_COLOR) -> None:
        img = Image.new("L", (self.width, self.height), 0)
        d = ImageDraw.Draw(img)
        f = font(size)
        y = xy[1]
        for line in lines:
            d.text((xy[0], y), line, font=f, fill=255)
            y += size * 1.2
        self.paint(np.asarray(img, np.float32) / 255.0, color)

    def arrow(self, p0, p1, color, thickness: int, head: float) -> None:
        m = np.zeros((self.height, self.width), np.uint8)
        draw_arrow(m, p0, p1, 255, thickness, head)
        self.paint(m.astype(np.float32) / 255.0, color)

    def over(self, base: np.ndarray) -> np.ndarray:
        out = base.astype(np.float32) * (1 - self.alpha[..., None]) + self.color * self.alpha[..., None]
        return np.clip(out + 0.5, 0, 255).astype(np.uint8)

    def mask(self, level: float = 0.25) -> np.ndarray:
        return self.alpha >= level


def draw_arrow(img: np.ndarray, p0, p1, color, thickness: int, head: float) -> None:
    """A borderless filled arrow (shaft and triangular head) from ``p0`` to ``p1``, anti-aliased."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    n = np.linalg.norm(d)
    if n < 1:
        return
    u = d / n
    v = np.array([-u[1], u[0]])
    head = min(head, 0.6 * n)
    base = p1 - u * head
    hw = thickness / 2
    shaft = [p0 + v * hw, base + v * hw, base - v * hw, p0 - v * hw]
    tip = [p1, base + v * head * 0.55, base - v * head * 0.55]
    for poly in (shaft, tip):
        pts = np.round(np.asarray(poly) * 16).astype(np.int32)
        cv2.fillPoly(img, [pts], color, cv2.LINE_AA, 4)


def text_size(lines: list[str], size: int) -> tuple[float, float]:
    f = font(size)
    w = max((f.getlength(s) for s in lines), default=0.0)
    return w, size * 1.2 * len(lines)


def _overlaps(box, boxes, pad: float = 2.0) -> float:
    x0, y0, x1, y1 = box
    area = 0.0
    for a0, b0, a1, b1 in boxes:
        w = min(x1, a1 + pad) - max(x0, a0 - pad)
        h = min(y1, b1 + pad) - max(y0, b0 - pad)
        if w > 0 and h > 0:
            area += w * h
    return area


def place(size: tuple[float, float], anchor_box, occupied, width: int, height: int, order=("right", "left", "above", "below")):
    """Top-left corner for a text block of ``size`` beside ``anchor_box``, the least-overlapping side first."""
    w, h = size
    x0, y0, x1, y1 = anchor_box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    gap = max(4.0, 0.01 * width)
    cands = {"right": (x1 + gap, cy - h / 2), "left": (x0 - gap - w, cy - h / 2),
             "above": (cx - w / 2, y0 - gap - h), "below": (cx - w / 2, y1 + gap)}
    best, best_cost = None, math.inf
    for rank, side in enumerate(order):
        px, py = cands[side]
        px = min(max(px, 2.0), width - w - 2.0)
        py = min(max(py, 2.0), height - h - 2.0)
        box = (px, py, px + w, py + h)
        cost = _overlaps(box, occupied) * 10 + rank
        if cost < best_cost:
            best, best_cost = (px, py), cost
    return best


def _perturb(value: str) -> str:
    """A wrong reading of a label value (counterfactual perception)."""
    num = "".join(c for c in value if c.isdigit() or c in ".-")
    try:
        v = float(num)
    except ValueError:
        return value
    w = v * 1.5 + 1.0 if v >= 0 else v * 1.5 - 1.0
    s = f"{w:.1f}"
    return value.replace(num, s) if num else s


class Infographic:
    """Annotations for one case at one resolution (built from the renderer's first frame)."""

    def __init__(self, renderer: Renderer, wrong: bool = False):
        self.r = renderer
        self.sc = renderer.scenario
        self.wrong = wrong  # counterfactual perception: misread values and labels on the other side
        h, w = renderer.shape
        self.size = font_size(h)
        self.overlay = self._build()

    def _val(self, v: str) -> str:
        return _perturb(v) if self.wrong else v

    def _build(self) -> Overlay:
        h, w = self.r.shape
        cam = self.r.cam
        ov = Overlay(h, w)
        pos, vel, ang = self.r.state("true", 0.0)
        items = self.r.items(pos, ang)
        body_boxes = [it.bbox() for it in items]
        occupied = list(body_boxes)
        th = max(2, round(h / 160))
        # Coordinate axes near the bottom-left corner, on the floor strip.
        ox, oy = 0.03 * w, cam.ground_row + 0.09 * h
        ax_len = 0.09 * w
        ov.arrow((ox, oy), (ox + ax_len, oy), AXES_COLOR, th, 3.0 * th + 3)
        ov.arrow((ox, oy), (ox, oy - ax_len), AXES_COLOR, th, 3.0 * th + 3)
        small = max(8, round(self.size * 0.8))
        ov.text((ox + ax_len + 2, oy - small * 0.6), ["x"], small)
        ov.text((ox + 4, oy - ax_len - small * 0.6), ["y"], small)
        occupied.append((ox - 2, oy - ax_len - small, ox + ax_len + small, oy + 4))
        # Environment block in the emptier top corner.
        env = [f"{k} = {self._val(v)}" for k, v in self.sc.env_labels.items()]
        env += [f"ground e = {self._val(v)}" if k == "e" else f"ground {k} = {self._val(v)}"
                for k, v in self.sc.ground_labels.items()]
        if env:
            tw, tht = text_size(env, self.size)
            corners = [(0.02 * w, 0.02 * h), (w - tw - 0.02 * w, 0.02 * h)]
            x, y = min(corners, key=lambda c: _overlaps((c[0], c[1], c[0] + tw, c[1] + tht), occupied))
            ov.text((x, y), env, self.size)
            occupied.append((x, y, x + tw, y + tht))
        # Initial-velocity arrows from each moving body's centre.
        for i, b in enumerate(self.sc.bodies):
            v = vel[i]
            if np.hypot(*v) > 1e-6:
                c = np.array(cam.px(pos[i, 0], pos[i, 1]), float)
                L = arrow_length(float(np.hypot(*v)), w)
                d = np.array([v[0], -v[1]]) / np.hypot(*v)
                p1 = c + d * L
                ov.arrow(c, p1, ARROW_COLOR, th, 3.0 * th + 4)
                occupied.append((min(c[0], p1[0]) - th, min(c[1], p1[1]) - th, max(c[0], p1[0]) + th,
                                 max(c[1], p1[1]) + th))
        # Scene labels (θ, L, e, r, table height) at their world points.
        for text, (x, y) in self.sc.scene_labels:
            lines = [self._relabel(text)]
            tw, tht = text_size(lines, self.size)
            X, Y = cam.px(x, y)
            px, py = min(max(float(X) - tw / 2, 2), w - tw - 2), min(max(float(Y) - tht / 2, 2), h - tht - 2)
            ov.text((px, py), lines, self.size)
            occupied.append((px, py, px + tw, py + tht))
        # Each body's labels beside it.
        order = ("left", "right", "above", "below") if self.wrong else ("right", "left", "above", "below")
        for i, b in enumerate(self.sc.bodies):
            lines = [f"{k} = {self._val(v)}" for k, v in b.labels.items()]
            size = text_size(lines, self.size)
            x, y = place(size, body_boxes[i], occupied, w, h, order)
            ov.text((x, y), lines, self.size)
            occupied.append((x, y, x + size[0], y + size[1]))
        ov.boxes = occupied
        return ov

    def _relabel(self, text: str) -> str:
        if not self.wrong or "=" not in text:
            return text
        k, v = text.split("=", 1)
        return f"{k.strip()} = {_perturb(v.strip())}"

    # --- images -------------------------------------------------------------------------
    def annotated(self, clean_first_frame: np.ndarray) -> np.ndarray:
        """The infographic input image: clean first frame plus annotations."""
        return self.overlay.over(clean_first_frame)

    def annotations_only(self) -> np.ndarray:
        """Annotations on pure white (Perception-Text reference)."""
        return self.overlay.over(np.full((*self.r.shape, 3), 255, np.uint8))

    def annotation_mask(self) -> np.ndarray:
        return self.overlay.mask()


def arrow_length(speed: float, width: int) -> float:
    """On-screen arrow length in pixels for a speed in m/s (monotone, clamped to 5-16 % of the width)."""
    return float(np.clip(0.045 * width * speed, 0.05 * width, 0.16 * width))


def objects_only(renderer: Renderer, t: float = 0.0, law: str = "true", mirror: bool = False) -> np.ndarray:
    """Bodies at time ``t`` on pure white (Perception-Graphic reference); ``mirror`` flips their x (counterfactual)."""
    pos, _, ang = renderer.state(law, t)
    if mirror:
        cam = renderer.cam
        cx_world = cam.x0 + cam.width / 2 / cam.ppm
        pos = pos.copy()
        pos[:, 0] = 2 * cx_world - pos[:, 0]
    return renderer.on_canvas(np.full((*renderer.shape, 3), 255, np.uint8), pos, ang)


def target_state(renderer: Renderer, t: float, law: str = "true") -> tuple[np.ndarray, np.ndarray, list[dict]]:
    """Target-time reference at ``t``: scene with bodies, orange velocity arrows and ``v = number`` labels.

    Returns ``(rgb, instance_map, per-body info)``; info has ``centre`` (px, mask centroid),
    ``speed`` (m/s), ``direction`` (unit vector in image axes or None) and ``label``.
    """
    pos, vel, ang = renderer.state(law, t)
    img, inst = renderer.frame(pos, ang)
    h, w = renderer.shape
    cam = renderer.cam
    size = font_size(h)
    ov = Overlay(h, w)
    th = max(3, round(h / 110))
    info = []
    occupied = [it.bbox() for it in renderer.items(pos, ang)]
    arrows = []
    for i, _ in enumerate(renderer.scenario.bodies):
        m = inst == i + 1
        if m.any():
            ys, xs = np.nonzero(m)
            c = np.array([xs.mean(), ys.mean()])
        else:
            c = np.array(cam.px(pos[i, 0], pos[i, 1]), float)
        speed = float(np.hypot(*vel[i]))
        label = f"v = {speed:.2f}" if speed >= 0.005 else "v = 0"
        d = None
        if speed >= 0.005:
            d = np.array([vel[i, 0], -vel[i, 1]]) / speed
            p1 = c + d * arrow_length(speed, w)
            arrows.append((c, p1))
            occupied.append((min(c[0], p1[0]), min(c[1], p1[1]), max(c[0], p1[0]), max(c[1], p1[1])))
        info.append({"centre": c.tolist(), "speed": speed, "direction": None if d is None else d.tolist(),
                     "label": label})
    for c, p1 in arrows:
        ov.arrow(c, p1, ORANGE, th, 3.2 * th + 4)
    for i, it in enumerate(renderer.items(pos, ang)):
        lines = [info[i]["label"]]
        sz = text_size(lines, size)
        x, y = place(sz, it.bbox(), occupied, w, h, ("above", "right", "left", "below"))
        ov.text((x, y), lines, size)
        occupied.append((x, y, x + sz[0], y + sz[1]))
    return ov.over(img), inst, info


def formula_answer(letter: str, formula: str, substituted: str, width: int, height: int) -> np.ndarray:
    """The Formulation-Text answer: three text lines (letter, law, law with values) on pure white."""
    img = Image.new("RGB", (width, height), WHITE)
    d = ImageDraw.Draw(img)
    lines = [letter, formula, substituted]
    size = font_size(height)
    f = font(size)
    while size > 8 and max(f.getlength(s) for s in lines) > 0.92 * width:
        size -= 1
        f = font(size)
    y = 0.25 * height
    for s in lines:
        d.text((0.04 * width, y), s, font=f, fill=TEXT_COLOR)
        y += size * 2.0
    return np.asarray(img)
