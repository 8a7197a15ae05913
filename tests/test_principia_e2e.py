"""Principia end to end: render → H.264 → track → measure → score, for the reference render, its
anti-physics twin and the static baseline of one case per task; measurement accuracy on renders."""

from __future__ import annotations

import itertools

import pytest

from lawful.perceive.track import track
from lawful.suites.base import get_suite
from lawful.video import write_video

SUITE = get_suite("principia")
SEED = 20260


def _run(task, case, frames, path):
    video = write_video(path, frames, case.fps)
    m = task.measure(case, track(video, case, task.plan))
    return m, task.score(case, m)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """``{task: (case, {law: (measurement, scores)})}`` for one case per task (index 1: a styled variant)."""
    out = {}
    root = tmp_path_factory.mktemp("principia")
    for name, task in SUITE.tasks.items():
        case, first = task.make_case(1, SEED)
        runs = {law: _run(task, case, task.render(case, law), root / f"{name}_{law}.mp4") for law in ("true", "anti")}
        runs["static"] = _run(task, case, itertools.repeat(first, case.n_frames), root / f"{name}_static.mp4")
        out[name] = (case, runs)
    return out


@pytest.mark.parametrize("name", list(SUITE.tasks))
def test_reference_scores_high(rendered, name):
    task = SUITE.task(name)
    _, runs = rendered[name]
    for col, s in runs["true"][1].items():
        assert s.status == "scored", (col, s.reason)
        if col in task.ordering_columns:
            assert s.value == 1.0, col
        else:
            assert s.value >= 0.95, (col, s.value, s.sides)


@pytest.mark.parametrize("name", list(SUITE.tasks))
def test_anti_twin_scores_low_and_passes_the_gate(rendered, name):
    task = SUITE.task(name)
    _, runs = rendered[name]
    for col, s in runs["anti"][1].items():
        assert s.status == "scored", (col, s.reason)
        assert s.metrics["dcs"] >= 0.8  # qualitatively plausible motion
        if col in task.ordering_columns:
            assert s.value == 0.0, col
        else:
            assert s.value <= 0.6, (col, s.value, s.sides)


@pytest.mark.parametrize("name", list(SUITE.tasks))
def test_static_video_scores_zero_by_the_gate(rendered, name):
    _, runs = rendered[name]
    for col, s in runs["static"][1].items():
        assert s.status == "scored" and s.value == 0.0, (col, s.status, s.reason)
        assert s.reason.startswith("DCS")


def test_drop_fall_time_and_rebound_ratios_within_two_percent(rendered):
    case, runs = rendered["drop"]
    m, q = runs["true"][0], case.truth.quantities
    ratio = m.get("fall_time_ball_1") / m.get("fall_time_ball_2")
    assert ratio == pytest.approx(q["fall_time_ball_1"] / q["fall_time_ball_2"], rel=0.02)
    for oid in ("ball_1", "ball_2"):
        assert m.get(f"fall_time_{oid}") == pytest.approx(q[f"fall_time_{oid}"], rel=0.02)
        rebound = m.get(f"rebound_height_{oid}") / m.get(f"drop_height_{oid}")
        assert rebound == pytest.approx(q[f"rebound_height_{oid}"] / q[f"drop_height_{oid}"], rel=0.02)


def test_pendulum_periods_within_two_percent(rendered):
    case, runs = rendered["pendulum"]
    m, q = runs["true"][0], case.truth.quantities
    for oid in ("bob_1", "bob_2"):
        assert m.get(f"period_{oid}") == pytest.approx(q[f"period_{oid}"], rel=0.02)


def test_spring_extensions_within_two_percent(rendered):
    case, runs = rendered["spring"]
    m, q = runs["true"][0], case.truth.quantities
    for oid in ("cube_1", "cube_2"):
        assert m.get(f"extension_{oid}") == pytest.approx(q[f"extension_{oid}"], rel=0.02)


def test_arrival_times_and_ranges_close_to_the_render(rendered):
    for name, keys in (("friction", ("arrival_time_block_1", "arrival_time_block_2")),
                       ("inertia", ("arrival_time_cylinder_1", "arrival_time_cylinder_2")),
                       ("projectile", ("range_ball_1", "range_ball_2")),
                       ("momentum_height", ("slide_block_1", "slide_block_2"))):
        case, runs = rendered[name]
        m, q = runs["true"][0], case.truth.quantities
        for key in keys:
            assert m.get(key) == pytest.approx(q[key], rel=0.03), (name, key)


def test_the_default_suite_meets_the_acceptance_bounds(tmp_path):
    """`lawful run`'s own suite (its default seed and cases per task), reference and counterfactual:
    reference ≥ 0.95 on every phenomenon (ordering tests 1.0), counterfactual ≤ 0.6."""
    from lawful.runner.run import RunConfig, run

    board = run(RunConfig(["principia"], ["reference", "counterfactual"], tmp_path, workers=2, progress=False))
    models = board["principia"]["models"]
    for phenomenon, value in models["reference"]["tasks"].items():
        assert value >= (1.0 if phenomenon in ("projectile", "momentum") else 0.95), phenomenon
    assert max(models["counterfactual"]["tasks"].values()) <= 0.6
