import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from lawful.timing import frame_at, frame_time
from lawful.video import VideoError, iter_frames, open_frames, probe, read_frames, write_video


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


def test_rgb_codec_is_exact_at_crf_0_and_keeps_colour_resolution(tmp_path):
    """``codec="rgb"`` (Apple-π's answers): RGB H.264 at CRF 0 is lossless, including 1-px colour detail that
    4:2:0 chroma halves; the default codec loses it; an unknown codec is a one-line error."""
    rng = np.random.default_rng(3)
    frames = [rng.integers(0, 256, (22, 34, 3), dtype=np.uint8) for _ in range(3)]
    p = write_video(tmp_path / "rgb.mp4", frames, fps=8, crf=0, codec="rgb")
    got = read_frames(p)
    assert got.shape == (3, 22, 34, 3) and all(np.array_equal(g, f) for g, f in zip(got, frames))
    lossy = read_frames(write_video(tmp_path / "yuv.mp4", frames, fps=8, crf=0))
    assert np.abs(lossy.astype(int) - np.stack(frames)).mean() > 5
    with pytest.raises(ValueError, match="unknown codec"):
        write_video(tmp_path / "x.mp4", frames, fps=8, codec="vp9")


def test_a_constant_quantizer_keeps_the_built_in_clips_as_close_to_the_render_as_crf_18(tmp_path):
    """The built-in models write lawful's clean renders at QP 14 (no rate control): as close to the render as
    CRF 18 (within 10 %), while QP 24 is measurably further (the quantizer is applied)."""
    from lawful.case import case_seed
    from lawful.generators.builtin import PRESET, QP
    from lawful.suites.base import get_suite

    task = get_suite("wmle").task("pendulum_length")
    case, _ = task.make_case(0, case_seed(0, "wmle", "pendulum_length", 0))
    frames = list(task.render(case, "true"))[:24]
    err = {}
    for name, kw in (("crf", {}), ("qp", {"qp": QP}), ("coarse", {"qp": 24})):
        got = read_frames(write_video(tmp_path / f"{name}.mp4", frames, case.fps, preset=PRESET, **kw))
        err[name] = float(np.abs(got.astype(int) - np.stack(frames)).mean())
    assert abs(err["qp"] / err["crf"] - 1) < 0.1, err
    assert err["coarse"] > 1.2 * err["qp"], err


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


def test_prefetched_frames_closed_before_the_first_stop_the_thread_and_the_process_exits_cleanly(tmp_path):
    """A caller that turns a video down on its header (too few frames) closes the frames unread: the decoding thread
    must end there. It used to wait for room forever, holding the decoder, and the interpreter's exit tore it down
    inside FFmpeg or OpenCV: the process aborted (exit status 134, "terminate called without an active exception")."""
    import subprocess
    import sys
    import threading

    p = write_video(tmp_path / "a.mp4", _frames(40, 640, 360), fps=24)
    for shrink in (None, 320):  # OpenCV decodes; PyAV decodes ahead of a second thread that shrinks
        _, it = open_frames(p, max_side=shrink, prefetch=4)
        it.close()
        assert "lawful-prefetch" not in {t.name for t in threading.enumerate()}
        assert next(it, None) is None
    code = ("import sys\nfrom lawful.video import open_frames\nfor _ in range(2):\n"
            "    info, it = open_frames(sys.argv[1], prefetch=8)\n    it.close()\nprint('closed')\n")
    done = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "closed"), done.stderr[-500:]


def _write_vfr(path, intervals_ms):
    """An H.264 file whose frames are shown for the given intervals (ms): a variable-frame-rate clip."""
    from fractions import Fraction

    import av

    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=30)
        s.width, s.height, s.pix_fmt = 64, 48, "yuv420p"
        s.time_base = Fraction(1, 1000)
        s.codec_context.time_base = Fraction(1, 1000)
        pts = 0
        for i, d in enumerate(intervals_ms):
            f = av.VideoFrame.from_ndarray(np.full((48, 64, 3), (i * 7) % 255, np.uint8), format="rgb24")
            f.pts, f.time_base = pts, Fraction(1, 1000)
            pts += d
            for p in s.encode(f):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return path


def test_variable_frame_rate_clips_are_timed_by_their_timestamps(tmp_path):
    from lawful.timing import clip_times, frame_timestamps

    intervals = [10] * 20 + [40] * 10  # 20 frames at 100 fps, then 10 at 25 fps
    path = _write_vfr(tmp_path / "vfr.mp4", intervals)
    ts = frame_timestamps(path)
    assert len(ts) == 30 and np.allclose(np.diff(ts) * 1000, intervals[:-1])
    t, note = clip_times(30, 0.6, ts)  # the clip (0.6 s of timestamps) is said to span 0.6 s
    assert note["vfr"] is True
    assert t[20] == pytest.approx(0.2) and t[29] == pytest.approx(0.56)  # uniform timing would say 0.4 and 0.58
    t, note = clip_times(30, 3.0, np.arange(30) / 30.0)
    assert note == {"vfr": False} and np.allclose(t, np.arange(30) * 0.1)
    assert clip_times(30, 3.0, ts[:-1])[1]["vfr"] is None  # counts disagree: uniform, and said so


def test_a_variable_frame_rate_drop_scores_like_its_constant_rate_original(tmp_path, monkeypatch):
    """Every other frame of the first 10 dropped (during the lower ball's fall), the rest kept at their true
    times: timed uniformly, gravity scores 0.92 (restitution 0.95); timed by timestamps, 0.9998 and 0.994."""
    from fractions import Fraction

    import av

    from lawful.runner.evaluate import evaluate_video
    from lawful.suites.base import get_suite

    task = get_suite("principia").task("drop")
    case, _ = task.make_case(0, 3)
    frames = list(task.render(case, "true"))
    n = len(frames)
    keep = list(range(0, 10, 2)) + list(range(10, n))
    path = tmp_path / "drop-vfr.mp4"
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=int(case.fps))
        s.width, s.height, s.pix_fmt = case.width, case.height, "yuv420p"
        s.time_base = s.codec_context.time_base = Fraction(1, 10000)
        s.options = {"crf": "16"}
        for i in keep:
            f = av.VideoFrame.from_ndarray(frames[i], format="rgb24")
            f.pts, f.time_base = round(i * case.duration / n * 10000), Fraction(1, 10000)
            for p in s.encode(f):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    ev = evaluate_video(case, path, task)
    assert ev.evidence["tracks_meta"]["timing"]["vfr"] is True
    assert ev.scores["gravity"].value >= 0.95 and ev.scores["restitution"].value >= 0.95
    # tracked smaller than stored, PyAV decodes the frames and keeps their timestamps: the same times, no second
    # reading of the file for them
    import lawful.perceive.track as T
    from lawful.perceive.plan import TrackingPlan

    plan = TrackingPlan(max_side=case.width // 2)
    import lawful.timing as timing

    with monkeypatch.context() as m:
        m.setattr(T.Stamps, "times", lambda self, p=None: timing.frame_timestamps(p))  # as before: read again
        want = T.track(path, case, plan).t
    monkeypatch.setattr(timing, "frame_timestamps", lambda p: pytest.fail("the file was read again for its timestamps"))
    got = T.track(path, case, plan)
    assert got.meta["timing"]["vfr"] is True and got.meta["track_size"][0] < case.width
    assert np.array_equal(got.t, want)


def test_a_span_reads_only_its_frames_indexed_from_its_start(tmp_path):
    from lawful.video import Span

    frames = [np.full((16, 24, 3), 10 * i, np.uint8) for i in range(20)]
    path = write_video(tmp_path / "ramp.mp4", frames, fps=10, crf=0)
    info, it = open_frames(path, span=Span(5, 12))
    got = list(it)
    assert info.n_frames == 8 and [i for i, _ in got] == list(range(8))
    assert [round(float(f.mean()) / 10) for _, f in got] == list(range(5, 13))
    info, it = open_frames(path, every=3, span=Span(5, None))
    assert info.n_frames == 15 and [i for i, _ in it] == [0, 3, 6, 9, 12]
    with pytest.raises(VideoError, match="window starts at frame 30"):
        open_frames(path, span=Span(30, None))


RECORDING = Path(__file__).resolve().parents[2] / "shared" / "recordings" / "01_free_fall_red_ball_oliverius.mp4"


@pytest.mark.skipif(not RECORDING.exists(), reason="../shared/recordings is not here")
def test_rotation_from_the_display_matrix_on_both_decoders_or_from_the_case():
    from lawful.video import Span, _iter_av

    info, it = open_frames(RECORDING)
    first = next(it)[1]
    it.close()
    assert (info.width, info.height) == (172, 1716) and first.shape == (1716, 172, 3)  # portrait, as displayed
    from lawful.video import _probe_av

    assert _probe_av(RECORDING)[2:] == (172, 1716)  # the PyAV probe names the upright size too
    (_, av_first), = list(_iter_av(RECORDING, 1, None, 1))
    assert np.abs(av_first.astype(int) - first).mean() < 1.0  # PyAV applies the display matrix too
    info, it = open_frames(RECORDING, span=Span(rotation=0))  # the case says: as stored
    assert (info.width, info.height) == (1716, 172) and next(it)[1].shape == (172, 1716, 3)
    it.close()


def test_two_writers_of_one_video_do_not_interleave(tmp_path):
    """An interrupted run's task can still be writing a video while the resumed run makes it again: each
    writer encodes to a file of its own and the last complete one replaces the target, never a mix."""
    from concurrent.futures import ThreadPoolExecutor

    from lawful.video import read_frames, write_video

    out = tmp_path / "clip.mp4"
    a = [np.full((64, 96, 3), 40 + 4 * k, np.uint8) for k in range(36)]
    with ThreadPoolExecutor(2) as ex:
        list(ex.map(lambda _: write_video(out, a, 24.0), range(4)))
    frames = list(read_frames(out))
    assert len(frames) == 36 and abs(float(frames[-1].mean()) - (40 + 4 * 35)) < 3
    assert [p.name for p in tmp_path.iterdir()] == ["clip.mp4"]  # no part file left behind


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_the_same_frames_give_the_same_bytes_whatever_the_cores(tmp_path):
    """x264's default thread count follows the CPUs the process may use, and its output follows the thread
    count: pinned, a 1-CPU process writes the bytes a many-CPU one does (the built-in models' videos and
    scores do not depend on the machine)."""
    rng = np.random.default_rng(3)
    tex = rng.integers(0, 256, (360, 640, 3), dtype=np.uint8)  # x264 threads only tall enough frames
    frames = [np.roll(tex, 3 * i, axis=1) for i in range(24)]
    cpus = os.sched_getaffinity(0)
    digests = []
    for allowed in ({min(cpus)}, cpus):
        os.sched_setaffinity(0, allowed)
        try:
            path = write_video(tmp_path / f"v{len(allowed)}.mp4", frames, fps=24)
        finally:
            os.sched_setaffinity(0, cpus)
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    assert digests[0] == digests[1]


def test_opencv_threads_are_set_inside_the_block_and_restored_after():
    import cv2

    from lawful.threads import opencv_threads

    before = cv2.getNumThreads()
    with opencv_threads(1):
        assert cv2.getNumThreads() == 1
    assert cv2.getNumThreads() == before
    with pytest.raises(RuntimeError), opencv_threads(1):
        raise RuntimeError("a failed tracking")
    assert cv2.getNumThreads() == before


def test_opencv_threads_leave_a_pool_of_that_size_alone(monkeypatch):
    """In a forked worker the pool is already on one thread: it is not set again (that can deadlock)."""
    import cv2

    from lawful.threads import opencv_threads

    before = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        monkeypatch.setattr(cv2, "setNumThreads", lambda n: (_ for _ in ()).throw(AssertionError("set")))
        with opencv_threads(1):
            pass
    finally:
        monkeypatch.undo()
        cv2.setNumThreads(before)


def test_frames_shrunk_on_frame_threads_are_the_frames_of_one_thread(tmp_path, monkeypatch):
    """Decoding ahead, frames read smaller than stored are decoded on FFmpeg's frame threads (one in a pool worker):
    the same frames, in the same order, as one decoder thread gives."""
    from lawful import threads

    rng = np.random.default_rng(3)
    frames = [np.clip(rng.normal(120, 40, (240, 320, 3)) + 4 * k, 0, 255).astype(np.uint8) for k in range(12)]
    p = write_video(tmp_path / "big.mp4", frames, fps=24)
    one = [(i, f) for i, f in open_frames(p, max_side=160, prefetch=4, threads=1)[1]]
    for worker in (False, True):
        monkeypatch.setattr(threads, "WORKER", worker)
        got = list(open_frames(p, max_side=160, prefetch=4)[1])
        assert [i for i, _ in got] == [i for i, _ in one] == list(range(12))
        assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(got, one))
        assert got[0][1].shape == (120, 160, 3)
