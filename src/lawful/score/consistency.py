"""Principia's formulas: relational consistency, ordering, the Directional Consistency Score."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

DCS_THRESHOLD = 0.8


def consistency(f1: float, f2: float) -> float:
    """S = 1 - |F1 - F2| / (|F1| + |F2|); 1 when both sides are zero."""
    den = abs(f1) + abs(f2)
    if den == 0:
        return 1.0
    return 1.0 - abs(f1 - f2) / den


def ordering(holds: bool) -> float:
    """An ordering test scores 1 when the expected order holds, else 0 (averaged over scenes)."""
    return 1.0 if holds else 0.0


def directional_consistency(p: np.ndarray, direction: np.ndarray | float, eps: float | np.ndarray = 0.5) -> float:
    """DCS = mean over frames with |dp| >= eps of (dp . d_hat) / |dp| (Principia A.6).

    ``p``: positions ``[T]`` (1-D coordinate) or ``[T, D]``; NaN rows are skipped.
    ``direction``: the expected direction, a scalar sign for 1-D or a vector; for a
    per-step direction (pendulum: towards the centre) pass an array ``[T-1, D]``.
    ``eps``: the least step that counts (A.6's ε), one value or one per step ``[T-1]`` (e.g. from
    measured noise; a step across NaN samples uses the threshold of the step leaving its start).
    Returns NaN when no step moves at least ``eps``.
    """
    p = np.asarray(p, float)
    if p.ndim == 1:
        p = p[:, None]
    ok = ~np.isnan(p).any(axis=1)
    idx = np.flatnonzero(ok)
    if len(idx) < 2:
        return math.nan
    dp = np.diff(p[idx], axis=0)
    d = np.asarray(direction, float)
    if d.ndim == 0:
        d = np.full((len(dp), p.shape[1]), float(d))
    elif d.ndim == 1 and d.shape[0] == p.shape[1]:
        d = np.broadcast_to(d, dp.shape)
    else:
        d = d[idx[:-1]]
    d = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
    n = np.linalg.norm(dp, axis=1)
    e = np.asarray(eps, float)
    if e.ndim:
        e = e[idx[:-1]]
    keep = n >= e
    if not keep.any():
        return math.nan
    return float(np.mean(np.sum(dp[keep] * d[keep], axis=1) / n[keep]))


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and population standard deviation; (nan, nan) for no values."""
    v = np.asarray([x for x in values if x is not None and not math.isnan(x)], float)
    if len(v) == 0:
        return math.nan, math.nan
    return float(v.mean()), float(v.std())
