"""The `lawful judge` hooks on Suite: judges reach suites through the registry, never by name."""

from lawful.case import Case
from lawful.suite_registry import get_suite
from lawful.suites.base import Suite, Task


class _One(Task):
    suite, name = "toy", "one"

    def make_case(self, index, seed):
        return Case(id=f"one-{index}", suite="other", task="one", width=64, height=48, fps=10.0, duration=1.0), None

    def render(self, case, law="true"):
        return iter(())

    def measure(self, case, tracks):
        raise NotImplementedError

    def score(self, case, measurement):
        raise NotImplementedError


def test_default_hooks():
    suite = Suite("toy", {"one": _One()}, default_cases_per_task=3)
    [(case, n)] = list(suite.judge_cases())
    assert (case.id, case.suite, n) == ("one-0", "toy", 3)  # the case is filed under the suite asking
    assert suite.after_judging(None, {"r"}, lambda s, e: {}, print) is None


def test_builtin_case_sets():
    from lawful.suites.applepi.scenes import TASKS
    from lawful.suites.phyground.cases import CASES

    pg = list(get_suite("phyground").judge_cases())
    assert len(pg) == len(CASES) and {n for _, n in pg} == {1}
    ap = get_suite("applepi")
    cases = list(ap.judge_cases())
    assert len(cases) == 5 * len(TASKS) and {n for _, n in cases} == {3 * ap.default_cases_per_task}


def test_wmle_recomputes_only_after_its_consistency_rubric():
    published = []
    wmle = get_suite("wmle")
    assert wmle.after_judging(None, {"wmle-direct"}, lambda s, e: published.append(s), print) is None
    assert published == []
