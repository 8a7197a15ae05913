"""Statistics shared by the suites' self-checks."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def roc_auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """Mann–Whitney AUC: probability a positive outscores a negative, ties counting ½; NaN if a side is empty."""
    pos = np.asarray(list(positive), float)
    neg = np.asarray(list(negative), float)
    if len(pos) == 0 or len(neg) == 0:
        return math.nan
    diff = pos[:, None] - neg[None, :]
    return float(((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size)
