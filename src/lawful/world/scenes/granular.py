"""Granular scenes: a small and a large sand pile growing under thin streams (WMLE P35)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.world import matter
from lawful.world.appearance import Style
from lawful.world.draw import Scene


def pile_height(k: dict, oid: str, t: float, duration: float) -> float:
    """Pile height at ``t``: fed at a constant rate, a cone's volume ∝ h³ grows linearly."""
    t0 = k["grow_t0_s"]
    return k["piles"][oid]["h_end"] * ((t + t0) / (duration + t0)) ** (1.0 / 3.0)


def sand_piles_frames(k: dict, width: int, height: int, style: Style | None, seed: int, duration: float,
                      times: np.ndarray, stream_top: float, law: str) -> Iterator[np.ndarray]:
    """Both piles growing at their repose angle (the twin's small pile at ``anti_alpha_deg``)."""
    scene = Scene(width, height, style).ground(k["floor_y"])
    base = scene.frame()
    tex = matter.grain_texture(seed, height, width)
    key = "alpha_deg" if law == "true" else "anti_alpha_deg"
    for i, t in enumerate(times):
        img = base.copy()
        for oid in ("small", "large"):
            p = k["piles"][oid]
            a = p[key]
            matter.SandPile(p["x"], k["floor_y"], pile_height(k, oid, float(t), duration), a, a, texture=tex,
                            stream_top=stream_top, phase=i).draw(img, scene.style)
        yield img
