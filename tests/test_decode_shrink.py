"""Frames shrunk in YUV before colour conversion (lawful.video._shrunk_rgb) equal OpenCV's full-size
conversion followed by INTER_AREA (the path used before) within rounding, on a clip whose content is known."""

from pathlib import Path

import threading

import numpy as np
import pytest

import lawful.video as V
from lawful.video import Span, iter_frames, open_frames, write_video

W, H, N = 320, 180, 6
SQ = (101, 61, 149, 109)  # the square: x0, y0, x1, y1 (exclusive) in full pixels, centre (124.5, 84.5) + frame


def _clip(tmp_path: Path) -> Path:
    """A grey-to-blue gradient with a sharp-edged red square moving 2 px per frame, stored losslessly (CRF 0)."""
    yy, xx = np.mgrid[0:H, 0:W]
    bg = np.stack([np.full_like(xx, 60), np.full_like(xx, 60), 40 + xx * 180 // W + yy * 20 // H], -1).astype(np.uint8)
    frames = []
    for i in range(N):
        f = bg.copy()
        f[SQ[1]:SQ[3], SQ[0] + 2 * i:SQ[2] + 2 * i] = (220, 20, 20)
        frames.append(f)
    return write_video(tmp_path / "sq.mp4", frames, fps=10, crf=0)


def _old(path: Path, max_side: int, span: Span = V.WHOLE, every: int = 1) -> list[tuple[int, np.ndarray]]:
    real = V._yuv420_container
    V._yuv420_container = lambda *a, **k: None  # the previous path: OpenCV converts, then INTER_AREA
    try:
        _, it = open_frames(path, every=every, max_side=max_side, span=span)
        return list(it)
    finally:
        V._yuv420_container = real


def _centroid(f: np.ndarray) -> np.ndarray:
    """Centroid (x, y) of the red square: pixels weighted by their share of red minus green (0 on the
    background, 200 on the square; linear in the share of square a pixel covers)."""
    wgt = np.clip((f[..., 0].astype(float) - f[..., 1]) / 200, 0, 1)
    wgt[wgt < 0.05] = 0  # conversion noise on the background
    yy, xx = np.mgrid[0:f.shape[0], 0:f.shape[1]]
    return np.array([(wgt * xx).sum(), (wgt * yy).sum()]) / wgt.sum()


@pytest.mark.parametrize("max_side", [160, 213, 240, 64])  # 2x; a non-integer ratio; chroma smaller than the target; 5x
def test_shrunk_frames_equal_the_convert_then_resize_path(tmp_path, max_side):
    path = _clip(tmp_path)
    assert V._yuv420_container(path, V.probe(path), max_side) is not None  # the new path is the one tested
    _, it = open_frames(path, max_side=max_side)
    new, old = list(it), _old(path, max_side)
    assert [i for i, _ in new] == [i for i, _ in old] == list(range(N))
    a, b = np.stack([f for _, f in new]).astype(int), np.stack([f for _, f in old]).astype(int)
    assert a.shape == b.shape == (N, round(H * max_side / W), max_side, 3)
    d = np.abs(a - b)
    assert d.mean() < 1.0 and d.max() <= 8  # rounding (swscale truncates) and the square's saturated red
    s = max_side / W
    for i in range(N):
        truth = (np.array([(SQ[0] + SQ[2] - 1) / 2 + 2 * i, (SQ[1] + SQ[3] - 1) / 2]) + 0.5) * s - 0.5
        assert np.allclose(_centroid(a[i]), _centroid(b[i]), atol=0.05)
        assert np.allclose(_centroid(a[i]), truth, atol=0.12)  # INTER_AREA at ratio 1.5 itself: 0.09 px



@pytest.mark.parametrize("shape, size", [((27, 48), (16, 9)), ((45, 80, 2), (16, 9)), ((36, 64), (16, 9)),
                                         ((30, 48), (16, 9))])  # 3x; 5x on two planes; 4x and 3.33x: INTER_AREA
def test_area_shrink_equals_opencv_inter_area_bit_for_bit(shape, size):
    """The box filter taken at the blocks' centres (odd whole factors) is INTER_AREA exactly: on every sum a 3 x 3 block
    of uint8 can have (0 to 2295, no tie at a half), and on random planes at the other factors."""
    import cv2

    rng = np.random.default_rng(3)
    for _ in range(20):
        x = rng.integers(0, 256, shape, dtype=np.uint8)
        assert np.array_equal(V._area(x, *size), cv2.resize(x, size, interpolation=cv2.INTER_AREA))
    sums = np.arange(2296)
    blocks = (sums[:, None] // 9 + (np.arange(9)[None, :] < sums[:, None] % 9)).astype(np.uint8)  # [n, 9], sum = s
    cols = 41  # 2296 = 56 x 41 blocks
    img = blocks.reshape(56, cols, 3, 3).transpose(0, 2, 1, 3).reshape(56 * 3, cols * 3)
    got = V._area(img, cols, 56)
    assert np.array_equal(got, cv2.resize(img, (cols, 56), interpolation=cv2.INTER_AREA))
    assert np.array_equal(got.ravel(), np.floor(sums / 9 + 0.5).astype(np.uint8))

def test_rotation_span_every_and_limit_are_kept(tmp_path):
    path = _clip(tmp_path)
    for span, every in [(Span(rotation=90), 1), (Span(1, 4, rotation=270), 2), (Span(2, None), 3)]:
        info, it = open_frames(path, every=every, max_side=160, span=span)
        new, old = list(it), _old(path, 160, span, every)
        assert [i for i, _ in new] == [i for i, _ in old]
        a, b = np.stack([f for _, f in new]).astype(int), np.stack([f for _, f in old]).astype(int)
        assert a.shape == b.shape and np.abs(a - b).mean() < 1.0
        assert (info.width, info.height) == ((H, W) if span.rotation in (90, 270) else (W, H))
    (_, turned), = [x for x in open_frames(path, max_side=160, span=Span(rotation=90))[1]][:1]
    assert turned.shape == (160, 90, 3)
    cx, cy = _centroid(turned)  # 90 degrees clockwise: x' = (h - 1) - y, y' = x
    assert abs(cx - (89 - ((84.5 + 0.5) * 0.5 - 0.5))) < 0.1 and abs(cy - ((124.5 + 0.5) * 0.5 - 0.5)) < 0.1
    assert len(list(iter_frames(path, max_side=160, limit=2))) == 2


def test_unshrunk_and_full_range_videos_keep_the_opencv_path(tmp_path):
    path = _clip(tmp_path)
    assert V._yuv420_container(path, V.probe(path), 320) is None  # nothing to shrink
    assert V._yuv420_container(path, V.probe(path), None) is None


def test_a_bt709_tagged_clip_is_converted_with_its_own_matrix(tmp_path):
    import av

    frames = [f for _, f in open_frames(_clip(tmp_path))[1]]
    path = tmp_path / "709.mp4"
    with av.open(str(path), "w") as c:  # the same content, tagged BT.709 (as many generators write)
        s = c.add_stream("libx264", rate=10)
        s.width, s.height, s.pix_fmt, s.options = W, H, "yuv420p", {"crf": "0"}
        s.codec_context.colorspace, s.codec_context.color_range = 1, 1
        for f in frames:
            c.mux(s.encode(av.VideoFrame.from_ndarray(f, format="rgb24").reformat(format="yuv420p", dst_colorspace=1)))
        c.mux(s.encode())
    assert int(av.open(str(path)).streams.video[0].codec_context.colorspace) == 1
    assert V._yuv420_container(path, V.probe(path), 160) is not None
    new, old = [f for _, f in open_frames(path, max_side=160)[1]], [f for _, f in _old(path, 160)]
    d = np.abs(np.stack(new).astype(int) - np.stack(old))
    assert d.mean() < 1.0 and d.max() <= 8  # with BT.601's matrix instead: mean 3.2, max 19 (measured)


def _written(path: Path, frames, pts=None, rotation: int = 0, rate: int = 10) -> Path:
    """``frames`` as yuv420p H.264 through PyAV, at presentation times ``pts`` (1/1000 s; default every
    1/``rate`` s) and with a display rotation of ``rotation`` degrees (counter-clockwise, as stored)."""
    import av
    from fractions import Fraction

    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=rate)
        s.width, s.height, s.pix_fmt, s.options = W, H, "yuv420p", {"crf": "0", "bf": "0"}
        s.time_base = s.codec_context.time_base = Fraction(1, 1000)
        if rotation:
            s.set_display_rotation(rotation)
        for i, f in enumerate(frames):
            vf = av.VideoFrame.from_ndarray(f, format="rgb24").reformat(format="yuv420p")
            vf.pts, vf.time_base = (pts[i] if pts is not None else i * 1000 // rate), Fraction(1, 1000)
            c.mux(s.encode(vf))
        c.mux(s.encode())
    return path


@pytest.mark.parametrize("rotation, span", [(0, V.WHOLE), (90, V.WHOLE), (90, Span(2, 4)), (0, Span(rotation=270))])
def test_shrunk_frames_come_with_the_timestamps_their_packets_hold(tmp_path, rotation, span):
    """Where PyAV decodes (frames shrunk) every decoded frame's timestamp is kept: what the packets hold (a
    variable-rate clip), so the time rule needs no second reading of the file; the frames are unchanged."""
    from lawful.timing import Stamps, frame_timestamps

    frames = [f for _, f in open_frames(_clip(tmp_path))[1]]
    pts = [0, 100, 200, 350, 400, 600]  # a variable frame rate
    path = _written(tmp_path / "vfr.mp4", frames, pts, rotation)
    stamps = Stamps()
    info, it = open_frames(path, max_side=160, prefetch=2, span=span, stamps=stamps)
    got = list(it)
    assert [i for i, _ in got] == [i for i, _ in open_frames(path, max_side=160, span=span)[1]]
    want = frame_timestamps(path)
    assert np.allclose(want, np.array(pts) / 1000)
    times = stamps.times()
    assert np.array_equal(times, want[:len(times)]) and len(times) >= (N if span.end is None else span.end + 1)
    assert (info.width, info.height) == ((H, W) if (rotation or span.rotation or 0) % 180 else (W, H))
    unshrunk, where = Stamps(), []
    read = unshrunk.read
    unshrunk.read = lambda p: (where.append(threading.current_thread().name), read(p))
    list(open_frames(path, prefetch=2, span=span, stamps=unshrunk)[1])  # decoded by OpenCV: the packets read after
    assert where == ["lawful-prefetch"] and np.array_equal(unshrunk.times(), want)  # its last frame, on its thread


def test_pyav_opened_beside_opencv_serves_the_shrunk_frames_and_is_closed_where_nothing_is_shrunk(tmp_path, monkeypatch):
    """Decoding ahead (``prefetch``), PyAV opens the file beside OpenCV (both read a few frames to learn the stream):
    where frames are shrunk its container decodes them, the same frames as a container opened after OpenCV's; where
    they are not, it is closed, not left open."""
    import av

    path = _clip(tmp_path)
    ahead = [f for _, f in open_frames(path, max_side=160, prefetch=2)[1]]
    after = [f for _, f in open_frames(path, max_side=160)[1]]  # (no decoding ahead: opened after OpenCV)
    assert len(ahead) == N and all(np.array_equal(a, b) for a, b in zip(ahead, after))
    closed, used = threading.Event(), []

    class Opened:
        def close(self):
            closed.set()

    monkeypatch.setattr(av, "open", lambda *a, **k: used.append(1) or Opened())
    assert len(list(open_frames(path, max_side=W, prefetch=2)[1])) == N  # nothing to shrink: OpenCV decodes
    assert used == [1] and closed.wait(5)


def test_a_cheaply_coded_stream_is_decoded_on_one_thread_a_textured_one_on_ffmpegs(tmp_path, monkeypatch):
    """Decoding ahead of the shrinking, the decoder gets one thread where the file holds under 0.1 bits per pixel and
    frame (flat colours: decoding costs about what shrinking does), FFmpeg's choice where it holds more (texture); the
    frames are the same either way (decoding does not depend on its threads)."""
    rng = np.random.default_rng(2)
    n, (w, h) = 24, (2 * W, 2 * H)
    frames = []
    for i in range(n):  # a flat backdrop and a square moving across it
        f = np.full((h, w, 3), (60, 90, 140), np.uint8)
        f[100:160, 50 + 8 * i:110 + 8 * i] = (220, 20, 20)
        frames.append(f)
    flat = write_video(tmp_path / "flat.mp4", frames, fps=10, crf=23)
    noisy = write_video(tmp_path / "noise.mp4", [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for _ in range(n)],
                        fps=10, crf=18)
    got = {}
    real = V._yuv420_container

    def spy(path, info, max_side, threads=0, opening=None):
        got.setdefault(Path(path).name, threads)
        return real(path, info, max_side, threads=threads, opening=opening)

    monkeypatch.setattr(V, "_yuv420_container", spy)
    for path in (flat, noisy):
        ahead = [f for _, f in open_frames(path, max_side=160, prefetch=2)[1]]
        assert all(np.array_equal(a, b) for a, b in zip(ahead, [f for _, f in open_frames(path, max_side=160)[1]]))
    bpp = {p.name: p.stat().st_size * 8 / (n * w * h) for p in (flat, noisy)}
    assert bpp["flat.mp4"] < 0.1 < bpp["noise.mp4"], bpp
    assert got == {"flat.mp4": 1, "noise.mp4": 0}
