"""Former home of the two Principia momentum tasks, kept so old imports work: each task now has its own
module (:mod:`~lawful.suites.principia.momentum_height`, :mod:`~lawful.suites.principia.momentum_mass`) and
their shared scene, physics and measurement live in :mod:`~lawful.suites.principia._momentum`."""

from lawful.suites.principia._momentum import BALLS, BLOCKS, Momentum
from lawful.suites.principia.momentum_height import MomentumHeight
from lawful.suites.principia.momentum_mass import MomentumMass

__all__ = ["BALLS", "BLOCKS", "Momentum", "MomentumHeight", "MomentumMass"]
