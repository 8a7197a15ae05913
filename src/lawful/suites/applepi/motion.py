"""Physics-IQ motion masks in Physics-IQ's operation order, and the motion-mask IoUs of a Deduction video.

Physics-IQ's definition (paper, and the public release's description in ``shared/ref/interop.md``):
each video's mask is made at the video's own resolution — grayscale, 5x5 Gaussian blur, a running
background ``bg <- 0.7 bg + 0.3 gray`` (double precision, started from the first frame), absolute
difference to the rounded background, threshold at 10 of 255, morphological open then close with a
5x5 square; the first mask is empty — and only then shrunk to a quarter of the ground truth's size
(bilinear, a pixel set where the shrunk value exceeds 127). Shrinking frames first (as lawful did)
blurs edges below the threshold and changes every IoU.

Frames go in one at a time (:class:`MotionMasker`), so a clip is never held at full resolution.
The ground truth's masks of a case are computed once per process and shared by every model, rollout
and output (:func:`gt_motion_masks`, cached with the case's other data in ``GTCase``); lawful's own
cases also keep them in ``lawful_motion.npz``, made while the frames are rendered and used only while
the frame files are unchanged (the same sizes and modification times, or else the same digest).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import cv2
import numpy as np

from lawful.score import applepi as F

THRESHOLD = 10  # of 255, on the blurred grayscale difference to the background
ALPHA = 0.3  # running-background weight of the new frame
KERNEL = np.ones((5, 5), np.uint8)
BLUR = (5, 5)
PAD = 8  # crop margin for the morphology (5 px suffice for a 5x5 open then close)
MAX_SECONDS = 5.0  # Physics-IQ scores the first 5 s
NA = -1.0
KEYS = ("spatial_iou_motion", "spatiotemporal_iou_motion", "weighted_spatial_iou_motion")


def eval_size(shape: tuple[int, int]) -> tuple[int, int]:
    """Physics-IQ's evaluation size ``(w, h)``: a quarter of the ground truth's ``(H, W)`` per side."""
    h, w = shape[:2]
    return max(1, w // 4), max(1, h // 4)


def shrink(mask255: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A full-resolution ``0/255`` mask at ``size`` ``(w, h)``: bilinear resize, then ``> 127``."""
    if mask255.shape[1::-1] == tuple(size):
        return mask255 > 127
    return cv2.resize(mask255, size, interpolation=cv2.INTER_LINEAR) > 127


class MotionMasker:
    """Streaming motion masks: :meth:`push` one frame (``uint8`` RGB, BGR or gray, any size), get its mask
    shrunk to ``size``. ``order`` ``"rgb"`` or ``"bgr"`` names the channel order of 3-channel frames."""

    def __init__(self, size: tuple[int, int], order: str = "rgb"):
        self.size = tuple(size)
        self._code = cv2.COLOR_RGB2GRAY if order == "rgb" else cv2.COLOR_BGR2GRAY
        self._bg: np.ndarray | None = None
        self._last: tuple = (None, None)  # (frame, its blurred grey): a frame pushed again (a slower video) is not redone

    def full(self, frame: np.ndarray) -> np.ndarray:
        """The ``0/255`` mask of ``frame`` at the frame's own resolution (advances the background)."""
        return self._full(frame)[0]

    def _full(self, frame: np.ndarray) -> tuple[np.ndarray, bool]:
        """:meth:`full` and whether the mask has any pixel set."""
        if self._last[0] is frame:
            gray = self._last[1]
        else:
            gray = frame if frame.ndim == 2 else cv2.cvtColor(np.ascontiguousarray(frame), self._code)
            gray = cv2.GaussianBlur(gray, BLUR, 0)
            self._last = (frame, gray)
        if self._bg is None or self._bg.shape != gray.shape:
            self._bg = gray.astype(np.float64)
            return np.zeros(gray.shape, np.uint8), False
        cv2.accumulateWeighted(gray, self._bg, ALPHA)
        diff = cv2.absdiff(gray, cv2.convertScaleAbs(self._bg))
        _, m = cv2.threshold(diff, THRESHOLD, 255, cv2.THRESH_BINARY)
        x, y, w, h = cv2.boundingRect(m)
        if w == 0:
            return m, False  # open and close keep an empty mask empty
        # Opening never grows the set and closing grows it by 2 px, so open-then-close of a crop reaching PAD px
        # past the set's box equals the whole frame's (the crop's edge is never within a 5x5 window of a set pixel).
        y0, y1, x0, x1 = max(0, y - PAD), min(m.shape[0], y + h + PAD), max(0, x - PAD), min(m.shape[1], x + w + PAD)
        sub = cv2.morphologyEx(cv2.morphologyEx(m[y0:y1, x0:x1], cv2.MORPH_OPEN, KERNEL), cv2.MORPH_CLOSE, KERNEL)
        m[y0:y1, x0:x1] = sub
        return m, cv2.countNonZero(sub) > 0

    def push(self, frame: np.ndarray) -> np.ndarray:
        m, any_set = self._full(frame)
        return shrink(m, self.size) if any_set else np.zeros(self.size[::-1], bool)


def motion_masks(frames, size: tuple[int, int], order: str = "rgb") -> np.ndarray:
    """``bool [T, h, w]`` masks of a frame sequence, made at full resolution and shrunk to ``size``."""
    mm = MotionMasker(size, order)
    out = [mm.push(f) for f in frames]
    return np.stack(out) if out else np.zeros((0, size[1], size[0]), bool)


def gt_indices(case, max_seconds: float = MAX_SECONDS) -> list[int]:
    """GT physics frames (full indices, 1 = first physics frame) within the first ``max_seconds``."""
    return [k for k in range(1, case.n_gt_phys + 1) if k / case.gt_fps <= max_seconds + 1e-9]


STORE = "lawful_motion.npz"  # GT motion masks kept in a case folder written by lawful
STORE_VERSION = 2  # 2: SHA-256 digests (SHA extensions make it about 2.5x quicker than MD5 here)


def hasher():
    """The digest kept with stored masks, fed the frame files' bytes in order."""
    return hashlib.sha256()


def _digest(files) -> str:
    h = hasher()
    for f in files:
        h.update(Path(f).read_bytes())
    return h.hexdigest()


def _stats(files) -> np.ndarray:
    """Each file's ``(size, mtime_ns)``: unchanged files skip the digest, as git's index skips rehashing."""
    return np.array([(st.st_size, st.st_mtime_ns) for st in (os.stat(f) for f in files)], np.int64).reshape(-1, 2)


def store_gt_masks(case_dir: Path, masks: np.ndarray, frame_files, digest: str | None = None) -> None:
    """Keep a case's GT motion masks (frames 1… within :data:`MAX_SECONDS`) with a digest of those frames'
    ``frame_files`` and their sizes and times (``digest``: the :func:`hasher` digest of their bytes in order,
    when the writer has it; else read from the files)."""
    frame_files = list(frame_files)
    np.savez_compressed(Path(case_dir) / STORE, masks=np.packbits(masks, axis=-1), shape=np.array(masks.shape),
                        digest=digest or _digest(frame_files), stats=_stats(frame_files), version=STORE_VERSION,
                        max_seconds=MAX_SECONDS)


def _stored(case, ks: list[int], max_seconds: float) -> np.ndarray | None:
    """The stored masks when they were made from exactly these frame files (same bytes: the same sizes and
    modification times, or else the same digest), else None."""
    p = case.dir / STORE
    fd = case._frames_dir() if p.exists() else None
    if fd is None:
        return None
    try:
        with np.load(p) as z:
            if int(z["version"]) != STORE_VERSION or float(z["max_seconds"]) != float(max_seconds):
                return None
            shape = tuple(int(x) for x in z["shape"])
            files = sorted(fd.glob("*.png"))
            if shape[0] != len(ks) or shape[1:] != eval_size(case.shape)[::-1] or ks[-1] >= len(files):
                return None
            mine = [files[k] for k in ks]
            same = "stats" in z.files and np.array_equal(z["stats"], _stats(mine))  # untouched since stored
            if not same and str(z["digest"]) != _digest(mine):
                return None
            return np.unpackbits(z["masks"], axis=-1, count=shape[2]).astype(bool)
    except (OSError, KeyError, ValueError):
        return None


def gt_motion_masks(case, max_seconds: float = MAX_SECONDS, stored: bool = True) -> np.ndarray:
    """The case's GT motion masks over :func:`gt_indices`, computed once per case and its files (in a
    process), or read from the case folder when lawful kept them there from the same frame bytes."""
    key = ("motion_masks", float(max_seconds))
    cache = case._cache
    if key not in cache:
        from lawful.threads import prefetched

        ks = gt_indices(case, max_seconds)
        m = _stored(case, ks, max_seconds) if stored and ks else None
        if m is not None:
            cache[key] = m
            return m
        mm = MotionMasker(eval_size(case.shape))
        cache[key] = np.stack([mm.push(f) for f in prefetched(case.iter_gt_frames(ks), 4)]) if ks else \
            np.zeros((0,) + eval_size(case.shape)[::-1], bool)  # frames read on a thread while masks are made
    return cache[key]


def pred_indices(case, n_phys: int, max_seconds: float = MAX_SECONDS) -> list[int]:
    """Full indices of the prediction frames aligned with :func:`gt_indices` by the release's time rule."""
    return [F.pred_physics_index(k / case.gt_fps, n_phys, case.physics_duration) + 1
            for k in gt_indices(case, max_seconds)]


def masks_of_frames(frames: dict[int, np.ndarray], pidx: list[int], size: tuple[int, int],
                    order: str = "rgb") -> np.ndarray:
    """Masks of the prediction resampled to the GT's frame times (``frames`` by full index)."""
    return motion_masks((frames[i] for i in pidx), size, order)


def ious(gen: np.ndarray, gt: np.ndarray) -> dict[str, float]:
    """Physics-IQ's three IoUs (a frame or clip where neither side moves agrees: 1.0)."""
    if len(gt) == 0:
        return {k: NA for k in KEYS}
    return {"spatial_iou_motion": F.spatial_iou(gen, gt, empty=1.0),
            "spatiotemporal_iou_motion": F.spatiotemporal_iou(gen, gt, empty=1.0),
            "weighted_spatial_iou_motion": F.weighted_spatial_iou(gen, gt, empty=1.0)}
