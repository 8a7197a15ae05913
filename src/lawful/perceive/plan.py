"""How a task asks the runner to perceive its videos (:class:`TrackingPlan`); tasks set it, ``track`` reads it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TrackingPlan:
    """How the runner should perceive a video for a task.

    ``every``: decode every n-th frame; ``max_side``: downscale frames for tracking
    (positions are mapped back to first-frame pixels); ``compensate_camera``:
    estimate background motion and express tracks in first-frame coordinates;
    ``angles``: also measure the orientation of each object's marker.
    """

    every: int = 1
    max_side: int | None = 640
    compensate_camera: bool = True
    angles: bool = False
