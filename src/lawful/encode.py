"""Writing video: :func:`write_video` encodes RGB frames to H.264 MP4 with PyAV (libx264: yuv420p, or RGB for
answers that must survive the codec). Reading is :mod:`lawful.video` (which re-exports these names).

This module is all of the code a written clip's bytes depend on besides its frames, so the validation cache's key
(:func:`lawful.runner.validate.renderer_fingerprint`) hashes it and not the reader.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable
from pathlib import Path

import numpy as np


class VideoError(ValueError):
    """A video that cannot be used; the message is one line for the user."""


CODECS = ("yuv420p", "rgb")  # write_video's codecs
# x264's output depends on its thread count, which defaults to the machine's cores, and with 2 frame threads it
# also depends on timing: under load the same frames gave 3 different files in 5 writes (CRF 35, studio
# projectile). One thread: the same frames give the same bytes (and the built-in models the same scores) on
# every machine and every run.
ENCODER_THREADS = 1
# x264's macroblock tree (the lookahead's propagation of how much each block is referenced) reads memory it has
# not written: one thread, the same frames gave 6 different files in 6 writes, each after different garbage was
# freed on the heap (rendered studio clips differed by up to 30 grey levels in 1.2 % of pixels; a MuJoCo render
# before the first write was enough). Without it the bytes depend on the frames alone.
X264_PARAMS = "mbtree=0"


class _RgbInput:
    """RGB arrays into encoder frames of ``pix_fmt``: one RGB frame buffer and one single-threaded scaler
    reused for a whole video (a fresh frame and converter per frame cost twice the CPU; same pixels)."""

    def __init__(self, width: int, height: int, pix_fmt: str):
        import av
        from av.video.reformatter import VideoReformatter

        self.pix_fmt, self.frame = pix_fmt, av.VideoFrame(width, height, "rgb24")
        plane = self.frame.planes[0]
        self.view = np.frombuffer(plane, np.uint8).reshape(height, plane.line_size)[:, :3 * width].reshape(
            height, width, 3)
        self.scaler = VideoReformatter()

    def __call__(self, rgb: np.ndarray):
        """The encoder's frame for ``rgb`` (``[H, W, 3]`` uint8), a new one each call."""
        import av

        if self.pix_fmt == "rgb24" or rgb.shape != self.view.shape:  # as is (the encoder scales other sizes)
            vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb), format="rgb24")
            return vf if self.pix_fmt == "rgb24" else vf.reformat(format=self.pix_fmt)
        self.view[...] = rgb
        return self.scaler.reformat(self.frame, format=self.pix_fmt, threads=1)


def write_video(path: str | Path, frames: Iterable[np.ndarray], fps: float, crf: int = 18,
                codec: str = "yuv420p", preset: str = "veryfast", qp: int | None = None) -> Path:
    """Encode RGB frames to H.264 MP4 (libx264, x264's ``preset``, :data:`ENCODER_THREADS` threads); odd sizes
    are padded by one pixel. ``crf=0`` with ``codec="rgb"`` is lossless (``preset="ultrafast"``: fastest).
    ``qp``: a constant quantizer instead of the constant rate factor ``crf`` (no rate control, which analyses a
    half-size copy of every frame: for clean renders whose fidelity at a given quantizer is known).

    ``codec="yuv420p"``: what players expect. ``codec="rgb"``: coded in RGB (``libx264rgb``: no colour
    conversion to encode or decode, full-resolution colour; 4:4:4 YUV where that encoder is missing),
    for answers that must survive the codec (Apple-π's built-in outputs). A frame that is the same
    object as the one before (a still, e.g. ``itertools.repeat``) is converted once."""
    import av
    from fractions import Fraction

    if codec not in CODECS:
        raise ValueError(f"unknown codec {codec!r} (choose one of {', '.join(CODECS)})")
    rgb = codec == "rgb" and "libx264rgb" in av.codecs_available
    encoder = "libx264rgb" if rgb else "libx264"
    pix_fmt = "rgb24" if rgb else ("yuv444p" if codec == "rgb" else "yuv420p")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A name of this writer's own: two processes making the same video at once (an interrupted run's task
    # still running beside its resume) must not interleave into one file; the last complete one wins.
    tmp = path.with_name(f"{path.stem}.{os.getpid()}-{uuid.uuid4().hex[:8]}.part.mp4")
    container = av.open(str(tmp), "w")
    stream, done = None, False
    prev, vf, rgb_in = None, None, None
    try:
        for frame in frames:
            if frame is not prev or vf is None:
                prev = frame
                frame = np.asarray(frame, dtype=np.uint8)
                h, w = frame.shape[:2]
                if stream is None:
                    stream = container.add_stream(encoder, rate=Fraction(fps).limit_denominator(1001))
                    stream.width, stream.height = w + (w % 2), h + (h % 2)
                    stream.pix_fmt = pix_fmt
                    rate = {"crf": str(crf)} if qp is None else {"qp": str(qp)}
                    stream.options = {**rate, "preset": preset, "threads": str(ENCODER_THREADS),
                                      "x264-params": X264_PARAMS}
                    rgb_in = _RgbInput(stream.width, stream.height, pix_fmt)
                if (w % 2) or (h % 2):
                    frame = np.pad(frame, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")
                vf = rgb_in(frame)
            vf.pts = None
            for packet in stream.encode(vf):
                container.mux(packet)
        if stream is None:
            raise VideoError(f"{path}: no frames to write")
        for packet in stream.encode():
            container.mux(packet)
        done = True
    finally:
        container.close()
        if not done:  # nothing half-written is left behind
            tmp.unlink(missing_ok=True)
    tmp.replace(path)
    return path
