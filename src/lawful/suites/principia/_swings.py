"""Per-object extraction of the two oscillator tasks (Principia Table 2, rows 8-9).

:func:`measure_cube` (mass-spring) and :func:`measure_bob` (pendulum) record one object's DCS
window, events and observables in a :class:`~lawful.result.Measurement` and return them (``None``
with the reason recorded when they cannot be measured); the task files define the metrics.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import events, noise
from lawful.result import Measurement
from lawful.tracks import Tracks

from lawful.suites.principia._common import (
    DCS_EPS,
    DCS_FALSE_ALARM,
    add_event,
    border_cut,
    coord_noise,
    first_unseen,
    unseen_how,
    first_value,
    fit_parabola,
    parabola_vertex,
    record_dcs,
    record_undefined_direction,
    whole,
)


def measure_cube(m: Measurement, tracks: Tracks, case: Case, oid: str) -> tuple[float | None, float | None]:
    """``(extension, side)`` px of cube ``oid``: its first lowest point below the release row
    (``extension_<oid>``, event ``lowest_point``) and its side length (``side_<oid>``, from the case
    box, else the tracked box: ``side_tracked_<oid>``)."""
    tr = tracks[oid]
    ok = whole(tr, frame=(case.width, case.height))
    y = np.where(ok, tr.y, np.nan)
    t = np.asarray(tr.t, float)
    box = np.asarray(tr.box, float)[ok]
    tracked = float(np.mean((box[:, 2] - box[:, 0] + box[:, 3] - box[:, 1]) / 2 + 1)) if len(box) else None
    m.set(f"side_tracked_{oid}", tracked, f"{oid}: not seen")
    spec_box = case.object(oid).box
    side = (spec_box[2] - spec_box[0] + spec_box[3] - spec_box[1]) / 2 if spec_box else tracked
    m.set(f"side_{oid}", side, f"{oid}: not seen and no first-frame box in the case")
    y0 = first_value(y)
    # a lowest point must stand out of the noise (prominence and depth below the release row)
    deep = noise.step_threshold(coord_noise(tr, tr.y), DCS_FALSE_ALARM, floor=2.0)
    seen = np.where(np.asarray(tr.visible, bool) & ~border_cut(tr, case), tr.y, np.nan)
    turns = events.spring_turning_points(seen, prominence=max(1.0, deep / 2))
    turns = [i for i in turns if i > 0.5 and math.isfinite(y0) and seen[int(round(i))] > y0 + deep]
    # the first lowest point only: if the cube is lost or cut by the frame edge before it (or
    # around it), a later turning point would be a different event
    gone = first_unseen(tr, case)
    end = turns[0] + 2 if turns else len(y) - 1
    if gone is not None and gone <= end:
        record_dcs(m, tr, gone - 1, lost=gone)  # (lost at sample 0 or 1: not seen in its window, not the whole clip)
        where = unseen_how(tr, gone)
        m.set(f"extension_{oid}", None, f"{oid}: {where} from sample {gone} on, before its first lowest "
              "point was seen")
        return None, side
    record_dcs(m, tr, turns[0] if turns else None)
    if not turns:
        m.set(f"extension_{oid}", None, f"{oid}: no lowest point (down-to-up turn) found")
        return None, side
    j = int(round(turns[0]))
    win = [i for i in range(max(j - 2, 0), min(j + 3, len(y))) if np.isfinite(y[i])]
    coef = fit_parabola(t[win], y[win]) if len(win) >= 4 else None
    v = parabola_vertex(coef) if coef is not None and coef[0] < 0 else None
    if v is not None and t[win[0]] <= v[0] <= t[win[-1]]:
        idx, y_turn = float(np.interp(v[0], t, np.arange(len(t)))), v[1]
    else:
        idx, y_turn = turns[0], float(tr.y[j])
    ext = y_turn - y0
    m.set(f"extension_{oid}", ext)
    add_event(m, tracks, oid, "lowest_point", idx, value=ext)
    return ext, side


def measure_bob(m: Measurement, tracks: Tracks, case: Case, oid: str, t_r: float | None,
                how: str) -> tuple[float | None, float | None]:
    """``(period, length)`` of bob ``oid``: ``T = 2 (τ_n − t_r) / n`` over the half-periods after its
    first crossing of the pivot line (``period_<oid>``, events ``crossing``, ``turning_<n>``) and the
    pivot-to-bob distance px at release (``length_<oid>``); ``how`` says how ``t_r`` was found."""
    tr = tracks[oid]
    ax, ay = (float(v) for v in case.known["anchors"][oid])
    x = np.where(whole(tr, frame=(case.width, case.height)), tr.x, np.nan)
    # only the swings seen without a break: a turning point lost in a gap (or cut by the frame
    # edge) would silently change the count of half-periods; a sample or two missed while the bob swings
    # straight through them (a compressed clip's blurred bob) cannot hide one
    gone = first_unseen(tr, case, bridge=events.MAX_BRIDGED_GAP, through=np.asarray(tr.x, float))
    xc = np.asarray(tr.x, float).copy()  # every sighting, for the crossing
    if gone is not None:
        x[gone:] = np.nan
        xc[gone:] = np.nan
        m.notes.setdefault("seen_until", {})[oid] = gone
    x0, y0 = first_value(x), first_value(np.where(whole(tr, frame=(case.width, case.height)), tr.y, np.nan))
    length = math.hypot(x0 - ax, y0 - ay) if math.isfinite(x0) and math.isfinite(y0) else None
    m.set(f"length_{oid}", length, f"{oid}: not seen at release")
    cross = events.crossing(xc, ax, 0)
    toward = np.sign(ax - events.smooth(tr.x, 7))  # smoothed: noise at the crossing flips no sign
    off = noise.step_threshold(coord_noise(tr, tr.x), DCS_FALSE_ALARM, floor=DCS_EPS)
    if math.isfinite(x0) and abs(x0 - ax) <= off:
        record_undefined_direction(m, tr, f"released {abs(x0 - ax):.1f} px from the vertical through its "
                                   f"pivot, within the noise threshold {off:.2f} px")
    elif cross is None and gone is not None:  # lost before it crossed: its window ends there, not at the clip's end
        record_dcs(m, tr, max(gone - 1, 0), direction=toward, coord=tr.x, lost=gone)
    else:
        record_dcs(m, tr, cross, direction=toward, coord=tr.x)
    amp = abs(x0 - ax) if math.isfinite(x0) else 0.0
    turns = [i for i in events.half_periods(x, ax, min_amplitude=0.25 * amp) if cross is None or i > cross]
    if cross is None:
        m.set(f"period_{oid}", None, f"{oid}: not seen from sample {gone} on, before it crossed the line below its "
              "pivot" if gone is not None else f"{oid}: never crosses the line below its pivot")
        return None, length
    add_event(m, tracks, oid, "crossing", cross)
    if not turns:
        m.set(f"period_{oid}", None, f"{oid}: no turning point after crossing the pivot line" + (
            f" (not seen from sample {gone} on)" if gone is not None else ""))
        return None, length
    for n, i in enumerate(turns, 1):
        add_event(m, tracks, oid, f"turning_{n}", i)
    if t_r is None:
        m.set(f"period_{oid}", None, f"release not found ({how})")
        return None, length
    t_last = events.index_to_time(turns[-1], tr.t) - t_r
    period = 2 * t_last / len(turns)
    m.set(f"period_{oid}", period)
    m.set(f"half_periods_{oid}", len(turns))
    return period, length
