"""Extraction for WMLE damped swings (P34): half-swing extrema of a pendulum's angle and complete cycles
above a cutoff in the window both pendulums are seen."""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.result import Measurement
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle.common import event, steady_xy
from lawful.tracks import Tracks

MIN_CUTOFF_DEG = 1.0
CUTOFF_SHARE = 0.1


def half_swing_extrema(theta: np.ndarray) -> list[tuple[int, float]]:
    """``(index, θ)`` of the extremum of each half-swing closed by a crossing of zero: from the first
    sample (the release) or a crossing to the next crossing in the other direction. NaN samples are not
    bridged (a crossing across them does not count)."""
    th = np.asarray(theta, float)
    cr = pk.crossing_indices(th, 0.0)
    kept: list[tuple[float, int]] = []
    for c, d in cr:  # back-and-forth jitter at zero: crossings must alternate
        if kept and kept[-1][1] == d:
            continue
        kept.append((c, d))
    bounds = [0.0] + [c for c, _ in kept]
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        i0, i1 = int(math.ceil(a)), int(math.floor(b))
        seg = th[i0:i1 + 1]
        if not np.isfinite(seg).any():
            continue
        j = int(np.nanargmax(np.abs(seg))) + i0
        out.append((j, float(th[j])))
    return out


def count_cycles(extrema: list[tuple[int, float]], cutoff: float) -> int:
    """Complete cycles of a run of extrema beyond ``cutoff``: pairs of same-polarity events, the run ending
    at the first extremum within the cutoff; the larger count of the two polarities."""
    run = []
    for _, v in extrema:
        if abs(v) <= cutoff:
            break
        if run and np.sign(v) == np.sign(run[-1]):
            break  # a missed half-swing: the run is not a clean alternation
        run.append(v)
    pos = sum(1 for a, b in zip(run[:-2], run[2:]) if a > 0 and b > 0)
    neg = sum(1 for a, b in zip(run[:-2], run[2:]) if a < 0 and b < 0)
    return max(pos, neg)


def cycle_counts_measurement(case: Case, tracks: Tracks, ids: tuple[str, str], min_window_s: float) -> Measurement:
    """Per pendulum of ``ids``: release angle, half-swing extrema and complete cycles (``cycles_{id}``) above
    ``max(MIN_CUTOFF_DEG, CUTOFF_SHARE · mean |θ0|)`` within the common window (at least ``min_window_s``)."""
    m = Measurement()
    piv = pk.pivots(case, tracks, ids)
    theta, ends, th0 = {}, {}, {}
    for oid in ids:
        tr, t, vis, x, y = steady_xy(case, tracks, oid)
        px, py = piv[oid]
        th = np.degrees(np.arctan2(x - px, y - py))
        theta[oid] = th
        idx = np.flatnonzero(np.isfinite(th))
        if len(idx) < 3:
            m.notes["unresolved"] = f"{oid}: not tracked"
            return m
        ends[oid] = (int(idx[0]), int(idx[-1]))
        th0[oid] = float(np.median(th[idx[:3]]))
        m.set(f"theta0_{oid}_deg", th0[oid])
        m.events.append(event(oid, f"release_{oid}", float(idx[0]), tracks))
    i0 = max(e[0] for e in ends.values())
    i1 = min(e[1] for e in ends.values())
    t = np.asarray(tracks.t, float)
    span = float(t[i1] - t[i0]) if i1 > i0 else 0.0
    m.set("window_s", span)
    if span < min_window_s:
        m.notes["unresolved"] = f"common window {span:.2f} s < {min_window_s} s"
        return m
    cutoff = max(MIN_CUTOFF_DEG, CUTOFF_SHARE * 0.5 * (abs(th0[ids[0]]) + abs(th0[ids[1]])))
    m.set("cutoff_deg", cutoff)
    for oid in ids:
        ex = half_swing_extrema(theta[oid][i0:i1 + 1])
        n = count_cycles(ex, cutoff)
        m.set(f"cycles_{oid}", float(n))
        m.notes[f"extrema_{oid}"] = [[int(j + i0), round(v, 3)] for j, v in ex]
        for j, v in ex:
            if abs(v) > cutoff:
                m.events.append(event(oid, "swing_extremum", float(j + i0), tracks, v))
    m.notes["interval"] = [int(i0), int(i1) + 1]
    return m
