"""What a judge sees of a video: frames sampled by time, shrunk, encoded as data URLs.

Sampling follows the seeds' time rule (the decoded clip spans the case's
duration): at ``fps`` frames per physical second, times ``t_k = k / fps`` map to
frame ``min(round(t_k * n / duration), n - 1)``; when that gives more than
``max_frames`` frames, ``max_frames`` are taken evenly over the clip instead
(first and last included). ``fps=None`` always takes ``max_frames`` evenly;
``max_frames=None`` sets no cap, so ``fps=None, max_frames=None`` is every frame.
"""

from __future__ import annotations

import base64
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lawful.video import VideoError, iter_frames, probe


@dataclass(frozen=True)
class EncodedImage:
    """One image ready for a chat message: ``data_url`` (base64), ``sha256`` of the encoded bytes."""

    data_url: str
    sha256: str
    width: int
    height: int


def sample_indices(n_frames: int, duration: float, fps: float | None, max_frames: int | None) -> list[int]:
    """Frame indices to show: by physical time at ``fps``, capped at ``max_frames`` (evenly spread)."""
    if max_frames is None:
        max_frames = n_frames
    if n_frames <= 0 or max_frames <= 0:
        return []
    if fps:
        times = np.arange(0.0, duration, 1.0 / fps)
        idx = sorted({min(int(round(t * n_frames / duration)), n_frames - 1) for t in times})
        if len(idx) <= max_frames:
            return idx
    k = min(max_frames, n_frames)
    return sorted({int(round(i)) for i in np.linspace(0, n_frames - 1, k)})


def shrink(frame: np.ndarray, max_side: int | None) -> np.ndarray:
    """Downscale so the longer side is at most ``max_side`` pixels (never upscale)."""
    h, w = frame.shape[:2]
    if not max_side or max(h, w) <= max_side:
        return frame
    import cv2

    s = max_side / max(h, w)
    return cv2.resize(frame, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)


def read_sampled(video: str | Path, duration: float, fps: float | None, max_frames: int | None,
                 max_side: int | None) -> tuple[list[int], list[np.ndarray]]:
    """Decode ``video`` once and keep the sampled frames, shrunk. Returns (indices, frames)."""
    info = probe(video)
    return read_at(video, sample_indices(info.n_frames, duration, fps, max_frames), max_side)


def read_at(video: str | Path, indices: list[int], max_side: int | None) -> tuple[list[int], list[np.ndarray]]:
    """Frames at ``indices`` (shrunk), decoding once. An index past the end gets the last decoded
    frame (a container that over-reports its length); the returned indices say which was used."""
    want = set(indices)
    got: dict[int, np.ndarray] = {}
    last_i, last_f = None, None
    for i, f in iter_frames(video):
        if i in want:
            got[i] = shrink(f, max_side)
        last_i, last_f = i, f
        if not indices or i >= max(indices):
            break
    if last_i is None:
        raise VideoError(f"{video}: no decodable frames")
    if any(i not in got for i in indices):
        got[last_i] = shrink(last_f, max_side)
    idx = [i if i in got else last_i for i in indices]
    return idx, [got[i] for i in idx]


def read_last(video: str | Path, max_side: int | None) -> tuple[int, np.ndarray]:
    """The last decodable frame (an image-protocol answer artifact), shrunk."""
    last = None
    for i, f in iter_frames(video):
        last = (i, f)
    if last is None:
        raise VideoError(f"{video}: no decodable frames")
    return last[0], shrink(last[1], max_side)


def read_image(path: str | Path, max_side: int | None) -> np.ndarray:
    """An RGB image file (reference frame), shrunk."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            arr = np.asarray(im.convert("RGB"))
    except (FileNotFoundError, OSError) as e:
        raise VideoError(f"{path}: cannot read image ({type(e).__name__})") from None
    return shrink(arr, max_side)


def encode(frame: np.ndarray, fmt: str = "jpeg", quality: int = 90) -> EncodedImage:
    """RGB ``[H, W, 3]`` uint8 → base64 data URL (JPEG or PNG)."""
    from PIL import Image

    buf = io.BytesIO()
    im = Image.fromarray(np.ascontiguousarray(frame, dtype=np.uint8))
    if fmt == "png":
        im.save(buf, format="PNG", optimize=False)
        mime = "image/png"
    else:
        im.save(buf, format="JPEG", quality=quality)
        mime = "image/jpeg"
    data = buf.getvalue()
    url = f"data:{mime};base64," + base64.b64encode(data).decode()
    return EncodedImage(url, hashlib.sha256(data).hexdigest(), im.width, im.height)
