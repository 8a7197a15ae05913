"""Studio scenes for Principia drop, pendulum, spring and projectile: valid cases, shared first frame, scored clips."""


import numpy as np
import pytest

from studio_support import check_case, one_subframe  # noqa: F401 (GL set-up, or skip the module)

from lawful.runner.evaluate import evaluate_video  # noqa: E402
from lawful.video import write_video  # noqa: E402
from lawful.world.studio import StudioStyle  # noqa: E402

TASKS = ("drop", "pendulum", "spring", "projectile")


def test_every_task_is_registered():
    style = StudioStyle()
    assert all(style.supports("principia", t) for t in TASKS)


@pytest.mark.parametrize("task", TASKS)
def test_scene_case_is_complete_and_the_twins_share_their_first_frame(task, tmp_path, one_subframe):
    check_case(StudioStyle().make("principia", task, 0, 11), tmp_path)


def test_image_geometry_in_known_agrees_with_the_rendered_boxes(one_subframe):
    """ground_y, anchors and launch columns are projections of the 3-D scene: they match the masks."""
    drop = StudioStyle().make("principia", "drop", 0, 11).case
    for i, o in enumerate(drop.objects):  # floor row minus the ball's lowest pixel edge = its drop height
        assert drop.known["ground_y"] - o.box[3] == pytest.approx(drop.known["drop_height_px"][i], abs=1.5)
    pend = StudioStyle().make("principia", "pendulum", 0, 11).case
    for i, o in enumerate(pend.objects):
        ax, ay = pend.known["anchors"][o.id]
        cx, cy = (o.box[0] + o.box[2]) / 2, (o.box[1] + o.box[3]) / 2
        assert np.hypot(cx - ax, cy - ay) == pytest.approx(pend.known["length_px"][i], abs=1.5)
    proj = StudioStyle().make("principia", "projectile", 0, 11).case
    lx = proj.known["launch_x"]
    for o in proj.objects:  # each ball starts on its own ramp, between the table centre and its launch edge
        cx = (o.box[0] + o.box[2]) / 2
        mid = (lx["ball_1"] + lx["ball_2"]) / 2
        assert min(lx[o.id], mid) < cx < max(lx[o.id], mid)
    assert max(o.box[3] for o in proj.objects) < proj.known["ground_y"]


def _sides(ev):
    return {k: (None if s.value is None else round(s.value, 3), s.status) for k, s in ev.scores.items()}


@pytest.mark.parametrize("task", TASKS)
def test_law_clip_runs_through_the_evaluator(task, tmp_path, one_subframe, monkeypatch):
    from lawful.world.studio import scenes_principia_falls as scenes

    monkeypatch.setattr(scenes, "FPS", 12.0)  # half the frames: a pipeline check, not a score
    sc = StudioStyle().make("principia", task, 0, 11)
    assert sc.case.fps == 12.0
    frames = list(sc.render("true"))
    assert len(frames) == sc.case.n_frames
    moved = np.abs(frames[-1].astype(int) - frames[0].astype(int)).max(axis=2) > 40
    assert moved.sum() > 20  # something moves
    path = write_video(tmp_path / f"{sc.case.id}.mp4", frames, sc.case.fps)
    ev = evaluate_video(sc.case, path)
    print(task, ev.status, _sides(ev), ev.reason)
    assert ev.status in ("scored", "unmeasurable")
