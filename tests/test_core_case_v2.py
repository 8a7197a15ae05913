"""Case format v2 applied when a video is evaluated: window, rotation, capture rate, camera."""

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.suites.base import get_suite
from lawful.video import write_video

TASK = get_suite("principia").task("drop")


@pytest.fixture(scope="module")
def drop():
    case, _ = TASK.make_case(0, 21)
    return case, list(TASK.render(case, "true"))


def _v2(case, **changes):
    from lawful.case import Case

    return Case.model_validate({**case.model_dump(), "schema_version": 2, **changes})


def _values(ev):
    return {k: s.value for k, s in ev.scores.items()}


def test_a_window_scores_like_the_trimmed_file(drop, tmp_path):
    case, frames = drop
    held = [frames[0]] * 14  # the balls held still before the clip proper, then 9 frames after it
    long = write_video(tmp_path / "long.mp4", held + frames + frames[-1:] * 9, fps=case.fps, crf=10)
    trimmed = write_video(tmp_path / "trim.mp4", frames, fps=case.fps, crf=10)
    windowed = _v2(case, window={"start": 14, "end": 14 + len(frames) - 1})
    a, b = evaluate_video(windowed, long, TASK), evaluate_video(case, trimmed, TASK)
    assert a.status == b.status == "scored"
    for col, v in _values(b).items():
        assert _values(a)[col] == pytest.approx(v, abs=0.01)
    assert a.evidence["tracks_meta"]["timing"]["window_frames"] == [14, 14 + len(frames) - 1]
    # without the window the release is found after the held frames all the same (its onset, not frame 0)
    held = _v2(case, duration=case.duration * (len(frames) + 23) / len(frames))
    for col, v in _values(evaluate_video(held, long, TASK)).items():
        assert v == pytest.approx(_values(b)[col], abs=0.01), col


def test_a_sideways_file_is_turned_upright_by_the_case(drop, tmp_path):
    case, frames = drop
    side = write_video(tmp_path / "side.mp4", [np.ascontiguousarray(np.rot90(f)) for f in frames], fps=case.fps)
    upright = _v2(case, rotation=90)  # stored turned 90 degrees anticlockwise: turn it 90 clockwise
    ev = evaluate_video(upright, side, TASK)
    assert ev.status == "scored" and min(_values(ev).values()) >= 0.95


def test_capture_fps_times_a_slow_motion_file(tmp_path):
    task = get_suite("wmle").task("free_fall")
    case, _ = task.make_case(0, 5)
    path = write_video(tmp_path / "slowmo.mp4", task.render(case, "true"), fps=6)  # container says 6 fps
    true_rate = case.n_frames / case.duration
    v2 = _v2(case, capture_fps=true_rate, duration=99.0)
    ev = evaluate_video(v2, path, task)
    a = ev.evidence["quantities"]["acceleration_px_s2"]
    assert a == pytest.approx(case.truth.quantities["acceleration_px_s2"], rel=0.05)
    assert ev.evidence["tracks_meta"]["timing"]["capture_fps"] == true_rate


def test_a_fixed_camera_is_never_compensated(drop, tmp_path):
    from lawful.world.perturb import camera_pan

    case, frames = drop
    path = write_video(tmp_path / "pan.mp4", camera_pan(frames, 0.05), fps=case.fps)
    fixed = _v2(case, camera="fixed")
    ev = evaluate_video(fixed, path, TASK)
    assert ev.evidence["tracks_meta"]["camera"] == {"compensated": False}
    assert evaluate_video(case, path, TASK).evidence["tracks_meta"]["camera"]["compensated"] is True


def test_evaluate_prints_file_frames_of_a_windowed_clip_and_the_metrics(tmp_path):
    """Events are shown at the clip's frame and at the file's (window start added); C/P/M scores print beside S."""
    from typer.testing import CliRunner

    from lawful.cli import app

    task = get_suite("wmle").task("free_fall")
    case, _ = task.make_case(0, 3)
    frames = list(task.render(case, "true"))
    video = write_video(tmp_path / "long.mp4", [frames[0]] * 10 + frames, fps=case.fps, crf=12)
    (tmp_path / "c.json").write_text(_v2(case, window={"start": 10}).model_dump_json())
    r = CliRunner().invoke(app, ["evaluate", "--case", str(tmp_path / "c.json"), "--video", str(video)])
    assert r.exit_code == 0, r.output
    assert "window from file frame 10" in r.output and "file frame" in r.output
    row = next(line for line in r.output.splitlines() if "release" in line).split("│")
    frame, file_frame = float(row[3]), float(row[4])
    assert file_frame == pytest.approx(frame + 10)
    assert "P2: score" in r.output and "(C " in r.output and "M1 " in r.output
