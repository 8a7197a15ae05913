"""Beam readers shared by the WMLE optics tasks P17–P20: lines read from region series, their angles to a
surface normal, and region polygons from a case; per-frame refraction (P17), reflection (P18) and
shadow-axis concurrence (P19) readings. The drawing kit (beam colours, housing, region polygons
in a surface's frame) is :mod:`lawful.world.scenes.beams`, re-exported here for the tasks.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world import optics
from lawful.world.scenes.beams import (  # noqa: F401  (re-exported: P17–P20 draw with them)
    BEAM_COLORS, HOUSING, beam_color, draw_housing, surface_quad,
)

# a beam's band is at most this share of its length wide (√12 · rms), past the 4-px floor of
# :data:`lawful.perceive.beam.LINE_FLOOR`: read beams measured at most 0.096 of their length at 640 px (P17, P18,
# P20 in both render styles); selections that also held a backdrop of the beam's hue read 0.19-0.45 past the floor
# (studio P17 seeds 1004, 1006, 1007, clean and under CRF 35: 0-12 deg read for 33-48 deg beams). A shadow is no
# beam: its band may be wide (P19 read 0.77)
THIN = 0.15


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


def refraction_frame(inc, ref, row: float) -> tuple[float, float]:
    """``(sin θi / sin θr, |p_i − p_r| px)`` from the incident and refracted lines ``(point, direction)`` and
    the surface row (a horizontal surface: the normal is the image vertical)."""
    normal = np.array([0.0, 1.0])
    si = math.sin(angle_from_normal(inc[1], normal))
    sr = math.sin(angle_from_normal(ref[1], normal))
    xs = []
    for p, d in (inc, ref):
        xs.append(p[0] + (row - p[1]) * d[0] / d[1] if abs(d[1]) > 1e-9 else math.nan)
    return (si / sr if sr > 0 else math.nan), abs(xs[0] - xs[1])


def refraction_measurement(tracks: Tracks) -> Measurement:
    """Per frame with the ``incident``, ``refracted`` lines and the ``surface`` row read: the sines' ratio and the
    gap between the lines' surface crossings (``notes['ratio']``, ``notes['gap_px']``)."""
    m = Measurement()
    ratios, gaps = [], []
    lev = tracks.regions.get("surface")
    for i in range(len(tracks)):
        inc, ref = line_at(tracks, "incident", i), line_at(tracks, "refracted", i)
        if inc is None or ref is None or lev is None or not lev.ok[i]:
            continue
        ratio, gap = refraction_frame(inc, ref, float(lev["row"][i]))
        ratios.append(ratio)
        gaps.append(gap)
    m.notes["ratio"], m.notes["gap_px"] = ratios, gaps
    m.set("sin_ratio", float(np.median(ratios)) if ratios else None, "beams or surface not read")
    return m


def reflection_frame(inc, ref, mirror, mirror_rms: float) -> tuple[float, float, float]:
    """``(θi, θr, contact error px)`` from three lines ``(point, direction)``; the mirror face is the strip's
    centre line moved by half its thickness (``rms·√12 / 2``) towards the incident beam."""
    (pi, di), (pr, dr), (pm, dm) = inc, ref, mirror
    n = np.array([-dm[1], dm[0]])
    if (pi - pm) @ n < 0:
        n = -n
    face = pm + n * mirror_rms * math.sqrt(12.0) / 2
    th_i = math.degrees(angle_from_normal(di, n))
    th_r = math.degrees(angle_from_normal(dr, n))
    c = optics.intersect(pi, di, face, dm)
    err = optics.point_line_distance(c, pr, dr) if c is not None else math.nan
    return th_i, th_r, err


def reflection_measurement(tracks: Tracks) -> Measurement:
    """Per frame with the ``incident``, ``reflected`` and ``mirror`` lines read: ``|θi − θr|`` and the contact error
    (``notes['e_deg']``, ``notes['contact_err_px']``; the angles in ``notes['theta_i_deg']``, ``['theta_r_deg']``)."""
    m = Measurement()
    e_deg, err = [], []
    for i in range(len(tracks)):
        lines = [line_at(tracks, nm, i) for nm in ("incident", "reflected", "mirror")]
        if any(v is None for v in lines):
            continue
        th_i, th_r, e = reflection_frame(*lines, float(tracks.regions["mirror"]["rms"][i]))
        e_deg.append(abs(th_i - th_r))
        err.append(e)
        m.notes.setdefault("theta_i_deg", []).append(round(th_i, 4))
        m.notes.setdefault("theta_r_deg", []).append(round(th_r, 4))
    m.notes["e_deg"], m.notes["contact_err_px"] = e_deg, err
    m.set("theta_i_deg", float(np.median(m.notes["theta_i_deg"])) if e_deg else None, "rays not read")
    m.set("theta_r_deg", float(np.median(m.notes["theta_r_deg"])) if e_deg else None, "rays not read")
    return m


def shadows_frame(lines) -> tuple[float, float, np.ndarray | None]:
    """``(RMS distance to the common point px, mean(std x_k, std y_k) px, common point)`` of lines
    ``[(point, direction), …]``."""
    pts = np.array([p for p, _ in lines], float)
    dirs = np.array([d for _, d in lines], float)
    x, rms = optics.concurrence(pts, dirs)
    inter = optics.pairwise_intersections(pts, dirs)
    spread = float(np.mean(inter.std(0))) if len(inter) >= 2 else math.nan
    return rms, spread, x


def shadows_measurement(tracks: Tracks, names) -> Measurement:
    """Per frame with every line in ``names`` read: their concurrence RMS and pairwise intersections' spread
    (``notes['rms_px']``, ``notes['spread_px']``; the common point in ``notes['common_point']``)."""
    m = Measurement()
    rms, spread = [], []
    for i in range(len(tracks)):
        lines = [line_at(tracks, nm, i) for nm in names]
        if any(v is None for v in lines):
            continue
        r, s, x = shadows_frame(lines)
        rms.append(r)
        spread.append(s)
        if x is not None:
            m.notes.setdefault("common_point", []).append([round(float(v), 3) for v in x])
    m.notes["rms_px"], m.notes["spread_px"] = rms, spread
    m.set("concurrence_rms_px", float(np.median(rms)) if rms else None, "shadow axes not read")
    return m
