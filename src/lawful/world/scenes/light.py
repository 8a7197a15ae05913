"""Scenes of light and projection: a rod with four markers sliding down a wall, seen through a fixed
perspective (WMLE P16); a laser beam refracted into a tank of water (P17); a laser beam on a mirror strip
(P18); four rods' shadows round a lamp, seen from above (P19); four submerged lasers sweeping across the
critical angle under a water surface (P20)."""

from __future__ import annotations

from collections.abc import Iterator

import math

import cv2
import numpy as np

from lawful.world import optics
from lawful.world.appearance import Style, style_variant
from lawful.world.draw import Scene, Sphere
from lawful.world.scenes.beams import draw_housing, surface_quad

ROD_WIDTH = 7.0
MARKERS = ("marker_1", "marker_2", "marker_3", "marker_4")


def marker_drift(s, factor: float) -> float:
    """How far the third marker must creep (share of the rod) for χ to change by ``factor``:
    ``χ = A (s3 − s1) / (s3 − s2)`` with ``A = (s4 − s2) / (s4 − s1)`` solved for ``s3``."""
    s1, s2, s3, s4 = s
    A = (s4 - s2) / (s4 - s1)
    chi = factor * optics.cross_ratio(s)
    return (chi * s2 - A * s1) / (chi - A) - s3


def rod_pose(k: dict, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rod ends (plane px) ``[T, 2]`` each: top on the wall, foot on the floor."""
    u = np.clip((np.asarray(t, float) - k["hold_s"]) / k["slide_s"], 0, 1)
    u = u * u * (3 - 2 * u)
    phi = np.radians(k["phi0_deg"] + (k["phi1_deg"] - k["phi0_deg"]) * u)
    L, wx, fy = k["rod_px"], k["wall_x"], k["floor_y"]
    top = np.stack([np.full_like(phi, wx), fy - L * np.sin(phi)], 1)
    foot = np.stack([wx + L * np.cos(phi), np.full_like(phi, fy)], 1)
    return top, foot


def marker_fractions(k: dict, t: np.ndarray, law: str) -> np.ndarray:
    """Markers' places along the rod (shares of its length) ``[T, 4]``; the twin's ``anti_marker`` creeps."""
    s = np.tile(np.asarray(k["marker_s"], float), (len(t), 1))
    if law == "anti":
        u = np.clip((np.asarray(t, float) - k["hold_s"]) / k["slide_s"], 0, 1)
        s[:, k["anti_marker"] - 1] += k["anti_drift"] * u
    return s


def rod_markers(k: dict, t: np.ndarray, law: str) -> np.ndarray:
    """Marker centres in image px ``[T, 4, 2]``."""
    top, foot = rod_pose(k, t)
    s = marker_fractions(k, t, law)
    plane = top[:, None, :] + s[..., None] * (foot - top)[:, None, :]
    H = np.asarray(k["homography"])
    return optics.apply_homography(H, plane.reshape(-1, 2)).reshape(plane.shape)


def sliding_rod_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray,
                       law: str) -> Iterator[np.ndarray]:
    """Wall, floor and the marked rod sliding down, drawn on the plane and warped by ``k["homography"]``."""
    scene = Scene(width, height, style).ground(k["floor_y"])
    scene.platform(-10, -10, k["wall_x"], k["floor_y"])
    H = np.asarray(k["homography"])
    t = times
    top, foot = rod_pose(k, t)
    s = marker_fractions(k, t, law)
    style = scene.style
    wood = tuple(int(0.55 * c) for c in style.ramp_color)
    for i in range(len(t)):
        img = scene.static_layer.copy()
        d = (foot[i] - top[i]) / np.linalg.norm(foot[i] - top[i])
        n = np.array([-d[1], d[0]]) * ROD_WIDTH / 2
        optics.fill_polygon(img, [top[i] + n, foot[i] + n, foot[i] - n, top[i] - n], wood)
        for j in range(4):
            p = top[i] + s[i, j] * (foot[i] - top[i])
            Sphere(float(p[0]), float(p[1]), k["radius_px"], tuple(k["colors"][j])).draw(img, style)
        yield cv2.warpPerspective(img, H, (width, height), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)


# ----------------------------------------------------------------------------- P20: total internal reflection

TIR_COLORS = ((245, 45, 35), (40, 225, 70), (150, 60, 250), (250, 190, 20))
TIR_NAMES = ("red", "green", "violet", "amber")
TIR_BEAM_PX = 5.0  # beam core width: a 3-px beam loses its colour to 4:2:0 chroma at CRF 35 (n biased by 0.5 %)
TIR_GAP = 7.0  # px kept clear of the surface and the normal by the beam regions
TIR_RADIUS = 150.0  # px from a laser's aperture to its entry point
TIR_TANK = (30.0, 20.0, 610.0, 345.0)
TIR_WATER = (70, 140, 200)


def tir_layout(rng: np.random.Generator, width: int, height: int) -> tuple[float, list[dict]]:
    """Surface row and four beams (draws in this order: row, entry points, colours, sweeps): each beam's name,
    colour, entry point, sweep (deg from the normal, start and end) and its ``in``, ``out``, ``back`` regions
    (water on the laser's side of the normal; air and water on the far side)."""
    ys = float(rng.uniform(140.0, 160.0))
    xs = 182.0 + 115.0 * np.arange(4) + rng.uniform(-6, 6, 4)
    order = rng.permutation(4)
    sweeps = []
    for k in range(4):
        lo, hi = float(rng.uniform(18.0, 30.0)), float(rng.uniform(56.0, 64.0))
        sweeps.append((lo, hi) if rng.integers(2) else (hi, lo))
    beams = []
    left, right, up, down = (np.array(v) for v in ([-1.0, 0.0], [1.0, 0.0], [0.0, -1.0], [0.0, 1.0]))
    for k in range(4):
        p = np.array([xs[k], ys])
        j = int(order[k])
        beams.append({
            "name": TIR_NAMES[j], "color": list(TIR_COLORS[j]), "entry": p.tolist(), "sweep_deg": list(sweeps[k]),
            "in": surface_quad(p, left, down, 3.0, 140, TIR_GAP, TIR_RADIUS - 16, width, height),
            "out": surface_quad(p, right, up, 3.0, 230, TIR_GAP, 135, width, height),
            "back": surface_quad(p, right, down, 3.0, 150, TIR_GAP, 110, width, height),
        })
    return ys, beams


def _tank_backdrop(k: dict, width: int, height: int, style: Style | None) -> np.ndarray:
    """The static picture: backdrop, a pale panel, the tank with its water."""
    scene = Scene(width, height, style)
    img, st = scene.static_layer.copy(), scene.style
    x0, y0, x1, y1 = TIR_TANK
    panel = tuple(int(0.25 * b + 0.75 * p) for b, p in zip(st.backdrop_bottom, (236, 238, 240)))
    optics.fill_polygon(img, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], panel)
    optics.fill_polygon(img, [(x0, k["surface_y"]), (x1, k["surface_y"]), (x1, y1), (x0, y1)], TIR_WATER,
                        alpha=0.35)
    for a, b in ((x0 - 3, x0), (x1, x1 + 3)):
        optics.fill_polygon(img, [(a, y0), (b, y0), (b, y1 + 4), (a, y1 + 4)], (120, 135, 145))
    optics.fill_polygon(img, [(x0 - 3, y1), (x1 + 3, y1), (x1 + 3, y1 + 5), (x0 - 3, y1 + 5)], (120, 135, 145))
    return img


def tir_frames(k: dict, width: int, height: int, style: Style | None, times: np.ndarray, duration: float,
               indices) -> Iterator[np.ndarray]:
    """The tank with four lasers turning (smoothstep over 95 % of ``duration``) about their entry points; beam ``j``
    refracts out as for index ``indices[j]`` (a weak partial reflection beside it) or, past its critical angle, is
    totally reflected."""
    ys = k["surface_y"]
    base = _tank_backdrop(k, width, height, style)
    t = times
    u = np.clip(t / (duration * 0.95), 0, 1)
    u = u * u * (3 - 2 * u)
    for i in range(len(t)):
        img = base.copy()
        for j, b in enumerate(k["beams"]):
            n = indices[j]
            lo, hi = b["sweep_deg"]
            th = math.radians(lo + (hi - lo) * u[i])
            p = np.asarray(b["entry"], float)
            src = p + TIR_RADIUS * np.array([-math.sin(th), math.cos(th)])
            color = tuple(b["color"])
            optics.draw_beam(img, src, p, color, width=TIR_BEAM_PX)
            refr = optics.refract(p - src, [0.0, 1.0], n, 1.0)
            back = np.array([math.sin(th), math.cos(th)])
            if refr is None:
                optics.draw_beam(img, p, p + 600 * back, color, width=TIR_BEAM_PX)
            else:
                optics.draw_beam(img, p, p + 600 * refr, color, width=TIR_BEAM_PX)
                optics.draw_beam(img, p, p + 600 * back, color, opacity=0.25)  # the weak partial reflection
            draw_housing(img, src, p - src, length=26.0, width=10.0)
        x0, _, x1, y1 = (int(v) for v in TIR_TANK)
        wet = slice(int(ys) + 1, None)  # under water the beams end at the tank's walls and bottom
        img[y1 + 1:], img[wet, :x0 - 3], img[wet, x1 + 4:] = base[y1 + 1:], base[wet, :x0 - 3], base[wet, x1 + 4:]
        yield img


# ----------------------------------------------------------------------------- P17: refraction in a tank

GLASS = (120, 135, 145)


def refraction_tank_frames(k: dict, width: int, height: int, style: Style | None, n_frames: int,
                           n: float) -> Iterator[np.ndarray]:
    """A still tank of tinted water before a pale panel; the laser's beam meets the surface at ``k["contact"]`` and
    bends as for index ``n``, ending on the bottom or on a side wall, whichever comes first."""
    xL, yT, xR, yB = k["tank"]
    ys, side = k["surface_y"], k["laser_side"]
    c, src = np.asarray(k["contact"], float), np.asarray(k["source"], float)
    th_r = optics.snell(math.radians(k["theta_i_deg"]), 1.0, n)
    d = np.array([side * math.sin(th_r), math.cos(th_r)])
    s_end = min((yB - ys) / d[1], ((xR if side > 0 else xL) - c[0]) / d[0] if abs(d[0]) > 1e-9 else 1e9)
    scene = Scene(width, height, style)
    img, st = scene.static_layer.copy(), scene.style
    panel = tuple(int(0.25 * b + 0.75 * p) for b, p in zip(st.backdrop_bottom, (238, 240, 240)))
    optics.fill_polygon(img, [(xL, yT), (xR, yT), (xR, yB), (xL, yB)], panel)
    optics.fill_polygon(img, [(xL, ys), (xR, ys), (xR, yB), (xL, yB)], tuple(k["tint"]), alpha=0.45)
    for x0, x1 in ((xL - 3, xL), (xR, xR + 3)):
        optics.fill_polygon(img, [(x0, yT - 4), (x1, yT - 4), (x1, yB + 4), (x0, yB + 4)], GLASS)
    optics.fill_polygon(img, [(xL - 3, yB), (xR + 3, yB), (xR + 3, yB + 5), (xL - 3, yB + 5)], GLASS)
    beam = tuple(k["beam_color"])
    optics.draw_beam(img, src, c, beam)
    optics.draw_beam(img, c, c + (s_end - 1.0) * d, beam)
    draw_housing(img, src, c - src)
    for _ in range(n_frames):
        yield img.copy()


# ----------------------------------------------------------------------------- P18: mirror reflection

MIRROR_COLOR = (58, 64, 76)
MIRROR_THICK = 6.0


def mirror_frames(k: dict, width: int, height: int, style: Style | None, n_frames: int,
                  delta_deg: float) -> Iterator[np.ndarray]:
    """A mirror strip on its stand; the laser's beam meets it at ``k["contact"]`` and leaves at
    ``theta_i_deg + delta_deg`` from the normal, a glow at the contact."""
    c, u, n = (np.asarray(k[x], float) for x in ("contact", "mirror_tangent", "mirror_normal"))
    side = k["laser_side"]
    th_r = math.radians(k["theta_i_deg"] + delta_deg)
    out_dir = -side * math.sin(th_r) * u + math.cos(th_r) * n
    src = np.asarray(k["source"], float)
    scene = Scene(width, height, style)
    img = scene.static_layer.copy()
    m, half = np.asarray(k["mirror_center"], float), k["mirror_half_px"]
    optics.fill_polygon(img, [m - half * u, m + half * u, m + half * u - MIRROR_THICK * n,
                              m - half * u - MIRROR_THICK * n], MIRROR_COLOR)
    stand = m - MIRROR_THICK * n
    optics.fill_polygon(img, [stand - 10 * u, stand + 10 * u, stand + 14 * u - 30 * n, stand - 14 * u - 30 * n],
                        scene.style.ramp_color)
    color = tuple(k["beam_color"])
    optics.draw_beam(img, src, c, color)
    optics.draw_beam(img, c, c + 900 * out_dir, color)
    optics.draw_glow(img, float(c[0]), float(c[1]), 3.0, color, 0.6)
    draw_housing(img, src, c - src)
    for _ in range(n_frames):
        yield img.copy()


# ----------------------------------------------------------------------------- P19: concurrent shadows

SHADOW = (20, 20, 24)


def _smooth_floor(width: int, height: int, style: Style | None, seed) -> np.ndarray:
    """A smooth floor (no grooves, so a shadow is the only dark thing) in the style's colours."""
    st = style if style is not None else style_variant(None)
    rng = np.random.default_rng([int(seed or 0) & 0xFFFFFFFF, 19])
    h, w = height, width
    base = np.asarray(st.backdrop_bottom, np.float32)
    low = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 25)
    low /= max(float(low.std()), 1e-6)
    fine = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 1.2)
    fine /= max(float(fine.std()), 1e-6)
    m = 1.0 + 0.035 * low + 0.012 * fine
    return np.clip(base * m[..., None] + 0.5, 0, 255).astype(np.uint8)


def rod_shadow_frames(k: dict, width: int, height: int, style: Style | None, n_frames: int,
                      turns_deg) -> Iterator[np.ndarray]:
    """Seen from above: the lamp, four rods and their shadows, rod ``j``'s turned by ``turns_deg[j]`` about it from
    the ray from the lamp's foot (widening with distance, as from a point source)."""
    img = _smooth_floor(width, height, style, k.get("style_seed"))
    lamp, rho, kappa = np.asarray(k["lamp"], float), k["rod_radius_px"], k["height_ratio"]
    for j, rod in enumerate(k["rods"]):
        a = math.radians(rod["alpha_deg"] + turns_deg[j])
        e = np.array([math.cos(a), math.sin(a)])
        n = np.array([-e[1], e[0]])
        r = np.array([rod["x"], rod["y"]])
        L = rod["d_px"] * kappa
        w1 = rho * (1.0 + kappa)  # a point source widens the shadow with distance
        optics.fill_polygon(img, [r + rho * n, r + L * e + w1 * n, r + L * e - w1 * n, r - rho * n],
                            SHADOW, alpha=0.6, soft=1.2)
    for rod in k["rods"]:
        optics.draw_disc(img, rod["x"], rod["y"], rho, (70, 72, 78))
        optics.draw_disc(img, rod["x"] - 0.3 * rho, rod["y"] - 0.3 * rho, 0.45 * rho, (200, 204, 210), 0.8)
    optics.draw_glow(img, float(lamp[0]), float(lamp[1]), 14.0, (255, 244, 200), 0.7)
    optics.draw_disc(img, float(lamp[0]), float(lamp[1]), 6.0, (255, 250, 225))
    for _ in range(n_frames):
        yield img.copy()
