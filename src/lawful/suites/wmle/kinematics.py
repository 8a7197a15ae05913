"""Kinematics on tracked samples: slopes, equal-interval velocities, motion onset, local values, and the
samples fit for measurement (steady sightings). Shared by the WMLE and recordings tasks (re-exported by
:mod:`lawful.suites.wmle.common`).
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.perceive.onset import departure_time  # noqa: F401  (kinematics.departure_time: API before)
from lawful.tracks import Tracks


def ls_slope(t: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of ``y`` against ``t`` (NaN with < 2 finite points)."""
    t, y = np.asarray(t, float), np.asarray(y, float)
    ok = np.isfinite(t) & np.isfinite(y)
    if ok.sum() < 2 or np.ptp(t[ok]) == 0:
        return math.nan
    return float(np.polyfit(t[ok], y[ok], 1)[0])


def interval_slopes(t: np.ndarray, y: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares slopes of ``y(t)`` on ``m`` consecutive groups of equally many samples.

    ``t``, ``y`` ``[n]``: uniformly sampled, finite; trailing samples that do not fill a group are
    dropped. Returns ``(slopes [m], centres [m])``; on a parabola each slope is the exact velocity at
    its group's centre time, so consecutive differences are equal-interval velocity increments.
    """
    t, y = np.asarray(t, float), np.asarray(y, float)
    k = len(t) // m
    if k < 2:
        return np.full(m, np.nan), np.full(m, np.nan)
    slopes = np.array([ls_slope(t[j * k:(j + 1) * k], y[j * k:(j + 1) * k]) for j in range(m)])
    centres = np.array([float(np.mean(t[j * k:(j + 1) * k])) for j in range(m)])
    return slopes, centres


def interval_velocities(t: np.ndarray, v: np.ndarray, m: int, sigma: float) -> tuple[np.ndarray, ...]:
    """Least-squares slopes of ``v(t)`` on ``m`` equal time intervals of ``t``'s span.

    Unlike :func:`interval_slopes` (groups of equally many samples), the intervals are equal in time and each
    slope carries its own velocity time, so a sample missing from a flight shifts nothing.

    Returns ``(slopes, times, se)`` ``[m]``: ``times`` the time whose velocity each slope is on a parabola
    (``Σ(t - t̄) t² / (2 Σ(t - t̄)²)``, the interval's mean time when its samples are symmetric),
    ``se`` the slope's standard error for centroid noise ``sigma``. NaN for intervals with < 2 samples.
    """
    t, v = np.asarray(t, float), np.asarray(v, float)
    edges = np.linspace(t.min(), t.max(), m + 1)
    out = np.full((3, m), np.nan)
    for j in range(m):
        sel = (t >= edges[j]) & ((t < edges[j + 1]) if j < m - 1 else (t <= edges[j + 1]))
        if sel.sum() < 2:
            continue
        tt = t[sel]
        sxx = float(np.sum((tt - tt.mean()) ** 2))
        out[:, j] = (np.polyfit(tt, v[sel], 1)[0], np.sum((tt - tt.mean()) * tt * tt) / (2 * sxx),
                     sigma / math.sqrt(sxx))
    return out[0], out[1], out[2]


def local_poly_value(t: np.ndarray, y: np.ndarray, tq: float, k: int = 5, deg: int = 2) -> float:
    """``y`` at time ``tq`` from a degree-``deg`` least-squares fit to the ``k`` finite samples nearest ``tq``."""
    t, y = np.asarray(t, float), np.asarray(y, float)
    ok = np.flatnonzero(np.isfinite(y) & np.isfinite(t))
    if len(ok) < deg + 1:
        return math.nan
    near = ok[np.argsort(np.abs(t[ok] - tq))[:k]]
    p = np.polyfit(t[near] - tq, y[near], min(deg, len(near) - 1))
    return float(p[-1])


def steady_visible(track, frame: tuple[float, float] | None = None, lo: float = 0.7, hi: float = 1.4) -> np.ndarray:
    """``visible`` ``[T]`` less the samples whose centroid is biased (cut or merged masks):
    :func:`lawful.perceive.noise.steady_samples` (blurred samples stay)."""
    return noise.steady_samples(track, frame, lo, hi)


def steady_xy(case: Case, tracks: Tracks, oid: str):
    """One object's samples fit for measurement: ``(track, t, vis, x, y)`` with ``vis`` ``[T]`` its steady
    sightings (:func:`steady_visible`) and ``x``, ``y`` ``[T]`` its centroid there (NaN elsewhere)."""
    tr = tracks[oid]
    vis = steady_visible(tr, (case.width, case.height))
    x = np.where(vis, np.asarray(tr.x, float), np.nan)
    y = np.where(vis, np.asarray(tr.y, float), np.nan)
    return tr, np.asarray(tracks.t, float), vis, x, y


def fill_gaps(y: np.ndarray, max_gap: int = 2) -> np.ndarray:
    """Copy of ``y`` ``[T]`` with interior NaN runs of at most ``max_gap`` samples linearly interpolated
    (for event detection only; fits use the real samples)."""
    y = np.asarray(y, float).copy()
    ok = np.isfinite(y)
    idx = np.flatnonzero(ok)
    for a, b in zip(idx[:-1], idx[1:]):
        if 1 < b - a <= max_gap + 1:
            y[a + 1:b] = np.interp(np.arange(a + 1, b), [a, b], [y[a], y[b]])
    return y
