"""Soap-bubble geometry of the WMLE double-bubble scene (P39): where each film of a double bubble lies in the
image, stated as region polygons (the case's ``films``)."""

from __future__ import annotations

import math

import numpy as np

from lawful.world import flows

BAND = 7.0  # px each side of a film its region keeps
TRIM_DEG = 30.0  # degrees of outer film left out next to each junction


def _sector(c, r: float, a0: float, a1: float, band: float, n: int = 24) -> list[list[float]]:
    """An annular sector polygon around the circle ``(c, r)`` between angles ``a0 < a1`` (radians)."""
    a = np.linspace(a0, a1, n)
    outer = [[c[0] + (r + band) * math.cos(v), c[1] + (r + band) * math.sin(v)] for v in a]
    inner = [[c[0] + (r - band) * math.cos(v), c[1] + (r - band) * math.sin(v)] for v in a[::-1]]
    return outer + inner


def film_regions(cs, r_s: float, r_l: float, phi: float) -> dict[str, list[list[float]]]:
    """The three films' regions (px polygons) of a double bubble whose small bubble is centred at ``cs`` and whose
    axis (small → large) points along image angle ``phi``: a band of :data:`BAND` px about each outer film's far
    side (:data:`TRIM_DEG` clear of the junctions) and a quadrilateral about the partition between them."""
    g = flows.double_bubble(r_s, r_l)
    cs = np.asarray(cs, float)
    u = np.array([math.cos(phi), math.sin(phi)])
    v = np.array([-u[1], u[0]])
    cl = cs + u * g["d"]
    a_s = math.atan2(g["y_j"], g["x_j"])  # junction angle seen from each centre, in the axis frame
    a_l = math.atan2(g["y_j"], g["x_j"] - g["d"])
    trim = math.radians(TRIM_DEG)
    films = {"small": _sector(cs, r_s, phi + a_s + trim, phi + 2 * math.pi - a_s - trim, BAND),
             "large": _sector(cl, r_l, phi - a_l + trim, phi + a_l - trim, BAND)}
    sag = g["r_p"] - math.sqrt(g["r_p"] ** 2 - g["y_j"] ** 2)
    hx, hy = sag + BAND, 0.72 * g["y_j"]
    films["partition"] = [list(cs + u * (g["x_j"] + a) + v * b) for a, b in
                          ((-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy))]
    return films
