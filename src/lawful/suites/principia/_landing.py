"""Projectile landing (Principia Table 2, row 5): where a ball launched off the table first reaches the floor.

:func:`measure_range` records one ball's DCS window (release → landing), its landing event and its
range ``|x_landing - launch_x|`` (or why it has none) in a :class:`~lawful.result.Measurement`.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import events
from lawful.result import Measurement
from lawful.tracks import Tracks

from lawful.suites.principia._common import (
    add_event,
    first_unseen,
    unseen_how,
    fit_parabola,
    half_height,
    parabola_level_time,
    per_object,
    record_dcs,
    value_at,
)


def measure_range(m: Measurement, tracks: Tracks, case: Case, oid: str) -> float | None:
    """Range (px) of ``oid`` from its launch point to its landing, recorded as ``range_<oid>`` with
    its ``landing`` event and DCS window; ``None`` (with the reason) when it cannot be measured."""
    tr = tracks[oid]
    half = half_height(tr)
    land = floor = None
    if math.isfinite(half):
        # centroid row of a ball resting on the floor; a mask that loses the ball's shaded
        # underside sits a little higher, so the lowest row the ball reaches is used if close
        floor = float(case.known["ground_y"]) - half
        lowest = float(np.nanmax(tr.y)) if np.isfinite(tr.y).any() else -math.inf
        tol = max(4.0, 0.6 * half)
        if lowest >= floor - tol:
            floor = min(floor, lowest)
            land = events.crossing(tr.y, floor - max(2.0, 0.25 * half), +1)
        # a ball that bounces: its first impact, not after the rebound; seen only at an impact blurred over half a
        # fall step above the floor (studio seed 5002: a 2-px ball 4.0 px up at 20 px a frame), it landed there
        bounce = first_floor_turn(tr.y, floor, tol)
        if bounce is not None and (land is None or bounce < land):
            land = float(bounce)
    gone = first_unseen(tr, case, bridge=events.MAX_BRIDGED_GAP)  # a blurred impact sample, seen after
    lost = gone is not None and (land is None or gone <= math.ceil(land) + 1)
    # the release window ends at the landing; a ball lost before it is judged on what was seen before the loss
    # (a blob taken up after it is not known to be this ball: a CRF-35 copy's ball_1 "came back" 330 px away)
    end = land if not lost else (gone - 1 if land is None else min(land, gone - 1))
    record_dcs(m, tr, end, lost=gone if lost else None)
    if lost:
        where = unseen_how(tr, gone)
        m.set(f"range_{oid}", None, f"{oid}: {where} from sample {gone} on, before it is seen landing")
        return None
    if land is None:
        m.set(f"range_{oid}", None, f"{oid}: never lands on the floor")
        return None
    launch_x = per_object(case, "launch_x", oid)
    land, x_land = landing(tr, land, floor, launch_x)
    if not math.isfinite(x_land):
        m.set(f"range_{oid}", None, f"{oid}: not seen where it lands")
        return None
    rng = abs(x_land - launch_x)
    m.set(f"range_{oid}", rng)
    add_event(m, tracks, oid, "landing", land, value=rng)
    return rng


def first_floor_turn(y, floor: float, tol: float) -> int | None:
    """First sample near the floor where the ball stops going down (a local maximum of ``y``): the
    first impact of a ball that bounces. Near: within ``tol`` px of ``floor``, or within half the
    falling step that brought it there (the larger of the last two, per sample): a motion-blurred impact frame is located at mid-exposure, which for a
    ball that hits the floor late in the exposure lies up to half a frame's travel above it.
    Up to ``events.MAX_BRIDGED_GAP`` missing samples between neighbours are bridged; a turn seen
    right after such a gap happened in it: the last missing sample is returned (the flight fit of
    :func:`landing` then ends before the gap and reaches the floor by the sample after it)."""
    y = np.asarray(y, float)
    idx = np.flatnonzero(np.isfinite(y))
    near = events.MAX_BRIDGED_GAP + 1
    for q in range(1, len(idx) - 1):
        p, i, n = idx[q - 1], idx[q], idx[q + 1]
        if i - p > near or n - i > near or not (y[i] >= y[p] and y[i] >= y[n]):
            continue
        fall = (y[i] - y[p]) / (i - p)
        if q >= 2 and p - idx[q - 2] <= near:
            fall = max(fall, (y[p] - y[idx[q - 2]]) / (p - idx[q - 2]))
        if y[i] >= floor - max(tol, 0.5 * fall):  # the impact may fall between two samples: the faster step
            return int(i - 1 if i - p > 1 else i)
    return None


def landing(tr, coarse: float, floor: float, launch_x: float) -> tuple[float, float]:
    """Sub-frame landing ``(index, x)``: the flight samples just before ``coarse`` (past the launch
    point) fitted with ``y`` quadratic and ``x`` linear in time, solved for ``y = floor``."""
    t, x, y = (np.asarray(a, float) for a in (tr.t, tr.x, tr.y))
    j = int(math.floor(coarse))
    seen = np.flatnonzero(np.isfinite(x[:j + 1]))  # the side it flies to: its last sighting up to ``coarse``
    out = np.sign(x[seen[-1]] - launch_x) if len(seen) else 0.0
    fly = [i for i in range(max(j - 5, 0), j + 1) if np.isfinite(x[i]) and np.isfinite(y[i])
           and (x[i] - launch_x) * out > 0 and y[i] < floor - 0.5]
    if len(fly) >= 3:
        cy = fit_parabola(t[fly], y[fly])
        tl = parabola_level_time(cy, floor, after=t[fly[-1]]) if cy is not None else None
        if tl is not None and tl <= t[min(j + 1, len(t) - 1)] + 1e-9:
            cx = np.polyfit(t[fly], x[fly], 1)
            return float(np.interp(tl, t, np.arange(len(t)))), float(np.polyval(cx, tl))
    return coarse, value_at(x, coarse)
