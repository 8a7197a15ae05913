"""World Models' Last Exam in Physics (WMLE): measured tasks P1–P40, C/P/S scores on a 0–100 scale.

Every module ``pNN_*.py`` of this package holds one task (a :class:`~lawful.suites.wmle.common.WmleTask`
subclass); the suite discovers them, so a new task module needs no registration.
"""

from __future__ import annotations

import functools

from lawful.suites.base import Suite, discover_tasks, register_suite
from lawful.suites.wmle.common import FAMILIES, WmleTask


def task_classes() -> list[type[WmleTask]]:
    """Concrete WmleTask classes of every ``pNN_*`` module in this package, ordered by label number."""
    return list(_discovered())


@functools.cache
def _discovered() -> tuple[type[WmleTask], ...]:
    """Discovery scans the package once per process (every ``get_suite("wmle")``, one per job, asked again)."""
    return tuple(discover_tasks(__name__, __path__, r"^p\d\d_\w+$", WmleTask))


def task_info() -> dict[str, dict]:
    """``{label: {"name", "level", "family"}}`` of every discovered task."""
    return {c.label: {"name": c.name, "level": c.level, "family": c.family} for c in task_classes()}


@register_suite("wmle")
def wmle_suite() -> Suite:
    from lawful.suites.wmle.judged import RUBRIC as JUDGE_RUBRIC
    from lawful.suites.wmle.judged import after_judging, apply_judge_consistency
    from lawful.suites.wmle.report import aggregate, table

    tasks = [cls() for cls in task_classes()]
    return Suite(name="wmle", tasks={t.name: t for t in tasks}, scale=(0.0, 100.0), default_cases_per_task=2,
                 aggregate=aggregate, table=table, judged={JUDGE_RUBRIC: apply_judge_consistency},
                 on_judged=after_judging,
                 paper={"cases_per_task": 12, "rollouts": 4, "seed_base": 42,
                        "note": "four rollouts with seeds 42-45; 12 scenes per task as in the paper's validation",
                        # the paper's mean P of its synthetic reference videos (§3.2; 12 per task, gate bypassed)
                        "reference_P": {"overall": 97.53, "E": 97.93, "M": 96.64, "H": 98.25}})


__all__ = ["FAMILIES", "WmleTask", "task_classes", "task_info", "wmle_suite"]
