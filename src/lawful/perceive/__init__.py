"""Perception: pixels -> object tracks and events.

- :mod:`~lawful.perceive.segment`  colour models learned from the first frame, per-frame masks
- :mod:`~lawful.perceive.track`    ``track(video, case, plan) -> Tracks``, ``ObjectNotFound``
- :mod:`~lawful.perceive.camera`   camera-motion compensation (similarity to frame 0)
- :mod:`~lawful.perceive.events`   smoothing, crossings, turning points, impacts, half-periods

Import the submodule you need; nothing heavy is imported here.
"""
