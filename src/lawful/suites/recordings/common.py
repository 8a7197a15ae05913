"""What the recordings tasks share: the task base class and release timing from the motion itself.

A :class:`RecordingTask` is a :class:`~lawful.suites.wmle.common.WmleTask` (measured C, metrics,
P, gated S) in suite ``recordings`` with labels ``R1``, ``R2`` …; its parameters come from the case.
Its C takes each object's reference size from the median of its sightings, not the first one.

Metrics score ``q(beyond_noise(e, se), a)`` (:func:`beyond_noise`): the residual ``e`` less what the
measurement's own noise explains (``k·se``), at the physical scale ``a`` the task documents.

Release (:func:`release_time`): the case's ``release`` (seconds from the window's start) when given,
otherwise a sustained motion onset above the track's measured noise (:mod:`lawful.perceive.onset`).
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.perceive.onset import REST_SAMPLES, SUSTAIN, onset_time, rest_position, sustained_onset
from lawful.result import Measurement
from lawful.suites.wmle.common import ConsistencyChecks, MetricScore, WmleTask, measure_consistency
from lawful.tracks import Tracks

__all__ = ["REST_SAMPLES", "SUSTAIN", "RecordingTask", "beyond_noise", "release_time", "rest_position",
           "sustained_onset", "unresolved_scores"]


class RecordingTask(WmleTask):
    """Base class of the recordings tasks: one leaderboard column named by the label (``R1`` …)."""

    suite: ClassVar[str] = "recordings"

    def case_id(self, index: int) -> str:
        return f"rec-r{self.number:02d}-{index:02d}"

    def consistency(self, case: Case, tracks: Tracks, m: Measurement) -> ConsistencyChecks:
        """WMLE's measured C with each object's reference size its median whole-mask area over the observation
        interval (``notes['interval']``) instead of the first sighting's: in a real clip a hand holding the
        object hides part of it at first, and perspective or blur change its size smoothly along a long path."""
        interval = m.notes.get("interval")
        i0, i1 = (0, len(tracks)) if interval is None else (int(interval[0]), int(interval[1]))
        sizes = {}
        for o in self.objects_to_watch(case):
            if o in tracks:
                tr = tracks[o]
                ok = np.asarray(tr.visible, bool) & ~noise.touches_border(tr, (case.width, case.height))
                a = np.asarray(tr.area, float)[i0:i1][ok[i0:i1]]
                if len(a):
                    sizes[o] = float(np.median(a))
        chk = measure_consistency(tracks, self.objects_to_watch(case), [e.name for e in m.events],
                                  list(self.required_events), interval=tuple(interval) if interval else None,
                                  sizes=sizes, frame=(case.width, case.height))
        chk.extra.update({k: float(min(1.0, max(0.0, v))) for k, v in self.extra_consistency(case, tracks, m).items()})
        chk.notes["reference_area_px2"] = sizes
        return chk


def release_time(case: Case, t: np.ndarray, d: np.ndarray, sigma: float,
                 alpha: float = noise.FALSE_ALARM) -> tuple[float | None, str]:
    """Release time (seconds, the clip's clock) and how it was found (``"case"``, ``"onset"`` or why not).

    ``d`` ``[T]``: displacement from the rest position along the direction the law moves the object
    (px, positive once it moves; NaN where unseen); ``sigma``: the track's localisation noise (px) in
    that coordinate. Uses ``case.release`` when the case states it (:mod:`lawful.perceive.onset`).
    """
    if case.release is not None:
        return float(case.release), "case"
    t0, why = onset_time(t, d, sigma, alpha)
    return t0, ("onset" if t0 is not None else why)


def beyond_noise(e: float, se: float, alpha: float = noise.FALSE_ALARM) -> float:
    """The part of residual ``e`` that measurement noise cannot explain: ``max(0, |e| − k·se)``.

    ``se``: the residual's standard error propagated from the track's measured localisation noise;
    ``k`` for the false-alarm rate ``alpha``. A metric scores ``q(beyond_noise(e, se), a)`` so a lawful
    clip is not marked down for the noise of its own measurement, and a violation still counts in full
    beyond it. NaN ``e`` stays NaN (q maps it to 0); NaN ``se`` counts as no noise.
    """
    if not math.isfinite(e):
        return math.nan
    if not math.isfinite(se) or se < 0:
        se = 0.0
    return max(0.0, abs(e) - noise.k_for(alpha) * se)


def unresolved_scores(m: Measurement, keys: tuple[str, ...]) -> dict[str, MetricScore] | None:
    """Operational zeros for the metrics ``keys`` with ``m.notes['unresolved']`` as the reason (the extraction
    could not measure: never a violation), or None when the measurement is resolved."""
    if "unresolved" not in m.notes:
        return None
    return {k: MetricScore.operational_zero(m.notes["unresolved"]) for k in keys}
