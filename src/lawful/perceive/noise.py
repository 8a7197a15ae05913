"""Localisation noise of a track, estimated from the track itself, and thresholds derived from it.

Model: a tracked coordinate is ``p_i = s(t_i) + e_i`` with ``s`` smooth over a few samples and
``e_i`` independent, zero-mean, standard deviation ``sigma`` (segmentation jitter, sensor noise,
compression). A Savitzky-Golay fit (window ``W``, degree ``D``) removes ``s`` locally; its
residual at an interior sample is ``(I - H) e`` with ``H`` the fit's hat row, whose variance is
``sigma² (1 - h0)`` (``h0`` the centre weight; ``H`` is a projection). So

    sigma = 1.4826 · MAD(residuals) / sqrt(1 - h0)

The MAD makes the estimate robust to the few samples where ``s`` is not smooth (impacts,
collisions, a mask cut by the border). Runs of finite samples are handled one by one; runs
shorter than ``W`` are skipped.

Derived thresholds: a step between two samples has noise ``sigma·√2``, a second difference
``sigma·√6``; a deviation counts as real when it exceeds ``k`` such standard deviations with
``k = Φ⁻¹(1 - α/2)`` for a two-sided false-alarm rate ``α`` per test (:func:`k_for`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from lawful.perceive.events import runs

WINDOW, DEGREE = 5, 2  # local quadratic over 5 samples (≈ 0.2 s at 24 fps): short, so impacts spoil few residuals
MAD_TO_STD = 1.4826
FALSE_ALARM = 1e-3  # default two-sided false-alarm rate per test
# How far a colour mask's edge may sit off the object's silhouette, in tracked pixels: the boundary row or
# column is classified by colour, and shading, a contact shadow, blur and chroma subsampling tip it either way
# (studio tube -1.0, solid cylinder +0.4 case px at 1:1; a rod's 2-3 px mask growth at 3 case px per tracked px).
MASK_EDGE_PX = 1.5


def mask_edge(tracks, width: float | None = None) -> float:
    """:data:`MASK_EDGE_PX` in the case pixels of ``tracks`` (``width``: the case's; without it, as tracked)."""
    return MASK_EDGE_PX * (tracks.case_px_per_tracked_px(width) if width else 1.0)


@lru_cache(maxsize=32)
def _coeffs(window: int, degree: int) -> np.ndarray:
    """Savitzky-Golay smoothing coefficients (read-only; made once per window and degree)."""
    from scipy.signal import savgol_coeffs

    c = savgol_coeffs(window, degree)
    c.flags.writeable = False
    return c


def _centre_weight(window: int, degree: int) -> float:
    return float(_coeffs(window, degree)[window // 2])


@lru_cache(maxsize=64)
def k_for(alpha: float = FALSE_ALARM) -> float:
    """Number of standard deviations a Gaussian deviation exceeds (either sign) with probability ``alpha``."""
    from scipy.stats import norm

    return float(norm.isf(alpha / 2))


def residuals(signal, window: int = WINDOW, degree: int = DEGREE) -> np.ndarray:
    """Residuals ``[T]`` of a sliding degree-``degree`` fit over ``window`` samples (NaN where not computed).

    Only interior samples of runs of at least ``window`` finite samples get a residual (the
    fit is centred there, so the variance formula of the module docstring holds).
    """
    from scipy.ndimage import convolve1d

    y = np.asarray(signal, float)
    out = np.full_like(y, np.nan)
    half = window // 2
    for a, b in runs(np.isfinite(y)):
        if b - a < window:
            continue
        # savgol_filter's own convolution: its interior is kept, the edge fits it adds would be dropped here
        fit = convolve1d(y[a:b], _coeffs(window, degree), mode="constant")
        out[a + half:b - half] = (y[a:b] - fit)[half:b - a - half]
    return out


def robust_sd(x) -> float:
    """Standard deviation of ``x`` from its median absolute deviation (outliers barely move it)."""
    x = np.asarray(x, float)
    return MAD_TO_STD * float(np.median(np.abs(x - np.median(x))))


def sigma(signal, window: int = WINDOW, degree: int = DEGREE, min_samples: int = 5) -> float:
    """Noise standard deviation (signal units) of a 1-D signal ``[T]``; NaN with < ``min_samples`` residuals."""
    r = residuals(signal, window, degree)
    r = r[np.isfinite(r)]
    if len(r) < min_samples:
        return math.nan
    mad = float(np.median(np.abs(r - np.median(r))))
    return MAD_TO_STD * mad / math.sqrt(1.0 - _centre_weight(window, degree))


@dataclass(frozen=True)
class TrackNoise:
    """Per-axis localisation noise (px) of one object's centroid; ``sigma`` is the larger axis."""

    sigma_x: float
    sigma_y: float

    @property
    def sigma(self) -> float:
        vals = [v for v in (self.sigma_x, self.sigma_y) if math.isfinite(v)]
        return max(vals) if vals else math.nan

    def along(self, unit) -> float:
        """Noise of the coordinate projected on the unit vector ``unit`` (independent axes)."""
        ux, uy = (float(v) for v in unit)
        return math.sqrt((ux * self.sigma_x) ** 2 + (uy * self.sigma_y) ** 2)


def resolution(area: float) -> float:
    """Least centroid noise (px) of a mask of ``area`` px: one pixel at the edge of a disc-like mask moves its
    centroid by about its radius over its area, ``1 / sqrt(pi * area)`` (0.02 px for 700 px)."""
    return 1.0 / math.sqrt(math.pi * area) if area > 0 else 0.0


def _sightings(track, usable: np.ndarray | None = None) -> np.ndarray:
    """``[T]`` bool: the visible samples with a finite centroid (and ``usable``, when given)."""
    keep = np.asarray(track.visible, bool) & np.isfinite(np.asarray(track.xy, float)).all(axis=1)
    return keep if usable is None else keep & np.asarray(usable, bool)


def track_resolution(track, usable: np.ndarray | None = None) -> float:
    """:func:`resolution` of an :class:`~lawful.tracks.ObjectTrack`'s median mask area over its sightings
    (``usable`` restricts them); 0 where it has none. The least noise any signal of its centroid can have."""
    area = np.asarray(track.area, float)[_sightings(track, usable)]
    return resolution(float(np.median(area))) if len(area) else 0.0


def track_noise(track, usable: np.ndarray | None = None) -> TrackNoise:
    """:class:`TrackNoise` of an :class:`~lawful.tracks.ObjectTrack` from its visible centroids.

    ``usable`` ``[T]`` bool restricts the samples (e.g. leave out border-cut masks). Each axis is at least
    the mask's :func:`resolution`: where most frames repeat exactly (an object at rest on a clean render)
    the MAD is 0, and one edge pixel flipping under codec flicker would otherwise count as motion (a still
    clip's resting rings 'rose' 0.01 px, the closed one twice the split one: WMLE P33 scored 100).
    """
    xy = np.asarray(track.xy, float)
    keep = _sightings(track, usable)
    x, y = np.where(keep, xy[:, 0], np.nan), np.where(keep, xy[:, 1], np.nan)
    floor = track_resolution(track, keep)
    sx, sy = sigma(x), sigma(y)
    return TrackNoise(max(sx, floor) if math.isfinite(sx) else sx, max(sy, floor) if math.isfinite(sy) else sy)


def step_threshold(noise_sigma: float, alpha: float = FALSE_ALARM, floor: float = 0.0) -> float:
    """Smallest per-sample step (px) that noise alone exceeds with probability < ``alpha``: ``k·σ·√2``.

    ``floor``: a lower bound (e.g. a definition's own minimum); NaN ``noise_sigma`` gives ``floor``.
    """
    if not math.isfinite(noise_sigma):
        return floor
    return max(floor, k_for(alpha) * noise_sigma * math.sqrt(2.0))


def curvature_threshold(noise_sigma: float, alpha: float = FALSE_ALARM, floor: float = 0.0) -> float:
    """Smallest change between consecutive steps (second difference, px) beyond noise: ``k·σ·√6``."""
    if not math.isfinite(noise_sigma):
        return floor
    return max(floor, k_for(alpha) * noise_sigma * math.sqrt(6.0))


def smoothed_steps(signal, noise_sigma: float, window: int = 7, degree: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Savitzky-Golay smoothed signal ``[T]`` and the noise std ``[T-1]`` of each smoothed step ``s[i+1] - s[i]``.

    Each run of finite samples is smoothed on its own (largest odd window ≤ ``window`` that fits;
    runs too short stay raw). The step noise is exact for the linear filter: ``σ·‖D_i‖`` with
    ``D`` the differenced smoothing matrix of the run (edge rows included). A step that leaves or
    enters a NaN gap is NaN in both arrays' sense: its noise is ``σ·√2`` (the raw bound).
    """
    from lawful.perceive.events import savgol

    y = np.asarray(signal, float)
    s = y.copy()
    sd = np.full(max(len(y) - 1, 0), math.sqrt(2.0) * (noise_sigma if math.isfinite(noise_sigma) else 0.0))
    sig = noise_sigma if math.isfinite(noise_sigma) else 0.0
    for a, b in runs(np.isfinite(y)):
        n = b - a
        win = min(window if window % 2 else window + 1, n if n % 2 else n - 1)
        if win <= degree + 1:
            continue
        s[a:b] = savgol(y[a:b], win, degree)
        sd[a:b - 1] = sig * _step_norms(n, win, degree)
    return s, sd


@lru_cache(maxsize=64)
def _step_norms(n: int, window: int, degree: int) -> np.ndarray:
    """``‖D_i‖`` of :func:`smoothed_steps` for a run of ``n`` samples (read-only; made once per run length:
    both coordinates of a track, and its several measurements, share them)."""
    from lawful.perceive.events import savgol_matrix

    op = savgol_matrix(n, window, degree)  # s = op @ y
    v = np.linalg.norm(np.diff(op, axis=0), axis=1)
    v.flags.writeable = False
    return v


# ----------------------------------------------------------------------------- which samples to trust


def touches_border(track, frame: tuple[float, float] | None, margin: float = 1.0) -> np.ndarray:
    """``[T]`` bool: samples whose box touches the edge of a ``(width, height)`` frame (all False without one)."""
    box = np.asarray(track.box, float)
    if frame is None:
        return np.zeros(len(box), bool)
    w, h = frame
    with np.errstate(invalid="ignore"):
        return (box[:, 0] <= margin) | (box[:, 1] <= margin) | (box[:, 2] >= w - 1 - margin) | (box[:, 3] >= h - 1 - margin)


def speed_steps(xy: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Displacement per sample ``[T]`` (px) at each sighting: the larger of its neighbouring steps."""
    out = np.full(len(xy), np.nan)
    if len(seen) < 2:
        return out
    step = np.linalg.norm(np.diff(xy[seen], axis=0), axis=1) / np.diff(seen)
    both = np.concatenate([[step[0]], step, [step[-1]]])
    out[seen] = np.maximum(both[:-1], both[1:])
    return out


def centroid_outliers(track, usable: np.ndarray, sigma: float, which: np.ndarray | None = None,
                      alpha: float = FALSE_ALARM, half: int = 3) -> np.ndarray:
    """``[T]`` bool: samples (``which``, default the usable ones) whose centroid is off the local
    trajectory of their usable neighbours.

    Each sample is compared with a quadratic in time fitted to the usable samples within ``half``
    samples on each side (itself left out; at least two per side); it is off when the miss exceeds
    ``k`` standard deviations of (its noise + the fit's prediction noise), ``σ`` measured on the
    track, plus 0.5 px of centroid resolution. Samples without such neighbours are never off.
    """
    xy = np.asarray(track.xy, float)
    t = np.asarray(track.t, float)
    k = k_for(alpha)
    sig = sigma if math.isfinite(sigma) else 0.0
    out = np.zeros(len(xy), bool)
    idx = np.flatnonzero(usable)
    for i in np.flatnonzero(usable if which is None else which):
        nb = idx[(np.abs(idx - i) <= half) & (idx != i)]
        if (nb < i).sum() < 2 or (nb > i).sum() < 2:
            continue
        X = np.vander(t[nb] - t[i], 3)
        coef, *_ = np.linalg.lstsq(X, xy[nb], rcond=None)
        miss = float(np.linalg.norm(xy[i] - coef[-1]))
        pred_var = float(np.linalg.inv(X.T @ X)[-1, -1])  # the fit's variance factor at t[i]
        out[i] = miss > k * sig * math.sqrt(2.0 * (1.0 + pred_var)) + 0.5  # two axes
    return out


def steady_samples(track, frame: tuple[float, float] | None = None, lo: float = 0.7, hi: float = 1.4) -> np.ndarray:
    """``visible`` ``[T]`` less the samples whose centroid is biased (cut or merged masks).

    Dropped: samples whose box touches the frame edge (``frame`` = ``(width, height)``), and samples
    with two symptoms at once: a mask area outside what the motion allows — within
    ``[lo·A/(1 + L/D), hi·A + L·D]`` of the median area ``A`` (``D = √A``, ``L`` the blur streak,
    at most the per-sample displacement) — *and* a centroid off the local trajectory of the
    regular samples (:func:`centroid_outliers`). A motion-blurred sample keeps its mid-exposure
    centroid on the trajectory, so it is kept even when its area changed (falls, impacts, apexes).
    """
    vis = np.asarray(track.visible, bool) & np.isfinite(np.asarray(track.xy, float)).all(axis=1)
    vis &= ~touches_border(track, frame)
    if not vis.any():
        return vis
    a = np.asarray(track.area, float)
    med = float(np.median(a[vis]))
    if med <= 0:
        return vis
    d = math.sqrt(med)
    streak = np.nan_to_num(speed_steps(np.asarray(track.xy, float), np.flatnonzero(vis)))
    odd_area = vis & ((a < lo * med / (1 + streak / d)) | (a > hi * med + streak * d))
    if not odd_area.any():
        return vis
    off = centroid_outliers(track, vis & ~odd_area, track_noise(track, vis & ~odd_area).sigma, which=odd_area)
    return vis & ~(odd_area & off)


def weighted_median(x: np.ndarray, w: np.ndarray) -> float:
    """The median of ``x`` under weights ``w`` (the lower of two middle values at an exact half)."""
    x, w = np.asarray(x, float), np.asarray(w, float)
    o = np.argsort(x)
    c = np.cumsum(w[o])
    return float(x[o][np.searchsorted(c, 0.5 * c[-1])])
