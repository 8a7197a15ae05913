"""Frames out of order: *zigzags*, runs of three consecutive steps, each longer than what measurement error can make
it, that turn back twice in a row. Motion sampled faster than it changes never does this (a turning point or a
bounce turns back once); frames shuffled, neighbours swapped or a generator's temporal flicker do. Used by WMLE's
C (``order``, ``reading_order``: :mod:`lawful.suites.wmle.consistency`) and Principia's order gate
(:func:`lawful.suites.principia._common.record_order`)."""

from __future__ import annotations

import numpy as np

from lawful.perceive import noise


def count_zigzags(track, seen: np.ndarray, step: float) -> tuple[int, int]:
    """``(zigzags, runs)``: runs of three consecutive steps between consecutive sightings ``seen`` each longer than
    ``step`` (px) and than a change of the mask can move its centroid, and those of them that turn back twice (each
    step's dot product with the next negative).

    A mask that gains or loses ``ΔA`` of its ``A`` pixels moves its centroid by at most ``ΔA · R / A`` (``R`` half
    its box's diagonal, ``A`` the smaller area): a block's mask losing its top quarter in every other frame (studio
    Principia momentum_height) shifts it 2.8 px, where two mask edges allow 3 px, and a step beside it adds its
    motion. Frames out of order keep a rigid object's area; that allowance is then nothing."""
    seen = np.asarray(seen, int)
    if len(seen) < 4:
        return 0, 0
    xy = np.asarray(track.xy, float)
    s = xy[seen[1:]] - xy[seen[:-1]]
    area = np.nan_to_num(np.asarray(track.area, float)[seen])
    box = np.asarray(track.box, float)[seen]
    half_diag = 0.5 * np.hypot(box[:, 2] - box[:, 0] + 1.0, box[:, 3] - box[:, 1] + 1.0)
    small = np.minimum(area[1:], area[:-1])
    shift = np.nan_to_num(np.abs(np.diff(area)) * np.maximum(half_diag[1:], half_diag[:-1])
                          / np.where(small > 0, small, np.inf))  # no area (or no box): no allowance
    return zigzags(s, (np.diff(seen) == 1) & (np.sqrt(s[:, 0] * s[:, 0] + s[:, 1] * s[:, 1]) > step + shift))


def zigzags(s: np.ndarray, big: np.ndarray) -> tuple[int, int]:
    """``(zigzags, runs)`` over steps ``s`` ``[N, D]`` between consecutive samples: a run is three consecutive steps
    all ``big``; a zigzag, a run whose steps turn back twice (each step's dot product with the next negative)."""
    if len(s) < 3:
        return 0, 0
    run = big[:-2] & big[1:-1] & big[2:]
    back = np.sum(s[:-1] * s[1:], axis=1) < 0
    return int(np.count_nonzero(run & back[:-1] & back[1:])), int(np.count_nonzero(run))


def reading_steps(series, edge: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The steps ``[T-1, 1]`` of a region reading whose order can be checked, and which of them are longer than
    its measurement can make them (``reading_order`` of :mod:`lawful.suites.wmle.consistency`); None for other
    kinds (lines, brightness, blobs).

    ``edge``: the most a mask edge sits off what it outlines (case px)."""
    ok = np.asarray(series.ok, bool)
    if series.kind == "profile":
        top = np.asarray(series["top"], float)
        both = np.isfinite(top[:-1]) & np.isfinite(top[1:])
        n = both.sum(1)
        d = np.where(both, top[1:] - top[:-1], 0.0).sum(1) / np.maximum(n, 1)
        allow = np.full(len(d), 2.0 * edge)
        valid = n >= 3
    elif series.kind == "level":
        d = np.diff(np.asarray(series["row"], float))
        err = np.asarray(series.sigma, float)
        allow = noise.k_for() * np.sqrt(err[:-1] ** 2 + err[1:] ** 2)
        if "band" in series.values:
            band = np.nan_to_num(np.asarray(series["band"], float))
            allow = allow + np.maximum(band[:-1], band[1:])
        valid = np.isfinite(d) & np.isfinite(allow)
    else:
        return None
    valid &= ok[:-1] & ok[1:]
    d = np.where(valid, d, 0.0)
    return d[:, None], valid & (np.abs(d) > allow)

