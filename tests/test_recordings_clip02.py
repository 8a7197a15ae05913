"""Clip 02 (../shared/recordings, never committed here): a pendulum hung beside a wall strikes it every swing
until it rests against it. R4 scores it from the hand-written case tests/recordings/02_wall_pendulum.r04.json:
the wall arcs of one pendulum (impact intervals 22 → 10 frames) must share one small-amplitude period."""

import json
from pathlib import Path

import numpy as np
import pytest

from lawful.case import load_case
from lawful.runner.evaluate import evaluate_video

SHARED = Path(__file__).resolve().parents[2] / "shared" / "recordings"
CASE = Path(__file__).parent / "recordings" / "02_wall_pendulum.r04.json"
CLIP = "02_wall_impact_pendulum_red_ball_necrosskull.mp4"
pytestmark = pytest.mark.skipif(not (SHARED / "MANIFEST.json").exists(),
                                reason="../shared/recordings is not here (real clips are not part of the project)")


@pytest.fixture(scope="module")
def scored():
    item = next(i for i in json.loads((SHARED / "MANIFEST.json").read_text())["items"] if i["file"] == CLIP)
    ev = evaluate_video(load_case(CASE), SHARED / CLIP)
    assert ev.status == "scored", ev.reason
    return item, ev.scores["R4"]


def test_wall_impacts_where_they_were_observed(scored):
    item, s = scored
    m = s.measurement
    assert m.notes["wall"] == {"side": 1, "how": "case"} and m.notes["release"] == "case"
    got = [e.frame for e in m.events if e.name == "wall_impact"]
    want = item["events"]["wall_impacts"]
    assert len(got) >= len(want)
    for f in want:  # every observed impact found within a frame
        assert min(abs(g - f) for g in got) <= 1, f


def test_the_arcs_share_one_period_and_the_clip_scores_high(scored):
    _, s = scored
    m = s.measurement
    T0, se = np.array(m.notes["T0"]), np.array(m.notes["T0_se"])
    good = se < 0.01  # the arcs large enough to time well (amplitude above ~5°)
    assert good.sum() >= 8
    assert np.ptp(T0[good]) / np.median(T0[good]) < 0.05  # 1.47-1.53 s while the impact gaps go 22 -> 15 frames
    assert m.get("period_s") == pytest.approx(1.50, abs=0.03)  # 0.75 s between impacts at large amplitude
    assert s.metrics["C"] >= 95
    assert s.metrics["M4"] is None  # no length in metres: not compared with 2π√(L/g)
    assert s.value >= 90, (s.metrics, s.residuals)


def test_the_clip_frozen_halfway_is_gated(tmp_path, scored):
    """Validated off lawful's renderer: the real clip re-encoded with its second half frozen on one frame (a generator
    whose motion stalls). The lawful clip keeps every factor of C at 1; the frozen one loses the share after the halt
    (``swinging``)."""
    from lawful.encode import write_video
    from lawful.video import iter_frames

    _, s = scored
    assert s.extra["C_checks"]["swinging"] == 1.0 and s.extra["C_checks"]["order"] == 1.0
    frames = [f for _, f in iter_frames(SHARED / CLIP)]
    n, case = len(frames), load_case(CASE)
    write_video(tmp_path / "frozen.mp4", frames[: n // 2] + [frames[n // 2]] * (n - n // 2), case.fps)
    frozen = evaluate_video(case, tmp_path / "frozen.mp4").scores["R4"]
    stop = frozen.measurement.notes["halt_bob"]
    # where the picture froze, or a few frames on: the encoder refines the repeated picture over its next frames
    assert 0 <= stop["index"] - n // 2 <= 10
    assert frozen.extra["C_checks"]["swinging"] == pytest.approx(stop["share"]) and stop["share"] < 0.55
    assert frozen.metrics["C"] < 80 and frozen.value < 10
