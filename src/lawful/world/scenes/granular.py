"""Granular scenes: a small and a large sand pile growing under thin streams (WMLE P35); water and sand
draining from twin cone funnels (P36)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.world import flows, matter
from lawful.world.matter import grain_texture
from lawful.world.appearance import Style
from lawful.world.draw import Scene

PILES = ("small", "large")  # P35's sand piles
MATERIALS = ("water", "sand")  # P36's funnels' contents
BETA_LAW = {"water": 0.5, "sand": 0.0}  # P36: level-drop rate's exponent in the head (Torricelli; Beverloo)
INSET = 6.0  # px P36's level region keeps from the walls


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


def funnels_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray, beta_law: dict,
                   law: str) -> Iterator[np.ndarray]:
    """Both funnels draining, their heads following ``Q ∝ h^β`` (``beta_law``; the twin's water at β = 0)."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    t = times
    tex = grain_texture(int(k["style_seed"]), height, width)
    heads = {}
    for m in ("water", "sand"):
        f = k["funnels"][m]
        beta, T = beta_law[m], f["t_empty_s"]
        if m == "water" and law == "anti":
            beta, T = 0.0, k["anti_t_empty_s"]
        heads[m] = flows.drain_head(t, k["h0_px"], T, beta)
    for i in range(len(t)):
        img = scene.static_layer.copy()
        for m in ("water", "sand"):
            f = k["funnels"][m]
            (x, ya), hh = f["apex"], float(heads[m][i])
            w = 3.2 * (hh / k["h0_px"]) ** 0.25 if m == "water" and law == "true" else 3.2  # Torricelli jet
            flows.draw_funnel(img, x, ya, f["rim_y"], f["tan_half_angle"], ya - hh,
                              k["liquid"] if m == "water" else k["sand"], tex if m == "sand" else None,
                              stem=k["stem_px"], outlet=k["outlet_px"], stream_to=k["ground_y"], stream_w=w,
                              glass=tuple(k["glass"]))
        yield img
