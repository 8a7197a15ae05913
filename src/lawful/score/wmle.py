"""WMLE's formulas: the residual map q, the geometric mean G, the physical score P and the gated composite S.

All inputs are plain numbers. Metric scores ``s_j`` live in [0, 1]; ``C``, ``P`` and ``S`` in [0, 100].
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

CONSISTENCY_GATE = 80.0
CONSISTENCY_WEIGHT = 0.15
PHYSICS_WEIGHT = 0.85


def q(e: float, a: float) -> float:
    """Agreement of residual ``e`` at scale ``a``: ``1 / (1 + |e| / a)`` (0.5 at ``|e| = a``).

    A non-finite residual maps to 0 (an infinitely bad residual).
    """
    if a <= 0:
        raise ValueError(f"scale a must be > 0, got {a}")
    e = float(e)
    if math.isnan(e) or math.isinf(e):
        return 0.0
    return 1.0 / (1.0 + abs(e) / a)


def geometric_mean(values: Iterable[float]) -> float:
    """The paper's G: ``(prod s_j)^(1/n)``; 0 if any value is 0; NaN for no values."""
    v = [float(x) for x in values]
    if not v:
        return math.nan
    if any(x < 0 for x in v):
        raise ValueError("geometric mean needs non-negative values")
    if any(x == 0 for x in v):
        return 0.0
    return float(math.exp(sum(math.log(x) for x in v) / len(v)))


def cv(x: Sequence[float]) -> float:
    """Coefficient of variation ``std(x) / |mean(x)|`` (population std); NaN for < 2 values or zero mean."""
    a = np.asarray([v for v in x if v is not None and math.isfinite(v)], float)
    if len(a) < 2:
        return math.nan
    m = float(a.mean())
    if m == 0:
        return math.nan
    return float(a.std() / abs(m))


def clip01(x: float) -> float:
    """``min(1, max(0, x))``."""
    return float(min(1.0, max(0.0, x)))


def physical_score(metric_values: Mapping[str, float | None] | Iterable[float | None]) -> float | None:
    """P = 100 × mean of the defined metric scores.

    ``None`` marks an undefined metric (excluded from the denominator); an operational zero is a
    defined ``0.0``. Returns ``None`` when no metric is defined.
    """
    vals = metric_values.values() if isinstance(metric_values, Mapping) else metric_values
    defined = [float(v) for v in vals if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not defined:
        return None
    return 100.0 * sum(defined) / len(defined)


def passes_gate(C: float | None) -> bool:
    """True when the consistency score reaches the gate (C ≥ 80)."""
    return C is not None and C >= CONSISTENCY_GATE


def composite(C: float, P: float | None) -> float:
    """S = 0.15·C + 0.85·P̃ with P̃ = P when C ≥ 80 and P is recorded, else 0 (Eq. 7)."""
    p_tilde = P if (P is not None and passes_gate(C)) else 0.0
    return CONSISTENCY_WEIGHT * float(C) + PHYSICS_WEIGHT * float(p_tilde)
