"""Momentum by block mass (Principia Table 2, row 7): balls released from one height down a tent ramp,
blocks of masses ``m1 != m2``; the heavier block slides less (``x ∝ 1/m``). ``F1`` = slide of the lighter
block, ``F2`` = the other's; the order holds when ``F1 > F2``. Block masses: ``known['mass']`` of the objects
when both are given, else ``(side)^3`` from the case's first-frame boxes (same material). Scene, physics and
the slide measurement: :mod:`lawful.suites.principia._momentum`.
"""

from __future__ import annotations

from lawful.suites.principia._momentum import BLOCKS, Momentum


class MomentumMass(Momentum):
    """Balls from one height; blocks of masses ``m1 != m2``: the heavier block slides less."""

    name = "momentum_mass"
    label = "Table 2: Momentum (mass)"
    variant = "mass"

    def _expected_order(self, case, tracks):
        specs = [case.object(b) for b in BLOCKS]
        if all("mass" in s.known for s in specs):
            mass = [s.known["mass"] for s in specs]
        elif all(s.box is not None for s in specs):
            mass = [((s.box[2] - s.box[0] + s.box[3] - s.box[1]) / 2) ** 3 for s in specs]
        else:
            return "", "", "block masses unknown (no known['mass'] and no first-frame boxes)"
        if abs(mass[0] - mass[1]) <= 0.02 * max(mass):
            return "", "", "the blocks have the same mass"
        return (BLOCKS[0], BLOCKS[1], "") if mass[0] < mass[1] else (BLOCKS[1], BLOCKS[0], "")
