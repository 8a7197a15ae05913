"""Chain scenes: a beaded chain released from a pinned, kinked shape settles into a catenary (WMLE P7)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from scipy.optimize import brentq

from lawful.world.appearance import Style
from lawful.world.draw import Scene, Sphere

N_BEADS = 7
BEAD_R = 8.0
LINK_R = 2.6
LINK_COLOR = (62, 62, 66)


def catenary_param(span: float, length: float) -> float:
    """Catenary parameter ``a`` (px) of a chain of ``length`` between level supports ``span`` apart."""
    return brentq(lambda a: 2 * a * math.sinh(span / (2 * a)) - length, span / 200, span * 100)


def arc_points(points: np.ndarray, fractions: np.ndarray) -> np.ndarray:
    """Points at the given fractions of arc length along a polyline ``[m, 2]``."""
    seg = np.hypot(*np.diff(points, axis=0).T)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    s = np.asarray(fractions) * cum[-1]
    return np.stack([np.interp(s, cum, points[:, 0]), np.interp(s, cum, points[:, 1])], axis=1)


def settled_chain(k: dict, law: str, n: int = 241) -> tuple[np.ndarray, np.ndarray]:
    """Settled curve ``[n, 2]`` and bead positions ``[N_BEADS, 2]``, both at equal arc-length spacing."""
    (xa, ys), _ = k["supports"]
    a, span = k["catenary_a_px"], k["span_px"]
    u = np.linspace(0.0, 1.0, 4001)
    depth = a * math.cosh(span / (2 * a)) - a * np.cosh((u - 0.5) * span / a)  # below the supports, px
    if law == "anti":  # the same curve warped sideways: its low point moves to the anti fraction
        f = k["anti_low_point_fraction"]
        u = np.where(u <= 0.5, 2 * f * u, f + (1 - f) * 2 * (u - 0.5))
        for _ in range(20):  # keep the chain's length
            seg = np.hypot(np.diff(u) * span, np.diff(depth)).sum()
            if abs(seg - k["chain_length_px"]) < 1e-3:
                break
            depth = depth * (1 + (k["chain_length_px"] - seg) / max(seg - span, 1e-6) * 0.5)
    pts = np.stack([xa + u * span, ys + depth], axis=1)
    curve = arc_points(pts, np.linspace(0, 1, n))
    beads = arc_points(pts, np.linspace(0, 1, N_BEADS))
    return curve, beads


def initial_chain(k: dict, n: int) -> np.ndarray:
    """The pinned, kinked start shape: two straight pieces from the supports to the pin."""
    (xa, ys), (xb, _) = k["supports"]
    px = xa + k["pin_fraction"] * k["span_px"]
    L = k["chain_length_px"]
    # pin depth d so that the two straight pieces have the chain's length
    d = brentq(lambda d: math.hypot(px - xa, d) + math.hypot(xb - px, d) - L, 0.0, L)
    pts = np.array([[xa, ys], [px, ys + d], [xb, ys]])
    return arc_points(pts, np.linspace(0, 1, n))


def chain_shape(k: dict, settle_s: float, times: np.ndarray, law: str, n: int = N_BEADS) -> np.ndarray:
    """Chain points ``[T, n, 2]`` at equal arc-length spacing over time (damped swing into the settled shape)."""
    curve, _ = settled_chain(k, law, n)
    start = initial_chain(k, n)
    dev = np.abs(start - curve).max()
    gamma = math.log(max(dev, 1.0) / 0.05) / settle_s
    w = 2 * math.pi / k["settle_period_s"]
    amp = np.exp(-gamma * np.asarray(times)) * np.cos(w * np.asarray(times))
    return curve[None] + amp[:, None, None] * (start - curve)[None]


def hanging_chain_frames(k: dict, width: int, height: int, style: Style | None, settle_s: float,
                         times: np.ndarray, law: str) -> Iterator[np.ndarray]:
    """Two posts with hooks, the dark chain links and the seven marker beads swinging into their rest shape."""
    scene = Scene(width, height, style).ground(k["ground_y"])
    for x, y in k["supports"]:
        scene.platform(x - 5, y - 4, x + 5, k["ground_y"])  # posts
        scene.support(x - 16, x + 16, y - 6, thickness=5)
    cols = [tuple(c) for c in k["colors"]]
    n_links = int(k["chain_length_px"] / (1.9 * LINK_R))
    links = chain_shape(k, settle_s, times, law, n_links)
    beads = chain_shape(k, settle_s, times, law, N_BEADS)
    # links stop short of the marker beads so no dark pixels touch a bead's outline
    frac = np.linspace(0, 1, n_links)
    gap = (BEAD_R + LINK_R + 1.5) / k["chain_length_px"]
    keep = np.min(np.abs(frac[:, None] - np.linspace(0, 1, N_BEADS)[None, :]), axis=1) > gap
    for i in range(len(times)):
        items = [Sphere(float(x), float(y), LINK_R, LINK_COLOR, specular=0.2) for x, y in links[i][keep]]
        items += [Sphere(float(x), float(y), BEAD_R, cols[j]) for j, (x, y) in enumerate(beads[i])]
        yield scene.frame(items)
