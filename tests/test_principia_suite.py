"""The Principia suite: registry, columns, case contents, determinism and scene layout."""

from __future__ import annotations

import numpy as np
import pytest

from lawful.case import load_case
from lawful.suites.base import get_suite
from lawful.suites.principia import DEFAULT_CASES_PER_TASK

SUITE = get_suite("principia")


def test_tasks_and_columns_in_table_order():
    assert list(SUITE.tasks) == ["drop", "friction", "inertia", "projectile", "momentum_height", "momentum_mass",
                                 "pendulum", "spring"]
    assert SUITE.columns() == ["restitution", "gravity", "friction", "inertia", "projectile", "momentum",
                               "pendulum", "spring"]
    assert SUITE.default_cases_per_task == DEFAULT_CASES_PER_TASK == 4
    assert all(t.suite == "principia" for t in SUITE.tasks.values())


@pytest.mark.parametrize("name", list(SUITE.tasks))
def test_case_round_trips_and_renders_as_a_pure_function_of_it(tmp_path, name):
    task = SUITE.task(name)
    case, first = task.make_case(2, 77)
    assert (case.width, case.height, case.fps) == (640, 360, 24.0)
    assert 2.0 <= case.duration <= 5.0 and case.prompt and case.truth is not None
    assert first.shape == (360, 640, 3) and first.dtype == np.uint8
    again = load_case(case.save(tmp_path))
    frames = list(task.render(again, "true"))
    assert len(frames) == case.n_frames
    np.testing.assert_array_equal(frames[0], first)
    anti = task.render(again, "anti")
    np.testing.assert_array_equal(next(iter(anti)), first)  # the twin starts from the same first frame
    np.testing.assert_array_equal(list(task.render(case, "true"))[-1], frames[-1])
    assert not np.array_equal(frames[-1], first)  # something moves
    # same seed, same case; another seed, other parameters
    assert task.make_case(2, 77)[0].model_dump() == case.model_dump()
    assert task.make_case(2, 78)[0].known != case.known


@pytest.mark.parametrize("name", list(SUITE.tasks))
def test_objects_are_findable_and_stay_in_frame(name):
    task = SUITE.task(name)
    for seed in range(6):
        case, _ = task.make_case(seed, 1000 + seed)
        colors = [o.color for o in case.objects]
        assert len(set(colors)) == len(colors)
        for o in case.objects:
            x0, y0, x1, y1 = o.box
            assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 360, (o.id, o.box)
            rows = np.asarray(case.truth.tracks[o.id])
            assert len(rows) == case.n_frames
            assert rows[:, 1].min() > 5 and rows[:, 1].max() < 635, (seed, o.id)
            assert rows[:, 2].min() > 5 and rows[:, 2].max() < 355, (seed, o.id)


@pytest.mark.parametrize("name", ["drop", "friction", "inertia", "pendulum", "spring"])
def test_true_sides_agree_and_pairs_differ_clearly(name):
    task = SUITE.task(name)
    for seed in range(5):
        case, _ = task.make_case(seed, 500 + seed)
        q = case.truth.quantities
        for col in task.phenomena:
            f1, f2 = task.sides.get(col, ("F1", "F2"))
            assert q[f1] == pytest.approx(q[f2], rel=1e-3), (col, seed)
    if name in ("pendulum", "spring", "inertia"):
        assert abs(q["F1"] - 1) > 0.05  # the two objects really differ
