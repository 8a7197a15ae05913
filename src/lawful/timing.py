"""The time rule (the seeds'): which physical time each decoded frame of a clip shows.

The whole decoded clip spans the case's requested duration, whatever fps the file claims. With ``n``
decoded frames, frame ``i`` shows physical time ``i * duration / n`` and time ``t`` is shown by frame
``min(round(t * n / duration), n - 1)``. A variable-frame-rate file is timed by its own presentation
timestamps, rescaled so the clip still spans ``duration`` (:func:`clip_times`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

VFR_TOLERANCE = 0.05  # a frame interval this far (relative) from the median makes a clip variable-rate


def frame_timestamps(path: str | Path) -> np.ndarray | None:
    """Presentation times (s) of the video's frames in display order, read from the container's packets
    without decoding; None when the container has none."""
    import av

    try:
        with av.open(str(path)) as c:
            s = c.streams.video[0]
            pts = [p.pts for p in c.demux(s) if p.pts is not None and p.size > 0]
            tb = s.time_base
    except (av.FFmpegError, IndexError, OSError):
        return None
    return _seconds(pts, tb)


def _seconds(pts: list[int], time_base) -> np.ndarray | None:
    """Timestamps ``pts`` in ``time_base`` units as sorted seconds; None with fewer than two or no time base."""
    tb = float(time_base or 0)
    if len(pts) < 2 or tb <= 0:
        return None
    return np.sort(np.asarray(pts, float)) * tb


class Stamps:
    """Presentation times gathered while a file is decoded (:func:`lawful.video.open_frames`), so that the time
    rule needs no second reading of the file on the caller's thread: PyAV's decoder appends every frame's ``pts`` in
    its ``time_base``; where OpenCV decodes (it gives none), the decoding thread reads the packets' times once its
    last frame is out (:meth:`read`), while the caller still works on the frames before it."""

    def __init__(self) -> None:
        self.pts: list[int | None] = []
        self.time_base = None
        self._read: tuple[np.ndarray | None] | None = None  # (frame_timestamps of the file,) once read

    def read(self, path: str | Path) -> None:
        """Take the times from the file's packets (:func:`frame_timestamps`)."""
        self._read = (frame_timestamps(path),)

    def times(self, path: str | Path | None = None) -> np.ndarray | None:
        """What :func:`frame_timestamps` reads from the packets (seconds, sorted): as gathered or :meth:`read`, else
        from ``path`` now (None without it) where no frames were gathered or one had no timestamp."""
        if self._read is not None:
            return self._read[0]
        got = None if any(p is None for p in self.pts) else _seconds(self.pts, self.time_base)
        return frame_timestamps(path) if got is None and path is not None else got


def clip_times(n_frames: int, duration: float, timestamps: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """Physical time of each of ``n_frames`` decoded frames under the time rule, and a note for the evidence.

    Constant-rate clips (every frame interval within :data:`VFR_TOLERANCE` of the median) get
    ``i * duration / n``. A variable-rate clip is timed by its ``timestamps``, rescaled so that the clip
    (last timestamp plus the last frame interval) spans ``duration``: ``{"vfr": True, ...}``. Timestamps that
    do not match the decoded frame count are not used (``{"vfr": None, "why": ...}``).
    """
    uniform = np.arange(n_frames) * duration / n_frames
    if timestamps is None:
        return uniform, {"vfr": None, "why": "no container timestamps"}
    ts = np.asarray(timestamps, float)
    if len(ts) != n_frames:
        return uniform, {"vfr": None, "why": f"{len(ts)} timestamps for {n_frames} decoded frames"}
    dt = np.diff(ts)
    med = float(np.median(dt)) if len(dt) else 0.0
    if med <= 0 or np.all(np.abs(dt / med - 1) <= VFR_TOLERANCE):
        return uniform, {"vfr": False}
    span = ts[-1] - ts[0] + dt[-1]
    return (ts - ts[0]) * (duration / span), {"vfr": True, "min_interval_s": round(float(dt.min()), 6),
                                              "max_interval_s": round(float(dt.max()), 6),
                                              "median_interval_s": round(med, 6)}


def frame_time(index: float, n_frames: int, duration: float) -> float:
    """Physical time of (possibly fractional) frame ``index`` when ``n_frames`` span ``duration``."""
    return float(index) * duration / n_frames


def frame_at(t: float, n_frames: int, duration: float) -> int:
    """Index of the frame showing physical time ``t``: ``min(round(t * n / duration), n - 1)``."""
    return int(min(max(round(t * n_frames / duration), 0), n_frames - 1))
