"""Principia: eight Newtonian phenomena, nine relational invariants (the Principia paper, Table 2).

Each task renders paired-object scenes (side views, 640 x 360, 24 fps) whose two objects must
satisfy an invariant ``F(o1) = F(o2)`` independent of camera, scale and frame rate; it scores a
video by the consistency ``S = 1 - |F1 - F2| / (|F1| + |F2|)`` (or 1/0 for the ordering tests:
projectile, momentum), after the order gate (frames out of order → 0) and the Directional Consistency gate
(DCS < 0.8 → 0).

Tasks (leaderboard columns in brackets):

- ``drop`` [restitution, gravity]: two balls dropped from different heights;
- ``friction`` [friction]: blocks of different mass sliding down a tent ramp;
- ``inertia`` [inertia]: solid vs hollow cylinder rolling down a tent ramp;
- ``projectile`` [projectile]: balls launched off a table from different heights (ordering);
- ``momentum_height`` / ``momentum_mass`` [momentum]: balls pushing blocks (ordering);
- ``pendulum`` [pendulum]: two pendulum lengths, same release angle;
- ``spring`` [spring]: two identical springs carrying cubes of different size.
"""

from __future__ import annotations

from lawful.suites.base import Suite, register_suite
from lawful.suites.principia.drop import Drop
from lawful.suites.principia.friction import Friction
from lawful.suites.principia.inertia import Inertia
from lawful.suites.principia.momentum_height import MomentumHeight
from lawful.suites.principia.momentum_mass import MomentumMass
from lawful.suites.principia.pendulum import Pendulum
from lawful.suites.principia.projectile import Projectile
from lawful.suites.principia.spring import MassSpring

DEFAULT_CASES_PER_TASK = 4
TASKS = (Drop, Friction, Inertia, Projectile, MomentumHeight, MomentumMass, Pendulum, MassSpring)


@register_suite("principia")
def principia_suite() -> Suite:
    """The Principia suite: tasks keyed by name in Table 2 order."""
    tasks = [cls() for cls in TASKS]
    return Suite(name="principia", tasks={t.name: t for t in tasks}, default_cases_per_task=DEFAULT_CASES_PER_TASK,
                 paper={"cases_per_task": 66, "rollouts": 2,
                        "note": "529 scenes over 8 phenomena (about 66 per task), two seeds each"})


__all__ = ["DEFAULT_CASES_PER_TASK", "TASKS", "principia_suite", *[c.__name__ for c in TASKS]]
