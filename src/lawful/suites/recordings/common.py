"""What the recordings tasks share: the task base class and release timing from the motion itself.

A :class:`RecordingTask` is a :class:`~lawful.suites.wmle.common.WmleTask` (measured C, metrics,
P, gated S) in suite ``recordings`` with labels ``R1``, ``R2`` …; its parameters come from the case.

Metrics score ``q(beyond_noise(e, se), a)`` (:func:`beyond_noise`): the residual ``e`` less what the
measurement's own noise explains (``k·se``), at the physical scale ``a`` the task documents.

Release (:func:`release_time`): the case's ``release`` (seconds from the window's start) when given;
otherwise the start of a *sustained* departure from rest: the first sample from which the
displacement along the motion stays beyond ``k·σ`` for ``SUSTAIN`` consecutive samples (``σ`` the
track's measured localisation noise, ``k`` for the false-alarm rate ``noise.FALSE_ALARM``), refined
by fitting motion from rest ``d = c·(t − t0)²`` to the samples around it. Hand tremor and noise
before release stay below ``k·σ`` or do not last; a fall or a swing does.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.suites.wmle.common import WmleTask, departure_time

SUSTAIN = 4  # consecutive samples beyond k·σ that make a departure from rest real
REST_SAMPLES = 5  # samples at the start of the window whose median is the rest position


class RecordingTask(WmleTask):
    """Base class of the recordings tasks: one leaderboard column named by the label (``R1`` …)."""

    suite: ClassVar[str] = "recordings"

    def case_id(self, index: int) -> str:
        return f"rec-r{self.number:02d}-{index:02d}"


def sustained_onset(d: np.ndarray, threshold: float, sustain: int = SUSTAIN) -> int | None:
    """First index from which ``d`` (``[T]``, NaN = unseen) exceeds ``threshold`` on ``sustain`` consecutive
    seen samples (unseen samples neither break nor count towards the run); None if it never does."""
    d = np.asarray(d, float)
    run, start = 0, None
    for i, v in enumerate(d):
        if not math.isfinite(v):
            continue
        if v > threshold:
            start = i if run == 0 else start
            run += 1
            if run >= sustain:
                return start
        else:
            run = 0
    return None


def release_time(case: Case, t: np.ndarray, d: np.ndarray, sigma: float,
                 alpha: float = noise.FALSE_ALARM) -> tuple[float | None, str]:
    """Release time (seconds, the clip's clock) and how it was found (``"case"``, ``"onset"`` or why not).

    ``d`` ``[T]``: displacement from the rest position along the direction the law moves the object
    (px, positive once it moves; NaN where unseen); ``sigma``: the track's localisation noise (px) in
    that coordinate. Uses ``case.release`` when the case states it.
    """
    if case.release is not None:
        return float(case.release), "case"
    t, d = np.asarray(t, float), np.asarray(d, float)
    sig = sigma if math.isfinite(sigma) and sigma > 0 else 0.5
    thr = noise.k_for(alpha) * sig
    i = sustained_onset(d, thr)
    if i is None:
        return None, f"no sustained motion beyond {thr:.2f} px (k·σ, σ = {sig:.2f} px)"
    t0 = departure_time(t, np.where(np.arange(len(d)) < i + 2 * SUSTAIN, d, np.nan), threshold=thr,
                        n_fit=2 * SUSTAIN, n_before=REST_SAMPLES)
    return (float(t[i]) if t0 is None else float(t0)), "onset"


def rest_position(v: np.ndarray, upto: int = REST_SAMPLES) -> float:
    """Median of the first ``upto`` seen samples of ``v`` (the position before release); NaN if none."""
    v = np.asarray(v, float)
    seen = v[np.isfinite(v)][:upto]
    return float(np.median(seen)) if len(seen) else math.nan


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
