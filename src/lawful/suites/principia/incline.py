"""Former home of the Principia friction and inertia tasks, kept so old imports work: each task now has its
own module (:mod:`~lawful.suites.principia.friction`, :mod:`~lawful.suites.principia.inertia`) and the tent
race they share lives in :mod:`~lawful.suites.principia._tent`."""

from lawful.suites.principia._tent import TentRace, arrival_index
from lawful.suites.principia.friction import Friction
from lawful.suites.principia.inertia import Inertia, hollow_inertia_factor

__all__ = ["Friction", "Inertia", "TentRace", "arrival_index", "hollow_inertia_factor"]
