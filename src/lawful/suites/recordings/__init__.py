"""Recordings: real experiments whose setup no protocol prescribes, scored with C/P/S on a 0–100 scale.

The WMLE tasks score the scene their prompt asks for (P1's four rebounds, P5's equal masses, two
pendulums in P12–P15). A filmed experiment rarely matches: one pendulum, one mass on a spring, one
bounce, a free throw, carts of unequal mass. Each task here takes the setup's parameters from the
case (``known``: masses, lengths, μ, launch height …) and measures what the case leaves out. Release
is the case's ``release`` or a sustained motion onset above the track's measured noise, never frame 0.

Every module ``rNN_*.py`` holds one task (a :class:`~lawful.suites.recordings.common.RecordingTask`):
its spec (case parameters, objects, metric formulas with their scales); its extraction lives in a
suite-private ``_<topic>.py`` (with the code of long metric formulas, called with the task's scales) and its
drawing and rendered motion in :mod:`lawful.world.scenes.recordings`. The suite
discovers them. Scores use WMLE's machinery: measured consistency C, metrics M1 … in [0, 1],
P their mean × 100 and the gated composite S (:mod:`lawful.suites.wmle.common`). See docs/recordings.md.
"""

from __future__ import annotations

from lawful.suites.base import Suite, discover_tasks, register_suite
from lawful.suites.recordings.common import RecordingTask


def task_classes() -> list[type[RecordingTask]]:
    """Concrete RecordingTask classes of every ``rNN_*`` module in this package, ordered by label number."""
    return discover_tasks(__name__, __path__, r"^r\d\d_\w+$", RecordingTask)


def task_info() -> dict[str, dict]:
    """``{label: {"name", "level", "family"}}`` of every discovered task."""
    return {c.label: {"name": c.name, "level": c.level, "family": c.family} for c in task_classes()}


@register_suite("recordings")
def recordings_suite() -> Suite:
    from functools import partial

    from lawful.suites.wmle.report import aggregate, table

    tasks = [cls() for cls in task_classes()]
    info = task_info()
    return Suite(name="recordings", tasks={t.name: t for t in tasks}, scale=(0.0, 100.0), default_cases_per_task=2,
                 aggregate=partial(aggregate, suite="recordings", info=info),
                 table=partial(table, title="Recordings", info=info))


__all__ = ["RecordingTask", "recordings_suite", "task_classes", "task_info"]
