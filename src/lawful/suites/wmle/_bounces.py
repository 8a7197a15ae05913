"""Extraction for WMLE P1 (bouncing ball): impacts as the tracked centre's lowest points, a parabola per
flight, impacts at the intersections of consecutive parabolas (time and floor level at sub-frame precision)."""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import events as ev
from lawful.perceive import noise
from lawful.perceive.onset import onset_time
from lawful.result import Measurement
from lawful.suites.wmle.common import event, fill_gaps, steady_visible
from lawful.tracks import Tracks

MIN_ARC_SAMPLES = 4


def _fit_arc(t: np.ndarray, y: np.ndarray, sel: np.ndarray) -> np.ndarray | None:
    if sel.sum() < MIN_ARC_SAMPLES:
        return None
    p = np.polyfit(t[sel], y[sel], 2)
    return p if p[0] > 0 else None  # image y grows down: gravity makes a > 0


def _meet(p1: np.ndarray, p2: np.ndarray, t_near: float) -> float | None:
    """Time near ``t_near`` where two parabolas ``y(t)`` meet."""
    d = p1 - p2
    roots = np.roots(d) if abs(d[0]) > 1e-12 else np.roots(d[1:])
    roots = [float(r.real) for r in np.atleast_1d(roots) if abs(r.imag) < 1e-9]
    if not roots:
        return None
    return min(roots, key=lambda r: abs(r - t_near))


def bounce_measurement(case: Case, tracks: Tracks) -> Measurement:
    """Impacts, rebound apexes, rebound heights and flight times (``notes``: ``heights``, ``flights``,
    ``trackable``, ``moved``) and the mean height- and timing-based restitutions of the ball ``ball``."""
    m = Measurement()
    tr = tracks["ball"]
    t = np.asarray(tracks.t, float)
    vis = steady_visible(tr, (case.width, case.height))
    y = np.where(vis, np.asarray(tr.y, float), np.nan)
    m.notes["trackable"] = bool(vis.mean() >= 0.5 and vis.sum() >= 8)
    first = int(np.flatnonzero(vis)[0]) if vis.any() else 0
    b = tr.box[first]
    r = 0.25 * float((b[2] - b[0]) + (b[3] - b[1])) if vis.any() else 5.0
    m.notes["moved"] = bool(vis.any() and np.nanmax(y) - np.nanmin(y) > r)
    if not m.notes["trackable"]:
        m.notes.update(heights=[], flights=[])
        return m
    prom = max(2.0, 0.3 * r)
    imp = [p for p in ev.turning_points(fill_gaps(y), "max", prominence=prom)]
    # flights between consecutive impacts, the drop before the first
    bounds = [-np.inf] + imp + [np.inf]
    idx = np.arange(len(t))
    arcs = []
    for a, bnd in zip(bounds[:-1], bounds[1:]):
        sel = (idx >= a + 1) & (idx <= bnd - 1) & np.isfinite(y)
        if a == -np.inf:  # the drop: only samples from the release on (a sustained onset beyond k·σ√2)
            sig = noise.track_noise(tr, vis).sigma_y
            t_r, _ = onset_time(t, y - y[first], sig * math.sqrt(2.0) if math.isfinite(sig) else math.nan)
            sel &= (t >= t_r) if t_r is not None else (idx == first)
        arcs.append(_fit_arc(t, y, sel))
    times, levels = [], []
    for i, p in enumerate(imp):
        tn = float(np.interp(p, idx, t))
        a1, a2 = arcs[i], arcs[i + 1] if i + 1 < len(arcs) else None
        tm = _meet(a1, a2, tn) if a1 is not None and a2 is not None else None
        if tm is not None and abs(tm - tn) < 2.0 / max(tracks.fps, 1e-9):
            times.append(tm)
            levels.append(float(np.polyval(a1, tm)))
        else:
            times.append(None)
    y_floor = float(np.median(levels)) if levels else math.nan
    heights, flights, apex_t = [], [], []
    for k in range(len(imp) - 1):  # rebound after impact k, complete if impact k+1 is seen
        arc = arcs[k + 1]
        if arc is None or times[k] is None or times[k + 1] is None:
            if heights:
                break  # keep a run of consecutive rebounds only
            continue
        tv = -arc[1] / (2 * arc[0])
        yv = float(np.polyval(arc, tv))
        h = y_floor - yv
        if h <= 1.0:
            break
        heights.append(h)
        flights.append(times[k + 1] - times[k])
        apex_t.append(tv)
    for k, tm in enumerate(times):
        if tm is not None:
            m.events.append(event("ball", "impact", float(np.interp(tm, t, idx)), tracks, value=y_floor))
    for tv, h in zip(apex_t, heights):
        m.events.append(event("ball", "rebound_apex", float(np.interp(tv, t, idx)), tracks, value=h))
    m.set("n_rebounds", float(len(heights)))
    m.set("floor_level_px", y_floor, "no impact resolved")
    m.notes.update(heights=heights, flights=flights, impact_times=[x for x in times if x is not None])
    if len(heights) >= 2:
        e_h = np.sqrt(np.asarray(heights[1:]) / np.asarray(heights[:-1]))
        m.set("restitution_height", float(np.mean(e_h)))
        m.set("restitution_timing", float(np.mean(np.asarray(flights[1:]) / np.asarray(flights[:-1]))))
    return m
