"""Evidence drawn over a video's frames: trajectories, boxes, events where they happened, region readings.

Works on the evidence JSON the store keeps for a video (:func:`lawful.runner.evaluate.evaluate_video`):
``tracks`` (per object rows ``[frame, t, x, y, x0, y0, x1, y1, visible]`` in the case's first-frame
pixels, ``regions``), ``events`` and ``tracks_meta``. Region geometry (the box a level or a beam was
read in) comes from the task's own probes for the case. Frames are RGB ``uint8``; drawing uses OpenCV.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

# distinct, legible on light and dark scenes (RGB)
PALETTE = [(255, 64, 64), (40, 200, 255), (255, 200, 0), (80, 220, 80), (230, 80, 255), (255, 140, 40),
           (0, 230, 180), (255, 255, 255)]
EVENT_COLOR = (255, 0, 200)
REGION_COLOR = (255, 255, 0)
BAD_COLOR = (150, 150, 150)


@dataclass
class Overlay:
    """What to draw for one video, in case pixels (``scale`` maps them to the frame being drawn)."""

    frames: np.ndarray  # [T] decoded frame index of each sample (window-relative)
    objects: dict[str, np.ndarray] = field(default_factory=dict)  # id -> [T, 7]: x, y, x0, y0, x1, y1, visible
    events: list[dict] = field(default_factory=list)
    regions: dict[str, dict] = field(default_factory=dict)  # name -> evidence dict of a RegionSeries
    probes: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)  # name -> box
    compensated: bool = False  # positions are in first-frame coordinates of a moving camera

    @classmethod
    def from_evidence(cls, ev: dict, probes: dict | None = None) -> "Overlay":
        tr = ev.get("tracks") or {}
        objects, frames = {}, None
        for oid, rows in (tr.get("objects") or {}).items():
            a = np.array([[np.nan if v is None else float(v) for v in r] for r in rows], float).reshape(-1, 9)
            frames = a[:, 0] if frames is None else frames
            objects[oid] = a[:, 2:]
        regions = tr.get("regions") or {}
        if frames is None:
            n = max((len(r.get("ok", [])) for r in regions.values()), default=0)
            frames = np.arange(n, dtype=float)
        cam = ((ev.get("tracks_meta") or {}).get("camera") or {})
        return cls(frames=np.asarray(frames, float), objects=objects, events=list(ev.get("events") or []),
                   regions=regions, probes=dict(probes or {}), compensated=bool(cam.get("used")))

    @property
    def empty(self) -> bool:
        return not self.objects and not self.regions

    def sample_at(self, frame: float) -> int:
        """Index of the last sample at or before decoded frame ``frame`` (0 before the first)."""
        return max(0, int(np.searchsorted(self.frames, frame + 1e-6, side="right")) - 1)

    def position(self, oid: str, frame: float) -> tuple[float, float] | None:
        """The object's centre at a (fractional) frame, interpolated between its visible samples."""
        a = self.objects.get(oid)
        if a is None:
            return None
        vis = (a[:, 6] > 0) & np.isfinite(a[:, 0]) & np.isfinite(a[:, 1])
        if not vis.any():
            return None
        f = self.frames[vis]
        return float(np.interp(frame, f, a[vis, 0])), float(np.interp(frame, f, a[vis, 1]))

    def key_frames(self, most: int = 6) -> list[tuple[int, str]]:
        """``(frame, caption)`` worth showing: the first, each event's (merged when close), the last."""
        if not len(self.frames):
            return []
        first, last = int(self.frames[0]), int(self.frames[-1])
        picks: dict[int, list[str]] = {first: ["first frame"]}
        for e in sorted(self.events, key=lambda e: e.get("frame", 0)):
            f = int(round(float(e.get("frame", 0))))
            near = next((k for k in picks if abs(k - f) <= 1), None)
            picks.setdefault(f if near is None else near, []).append(f"{e.get('object', '')} {e.get('name', '')}")
        if len(picks) > most - 1:  # keep the first and an even spread of the rest
            keys = sorted(picks)
            idx = np.unique(np.linspace(0, len(keys) - 1, most - 1).round().astype(int))
            picks = {keys[i]: picks[keys[i]] for i in idx}
        picks.setdefault(last, []).append("last frame")
        if len(picks) < 4 and last - first >= 6:  # few or no events (a level, a beam): an even spread too
            for f in np.linspace(first, last, 5)[1:-1].round().astype(int):
                picks.setdefault(int(f), [])
        return [(f, ", ".join(picks[f]) or "") for f in sorted(picks)]


def _thick(img: np.ndarray) -> int:
    return max(1, round(max(img.shape[:2]) / 400))


def _pt(x: float, y: float, s: tuple[float, float]) -> tuple[int, int]:
    return int(round((x + 0.5) * s[0] - 0.5)), int(round((y + 0.5) * s[1] - 0.5))


def _label(img: np.ndarray, text: str, org: tuple[int, int], color) -> None:
    fs = max(0.35, max(img.shape[:2]) / 1600)
    x, y = org
    y = max(y, 12)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, fs, (0, 0, 0), _thick(img) + 2, cv2.LINE_AA)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, fs, color, _thick(img), cv2.LINE_AA)


def draw(frame: np.ndarray, ov: Overlay, at: float | None, scale: tuple[float, float] = (1.0, 1.0),
         labels: bool = True) -> np.ndarray:
    """A copy of ``frame`` with the evidence up to decoded frame ``at`` drawn on it (``None``: all of it,
    for an overview on the first frame): each object's trajectory, its box and a dot at its current centre,
    events that have happened (ring at the object's position then, and the event's name), region readings."""
    img = np.ascontiguousarray(frame.copy())
    t = _thick(img)
    end = len(ov.frames) - 1 if at is None else ov.sample_at(at)
    for j, (oid, a) in enumerate(ov.objects.items()):
        col = PALETTE[j % len(PALETTE)]
        vis = (a[: end + 1, 6] > 0) & np.isfinite(a[: end + 1, 0])
        pts = [_pt(x, y, scale) for x, y in a[: end + 1][vis, :2]]
        if len(pts) > 1:
            cv2.polylines(img, [np.array(pts, np.int32)], False, col, t, cv2.LINE_AA)
        cur = a[end]
        if cur[6] > 0 and np.isfinite(cur[:6]).all():
            x0, y0 = _pt(cur[2], cur[3], scale)
            x1, y1 = _pt(cur[4], cur[5], scale)
            if at is not None:
                cv2.rectangle(img, (x0, y0), (x1, y1), col, t, cv2.LINE_AA)
            cv2.circle(img, _pt(cur[0], cur[1], scale), 2 * t + 1, col, -1, cv2.LINE_AA)
            if labels:
                _label(img, oid, (x0, y0 - 4), col)
    limit = ov.frames[end] if len(ov.frames) else 0
    for e in ov.events:
        f = float(e.get("frame", 0))
        if at is not None and f > limit + 0.5:
            continue
        p = ov.position(e.get("object", ""), f)
        if p is None:
            continue
        c = _pt(*p, scale)
        cv2.circle(img, c, 5 * t + 2, EVENT_COLOR, t, cv2.LINE_AA)
        if labels:
            _label(img, e.get("name", ""), (c[0] + 5 * t + 4, c[1] + 4), EVENT_COLOR)
    here = 0 if at is None else end  # the overview shows the readings of the frame it is drawn on
    for name, r in ov.regions.items():
        _draw_region(img, name, r, min(here, len(r.get("ok", [])) - 1), ov.probes.get(name), scale, labels)
    return img


def _val(r: dict, key: str, i: int):
    v = (r.get("values") or {}).get(key)
    if v is None or i < 0 or i >= len(v):
        return None
    return v[i]


def _draw_region(img, name: str, r: dict, i: int, box, scale, labels: bool) -> None:
    """One probe's reading at sample ``i``: its region, and the level / line / blobs / profile read in it."""
    t = _thick(img)
    ok = bool(r.get("ok", [False])[i]) if i >= 0 else False
    col = REGION_COLOR if ok else BAD_COLOR
    kind = r.get("kind")
    if box is not None:
        cv2.rectangle(img, _pt(box[0], box[1], scale), _pt(box[2], box[3], scale), col, 1, cv2.LINE_AA)
    x0, x1 = (box[0], box[2]) if box is not None else (0.0, img.shape[1] / scale[0])
    text = name if ok else f"{name}: unreadable"
    at = (box[0], box[1]) if box is not None else None
    if ok and kind == "level":
        row = _val(r, "row", i)
        if row is not None:
            cv2.line(img, _pt(x0, row, scale), _pt(x1, row, scale), col, t + 1, cv2.LINE_AA)
            text, at = f"{name} {row:.1f}", (x0, row)
    elif ok and kind == "line":
        x, y, ang, length = (_val(r, k, i) for k in ("x", "y", "angle", "length"))
        if None not in (x, y, ang, length):
            dx, dy = 0.5 * length * np.cos(ang), 0.5 * length * np.sin(ang)
            cv2.line(img, _pt(x - dx, y - dy, scale), _pt(x + dx, y + dy, scale), col, t + 1, cv2.LINE_AA)
            text, at = f"{name} {np.degrees(ang):.1f}°".replace("°", " deg"), (x, y)
    elif ok and kind == "blobs":
        cx, cy, rad = (_val(r, k, i) for k in ("cx", "cy", "r"))
        xs, ys = _val(r, "x", i), _val(r, "y", i)
        for k in range(len(xs or [])):
            if rad is not None and cx[k] is not None and rad[k] is not None:
                cv2.circle(img, _pt(cx[k], cy[k], scale), max(1, int(round(rad[k] * scale[0]))), col, t, cv2.LINE_AA)
            elif xs[k] is not None:
                cv2.circle(img, _pt(xs[k], ys[k], scale), 3 * t, col, -1, cv2.LINE_AA)
    elif ok and kind == "profile":
        top, cols = _val(r, "top", i), r.get("columns")
        if top is not None and cols:
            pts = [_pt(x, y, scale) for x, y in zip(cols, top) if x is not None and y is not None]
            if len(pts) > 1:
                cv2.polylines(img, [np.array(pts, np.int32)], False, col, t, cv2.LINE_AA)
    elif ok and kind == "brightness":
        luma = _val(r, "luma", i)
        if luma is not None:
            text = f"{name} luma {luma:.0f}"
    if labels and at is not None:
        _label(img, text, _pt(at[0], at[1] - 3, scale), col)


@lru_cache(maxsize=64)
def _task(suite: str, name: str):
    from lawful.suites.base import get_suite

    return get_suite(suite).task(name)


def task_probes(case) -> dict[str, tuple[float, float, float, float]]:
    """Boxes of the probes the case's task reads (empty when the task reads none or cannot say)."""
    try:
        return {p.name: p.box() for p in _task(case.suite, case.task).probes(case)}
    except Exception:  # an unknown task or a case the task rejects: draw the readings without their boxes
        return {}


def video_frames(video: str | Path, case=None, wanted: set[int] | None = None):
    """``(index, rgb)`` of the frames of the clip the case evaluates (its window and rotation), only
    ``wanted`` indices when given (the others are decoded without colour conversion, and decoding stops
    after the last one)."""
    from dataclasses import replace

    from lawful.video import WHOLE, open_frames

    span = WHOLE
    if case is not None:
        from lawful.perceive.track import clip_span

        span = clip_span(case, video)
    # one decoder thread: the report draws pages in parallel (about a sixth less CPU than FFmpeg's choice)
    _, frames = open_frames(video, span=span if wanted is None else replace(span, only=frozenset(wanted)), threads=1)
    try:
        yield from frames
    finally:
        frames.close()


def scale_for(frame: np.ndarray, case) -> tuple[float, float]:
    """Case pixels → pixels of ``frame`` (a video at another size than the case's first frame)."""
    if case is None:
        return 1.0, 1.0
    h, w = frame.shape[:2]
    return w / case.width, h / case.height


def write_overlay_video(video: str | Path, ev: dict, out: str | Path, case=None, fps: float | None = None) -> Path:
    """An MP4 of the clip with the evidence drawn on every frame (trails grow as the clip plays)."""
    from lawful.video import write_video

    ov = Overlay.from_evidence(ev, task_probes(case) if case is not None else None)
    fps = fps or float((ev.get("video") or {}).get("fps") or 24.0)

    def frames():
        for i, f in video_frames(video, case):
            yield draw(f, ov, i, scale_for(f, case))

    return write_video(out, frames(), fps)
