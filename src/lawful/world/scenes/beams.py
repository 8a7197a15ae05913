"""Beam kit of the WMLE optics scenes P17–P20: beam colours, a laser housing and region polygons in a
surface's own frame.

A surface frame is a contact point ``c``, a unit tangent ``u`` and the unit normal ``n`` towards the
light; :func:`surface_quad` gives the polygon ``{c + a u + b n : a ∈ [a0, a1], b ∈ [b0, b1]}`` cut to the
frame, which is how the tasks state where each beam may be (``case.known``), so a hand-written case
for a real video can state the same regions.
"""

from __future__ import annotations

import numpy as np

from lawful.world import optics

# Saturated laser colours (RGB): far in Lab from the low-saturation scene colours.
BEAM_COLORS = {"red": (245, 45, 35), "green": (40, 225, 70), "violet": (150, 60, 250)}
HOUSING = (52, 54, 60)


def beam_color(seed: int, avoid: tuple[str, ...] = ()) -> tuple[str, tuple[int, int, int]]:
    """A beam colour picked by ``seed`` among those not in ``avoid``."""
    names = [k for k in BEAM_COLORS if k not in avoid]
    name = names[int(seed) % len(names)]
    return name, BEAM_COLORS[name]


def surface_quad(c, u, n, a0: float, a1: float, b0: float, b1: float, width: int, height: int) -> list:
    """The polygon ``c + a u + b n`` over ``[a0, a1] × [b0, b1]`` cut to the frame, ``[[x, y], …]``."""
    c, u, n = (np.asarray(v, float) for v in (c, u, n))
    pts = [c + a * u + b * n for a, b in ((a0, b0), (a1, b0), (a1, b1), (a0, b1))]
    return [list(p) for p in optics.clip_polygon(pts, width, height)]


def draw_housing(img: np.ndarray, tip, direction, length: float = 34.0, width: float = 12.0) -> None:
    """A laser pointer's body behind its aperture ``tip``, aimed along ``direction``."""
    d = np.asarray(direction, float) / np.linalg.norm(direction)
    n = np.array([-d[1], d[0]]) * width / 2
    tip = np.asarray(tip, float)
    back = tip - d * length
    optics.fill_polygon(img, [tip + n, tip - n, back - n, back + n], HOUSING)
    optics.fill_polygon(img, [tip + 0.5 * n, tip - 0.5 * n, tip - 0.5 * n - 3 * d, tip + 0.5 * n - 3 * d],
                        (20, 20, 22))
