"""Every case the default run builds (seed 0, the first two cases of every WMLE, Principia and recordings task) survives
being saved and read back: a case that cannot be re-read makes every model's video of it invalid."""

import pytest

from lawful.case import load_case
from lawful.runner.run import case_seed
from lawful.suites.base import get_suite

TASKS = [(s, name) for s in ("wmle", "principia", "recordings") for name in get_suite(s).tasks]


@pytest.mark.parametrize("suite, name", TASKS)
def test_default_run_cases_round_trip(tmp_path, suite, name):
    task = get_suite(suite).tasks[name]
    for i in (0, 1):
        case, _ = task.make_case(i, case_seed(0, suite, name, i))
        assert load_case(case.save(tmp_path / str(i))) == case
