"""Measurement of the Principia drop task: a dropped ball's drop height, fall time and first rebound height."""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import events, noise
from lawful.result import Measurement
from lawful.suites.principia._common import (
    DCS_FALSE_ALARM,
    add_event,
    coord_noise,
    first_unseen,
    unseen_how,
    first_value,
    half_height,
    fit_parabola,
    parabola_level_time,
    parabola_vertex,
    record_dcs,
    whole,
)
from lawful.tracks import Tracks

ARC_TOL_MIN = 0.3  # px: least drop of the per-frame step that ends a rebound arc (sub-pixel centroid resolution)


def measure_ball(m: Measurement, tracks: Tracks, case: Case, oid: str, ground_y: float, t_r: float | None) -> dict:
    """Drop height, fall time (from release ``t_r``) and rebound height of one ball (None where not found, with
    a reason). A ball lost before its first impact (beyond a gap it falls straight through) is judged on what was
    seen before the loss, and its three quantities are unmeasurable: an "impact" found after it may belong to
    another blob (a CRF-35 copy's ball followed a floor patch from its bounce on and "landed" 0.3 s late)."""
    tr = tracks[oid]
    y = np.where(whole(tr), tr.y, np.nan)  # partial masks are left out of the sub-pixel fits
    t = np.asarray(tr.t, float)
    out = {"h": None, "t": None, "r": None}
    y0, half = first_value(y), half_height(tr)
    if not (math.isfinite(y0) and math.isfinite(half)):
        record_dcs(m, tr, None)
        for key in ("drop_height", "fall_time", "rebound_height"):
            m.set(f"{key}_{oid}", None, f"{oid}: not seen at release")
        return out
    y_ground = ground_y - half  # centroid row when the ball rests on the ground line
    depth = y_ground - y0
    if depth <= 1:
        record_dcs(m, tr, None)
        for key in ("drop_height", "fall_time", "rebound_height"):
            m.set(f"{key}_{oid}", None, f"{oid}: starts on the ground line")
        return out
    tol = max(3.0, 0.3 * depth)
    imps = [i for i in events.impacts(tr.y, y_ground, tol=tol, prominence=max(1.0, 0.02 * depth)) if i > 0.5]
    gone = first_unseen(tr, case, bridge=events.MAX_BRIDGED_GAP, through=np.asarray(tr.y, float))
    if gone is not None and (not imps or gone < imps[0] - 1):  # (a gap at the impact itself: the impact is in it)
        # the window ends at the loss; where the ball was seen down at the ground before it, at its lowest point
        # there (an impact the track did not show as one: what follows it, at rest or rising, is not the fall)
        seen = np.asarray(tr.y, float)[:gone]
        low = int(np.nanargmax(seen)) if np.isfinite(seen).any() else None
        record_dcs(m, tr, low if low is not None and seen[low] >= y_ground - tol else gone - 1, lost=gone)
        where = unseen_how(tr, gone)
        for key in ("drop_height", "fall_time", "rebound_height"):
            m.set(f"{key}_{oid}", None, f"{oid}: {where} from sample {gone} on, before its first impact was seen")
        return out
    record_dcs(m, tr, imps[0] if imps else None)
    if not imps:
        m.set(f"drop_height_{oid}", depth)
        out["h"] = depth
        m.set(f"fall_time_{oid}", None, f"{oid}: no ground impact found")
        m.set(f"rebound_height_{oid}", None, f"{oid}: no ground impact found")
        return out
    # the sample nearest the coarse impact: the last one of the fall or the first of the rebound
    lo, hi = max(int(math.floor(imps[0])) - 1, 0), min(int(math.ceil(imps[0])) + 1, len(y) - 1)
    k = lo + int(np.nanargmax(np.where(np.isfinite(y[lo:hi + 1]), y[lo:hi + 1], -np.inf)))
    fall = np.arange(max(0, k - 8), k)
    arc = rebound_arc(y, k, noise.curvature_threshold(coord_noise(tr, tr.y), DCS_FALSE_ALARM, floor=ARC_TOL_MIN))
    p_fall = fit_parabola(t[fall], y[fall]) if len(fall) >= 3 else None
    p_arc = fit_parabola(t[arc], y[arc]) if len(arc) >= 3 else None
    p_fall = p_fall if p_fall is not None and p_fall[0] > 0 else None
    p_arc = p_arc if p_arc is not None and p_arc[0] > 0 else None
    seen = np.flatnonzero(np.isfinite(y))  # the contact lies between k's neighbouring sightings (a gap bridged)
    t_lo, t_hi = t[seen[seen < k][-1] if (seen < k).any() else k], t[seen[seen > k][0] if (seen > k).any() else k]
    t_imp, y_imp = events.index_to_time(imps[0], t), y_ground
    if p_fall is not None and p_arc is not None:
        # contact = where the falling and the rebounding parabolas meet (no ground calibration needed)
        roots = [r.real for r in np.roots(p_fall - p_arc) if abs(r.imag) < 1e-9 and t_lo <= r.real <= t_hi]
        if roots:
            t_imp = min(roots, key=lambda r: abs(r - t_imp))
            y_imp = float(np.polyval(p_fall, t_imp))
    elif p_fall is not None:
        tc = parabola_level_time(p_fall, y_ground, after=t[fall[-1]])
        if tc is not None and tc <= t_hi:
            t_imp = tc
    h = y_imp - y0
    m.set(f"drop_height_{oid}", h)
    out["h"] = h
    out["t"] = None if t_r is None else t_imp - t_r
    m.set(f"fall_time_{oid}", out["t"], "release not found")
    add_event(m, tracks, oid, "impact", float(np.interp(t_imp, t, np.arange(len(t)))), value=h)
    apex = parabola_vertex(p_arc) if p_arc is not None else None
    if apex is not None and not (t[arc[0]] - 1e-9 <= apex[0] <= t[arc[-1]] + 1e-9):
        apex = None
    if apex is None and len(arc) >= 3:
        j = arc[int(np.argmin(y[arc]))]
        if j not in (arc[0], arc[-1]):
            apex = (float(t[j]), float(y[j]))
    if apex is None:
        m.set(f"rebound_height_{oid}", None, f"{oid}: no rebound apex found after the first impact")
        return out
    r = y_imp - apex[1]
    m.set(f"rebound_height_{oid}", r if r > 0 else None, f"{oid}: rebound does not rise above the impact point")
    if r > 0:
        out["r"] = r
        add_event(m, tracks, oid, "rebound_apex", float(np.interp(apex[0], t, np.arange(len(t)))), value=r)
    return out


def rebound_arc(y: np.ndarray, k: int, tol: float = ARC_TOL_MIN) -> list[int]:
    """Samples of the free flight after impact sample ``k``.

    In free flight the per-frame step of image ``y`` grows steadily (gravity points down); the arc
    ends before the first sample whose step shrinks by more than ``tol`` px (the next impact, or
    the ball coming to rest). ``tol`` comes from the track's noise: a change of step is a second
    difference, whose noise is ``σ·√6`` (:func:`lawful.perceive.noise.curvature_threshold`).
    """
    arc: list[int] = []
    prev = None
    for j in range(k + 1, len(y)):
        if not np.isfinite(y[j]):
            continue
        if arc:
            step = (y[j] - y[arc[-1]]) / (j - arc[-1])
            if prev is not None and step < prev - tol:
                break
            prev = step
        arc.append(j)
    return arc
