"""Momentum by release height (Principia Table 2, row 6): identical blocks, balls released from heights
``h1 != h2`` down a tent ramp; the block struck by the ball from higher up slides farther (``x ∝ h``).
``F1`` = slide of that block, ``F2`` = the other's; the order holds when ``F1 > F2``. Which ball starts
higher: the case's stated release heights, else the smaller first-frame centroid ``y``. Scene, physics and
the slide measurement: :mod:`lawful.suites.principia._momentum`.
"""

from __future__ import annotations

import math

from lawful.suites.principia._common import first_value, release_heights
from lawful.suites.principia._momentum import BALLS, BLOCKS, Momentum


class MomentumHeight(Momentum):
    """Identical blocks; balls from heights ``h1 != h2``: the block hit from higher up slides farther."""

    name = "momentum_height"
    label = "Table 2: Momentum (height)"
    variant = "height"

    def _expected_order(self, case, tracks):
        known = release_heights(case, BALLS)
        if known is not None:  # the case says which ball starts higher (roles, not image rows)
            return (BLOCKS[0], BLOCKS[1], "") if known[0] > known[1] else (BLOCKS[1], BLOCKS[0], "")
        y = [first_value(tracks[b].y) for b in BALLS]
        if not all(math.isfinite(v) for v in y):
            return "", "", "a ball is not seen at release"
        if abs(y[0] - y[1]) < 1.0:
            return "", "", "the balls do not start at clearly different heights"
        return (BLOCKS[0], BLOCKS[1], "") if y[0] < y[1] else (BLOCKS[1], BLOCKS[0], "")
