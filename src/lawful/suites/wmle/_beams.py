"""Beam readers shared by the WMLE optics tasks P17–P20: lines read from region series, their angles to a
surface normal, and region polygons from a case. The drawing kit (beam colours, housing, region polygons
in a surface's frame) is :mod:`lawful.world.scenes.beams`, re-exported here for the tasks.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.tracks import Tracks
from lawful.world.scenes.beams import (  # noqa: F401  (re-exported: P17–P20 draw with them)
    BEAM_COLORS, HOUSING, beam_color, draw_housing, surface_quad,
)


def line_at(tracks: Tracks, name: str, i: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Line ``(point, unit direction)`` of region ``name`` at sample ``i`` (first-frame px); None if unread."""
    r = tracks.regions.get(name)
    if r is None or not r.ok[i]:
        return None
    a = float(r["angle"][i])
    return np.array([r["x"][i], r["y"][i]], float), np.array([math.cos(a), math.sin(a)])


def angle_from_normal(d: np.ndarray, normal: np.ndarray) -> float:
    """Angle (rad, 0–π/2) between the undirected line along ``d`` and the normal."""
    c = abs(float(d @ normal)) / (np.linalg.norm(d) * np.linalg.norm(normal))
    return math.acos(min(1.0, c))


def polygon(case: Case, key: str) -> list[tuple[float, float]]:
    """A region polygon stated in ``case.known[key]``."""
    return [tuple(map(float, p)) for p in case.known[key]]
