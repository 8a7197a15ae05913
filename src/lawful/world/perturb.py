"""Frame perturbations for robustness tests. Frames are ``uint8`` RGB ``[H, W, 3]``.

Per-frame functions are pure; clip-level ones (:func:`camera_pan`, :func:`camera_zoom`)
take an iterable of frames and yield the perturbed frames lazily.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import cv2
import numpy as np

from lawful.video import iter_frames, write_video


def gaussian_noise(frame: np.ndarray, sigma: float = 8 / 255,
                   rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Add zero-mean Gaussian noise of std ``sigma`` (fraction of full scale) and clip.

    ``rng`` is a Generator (pass one to vary noise across frames) or a seed; None means seed 0.
    """
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(0 if rng is None else rng)
    noisy = frame.astype(np.float32) + rng.normal(0.0, sigma * 255.0, frame.shape).astype(np.float32)
    return np.clip(np.rint(noisy), 0, 255).astype(np.uint8)


def noise_frames(frames: Iterable[np.ndarray], sigma: float = 8 / 255, seed: int = 0) -> Iterator[np.ndarray]:
    """:func:`gaussian_noise` over a clip, with fresh noise on every frame (one Generator from ``seed``)."""
    rng = np.random.default_rng(seed)
    for f in frames:
        yield gaussian_noise(f, sigma, rng)


def hue_shift(frame: np.ndarray, degrees: float = 10.0) -> np.ndarray:
    """Rotate every pixel's HSV hue by ``degrees`` (saturation and value kept)."""
    hsv = cv2.cvtColor(frame.astype(np.float32) / 255.0, cv2.COLOR_RGB2HSV)  # H in [0, 360)
    hsv[..., 0] = np.mod(hsv[..., 0] + degrees, 360.0)
    rgb = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)
    return np.clip(np.rint(rgb * 255.0), 0, 255).astype(np.uint8)


def _with_count(frames: Iterable[np.ndarray], n_frames: int | None) -> tuple[Iterable[np.ndarray], int]:
    if n_frames is not None:
        return frames, int(n_frames)
    if not hasattr(frames, "__len__"):
        frames = list(frames)
    return frames, len(frames)


def _warp(frame: np.ndarray, m: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    return cv2.warpAffine(frame, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def camera_pan(frames: Iterable[np.ndarray], fraction: float = 0.05, axis: str = "x",
               n_frames: int | None = None) -> Iterator[np.ndarray]:
    """Translate the content progressively: frame ``i`` of ``n`` moves by ``fraction * size * i / (n - 1)`` px.

    Positive ``fraction`` moves content towards +x (right) or +y (down); the last frame is shifted
    by ``fraction`` of the width (``axis='x'``) or height (``axis='y'``). Borders repeat edge pixels.
    Pass ``n_frames`` for an unsized iterable to avoid holding it in memory.
    """
    if axis not in ("x", "y"):
        raise ValueError("axis must be 'x' or 'y'")
    frames, n = _with_count(frames, n_frames)
    for i, f in enumerate(frames):
        h, w = f.shape[:2]
        p = i / (n - 1) if n > 1 else 1.0
        shift = fraction * (w if axis == "x" else h) * p
        tx, ty = (shift, 0.0) if axis == "x" else (0.0, shift)
        yield _warp(f, np.float32([[1, 0, tx], [0, 1, ty]]))


def camera_zoom(frames: Iterable[np.ndarray], fraction: float = 0.05,
                n_frames: int | None = None) -> Iterator[np.ndarray]:
    """Scale progressively about the image centre: frame ``i`` of ``n`` by ``1 + fraction * i / (n - 1)``.

    A point at distance ``d`` from the centre ``((W - 1) / 2, (H - 1) / 2)`` ends at ``d (1 + fraction)``.
    """
    frames, n = _with_count(frames, n_frames)
    for i, f in enumerate(frames):
        h, w = f.shape[:2]
        s = 1.0 + fraction * (i / (n - 1) if n > 1 else 1.0)
        cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
        yield _warp(f, np.float32([[s, 0, (1 - s) * cx], [0, s, (1 - s) * cy]]))


def reencode(frames: Iterable[np.ndarray], fps: float, crf: int = 35) -> list[np.ndarray]:
    """Round-trip through H.264 at quality ``crf`` (higher = worse); frames cropped back to input size."""
    frames = list(frames)
    if not frames:
        return []
    h, w = frames[0].shape[:2]
    with tempfile.TemporaryDirectory(prefix="lawful-reencode-") as tmp:
        path = write_video(Path(tmp) / "clip.mp4", frames, fps=fps, crf=crf)
        return [np.ascontiguousarray(f[:h, :w]) for _, f in iter_frames(path)]


def defocus(frames: Iterable[np.ndarray], fraction: float = 0.003) -> Iterator[np.ndarray]:
    """Optical blur: a Gaussian of sigma ``fraction`` x the frame diagonal (about 2 px at 640x360)."""
    for f in frames:
        h, w = f.shape[:2]
        yield cv2.GaussianBlur(f, (0, 0), fraction * float(np.hypot(w, h)))


def exposure_blur(frames: Iterable[np.ndarray], width: int = 3) -> Iterator[np.ndarray]:
    """Motion blur of a longer exposure: frame ``i`` becomes the mean of the ``width`` frames centred on it
    (clamped at the ends), so moving objects smear along their path and still scenery stays sharp."""
    frames = [np.asarray(f) for f in frames]
    half = max(0, int(width) // 2)
    n = len(frames)
    for i in range(n):
        window = frames[max(0, i - half):min(n, i + half + 1)]
        yield np.mean(window, axis=0).round().astype(np.uint8)


def flicker(frames: Iterable[np.ndarray], amplitude: float = 0.08, seed: int = 0) -> Iterator[np.ndarray]:
    """Exposure that drifts and flickers, as generated video's often does: frame ``i`` is scaled by
    ``1 + amplitude (0.75 sin(2 pi i / 40 + phase) + 0.25 e_i)``, ``e_i`` standard normal (clipped to 2) and
    the phase drawn from ``seed``: a slow swing of up to ``0.75 amplitude`` with a frame-to-frame jitter."""
    rng = np.random.default_rng(seed)
    phase = float(rng.uniform(0.0, 2.0 * np.pi))
    for i, f in enumerate(frames):
        e = float(np.clip(rng.normal(), -2.0, 2.0))
        gain = 1.0 + amplitude * (0.75 * np.sin(2.0 * np.pi * i / 40.0 + phase) + 0.25 * e)
        yield np.clip(np.rint(f.astype(np.float32) * gain), 0, 255).astype(np.uint8)


# Temporal breaks: not a lawful clip seen differently but one whose time is broken, as generated video's can be.
# An evaluator should catch them (validate reports the share caught), not score them as the lawful clip.
def freeze_after(frames: Iterable[np.ndarray], share: float = 0.5) -> list[np.ndarray]:
    """The motion stalls: every frame from ``floor(share · n)`` on repeats that frame."""
    frames = list(frames)
    k = int(share * len(frames))
    return frames[:k] + [frames[k]] * (len(frames) - k) if frames else frames


def swap_neighbours(frames: Iterable[np.ndarray]) -> list[np.ndarray]:
    """Frames 0 and 1, 2 and 3, ... trade places (a last odd frame stays): time runs back every other frame."""
    frames = list(frames)
    return [frames[min(i ^ 1, len(frames) - 1)] for i in range(len(frames))]


def shuffle_after_first(frames: Iterable[np.ndarray], seed: int = 0) -> list[np.ndarray]:
    """The first frame (the case's) stays; the others come in an order drawn from ``seed``."""
    frames = list(frames)
    order = np.random.default_rng(seed).permutation(len(frames) - 1) + 1 if len(frames) > 1 else []
    return frames[:1] + [frames[i] for i in order]
