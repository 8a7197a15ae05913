import numpy as np
import pytest

from lawful.video import VideoError, frame_at, frame_time, iter_frames, open_frames, probe, read_frames, write_video


def _frames(n=12, w=64, h=48):
    for i in range(n):
        f = np.zeros((h, w, 3), np.uint8)
        f[:, : (i * 5) % w] = 200
        yield f


def test_write_probe_read(tmp_path):
    p = write_video(tmp_path / "a.mp4", _frames(), fps=24)
    info = probe(p)
    assert (info.width, info.height, info.n_frames) == (64, 48, 12)
    assert info.fps == pytest.approx(24)
    frames = read_frames(p)
    assert frames.shape == (12, 48, 64, 3)
    assert [i for i, _ in iter_frames(p, every=3)] == [0, 3, 6, 9]
    assert abs(int(frames[5][:, :20].mean()) - 200) < 6


def test_odd_size_is_padded(tmp_path):
    p = write_video(tmp_path / "odd.mp4", _frames(4, 33, 21), fps=10)
    assert (probe(p).width, probe(p).height) == (34, 22)


def test_bad_files(tmp_path):
    with pytest.raises(VideoError, match="no such video"):
        probe(tmp_path / "missing.mp4")
    (tmp_path / "empty.mp4").write_bytes(b"")
    with pytest.raises(VideoError, match="empty file"):
        probe(tmp_path / "empty.mp4")
    (tmp_path / "junk.mp4").write_bytes(b"\x00garbage" * 100)
    with pytest.raises(VideoError):
        probe(tmp_path / "junk.mp4")


def test_time_rule():
    # n frames span the duration, whatever the container fps says
    assert frame_time(48, 96, 4.0) == pytest.approx(2.0)
    assert frame_at(0.0, 96, 4.0) == 0
    assert frame_at(4.0, 96, 4.0) == 95  # clamped to the last frame
    assert frame_at(2.0, 96, 4.0) == 48
    assert frame_at(1.0, 24, 2.0) == 12  # a shorter clip: same physical time, other index


def test_prefetched_frames_match_and_stop_early(tmp_path):
    import threading

    p = write_video(tmp_path / "a.mp4", _frames(30), fps=24)
    plain = read_frames(p)
    info, ahead = open_frames(p, prefetch=4)
    assert info.n_frames == 30 and np.array_equal(np.stack([f for _, f in ahead]), plain)
    _, it = open_frames(p, prefetch=2)
    next(it)
    assert "lawful-prefetch" in {t.name for t in threading.enumerate()}
    it.close()  # a consumer that stops early stops the decoding thread too
    assert "lawful-prefetch" not in {t.name for t in threading.enumerate()}
    with pytest.raises(VideoError, match="no such video"):
        open_frames(tmp_path / "missing.mp4", prefetch=2)
