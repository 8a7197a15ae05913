"""Principia under degraded video: noise, compression, hue shift, camera pan and zoom; and the
separation of reference from counterfactual over per-video scores (ROC AUC)."""

from __future__ import annotations

import pytest

from lawful.perceive.track import track
from lawful.score.stats import roc_auc
from lawful.suites.base import get_suite
from lawful.video import write_video
from lawful.world import perturb

SUITE = get_suite("principia")
SEED = 4242


def _score(task, case, frames, path):
    video = write_video(path, frames, case.fps)
    return task.score(case, task.measure(case, track(video, case, task.plan)))


DEGRADE = {
    "noise": lambda fr, c: perturb.noise_frames(fr, 8 / 255, seed=3),
    "crf35": lambda fr, c: perturb.reencode(fr, c.fps, crf=35),
    "hue10": lambda fr, c: (perturb.hue_shift(f, 10.0) for f in fr),
    "pan5": lambda fr, c: perturb.camera_pan(fr, 0.05, axis="x", n_frames=c.n_frames),
    "zoom5": lambda fr, c: perturb.camera_zoom(fr, 0.05, n_frames=c.n_frames),
}


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """``{task: {variant: {column: Score}}}`` for one styled case per task."""
    root = tmp_path_factory.mktemp("robust")
    out = {}
    for name, task in SUITE.tasks.items():
        case, _ = task.make_case(2, SEED)
        res = {"reference": _score(task, case, task.render(case, "true"), root / f"{name}_ref.mp4"),
               "counterfactual": _score(task, case, task.render(case, "anti"), root / f"{name}_anti.mp4")}
        for kind, fn in DEGRADE.items():
            res[kind] = _score(task, case, fn(list(task.render(case, "true")), case), root / f"{name}_{kind}.mp4")
        out[name] = res
    return out


@pytest.mark.parametrize("kind", ["noise", "crf35", "hue10"])
def test_degraded_reference_still_scores_high(scored, kind):
    for name, res in scored.items():
        for col, s in res[kind].items():
            assert s.status == "scored", (name, kind, s.reason)
            assert s.value >= 0.93, (name, col, kind, s.value)


@pytest.mark.parametrize("kind", ["pan5", "zoom5"])
def test_camera_motion_moves_scores_little(scored, kind):
    for name, res in scored.items():
        for col, s in res[kind].items():
            assert s.status == "scored", (name, kind, s.reason)
            assert abs(s.value - res["reference"][col].value) <= 0.03, (name, col, kind, s.value)


def test_reference_and_counterfactual_separate(scored):
    ref = [s.value for r in scored.values() for s in r["reference"].values()]
    anti = [s.value for r in scored.values() for s in r["counterfactual"].values()]
    assert min(ref) >= 0.95 and max(anti) <= 0.6
    assert roc_auc(ref, anti) >= 0.95
