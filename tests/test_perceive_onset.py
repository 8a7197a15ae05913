"""Release from a sustained departure from rest above measured noise (issue #17: never frame 0, never 1 px)."""

import math

import numpy as np
import pytest

from lawful.perceive.onset import distance_from_start, onset_time, release_of, sustained_onset
from lawful.runner.evaluate import evaluate_video
from lawful.suites.base import get_suite
from lawful.video import write_video

FPS, SIGMA = 24.0, 0.5


def _fall(release_s, n=60, tremor=0.0, seed=0):
    t = np.arange(n) / FPS
    rng = np.random.default_rng(seed)
    y = np.where(t > release_s, 0.5 * 900 * (t - release_s) ** 2, 0.0) + rng.normal(0, SIGMA, n)
    y += tremor * np.sin(2 * np.pi * 7 * t) * (t < release_s)
    x = 100 + rng.normal(0, SIGMA, n)
    return t, np.stack([x, y], 1)


@pytest.mark.parametrize("release_s", [0.0, 0.5, 1.2])
def test_release_is_found_to_a_fraction_of_a_frame(release_s):
    t, xy = _fall(release_s)
    got, how = onset_time(t, distance_from_start(xy), SIGMA * math.sqrt(2))
    assert got == pytest.approx(release_s, abs=0.5 / FPS), how


def test_tremor_and_a_single_jump_before_release_are_not_release():
    t, xy = _fall(1.0, tremor=1.5 * SIGMA)  # a hand shaking by 0.75 px
    xy[8, 1] += 6.0  # one bad detection: above k·σ, but not sustained
    got, _ = onset_time(t, distance_from_start(xy), SIGMA * math.sqrt(2))
    assert got == pytest.approx(1.0, abs=0.5 / FPS)
    # the 1-px departure rule that this replaces fires at the tremor or the jump
    assert np.flatnonzero(distance_from_start(xy) > 1.0)[0] / FPS < 0.5


def test_a_body_that_never_moves_has_no_release():
    t, xy = _fall(10.0)
    got, why = onset_time(t, distance_from_start(xy), SIGMA * math.sqrt(2))
    assert got is None and "no sustained motion" in why
    assert sustained_onset([0, 5, np.nan, 5, 5, 0, 5, 5, 5, 5], 1.0) == 6


@pytest.mark.parametrize("task_name", ["pendulum", "friction", "drop"])
def test_principia_timings_do_not_depend_on_frames_held_before_release(task_name, tmp_path):
    """A clip that holds its first frame for 12 frames (a generator's still start, a hand) scores as the
    same clip without them: periods and arrival times count from the detected release, not frame 0."""
    task = get_suite("principia").task(task_name)
    case, _ = task.make_case(0, 7)
    frames = list(task.render(case, "true"))
    held = write_video(tmp_path / "held.mp4", [frames[0]] * 12 + frames, fps=case.fps, crf=12)
    plain = write_video(tmp_path / "plain.mp4", frames, fps=case.fps, crf=12)
    held_case = case.model_copy(update={"duration": case.duration * (len(frames) + 12) / len(frames)})
    a, b = evaluate_video(held_case, held, task), evaluate_video(case, plain, task)
    assert a.status == b.status == "scored"
    for col, s in b.scores.items():
        assert s.value >= 0.95 and a.scores[col].value == pytest.approx(s.value, abs=0.01), col
    q = a.evidence["quantities"]["release_time_s"]
    assert q == pytest.approx(12 * case.duration / len(frames), abs=1.0 / case.fps)


def test_a_stated_release_wins():
    class _Case:
        release = 0.75

    assert release_of(_Case(), None, ["a"]) == (0.75, "stated by the case")
