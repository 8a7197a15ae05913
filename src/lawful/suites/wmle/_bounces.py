"""Extraction for WMLE P1 (bouncing ball): impacts as the tracked centre's lowest points, a parabola per
flight, impacts at the intersections of consecutive parabolas (time and floor level at sub-frame precision);
P2 (free fall): release, first impact (a ground contact where it reaches the case's ground line), interval
velocities and distances."""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import events as ev
from lawful.perceive import noise
from lawful.perceive.onset import SUSTAIN, onset_time
from lawful.result import Measurement
from lawful.suites.recordings.common import REST_SAMPLES, release_time, rest_position
from lawful.suites.wmle.common import (
    departure_time, event, fill_gaps, interval_slopes, local_poly_value, steady_visible, steady_xy,
)
from lawful.tracks import Tracks

MIN_ARC_SAMPLES = 4
VELOCITY_INTERVALS = 3  # P2: velocity slopes over this many equal sub-intervals of the fall


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
    seen = np.flatnonzero(vis)  # the longest run of samples the ball went unseen between two sightings
    m.notes["longest_gap"] = int(np.diff(seen).max() - 1) if len(seen) > 1 else 0
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


def first_impact(y: np.ndarray, after: np.ndarray, y0: float, y_max: float) -> int:
    """Index of the ground contact: the first sample in the lower half of the drop after which the ball no longer
    moves down by more than its measured noise (a bounce or a stop). A ball that rebounds and settles lower than
    its blurred impact frame must not stretch the fall through the rebound (the clip's lowest point did)."""
    step = noise.step_threshold(noise.sigma(np.where(after, y, np.nan)), floor=0.5)
    idx = np.flatnonzero(after)
    half = y0 + 0.5 * (y_max - y0)
    for a, b in zip(idx[:-1], idx[1:]):
        if y[a] >= half and y[b] - y[a] <= step * (b - a):
            return int(a)
    return int(np.flatnonzero(after & (y >= y_max - 0.5))[0])


def above_ground(case: Case, track, y: np.ndarray, i: int) -> str | None:
    """Why the ball, stopping at sample ``i``, did not reach the ground line ``case.known["ground_y"]``, or None
    (reached, or no ground line stated): its lowest point, one more step on (the step into ``i``), stays above
    the line by more than its radius (from its median mask area). A ball that stops in mid-air (a generator's
    motion freezing mid-fall) makes no ground contact."""
    ground = case.known.get("ground_y")
    area = np.asarray(track.area, float)[np.asarray(track.visible, bool)]
    if ground is None or not len(area) or not math.isfinite(y[i]):
        return None
    r = math.sqrt(float(np.median(area)) / math.pi)
    step = max(0.0, float(y[i] - y[i - 1])) if i > 0 and math.isfinite(y[i - 1]) else 0.0
    gap = float(ground) - (y[i] + r + step)
    if gap <= r:
        return None
    return f"the ball stops {gap:.0f} px above the ground line (radius {r:.1f} px) at sample {i}"


def free_fall_measurement(case: Case, tracks: Tracks) -> Measurement:
    """P2's release time, fall time, distances ``d1_px``–``d3_px`` in three equal intervals (local quadratic at the
    boundaries) and velocity increments over :data:`VELOCITY_INTERVALS` equal sub-intervals (see p02's docstring)."""
    m = Measurement()
    tr, t, vis, _, y = steady_xy(case, tracks, "ball")
    if vis.sum() < 8:
        m.notes["unresolved"] = "ball not tracked"
        return m
    y0 = rest_position(y)
    d = np.where(vis, y - y0, np.nan)
    sigma = noise.sigma(y)
    t_r, how = release_time(case, t, d, sigma)
    if t_r is None:
        m.notes["unresolved"] = f"ball never released: {how}"
        return m
    thr = noise.k_for() * (sigma if math.isfinite(sigma) and sigma > 0 else 0.5)
    after = vis & (t > t_r)
    if after.sum() < 6:
        m.notes["unresolved"] = "too few samples after release"
        return m
    y_max = float(np.nanmax(np.where(after, y, np.nan)))
    i_low = first_impact(y, after, y0, y_max)
    fall = after & (np.arange(len(t)) < i_low)
    if fall.sum() < 6:
        m.notes["unresolved"] = "fall too short to resolve"
        return m
    if how == "onset":  # refine the release time with every sample of the fall (same model, far less noise)
        idx = np.arange(len(t))
        near = (idx >= np.searchsorted(t, t_r) - REST_SAMPLES) & (idx < i_low)  # an earlier twitch is not it
        t_r = departure_time(t, np.where(near, d, np.nan), threshold=thr, n_fit=int(fall.sum()) + 2, n_after=SUSTAIN)
    fall = vis & (t > t_r) & (np.arange(len(t)) < i_low)
    t_end = float(t[np.flatnonzero(fall)[-1]])
    m.events.append(event("ball", "release", float(np.interp(t_r, t, np.arange(len(t)))), tracks))
    if i_low < len(t) - 1 or y_max - y0 > 0:
        off = above_ground(case, tr, y, i_low)
        if off is None:
            m.events.append(event("ball", "ground_contact", float(i_low), tracks))
        else:
            m.notes["no_ground_contact"] = off
    T = t_end - t_r
    v, _ = interval_slopes(t[fall], y[fall], VELOCITY_INTERVALS)
    dv = np.diff(v)
    tf, yf = t[fall], y[fall]
    pos = [0.0] + [local_poly_value(tf, yf, t_r + j * T / 3) - y0 for j in (1, 2, 3)]
    d1, d2, d3 = (pos[j + 1] - pos[j] for j in range(3))
    m.set("release_time_s", t_r)
    m.set("fall_time_s", T)
    m.set("d1_px", d1)
    m.set("d2_px", d2)
    m.set("d3_px", d3)
    if np.all(np.isfinite(dv)):
        m.set("acceleration_px_s2", float(np.mean(dv)) / (fall.sum() // VELOCITY_INTERVALS / tracks.fps))
    m.notes["velocity_increments"] = [float(x) for x in dv]
    return m
