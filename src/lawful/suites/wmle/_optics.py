"""Extraction for WMLE optics tasks: the cross-ratio of four tracked markers per frame (P16)."""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.suites.wmle.common import steady_visible
from lawful.tracks import Tracks
from lawful.world import optics


def frame_cross_ratio(points: np.ndarray) -> tuple[float, float]:
    """χ of four image points ``[4, 2]`` along their PCA line, and their collinearity RMS over the span."""
    t, rms = optics.collinear_positions(points)
    span = t[-1] - t[0]
    return optics.cross_ratio(t), (rms / span if span > 0 else math.nan)


def _usable(case: Case, tr) -> np.ndarray:
    """``[T]`` a marker's steady sightings less those off its local trajectory by more than its measured
    noise allows (:func:`lawful.perceive.noise.centroid_outliers`: compression smears a moving blob)."""
    vis = steady_visible(tr, (case.width, case.height))
    if vis.sum() < 5:
        return vis
    return vis & ~noise.centroid_outliers(tr, vis, noise.track_noise(tr, vis).sigma)


def cross_ratio_measurement(case: Case, tracks: Tracks, marker_ids: tuple[str, ...]) -> Measurement:
    """Per sample where all four markers are usable: χ along their line and the collinearity RMS over the
    span (``notes['chi']``, ``notes['collinearity']``; None where not seen)."""
    m = Measurement()
    ids = [o for o in marker_ids if o in tracks]
    chis, ratios = [], []
    if len(ids) == 4:
        vis = np.all([_usable(case, tracks[o]) for o in ids], 0)
        for i in range(len(tracks)):
            chi, ratio = (frame_cross_ratio(np.array([tracks[o].xy[i] for o in ids], float)) if vis[i]
                          else (math.nan, math.nan))
            chis.append(chi)
            ratios.append(ratio)
    m.notes["chi"] = [float(c) if math.isfinite(c) else None for c in chis]  # per sample; None: not seen
    m.notes["collinearity"] = [float(r) if math.isfinite(r) else None for r in ratios]
    m.set("chi_mean", float(np.nanmean(chis)) if np.isfinite(chis).any() else None,
          "no frame with all four markers")
    return m
