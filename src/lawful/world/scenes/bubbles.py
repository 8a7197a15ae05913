"""Bubble and drop scenes: where each film of a WMLE P39 double bubble lies in the image, stated as region polygons
(the case's ``films``); two drops coalescing (P40)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import cv2
import numpy as np

from lawful.world import flows, matter
from lawful.world import physics_more as pm
from lawful.world.appearance import Style
from lawful.world.draw import Scene

BAND = 7.0  # px each side of a film its region keeps
TRIM_DEG = 30.0  # degrees of outer film left out next to each junction
DARKEN = 0.28  # the backdrop's brightness behind the bubbles


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


def double_bubble_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                         law: str) -> Iterator[np.ndarray]:
    """P39's clip: the joined bubbles bobbing gently over a blurred dark backdrop; the partition an arc of radius
    ``r_partition`` into the larger bubble (law), straight or bulging into the smaller one (``twin``)."""
    scene = Scene(width, height, style)
    # an out-of-focus dark backdrop (a close-up's shallow depth of field)
    back = cv2.GaussianBlur(scene.static_layer.astype(np.float32) * DARKEN, (0, 0), 6.0).astype(np.uint8)
    r_s, r_l = k["r_small"], k["r_large"]
    g = flows.double_bubble(r_s, r_l)
    u = np.array([math.cos(k["axis_rad"]), math.sin(k["axis_rad"])])
    v = np.array([-u[1], u[0]])
    for t in times:
        w = 2 * math.pi * t / k["bob_s"]
        off = k["bob_px"] * np.array([math.sin(w), 0.7 * math.cos(1.3 * w)])
        cs = np.asarray(k["centres"]["small"]) + off
        cl = np.asarray(k["centres"]["large"]) + off
        if law == "true":
            part = ("arc", *(cs + u * g["x_p"]), g["r_p"])
        elif k["twin"] == "reversed":  # the mirror image of the arc about the chord: bulging into the small one
            part = ("arc", *(cs + u * (2 * g["x_j"] - g["x_p"])), g["r_p"])
        else:
            a, b = cs + u * g["x_j"] - v * g["y_j"], cs + u * g["x_j"] + v * g["y_j"]
            part = ("line", a[0], a[1], b[0], b[1])
        yield flows.draw_film(back.copy(), cs, cl, r_s, r_l, part, phase=k["phase"] + 0.8 * t)


def coalescing_drop(k: dict, t: float, law: str) -> matter.Drop:
    """P40's drops at time ``t`` (s): drifting together (the centre of mass at rest), merging through a neck, then one
    drop in a damped l = 2 oscillation about ``r_final`` (``anti_r_final`` under the twin)."""
    d = k["drops"]
    xb, rb, xs, rs = d["big"]["x"], d["big"]["r"], d["small"]["x"], d["small"]["r"]
    xc, y, color = k["x_com"], k["y"], tuple(k["color"])
    rf = k["r_final"] if law == "true" else k["anti_r_final"]
    tc, tm = k["t_contact"], k["t_merge"]
    if t < tc:  # drifting together, the centre of mass at rest
        f = t / tc if tc > 0 else 1.0
        gap_shrink = f * (abs(xs - xb) - rb - rs)
        mb, ms = rb**3, rs**3
        sgn = 1.0 if xs > xb else -1.0
        return matter.Drop(xb + sgn * gap_shrink * ms / (mb + ms), y, rb, rb, color,
                       other=(xs - sgn * gap_shrink * mb / (mb + ms), y, rs), neck=0.0)
    if t < tc + tm:  # merging: the centres close in on the centre of mass, the radii tend to r_f, a neck
        s = (t - tc) / tm
        s = s * s * (3 - 2 * s)
        xb0 = xc + (xb - xc) * (rb + rs) / abs(xs - xb)  # positions at contact
        xs0 = xc + (xs - xc) * (rb + rs) / abs(xs - xb)
        return matter.Drop(xc + (1 - s) * (xb0 - xc), y, rb + s * (rf - rb), rb, color,
                       other=(xc + (1 - s) * (xs0 - xc), y, rs + s * (rf - rs)),
                       neck=(0.25 + 0.5 * s) * rs * (1 - s) + 1e-3)
    u = t - tc - tm
    eps = k["eps0"] * math.exp(-u / k["tau"]) * math.cos(k["omega"] * u)
    a, b = pm.spheroid_axes(rf, eps)
    return matter.Drop(xc, y, a, b, color)


def coalescence_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                       law: str) -> Iterator[np.ndarray]:
    """P40's clip: the drops (:func:`coalescing_drop`) on a plain backdrop."""
    scene = Scene(width, height, style)
    base = scene.frame()
    for t in times:
        img = base.copy()
        coalescing_drop(k, float(t), law).draw(img, scene.style)
        yield img
