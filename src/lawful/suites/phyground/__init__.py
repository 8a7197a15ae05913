"""PhyGround: per-law physics scores (13 laws, 1-5) and three general dimensions, from a VLM judge.

Unlike the measured suites, PhyGround is scored only by a judge (rubrics ``phyground-general``
and ``phyground-law``): ``lawful run --suite phyground`` builds the case set and the built-in
models' videos, and without a judge its leaderboard section says a judge is required instead of
inventing scores. The flow lives in :mod:`lawful.suites.phyground.run`.
"""

from __future__ import annotations

from lawful.case import Case
from lawful.result import Measurement, Score
from lawful.suites.base import Suite, Task, register_suite
from lawful.suites.phyground.cases import CASES, build_case, render_scene
from lawful.suites.phyground.scoring import JUDGE_REQUIRED
from lawful.suites.phyground.taxonomy import DOMAINS, GENERAL_DIMENSIONS, LAWS


class PhyGroundScene(Task):
    """The built-in case set as one task: case ``index`` is the ``index``-th prompt of the set."""

    suite = "phyground"
    name = "scene"
    label = "PhyGround"
    phenomena = ()

    def make_case(self, index: int, seed: int):
        """The case and its first frame (None for text-only cases; the seed is unused: a fixed set)."""
        return build_case(CASES[index % len(CASES)])

    def render(self, case: Case, law: str = "true"):
        return render_scene(case, law)

    def measure(self, case: Case, tracks) -> Measurement:
        return Measurement(notes={"scored_by": "judge"})

    def score(self, case: Case, measurement: Measurement) -> dict[str, Score]:
        return {"phyground": Score.unmeasurable(JUDGE_REQUIRED, measurement)}


def phyground_table(section: dict):
    """The leaderboard as a rich table (or a one-line note when no judge was configured)."""
    from rich.table import Table

    from lawful.report.html import fmt

    if section.get("status") == "judge required":
        t = Table(title=f"phyground: {section.get('reason', JUDGE_REQUIRED)}")
        t.add_column("model")
        t.add_column("videos", justify="right")
        for m, n in section.get("videos", {}).items():
            t.add_row(m, str(n))
        return t
    t = Table(title="phyground (scale 1–5; Overall = 0.5·General + 0.5·Physics, Physics sample-weighted)")
    short = {"semantic_alignment": "SA", "physical_temporal_validity": "PTV", "object_persistence": "Persist",
             "solid_body": "Solid", "fluid": "Fluid", "optical": "Optical"}
    cols = [*GENERAL_DIMENSIONS, "general", *DOMAINS, "physics"]
    t.add_column("model", style="bold")
    for c in cols:
        t.add_column(short.get(c, c.capitalize()), justify="right")
    t.add_column("Overall", justify="right", style="bold")
    t.add_column("eq-law/domain", justify="right")
    t.add_column("eq-law global", justify="right")
    for model, m in section.get("models", {}).items():
        w = m.get("weightings", {})
        t.add_row(model, *[fmt(m.get("tasks", {}).get(c)) for c in cols], fmt(m.get("overall")),
                  fmt(w.get("equal_law_within_domain", {}).get("overall")),
                  fmt(w.get("equal_law_global", {}).get("overall")))
    return t


def judge_cases(suite: Suite):
    """Every case of the built-in set once (``lawful judge plan``)."""
    for spec in CASES:
        yield build_case(spec)[0], 1


def after_judging(store, rubrics: set[str], publish, show) -> None:
    """After ``lawful judge`` with a PhyGround rubric: rewrite the run's phyground section and show its table."""
    from lawful.suites.phyground.run import phyground_section

    section = phyground_section(store)
    publish([], {"phyground": section})
    show(phyground_table(section))


@register_suite("phyground")
def phyground_suite() -> Suite:
    return Suite("phyground", {"scene": PhyGroundScene()}, scale=(1.0, 5.0), default_cases_per_task=len(CASES),
                 paper={"rollouts": 1, "note": "the paper's 250 prompts come with its released set; the built-in "
                                               "cases are used"},
                 table=phyground_table, case_set=judge_cases, on_judged=after_judging)


__all__ = ["CASES", "LAWS", "DOMAINS", "GENERAL_DIMENSIONS", "PhyGroundScene", "phyground_suite"]
