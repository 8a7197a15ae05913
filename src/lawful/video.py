"""Video reading: probe, stream frames; writing H.264 is :mod:`lawful.encode`'s (its names re-exported here).

Reading streams frames through OpenCV's FFmpeg backend (about 2x faster than
PyAV here) and falls back to PyAV.
Frames are ``uint8`` RGB arrays ``[H, W, 3]``. A yuv420p video read smaller than it
is (``max_side``) is decoded by PyAV and shrunk before colour conversion
(:func:`_shrunk_rgb`): the same frames, within rounding, as OpenCV's full-size
conversion followed by ``INTER_AREA``, without converting every full-size pixel.

Which physical time a decoded frame shows is :mod:`lawful.timing`'s rule.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lawful.encode import CODECS, ENCODER_THREADS, VideoError, write_video
from lawful import threads as _threads
from lawful.threads import prefetched

__all__ = ["CODECS", "ENCODER_THREADS", "WHOLE", "Span", "VideoError", "VideoInfo", "iter_frames", "open_frames", "probe",
           "read_first_frame", "read_frames", "write_video"]


@dataclass(frozen=True)
class VideoInfo:
    path: str
    fps: float
    n_frames: int
    width: int
    height: int

    @property
    def file_duration(self) -> float:
        """Duration the container claims (frames / fps); not the physical duration."""
        return self.n_frames / self.fps if self.fps > 0 else 0.0


def _cv2_capture(path: Path, threads: int = 0):
    """An opened OpenCV FFmpeg capture (``threads``: decoder threads, 0 = FFmpeg's choice), or None."""
    import cv2

    cap = cv2.VideoCapture(str(path), cv2.CAP_FFMPEG, [cv2.CAP_PROP_N_THREADS, threads] if threads else [])
    if not cap.isOpened():
        cap.release()
        return None
    return cap


def _check_file(path: Path) -> None:
    if not path.exists():
        raise VideoError(f"{path}: no such video")
    if path.stat().st_size == 0:
        raise VideoError(f"{path}: empty file")


def _cv2_info(cap) -> tuple[float, int, int, int]:
    import cv2

    return (float(cap.get(cv2.CAP_PROP_FPS) or 0.0), int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0),
            int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))


def _video_info(path: Path, fps: float, n: int, w: int, h: int, count: bool) -> VideoInfo:
    if count or n <= 0:
        n = sum(1 for _ in iter_frames(path))
    if n <= 0 or w <= 0 or h <= 0:
        raise VideoError(f"{path}: no decodable frames")
    return VideoInfo(str(path), fps, n, w, h)


def probe(path: str | Path, count: bool = False) -> VideoInfo:
    """Read fps, size and frame count. ``count=True`` decodes to count frames exactly."""
    path = Path(path)
    _check_file(path)
    cap = _cv2_capture(path)
    if cap is not None:
        meta = _cv2_info(cap)
        cap.release()
    else:
        meta = _probe_av(path)
    return _video_info(path, *meta, count)


@dataclass(frozen=True)
class Span:
    """Which frames of a file to read and how to turn them: decoded frames ``first`` .. ``last`` (inclusive,
    None = to the end), rotated ``rotation`` degrees clockwise (None = as the file's display matrix says);
    ``only``: just these of them (indices from ``first``), the others decoded but not converted."""

    first: int = 0
    last: int | None = None
    rotation: int | None = None
    only: frozenset[int] | None = None

    def contains(self, i: int) -> bool:
        return i >= self.first and (self.last is None or i <= self.last)

    @property
    def end(self) -> int | None:
        """The last decoded frame to read (None: to the end of the file)."""
        if self.only is None:
            return self.last
        top = self.first + max(self.only, default=-1)
        return top if self.last is None else min(top, self.last)

    def wants(self, i: int, every: int = 1) -> bool:
        """Whether decoded frame ``i`` of the file is read (converted and yielded)."""
        k = i - self.first
        return self.contains(i) and k % every == 0 and (self.only is None or k in self.only)


WHOLE = Span()


def open_frames(path: str | Path, every: int = 1, max_side: int | None = None,
                prefetch: int = 0, span: Span = WHOLE, threads: int | None = None, stamps=None
                ) -> tuple[VideoInfo, Iterator[tuple[int, np.ndarray]]]:
    """:func:`probe` and :func:`iter_frames` with one opening of the file (opening costs about
    as much as decoding a few frames): ``(info, frames)``.

    ``prefetch > 0``: a background thread decodes up to that many frames ahead (decoding
    releases the GIL, so it overlaps with the caller's work on another core; the decoder then
    uses one thread, leaving the other cores to the caller, unless frames are shrunk: see ``threads``).
    Close ``frames`` when stopping early.
    ``span``: only frames ``span.first .. span.last`` are read (the rest is skipped without colour
    conversion; of them only ``span.only`` when given, decoding stopping after the last), indexed from 0 at
    ``span.first``; ``info`` then describes that part, upright. ``threads``: decoder threads (None: FFmpeg's
    choice, and with ``prefetch`` one where frames are read at their size or in a pool worker
    (:data:`lawful.threads.WORKER`: every core has a worker), as one costs the least CPU where the caller keeps
    every core busy; frames shrunk from a larger size are decoded on FFmpeg's frame threads, on a thread of their
    own ahead of the shrinking, as decoding them is then the slower side: evaluation at 1920x1080 went from
    2.05-2.10 to 1.24-1.68 times decoding alone, the same frames; but on one thread where the stream is cheaply
    coded, :func:`_cheaply_coded`).
    ``stamps`` (a :class:`lawful.timing.Stamps`): filled with the frames' presentation times where PyAV decodes
    them (frames shrunk), so the time rule needs no second reading of the file (20-25 ms a 1080p clip); where
    OpenCV decodes, with the packets' times read after the last frame on the decoding thread (2.7 ms of a flat
    640x360 clip's 40 ms of decoding, off the caller's thread).
    """
    path = Path(path)
    _check_file(path)
    worker = prefetch > 0 and _threads.WORKER  # decoding ahead in a pool worker: one thread, no second one
    asked, threads = threads, (1 if prefetch > 0 else 0) if threads is None else threads
    # whether frames are to be shrunk is known once the file is open: PyAV's opening (which decodes a few frames to
    # learn the stream, 24 ms at 1080p) runs beside OpenCV's, where a core is free for it, instead of after it
    opening = _av_opening(path) if max_side and prefetch > 0 and not worker else None
    cap = _cv2_capture(path, threads=threads)
    if cap is None:
        _drop(opening)
        info, frames = probe(path), _iter_av(path, every, max_side, None, span)
    else:
        if span.rotation is not None:  # the case says how to turn it: not the display matrix
            import cv2

            cap.set(cv2.CAP_PROP_ORIENTATION_AUTO, 0)
        info = _video_info(path, *_cv2_info(cap), False)
        one = worker or (prefetch > 0 and _cheaply_coded(path, info))  # else FFmpeg's choice (see the docstring)
        shrink_threads = (1 if one else 0) if asked is None else asked
        shrink = _yuv420_container(path, info, max_side, threads=shrink_threads, opening=opening)
        if shrink is not None:
            cap.release()
            frames = _read_shrunk(shrink, path, every, max_side, None, span, 0 if worker else prefetch, stamps)
        else:
            frames = _read_cv2(cap, path, every, max_side, None, span, stamps)
    if span.rotation in (90, 270) and cap is not None:
        info = VideoInfo(info.path, info.fps, info.n_frames, info.height, info.width)
    if span != WHOLE:
        if span.first >= info.n_frames:
            frames.close()
            raise VideoError(f"{path.name}: the window starts at frame {span.first} but the video has "
                             f"{info.n_frames} frames")
        last = info.n_frames - 1 if span.last is None else min(span.last, info.n_frames - 1)
        info = VideoInfo(info.path, info.fps, last - span.first + 1, info.width, info.height)
    return info, prefetched(frames, prefetch) if prefetch > 0 else frames


_ROTATE = {90: "ROTATE_90_CLOCKWISE", 180: "ROTATE_180", 270: "ROTATE_90_COUNTERCLOCKWISE"}


def _rotated(frame: np.ndarray, degrees_cw: int | None) -> np.ndarray:
    if not degrees_cw or degrees_cw % 360 == 0:
        return frame
    import cv2

    return cv2.rotate(frame, getattr(cv2, _ROTATE[degrees_cw % 360]))


def _probe_av(path: Path) -> tuple[float, int, int, int]:
    import av

    try:
        with av.open(str(path)) as c:
            s = c.streams.video[0]
            fps = float(s.average_rate or s.base_rate or 0)
            w, h = int(s.codec_context.width), int(s.codec_context.height)
            first = next(c.decode(s), None)  # its display matrix: frames are turned upright when read
            if first is not None and int(getattr(first, "rotation", 0) or 0) % 180:
                w, h = h, w
            return fps, int(s.frames or 0), w, h
    except (av.FFmpegError, IndexError, OSError) as e:
        raise VideoError(f"{path}: cannot decode ({type(e).__name__})") from None


def _resize(frame: np.ndarray, max_side: int | None) -> np.ndarray:
    if not max_side:
        return frame
    h, w = frame.shape[:2]
    if max_side >= max(h, w):
        return frame
    import cv2

    return cv2.resize(frame, _target(w, h, max_side), interpolation=cv2.INTER_AREA)


def iter_frames(
    path: str | Path, every: int = 1, max_side: int | None = None, limit: int | None = None
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(index, rgb_frame)`` for every ``every``-th decoded frame, at most ``limit`` of them.

    Only one frame is held in memory at a time (see :func:`open_frames` to decode ahead).
    """
    return _iter_frames(Path(path), every, max_side, limit)


def _iter_frames(path: Path, every: int, max_side: int | None, limit: int | None) -> Iterator[tuple[int, np.ndarray]]:
    if not path.exists():
        raise VideoError(f"{path}: no such video")
    cap = _cv2_capture(path)
    if cap is None:
        yield from _iter_av(path, every, max_side, limit)
        return
    shrink = _yuv420_container(path, VideoInfo(str(path), 0.0, 0, *_cv2_info(cap)[2:]), max_side)
    if shrink is not None:
        cap.release()
        yield from _read_shrunk(shrink, path, every, max_side, limit)
    else:
        yield from _read_cv2(cap, path, every, max_side, limit)


def _read_cv2(cap, path: Path, every: int, max_side: int | None,
              limit: int | None, span: Span = WHOLE, stamps=None) -> Iterator[tuple[int, np.ndarray]]:
    """Frames from an opened OpenCV capture (released at the end); PyAV if it yields none. ``stamps``
    (:class:`lawful.timing.Stamps`): the packets' times read after the last frame, on the thread that decodes."""
    import cv2

    yielded, bgr = 0, None
    try:
        i = 0
        while span.end is None or i <= span.end:
            if span.wants(i, every):
                # decoded into the last frame's buffer, converted into an array NumPy makes (OpenCV's own allocator
                # takes the GIL back to make each array)
                ok, bgr = cap.read(bgr)
                if not ok:
                    break
                small = _resize(_rotated(bgr, span.rotation), max_side)
                yield i - span.first, cv2.cvtColor(small, cv2.COLOR_BGR2RGB, dst=np.empty_like(small))
                yielded += 1
                if limit is not None and yielded >= limit:
                    return
            elif not cap.grab():
                break
            i += 1
    finally:
        cap.release()
    if not yielded:
        yield from _iter_av(path, every, max_side, limit, span)
    if stamps is not None:
        stamps.read(path)


def _iter_av(path: Path, every: int, max_side: int | None, limit: int | None,
             span: Span = WHOLE) -> Iterator[tuple[int, np.ndarray]]:
    import av

    try:
        with av.open(str(path)) as c:
            c.streams.video[0].thread_type = "AUTO"
            for k, frame, turn in _wanted(c, every, limit, span):
                yield k, _resize(_rotated(frame.to_ndarray(format="rgb24"), turn), max_side)
    except (av.FFmpegError, IndexError, OSError) as e:
        raise VideoError(f"{path}: cannot decode ({type(e).__name__})") from None


def _yuv2rgb(kr: float, kb: float) -> np.ndarray:
    """Limited-range YUV -> RGB for luma weights ``kr``, ``kb``, affine on (Y, U, V, 1); the -0.5 turns
    cv2.transform's rounding into the truncation of FFmpeg's swscale (which converts for OpenCV)."""
    kg = 1 - kr - kb
    m = np.array([[1, 0, 2 * (1 - kr)], [1, -2 * (1 - kb) * kb / kg, -2 * (1 - kr) * kr / kg], [1, 2 * (1 - kb), 0]])
    m = m * [[255 / 219, 255 / 224, 255 / 224]]
    return np.hstack([m, (-m @ (16.0, 128.0, 128.0) - 0.5)[:, None]]).astype(np.float32)


# The matrix OpenCV converts with, by the stream's colour-space tag: BT.709, else BT.601 (also when untagged).
_YUV2RGB = {1: _yuv2rgb(0.2126, 0.0722), 2: _yuv2rgb(0.299, 0.114), 5: _yuv2rgb(0.299, 0.114),
            6: _yuv2rgb(0.299, 0.114)}


_CHEAP_BPP = 0.1  # bits per pixel per frame under which a stream decodes on one thread when its frames are shrunk


def _cheaply_coded(path: Path, info: VideoInfo) -> bool:
    """Whether the file holds under :data:`_CHEAP_BPP` bits per pixel and frame. Decoding costs about 0.7 ms a
    megapixel plus 12 ms a megabit here (four clips, 0.02 to 0.48 bpp at 720p and 1080p), shrinking about 1 ms a
    source megapixel: a render in flat colours (0.02-0.04 bpp) decodes about as fast as its frames are shrunk, and
    FFmpeg's frame threads then only add their overhead to three busy threads on two cores (flat 1280x720 evaluation
    1.28-1.38 -> 1.21 x decoding alone, 1920x1080 1.36-1.50 -> 1.16, one run each side by side), while a textured
    one (0.36-0.48 bpp, 5-14 ms a frame) needs them (studio 1.25 / 1.12 with them, 1.47 / 1.51 without). Unknown
    (no frame count): not cheap."""
    pixels = info.n_frames * info.width * info.height
    return pixels > 0 and path.stat().st_size * 8 < _CHEAP_BPP * pixels


def _target(w: int, h: int, max_side: int) -> tuple[int, int]:
    s = max_side / max(h, w)
    return max(1, round(w * s)), max(1, round(h * s))


def _av_opening(path: Path) -> Future:
    """``av.open(path)`` begun on a thread of its own: the future of the container, or of None where PyAV cannot open
    it. (Not a daemon: an interpreter that exits waits the few ms rather than tearing it down inside FFmpeg. A thread
    per opening, not a shared executor: a forked process would wait for an executor thread it does not have.)"""
    fut: Future = Future()

    def run() -> None:
        import av

        try:
            fut.set_result(av.open(str(path)))
        except Exception:  # (PyAV's errors and the OS's: the caller opens it again, and says what went wrong)
            fut.set_result(None)

    threading.Thread(target=run, name="lawful-open").start()
    return fut


def _drop(opening: Future | None) -> None:
    """Close the container of an opening not needed, once it is open (on the opening's thread if it still runs)."""
    if opening is not None:
        opening.add_done_callback(lambda f: f.result() is not None and f.result().close())


def _yuv420_container(path: Path, info: VideoInfo, max_side: int | None, threads: int = 0,
                      opening: Future | None = None):
    """An opened PyAV container when frames are to be shrunk and the stream is limited-range yuv420p
    (the H.264 norm) in BT.601 or BT.709, else None (OpenCV converts then; ``threads``: decoder threads,
    0 = FFmpeg's choice; ``opening``: :func:`_av_opening` of ``path``, used or closed)."""
    if not max_side or max(info.width, info.height) <= max_side:
        _drop(opening)
        return None
    import av

    try:
        c = opening.result() if opening is not None else None
        c = av.open(str(path)) if c is None else c
        cc = c.streams.video[0].codec_context
        if cc.pix_fmt == "yuv420p" and int(cc.color_range or 0) != 2 and int(cc.colorspace) in _YUV2RGB:
            if threads:
                cc.thread_count = threads
            else:
                cc.thread_type = "AUTO"
            return c
        c.close()
    except (av.FFmpegError, IndexError, OSError):
        pass
    return None


def _planes(frame) -> list[np.ndarray]:
    return [np.frombuffer(p, np.uint8, count=p.line_size * p.height).reshape(p.height, p.line_size)[:, :p.width]
            for p in frame.planes]


def _shrunk_rgb(frame, max_side: int, yuv2rgb: np.ndarray) -> np.ndarray:
    """A yuv420p frame shrunk to ``max_side`` (INTER_AREA on the planes) and then converted to RGB.

    Conversion is affine, so converting box averages equals box-averaging converted pixels: the result
    is OpenCV's full-size conversion (chroma repeated over 2x2 pixels) followed by INTER_AREA,
    up to rounding and clipping at saturated colours."""
    import cv2

    W, H = frame.width, frame.height
    w, h = _target(W, H, max_side)
    y, u, v = _planes(frame)
    uv = cv2.merge([u, v])
    if W % 2 or H % 2 or uv.shape[1] < w or uv.shape[0] < h:  # area over the repeated chroma exactly
        uv = cv2.resize(uv, (2 * uv.shape[1], 2 * uv.shape[0]), interpolation=cv2.INTER_NEAREST)[:H, :W]
    if uv.shape[:2] != (h, w):
        uv = _area(uv, w, h)
    return cv2.transform(cv2.merge([_area(y, w, h), uv]), yuv2rgb)


def _area(plane: np.ndarray, w: int, h: int) -> np.ndarray:
    """INTER_AREA of a ``uint8`` plane (or planes, ``[H, W, c]``) to ``w x h``. At an odd whole factor k
    (1920x1080 -> 640x360: 3) it is the k x k box filter at the blocks' centres, bit for bit (a sum over an odd number
    of pixels never ends in a half, and both round to nearest; checked on every sum a 3 x 3 block can have), in two
    thirds of the time (0.97 -> 0.65 ms a 1080p plane): OpenCV's own whole-factor path is vectorised only for 2."""
    import cv2

    H, W = plane.shape[:2]
    k = W // w
    if k % 2 and k > 1 and W == k * w and H == k * h:
        return np.ascontiguousarray(cv2.blur(plane, (k, k))[k // 2::k, k // 2::k])
    return cv2.resize(plane, (w, h), interpolation=cv2.INTER_AREA)


def _read_shrunk(c, path: Path, every: int, max_side: int, limit: int | None,
                 span: Span = WHOLE, ahead: int = 0, stamps=None) -> Iterator[tuple[int, np.ndarray]]:
    """Frames of an opened yuv420p PyAV container (closed at the end), shrunk and converted by
    :func:`_shrunk_rgb` and then turned upright (as the span or the display matrix says). ``ahead > 0``: decoded on
    a thread of its own up to that many frames ahead of the shrinking (which costs more than decoding at 1080p:
    3.2 against 1.8 ms a frame), so the two overlap. ``stamps``: see :func:`_wanted`."""
    import av

    try:
        with c:
            yuv2rgb = _YUV2RGB[int(c.streams.video[0].codec_context.colorspace)]
            decoded = _wanted(c, every, limit, span, stamps)
            with closing(prefetched(decoded, ahead) if ahead > 0 else decoded) as decoded:
                for k, frame, turn in decoded:
                    yield k, _rotated(_shrunk_rgb(frame, max_side, yuv2rgb), turn)
    except (av.FFmpegError, IndexError, OSError) as e:
        raise VideoError(f"{path}: cannot decode ({type(e).__name__})") from None


def _wanted(c, every: int, limit: int | None, span: Span, stamps=None) -> Iterator[tuple[int, object, int]]:
    """The decoded frames of PyAV container ``c`` that ``span`` and ``every`` want, at most ``limit``: ``(index
    from span.first, frame, degrees to turn it clockwise)`` (as the span says, else as its display matrix does);
    every decoded frame's timestamp goes to ``stamps`` (:class:`lawful.timing.Stamps`) when given."""
    n, s = 0, c.streams.video[0]
    if stamps is not None:
        stamps.time_base = s.time_base
    for i, frame in enumerate(c.decode(s)):
        if stamps is not None:
            stamps.pts.append(frame.pts)
        if span.end is not None and i > span.end:
            return
        if not span.wants(i, every):
            continue
        yield i - span.first, frame, (span.rotation if span.rotation is not None
                                      else -int(getattr(frame, "rotation", 0) or 0) % 360)
        n += 1
        if limit is not None and n >= limit:
            return


def read_frames(path: str | Path, every: int = 1, max_side: int | None = None) -> np.ndarray:
    """All (or every ``every``-th) frames as one ``[T, H, W, 3]`` array. Prefer :func:`iter_frames`."""
    frames = [f for _, f in iter_frames(path, every, max_side)]
    if not frames:
        raise VideoError(f"{path}: no decodable frames")
    return np.stack(frames)


def read_first_frame(path: str | Path) -> np.ndarray:
    for _, f in iter_frames(path, limit=1):
        return f
    raise VideoError(f"{path}: no decodable frames")
