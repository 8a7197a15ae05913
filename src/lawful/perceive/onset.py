"""When a body at rest is let go: a sustained departure from rest above the track's measured noise.

Frame 0 is not release (a hand may hold the ball for a second; a generator may hold the first frame),
and neither is the first 1-px change (hand tremor, jitter). Release is the start of a *sustained*
departure: the first sample from which the distance to the rest position stays beyond ``k·σ`` for
``SUSTAIN`` consecutive seen samples (``σ`` the track's localisation noise,
:mod:`lawful.perceive.noise`; ``k`` for the false-alarm rate ``noise.FALSE_ALARM``), refined by fitting
motion from rest ``d = c·(t − t0)²`` to the samples around it
(:func:`departure_time`). Noise and tremor stay below ``k·σ`` or do not
last; a fall, a slide or a swing does. A case that states ``release`` (seconds) overrides it.
"""

from __future__ import annotations

import math

import numpy as np

from lawful.perceive import noise

SUSTAIN = 4  # consecutive seen samples beyond k·σ that make a departure from rest real
REST_SAMPLES = 5  # first seen samples whose median is the rest position


def sustained_onset(d, threshold: float, sustain: int = SUSTAIN) -> int | None:
    """First index from which ``d`` (``[T]``, NaN = unseen) exceeds ``threshold`` on ``sustain`` consecutive
    seen samples (unseen samples neither break nor count towards the run); None if it never does."""
    run, start = 0, None
    for i, v in enumerate(np.asarray(d, float)):
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


def rest_position(v, upto: int = REST_SAMPLES) -> float:
    """Median of the first ``upto`` seen samples of ``v`` (the position before release); NaN if none."""
    v = np.asarray(v, float)
    seen = v[np.isfinite(v)][:upto]
    return float(np.median(seen)) if len(seen) else math.nan


def distance_from_start(xy) -> np.ndarray:
    """``[T]`` distance (px) of each sample of ``xy`` ``[T, 2]`` from the first seen one (NaN where unseen).

    The first sample, not a median of several: a body released at frame 0 is moving from the second
    sample on. Its noise is the difference of two samples': ``σ·√2``.
    """
    xy = np.asarray(xy, float)
    seen = np.flatnonzero(np.isfinite(xy).all(axis=1))
    if not len(seen):
        return np.full(len(xy), np.nan)
    return np.hypot(*(xy - xy[seen[0]]).T)


def departure_time(t: np.ndarray, d: np.ndarray, threshold: float, n_fit: int = 8, n_before: int = 4,
                   n_after: int = 0) -> float | None:
    """When a body at rest starts to move, from its displacement ``d`` ``[T]`` (px, ~0 at rest) over time ``t``.

    The first sample with ``d > threshold`` marks the motion. Motion from rest starts quadratically,
    so ``d = k * max(0, t - t0)^2`` is fitted (least squares; ``k`` in closed form, ``t0`` by a bounded
    scalar search) to the ``n_before`` samples before that one and the ``n_fit`` from it on. ``t0`` lies
    between the first of them and that sample, or up to ``n_after`` samples later: a fit over a whole fall
    pins ``t0`` by itself, and a first sample that only crept past the threshold (a codec smearing the
    start of the motion over frames where the body has hardly moved) must not cap it. None if the body
    never moves.
    """
    from scipy.optimize import minimize_scalar

    t, d = np.asarray(t, float), np.asarray(d, float)
    moving = np.flatnonzero(np.isfinite(d) & (d > threshold))
    if len(moving) == 0:
        return None
    i = int(moving[0])
    idx = np.arange(max(0, i - n_before), min(len(d), i + n_fit))
    idx = idx[np.isfinite(d[idx])]
    tt, dd = t[idx], d[idx]
    lo = float(t[max(0, i - n_before)]) if i > 0 else float(t[0]) - (t[1] - t[0] if len(t) > 1 else 0.0)
    hi = float(t[min(i + n_after, len(t) - 1)])
    if len(idx) < 3 or hi <= lo:
        return hi

    def sse(t0: float) -> float:
        u = np.maximum(0.0, tt - t0) ** 2
        den = float(u @ u)
        if den <= 0:
            return float(dd @ dd)
        k = float(u @ dd) / den
        r = dd - k * u
        return float(r @ r)

    res = minimize_scalar(sse, bounds=(lo, hi), method="bounded", options={"xatol": 1e-6})
    return float(res.x)


def onset_time(t, d, sigma: float, alpha: float = noise.FALSE_ALARM) -> tuple[float | None, str]:
    """Release time (the clip's clock) from displacement ``d`` ``[T]`` (px from rest, positive once moving,
    NaN where unseen) with localisation noise ``sigma`` (px), and how it was found or why not.

    Never before the first sample: a body already moving when the clip starts was released at or
    before it, and nothing earlier can be measured.
    """
    t, d = np.asarray(t, float), np.asarray(d, float)
    sig = sigma if math.isfinite(sigma) and sigma > 0 else 0.5
    thr = noise.k_for(alpha) * sig
    i = sustained_onset(d, thr)
    if i is None:
        return None, f"no sustained motion beyond {thr:.2f} px (k·σ, σ = {sig:.2f} px)"
    k = np.arange(len(d))
    near = np.where((k >= i - REST_SAMPLES) & (k < i + 2 * SUSTAIN), d, np.nan)  # an earlier blip is not it
    t0 = departure_time(t, near, threshold=thr, n_fit=2 * SUSTAIN, n_before=REST_SAMPLES)
    t0 = float(t[i]) if t0 is None else float(t0)
    return max(t0, float(t[0])), f"sustained onset beyond {thr:.2f} px (k·σ, σ = {sig:.2f} px)"


def release_of(case, tracks, ids) -> tuple[float | None, str]:
    """Release time of objects ``ids`` let go together: the case's ``release`` when stated, else the earliest
    sustained onset among them (each from its distance to its first sighting and its measured noise)."""
    if getattr(case, "release", None) is not None:
        return float(case.release), "stated by the case"
    best, how = None, "no object leaves its rest position"
    for oid in ids:
        tr = tracks[oid]
        xy = np.where(np.asarray(tr.visible, bool)[:, None], np.asarray(tr.xy, float), np.nan)
        t0, why = onset_time(tracks.t, distance_from_start(xy), noise.track_noise(tr).sigma * math.sqrt(2.0))
        if t0 is not None and (best is None or t0 < best):
            best, how = t0, f"{oid}: {why}"
    return best, how
