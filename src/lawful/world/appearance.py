"""Scene looks: a :class:`Style` for the static layer and a palette of object colours.

Scene colours (backdrop, ground, ramps) are kept at low saturation (HSV S <= 0.25) so
that the saturated object colours of :data:`OBJECT_PALETTE` stay separable by colour.
Colours are RGB tuples of ints 0-255.
"""

from __future__ import annotations

import colorsys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

RGB = tuple[int, int, int]

BACKDROP_TEXTURES = ("tiles", "panels", "bricks", "planks", "grid")
GROUND_TEXTURES = ("speckle", "boards", "stripes")

# Scene colours never exceed this HSV saturation.
SCENE_MAX_SATURATION = 0.25


@dataclass(frozen=True)
class Style:
    """How the static layer and the lighting look.

    ``light_dir`` points from the scene towards the light in image axes (x right, y down),
    so ``(-0.5, -0.8)`` is upper left. ``shadow_strength`` is the peak opacity (0-1) of
    contact shadows. ``seed`` drives the texture noise so a style renders identically.
    """

    backdrop_top: RGB = (196, 201, 208)
    backdrop_bottom: RGB = (226, 226, 222)
    texture: str = "tiles"
    texture_scale: int = 48
    texture_contrast: float = 0.07
    ground_color: RGB = (142, 136, 128)
    ground_texture: str = "speckle"
    ground_edge: RGB = (88, 84, 80)
    ramp_color: RGB = (172, 156, 134)
    light_dir: tuple[float, float] = (-0.6, -0.8)
    shadow_strength: float = 0.55
    seed: int = 0
    name: str = field(default="default")


def _hsv(h: float, s: float, v: float) -> RGB:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(s, SCENE_MAX_SATURATION), v)
    return (round(r * 255), round(g * 255), round(b * 255))


def saturation(color: RGB) -> float:
    """HSV saturation of an RGB colour, 0-1."""
    return colorsys.rgb_to_hsv(*(c / 255 for c in color))[1]


def style_variant(seed: int | None = None) -> Style:
    """The default style for ``None``; otherwise a deterministic variant of it.

    Variants change backdrop colours and texture, ground colour and texture, ramp colour,
    light direction and shadow strength; every scene colour has saturation <= 0.25.
    """
    if seed is None:
        return Style()
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, 0x5EED])
    texture = BACKDROP_TEXTURES[int(seed) % len(BACKDROP_TEXTURES)]
    ground_texture = GROUND_TEXTURES[(int(seed) // len(BACKDROP_TEXTURES)) % len(GROUND_TEXTURES)]
    hue = rng.uniform(0, 1)
    s_back = rng.uniform(0.02, 0.16)
    v_top = rng.uniform(0.55, 0.9)
    v_bottom = float(np.clip(v_top + rng.uniform(-0.12, 0.15), 0.5, 0.95))
    ground_hue = hue + rng.uniform(0.25, 0.75)
    # Ground must differ in brightness from the bottom of the backdrop.
    v_ground = v_bottom - rng.uniform(0.2, 0.35) if v_bottom > 0.62 else v_bottom + rng.uniform(0.15, 0.3)
    ground = _hsv(ground_hue, rng.uniform(0.04, 0.2), float(np.clip(v_ground, 0.25, 0.95)))
    ramp = _hsv(rng.uniform(0.06, 0.12), rng.uniform(0.12, 0.24), rng.uniform(0.5, 0.8))
    angle = rng.uniform(np.deg2rad(200), np.deg2rad(340))  # upper half (y down), left to right
    return Style(
        backdrop_top=_hsv(hue, s_back, v_top),
        backdrop_bottom=_hsv(hue + rng.uniform(-0.05, 0.05), s_back, v_bottom),
        texture=texture,
        texture_scale=int(rng.choice([32, 40, 48, 64, 80])),
        texture_contrast=float(rng.uniform(0.05, 0.11)),
        ground_color=ground,
        ground_texture=ground_texture,
        ground_edge=tuple(int(c * 0.6) for c in ground),
        ramp_color=ramp,
        light_dir=(float(np.cos(angle)), float(np.sin(angle))),
        shadow_strength=float(rng.uniform(0.4, 0.7)),
        seed=int(seed),
        name=f"variant-{int(seed)}",
    )


OBJECT_PALETTE: list[RGB] = [
    (220, 40, 40),  # red
    (40, 90, 225),  # blue
    (40, 175, 60),  # green
    (245, 120, 20),  # orange
    (135, 45, 210),  # purple
    (240, 215, 20),  # yellow
    (20, 190, 210),  # cyan
    (225, 40, 170),  # magenta
]


def object_colors(seed: int | None, k: int) -> list[RGB]:
    """``k`` distinct palette colours, chosen deterministically from ``seed`` (None: palette order)."""
    if not 0 <= k <= len(OBJECT_PALETTE):
        raise ValueError(f"k must be in 0..{len(OBJECT_PALETTE)}, got {k}")
    if seed is None:
        return list(OBJECT_PALETTE[:k])
    order = np.random.default_rng([int(seed) & 0xFFFFFFFF, 0xC0102]).permutation(len(OBJECT_PALETTE))
    return [OBJECT_PALETTE[i] for i in order[:k]]


def color_name(rgb: Sequence[int]) -> str:
    """A plain colour word for a saturated RGB colour (for prompts)."""
    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    if s < 0.25:
        return "grey" if v > 0.25 else "black"
    deg = h * 360
    for limit, name in ((15, "red"), (40, "orange"), (70, "yellow"), (165, "green"), (200, "cyan"),
                        (255, "blue"), (290, "purple"), (340, "magenta"), (361, "red")):
        if deg < limit:
            return name
    return "red"
