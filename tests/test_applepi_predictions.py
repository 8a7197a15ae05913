"""Reading predictions: the time rule on real clips of other lengths, keyframe folders, validation."""

from pathlib import Path

import numpy as np
import pytest

from lawful.score.applepi import pred_physics_index
from lawful.suites.applepi import predictions as P
from lawful.suites.applepi.models import write_video


def _index_clip(path: Path, n_frames: int) -> None:
    """Frame i is a flat grey of level 4 * i (readable back after compression)."""
    write_video(path, [np.full((32, 48, 3), 4 * i, np.uint8) for i in range(n_frames)], 24.0)


def _frame_index(img: np.ndarray) -> int:
    return int(round(float(img.mean()) / 4))


@pytest.mark.parametrize("n_phys", [12, 48, 61])  # shorter, equal to and longer than a 48-frame GT
def test_deduction_frames_follow_the_time_rule(tmp_path, n_phys):
    p = tmp_path / "rollout_00.mp4"
    _index_clip(p, n_phys + 1)
    out = P.Output("c", "deduction", 0, "video", p)
    ts = [0.0, 0.5, 1.0, 1.375, 2.0]
    fr = P.deduction_frames(out, ts, 2.0, (32, 48))
    assert fr.n_phys == n_phys
    for t in ts:
        want = pred_physics_index(t, n_phys, 2.0) + 1  # +1: frame 0 is the condition frame
        assert _frame_index(fr.at[t]) == want
        for dt, f in fr.neighbours[t]:  # neighbours are one physics frame apart
            assert _frame_index(f) == want + round(dt * n_phys / 2.0)


def test_keyframes_folder_and_resize(tmp_path):
    import cv2

    d = tmp_path / "deduction/cases/P/T/000001/rollout_00"
    d.mkdir(parents=True)
    for i, t in enumerate([0.5, 1.0]):
        cv2.imwrite(str(d / f"frame_{i:03d}_t{t:.3f}s.png"), np.full((20, 30, 3), 10 * (i + 1), np.uint8))
    entry = {"case_id": "T_000001", "path": "cases/P/T/000001"}
    out = P.find_output(tmp_path, entry, "deduction", 0)
    assert out.kind == "keyframes" and sorted(out.keyframes) == [0.5, 1.0]
    fr = P.deduction_frames(out, [0.5, 1.0], 2.0, (40, 60))
    assert fr.at[1.0].shape == (40, 60, 3) and fr.at[1.0][0, 0, 0] == 20
    with pytest.raises(P.PredictionError):
        P.deduction_frames(out, [1.5], 2.0, (40, 60))


def test_subtrack_folder_spellings(tmp_path):
    d = tmp_path / "Perception-Text" / "T_000001"
    d.mkdir(parents=True)
    (d / "rollout_01.png").write_bytes(b"")
    out = P.find_output(tmp_path, {"case_id": "T_000001", "path": "cases/P/T/000001"}, "perception_text", 1)
    assert out.kind == "image" and out.path.name == "rollout_01.png"
    assert P.find_output(tmp_path, {"case_id": "T_000001", "path": "cases/P/T/000001"}, "perception_text", 2).missing


def test_last_frame_is_the_answer(tmp_path):
    p = tmp_path / "a.mp4"
    _index_clip(p, 7)
    assert _frame_index(P.last_frame(p)) == 6
    bad = tmp_path / "b.mp4"
    bad.write_bytes(b"not a video at all")
    with pytest.raises(P.PredictionError):
        P.last_frame(bad)


def test_dataset_files_are_lossless_and_identical_clips_are_encoded_once(tmp_path):
    from lawful.suites.applepi import build as B
    from lawful.suites.applepi import dataset as D
    from lawful.suites.applepi import models as M

    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (24, 40, 3), dtype=np.uint8)
    data = D.imwrite(tmp_path / "a.png", img)
    assert data == (tmp_path / "a.png").read_bytes() and np.array_equal(D.imread(tmp_path / "a.png"), img)
    maps = rng.integers(0, 5, (3, 24, 40), dtype=np.uint8)
    B.save_maps(tmp_path / "m/maps.npz", maps)
    assert np.array_equal(D._load_maps(tmp_path / "m/maps.npz"), maps)

    root = tmp_path / "ds"
    case = D.GTCase(root, B.write_case(root, "FreeFall", 1, seed=1, width=96, height=64, duration=0.25))
    M.write_predictions("static", case, tmp_path / "static", num_rollouts=2)
    clips = [M.case_dir(tmp_path / "static", s, case) / f"rollout_{r:02d}.mp4" for s in P.SUBTRACKS if s != "deduction"
             for r in range(2)]
    assert len({c.stat().st_ino for c in clips}) == 1  # four subtracks, same fade of the input: one encode
    last = P.last_frame(clips[0])
    err = np.abs(last.astype(int) - case.image("input_image"))
    assert err.mean() < 1 and err.max() <= 8  # the answer is the input, through CRF 8


def test_one_linked_clip_answering_four_subtracks_is_decoded_once(tmp_path, monkeypatch):
    """Static answers every non-Deduction subtrack with one clip (hard links): scoring decodes it once and
    gives each subtrack the checks of that one image."""
    from lawful.suites.applepi import build as B
    from lawful.suites.applepi import dataset as D
    from lawful.suites.applepi import evaluate as E
    from lawful.suites.applepi import models as M

    root = tmp_path / "ds"
    case = D.GTCase(root, B.write_case(root, "FreeFall", 1, seed=1, width=96, height=64, duration=0.25))
    M.write_predictions("static", case, tmp_path / "static", num_rollouts=2)
    calls = []
    real = E.answer_image
    monkeypatch.setattr(E, "answer_image", lambda out, shape: calls.append(out.path) or real(out, shape))
    results = E.evaluate_case(case, tmp_path / "static", 2)
    answered = [r for r in results if r.output.subtrack != "deduction"]
    assert len(answered) == 8 and all(r.output.status != "invalid" for r in answered)
    assert len(calls) == 1
    img = real(P.find_output(tmp_path / "static", case.entry, "perception_graphic", 1), case.shape)
    from lawful.suites.applepi import checks as C

    graphic = [r for r in answered if r.output.subtrack == "perception_graphic"]
    assert [r.output.metrics for r in graphic] == [C.perception_graphic(case, img)] * 2
