"""Tracks: per-object image measurements over time, one container for every suite.

Shapes (``T`` sampled frames, ``N`` objects):

- ``frames``  ``[T]``      int, index of the frame in the decoded clip
- ``t``       ``[T]``      float, physical time in seconds (clip spans the case duration)
- ``xy``      ``[T, N, 2]`` float, mask centroid in first-frame pixels (NaN when not visible)
- ``box``     ``[T, N, 4]`` float, mask bounding box ``x0, y0, x1, y1`` (NaN when not visible)
- ``area``    ``[T, N]``    float, mask area in pixels (0 when not visible)
- ``visible`` ``[T, N]``    bool
- ``angle``   ``[T, N]``    float, orientation of a visible marker in radians (NaN if none)
- ``regions`` ``{name: RegionSeries}`` region readings a task asked for (:mod:`lawful.perceive.regions`)

Index a :class:`Tracks` by object id to get an :class:`ObjectTrack` view.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class ObjectTrack:
    """One object's rows of a :class:`Tracks` (views, not copies)."""

    id: str
    frames: np.ndarray
    t: np.ndarray
    xy: np.ndarray
    box: np.ndarray
    area: np.ndarray
    visible: np.ndarray
    angle: np.ndarray

    @property
    def x(self) -> np.ndarray:
        return self.xy[:, 0]

    @property
    def y(self) -> np.ndarray:
        return self.xy[:, 1]

    @property
    def bottom(self) -> np.ndarray:
        """Lowest pixel row of the mask (largest ``y``)."""
        return self.box[:, 3]

    @property
    def top(self) -> np.ndarray:
        return self.box[:, 1]

    @property
    def height_px(self) -> np.ndarray:
        return self.box[:, 3] - self.box[:, 1]

    @property
    def width_px(self) -> np.ndarray:
        return self.box[:, 2] - self.box[:, 0]

    def first_lost(self) -> int | None:
        """Index of the first sample after which the object is never seen again, else None."""
        vis = np.asarray(self.visible, bool)
        if vis.all():
            return None
        seen = np.flatnonzero(vis)
        if len(seen) == 0:
            return 0
        last = seen[-1]
        return int(last + 1) if last + 1 < len(vis) else None


@dataclass
class Tracks:
    """Per-object positions, boxes, areas, visibility and marker angles over time."""

    ids: list[str]
    frames: np.ndarray
    t: np.ndarray
    xy: np.ndarray
    box: np.ndarray
    area: np.ndarray
    visible: np.ndarray
    angle: np.ndarray
    fps: float = 0.0
    meta: dict = field(default_factory=dict)
    # region readings (:class:`lawful.perceive.regions.RegionSeries`) by probe name, sampled like the tracks
    regions: dict = field(default_factory=dict)

    @classmethod
    def empty(cls, ids: list[str], n: int, fps: float = 0.0) -> "Tracks":
        """Allocate ``n`` samples for ``ids``, everything invisible."""
        k = len(ids)
        return cls(
            ids=list(ids),
            frames=np.arange(n, dtype=int),
            t=np.zeros(n),
            xy=np.full((n, k, 2), np.nan),
            box=np.full((n, k, 4), np.nan),
            area=np.zeros((n, k)),
            visible=np.zeros((n, k), bool),
            angle=np.full((n, k), np.nan),
            fps=fps,
        )

    @classmethod
    def from_positions(cls, t, positions: dict, radius: float = 10.0) -> "Tracks":
        """Tracks of discs of ``radius`` px whose centres are ``positions[id] = (x [T], y [T])`` at times ``t``.

        For tracks made elsewhere (another tracker, hand-made tests): every sample is visible.
        """
        t = np.asarray(t, float)
        ids = list(positions)
        tr = cls.empty(ids, len(t), fps=1.0 / (t[1] - t[0]) if len(t) > 1 else 0.0)
        tr.t = t
        for j, oid in enumerate(ids):
            x, y = (np.broadcast_to(np.asarray(a, float), (len(t),)) for a in positions[oid])
            tr.xy[:, j, 0], tr.xy[:, j, 1] = x, y
            tr.box[:, j] = np.stack([x - radius, y - radius, x + radius, y + radius], axis=1)
            tr.area[:, j] = np.pi * radius * radius
            tr.visible[:, j] = True
        tr.meta["n_frames"] = len(t)
        return tr

    def __len__(self) -> int:
        return len(self.t)

    def __getitem__(self, oid: str) -> ObjectTrack:
        j = self.ids.index(oid)
        return ObjectTrack(
            oid, self.frames, self.t, self.xy[:, j], self.box[:, j], self.area[:, j], self.visible[:, j], self.angle[:, j]
        )

    def __contains__(self, oid: str) -> bool:
        return oid in self.ids

    def case_px_per_tracked_px(self, case_width: float) -> float:
        """Case pixels per pixel of the image the tracker worked on (1 when it did not say)."""
        size = self.meta.get("track_size")
        return float(case_width) / size[0] if size else 1.0

    def to_dict(self, decimals: int = 2) -> dict:
        """JSON-friendly evidence: per object, rows of ``[frame, t, x, y, x0, y0, x1, y1, visible]`` (``t`` to 4
        decimals, positions to ``decimals``, NaN as None)."""
        out: dict = {"fps": self.fps, "objects": {}}
        frames = [int(f) for f in self.frames]
        times = [round(t, 4) for t in np.asarray(self.t, float).tolist()]
        for j, oid in enumerate(self.ids):
            vals = np.concatenate([self.xy[:, j], self.box[:, j]], 1).astype(float).tolist()
            out["objects"][oid] = [[f, t, *(None if v != v else round(v, decimals) for v in row), bool(vis)]
                                   for f, t, row, vis in zip(frames, times, vals, self.visible[:, j].tolist())]
        if self.regions:
            out["regions"] = {k: r.to_dict(decimals) for k, r in self.regions.items()}
        return out
