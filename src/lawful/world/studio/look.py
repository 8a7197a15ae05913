"""Per-seed appearance of a studio clip: backdrop and floor textures, light, camera noise (:class:`Look`)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Look:
    """Everything about a clip's appearance drawn from its seed."""

    backdrop: str          # checker | gradient | flat | noise | stripes | bricks
    wall: tuple            # two RGB colours (0-1)
    floor: str             # checker | flat | noise | wood
    floor_rgb: tuple
    light_dir: tuple
    ambient: float
    noise_sigma: float     # sensor noise, grey levels
    flicker: float         # global gain amplitude
    jitter_px: float       # camera shake amplitude, px
    subframes: int = 3
    shutter: float = 0.5   # exposure as a fraction of the frame interval


def random_look(rng: np.random.Generator) -> Look:
    def col(lo, hi):
        return tuple(float(v) for v in rng.uniform(lo, hi, 3))

    return Look(
        backdrop=str(rng.choice(["checker", "gradient", "flat", "noise", "stripes", "bricks"])),
        wall=(col(0.35, 0.85), col(0.2, 0.7)),
        floor=str(rng.choice(["checker", "flat", "noise", "wood"])),
        floor_rgb=(col(0.25, 0.7), col(0.15, 0.55)),
        light_dir=(float(rng.uniform(-0.5, 0.5)), float(rng.uniform(0.2, 0.6)), -1.0),
        ambient=float(rng.uniform(0.25, 0.4)),
        noise_sigma=float(rng.uniform(1.5, 3.5)),
        flicker=float(rng.uniform(0.015, 0.03)),
        jitter_px=float(rng.uniform(0.3, 1.0)),
    )


def _png(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    assert ok
    return buf.tobytes()


def procedural(kind: str, c1, c2, rng: np.random.Generator, size: int = 256) -> np.ndarray:
    """A tiling RGB texture (uint8): smooth noise blotches, wood grain, stripes or bricks."""
    c1, c2 = np.asarray(c1, float), np.asarray(c2, float)
    yy, xx = np.mgrid[0:size, 0:size] / size
    if kind == "stripes":
        w = (np.sin(2 * np.pi * (xx * rng.integers(4, 10))) > 0).astype(float)
    elif kind == "bricks":
        rows = rng.integers(6, 12)
        r = np.floor(yy * rows)
        u = (xx * rows / 2 + 0.5 * (r % 2)) % 1
        v = (yy * rows) % 1
        w = ((u > 0.04) & (v > 0.08)).astype(float)
    else:
        small = rng.random((8, 8)) if kind == "noise" else rng.random((4, 16))
        w = cv2.resize(np.tile(small, (2, 2)), (2 * size, 2 * size), interpolation=cv2.INTER_CUBIC)[:size, :size]
        if kind == "wood":
            w = 0.5 + 0.5 * np.sin(2 * np.pi * (yy * 9 + 1.5 * w))
        w = (w - w.min()) / max(np.ptp(w), 1e-9)
    fine = rng.normal(0, 0.04, (size, size))
    img = c2 + (c1 - c2) * np.clip(w + fine, 0, 1)[..., None]
    return np.clip(img * 255, 0, 255).astype(np.uint8)
