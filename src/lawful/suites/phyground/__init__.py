"""PhyGround: per-law physics scores (13 laws, 1-5) and three general dimensions, from a VLM judge.

One task of the common runner (``scene``): case ``i`` is the ``i``-th prompt of the built-in set or of a
published prompt set (``--prompts``/``LAWFUL_PHYGROUND_PROMPTS``; :mod:`.prompts`). The runner builds the
cases, makes the videos and stores one row per video; the task decodes nothing (``perceives = False``): its
scores are the judge's answers to the rubrics ``phyground-general`` and ``phyground-law``, which the leaderboard
section (:func:`lawful.suites.phyground.report.phyground_section`) reads from the store. Without a judge the
section says a judge is required instead of inventing scores.
"""

from __future__ import annotations

from lawful.case import Case
from lawful.result import Measurement, Score
from lawful.suites.base import Suite, Task, register_suite
from lawful.suites.phyground.cases import CASES, build_case, render_scene
from lawful.suites.phyground.prompts import PromptSetError, case_specs
from lawful.suites.phyground.scoring import GENERAL_RUBRIC, JUDGE_REQUIRED, LAW_RUBRIC
from lawful.suites.phyground.taxonomy import DOMAINS, GENERAL_DIMENSIONS, LAWS


class PhyGroundScene(Task):
    """The case set as one task: case ``index`` is the ``index``-th prompt of the set, under its own id."""

    suite = "phyground"
    name = "scene"
    label = "PhyGround"
    phenomena = ()
    perceives = False  # judged: the runner decodes nothing

    def __init__(self):
        try:
            self.specs, self.origin, self.problem = *case_specs(), None
        except PromptSetError as e:  # raised when cases are asked for, so listing the suites still works
            self.specs, self.origin, self.problem = CASES, "", e

    def spec_set(self):
        """The case specs of the set (the prompt file's problem is raised here, when cases are asked for)."""
        if self.problem is not None:
            raise self.problem
        return self.specs

    def case_ids(self, n: int) -> list[str]:
        return [s.id for s in self.spec_set()[:n]]

    def make_case(self, index: int, seed: int):
        """The case (``known.prompt_set``: where the set came from) and its first frame (None for text-only
        cases; the seed is unused: a fixed set)."""
        case, frame = build_case(self.spec_set()[index])
        return case.model_copy(update={"known": {**case.known, "prompt_set": self.origin}}), frame

    def render(self, case: Case, law: str = "true"):
        return render_scene(case, law)

    def measure(self, case: Case, tracks) -> Measurement:
        return Measurement(notes={"scored_by": "judge"})

    def score(self, case: Case, measurement: Measurement) -> dict[str, Score]:
        return {"phyground": Score.unmeasurable(JUDGE_REQUIRED, measurement,
                                                extra={"prompt_set": case.known.get("prompt_set", "built-in")})}


def judge_cases(suite: Suite):
    """Every case of the set (built-in or the loaded prompt file) once (``lawful judge plan``)."""
    for spec in suite.task("scene").spec_set():
        yield build_case(spec)[0], 1


def after_judging(store, rubrics: set[str], publish, show) -> None:
    """After ``lawful judge`` with a PhyGround rubric: rewrite the run's phyground section and show its table."""
    from lawful.suites.phyground.report import phyground_section, phyground_table

    section = phyground_section(store)
    publish([], {"phyground": section})
    show(phyground_table(section))


def _section(store) -> dict:
    from lawful.suites.phyground.report import phyground_section

    return phyground_section(store)


def _table(section: dict):
    from lawful.suites.phyground.report import phyground_table

    return phyground_table(section)


def _as_stored(rows: list[dict], values: dict) -> list[dict]:
    """The judge's answers are read by the section itself, not folded into score rows."""
    return rows


@register_suite("phyground")
def phyground_suite() -> Suite:
    task = PhyGroundScene()
    return Suite("phyground", {"scene": task}, scale=(1.0, 5.0), default_cases_per_task=len(task.specs),
                 paper={"rollouts": 1, "note": "the paper's 250 prompts come with its released set; the built-in "
                                               "cases are used"},
                 section=_section, table=_table, judged={GENERAL_RUBRIC: _as_stored, LAW_RUBRIC: _as_stored},
                 case_set=judge_cases, on_judged=after_judging)


__all__ = ["CASES", "LAWS", "DOMAINS", "GENERAL_DIMENSIONS", "PhyGroundScene", "phyground_suite"]
