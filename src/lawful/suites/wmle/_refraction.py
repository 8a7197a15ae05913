"""Extraction for WMLE P20: per-beam refractive indices with their standard errors from line readings, total
reflections' bounds, and the noise their spread carries (:func:`index_measurement`, :func:`_noise_var`).

A refraction that leaves flatter than ``max_air_deg`` from the normal (it runs along the region's edge at the
surface, which cuts the beam askew) is not used, nor one with a line too short to state its direction's error, nor
one whose lines cross the surface apart by more than the beam's others do (:func:`_meets`: no refraction); one
whose ``n`` is off its beam's local trend by more than ``k`` robust sds (a line spoilt where another beam crosses) is
left out. Each ``n`` carries its standard error from the lines' direction errors, each the line's own (``angle_sd``)
and, in quadrature, the error its beam's lines share over the clip: they must meet the surface at one point, and how
far apart they cross it says how far a block next to the entry point (where a turning beam never moves on) has turned
them (:func:`_crossing_sd`).
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.suites.wmle._beams import angle_from_normal, line_at
from lawful.tracks import Tracks


def index_measurement(case: Case, tracks: Tracks, max_air_deg: float) -> Measurement:
    """Per beam ``j`` and frame: ``n`` and its standard error where ``in_j`` and ``out_j`` are read (NaN for a
    refraction flatter than ``max_air_deg`` from the normal, a line with no direction error, lines that do not meet
    at the surface, or an outlier off the beam's trend), and a bound ``1 / sin θ_water`` where ``in_j`` and
    ``back_j`` are read without ``out_j`` (``notes['n']``, ``notes['n_sd']``, ``notes['tir_bounds']``)."""
    m = Measurement()
    n_by, sd_by, bounds, tir = {}, {}, [], 0
    up = np.array([0.0, 1.0])
    for j in range(len(case.known["beams"])):
        series, sds = [], []
        shared, meets = _beam_crossings(tracks, j)
        for i in range(len(tracks)):
            inc = line_at(tracks, f"in_{j}", i)
            out = line_at(tracks, f"out_{j}", i)
            back = line_at(tracks, f"back_{j}", i)
            if inc is not None and out is not None:
                grazing = angle_from_normal(out[1], up) > math.radians(max_air_deg)
                bad = grazing or not meets[i] or any(_unweighed(tracks, f"{p}_{j}", i) for p in ("in", "out"))
                n, sd = (math.nan, math.nan) if bad else beam_frame(
                    inc, out, *(math.hypot(_angle_sd(tracks, f"{p}_{j}", i), shared[p][i]) for p in ("in", "out")))
                series.append(n)
                sds.append(sd)
                continue
            series.append(math.nan)
            sds.append(math.nan)
            if inc is not None and back is not None:
                sw = math.sin(angle_from_normal(inc[1], up))
                bounds.append(1.0 / sw if sw > 0 else math.nan)
                tir += 1
        n_by[str(j)] = _drop_outliers(np.asarray(series, float)).tolist()
        sd_by[str(j)] = sds
    m.notes["n"] = {k: [v if math.isfinite(v) else None for v in s] for k, s in n_by.items()}
    m.notes["n_sd"] = {k: [v if math.isfinite(v) else None for v in s] for k, s in sd_by.items()}
    m.notes["tir_bounds"] = [b for b in bounds if math.isfinite(b)]
    m.set("total_reflections", float(tir))
    vals = [v for s in n_by.values() for v in s if math.isfinite(v)]
    m.set("n_mean", float(np.mean(vals)) if vals else None, "no refraction read")
    return m


def _weights(v: np.ndarray, sd) -> np.ndarray:
    """``1 / sd²`` per reading (0 where a reading has none); NaN everywhere where no reading has a standard error
    (equal weights, none stated)."""
    sd = np.asarray(sd if sd is not None and len(sd) == len(v) else np.full(len(v), np.nan), float)
    if not (np.isfinite(sd) & (sd > 0)).any():
        return np.full(len(v), np.nan)
    return np.where(np.isfinite(sd) & (sd > 0), 1.0 / np.where(sd > 0, sd, 1.0) ** 2, 0.0)


def _noise_var(series: dict[str, np.ndarray], weights: dict[str, np.ndarray]) -> tuple[float, float]:
    """Variance the readings add to the weighted spread of ``n`` (within a beam and between its mean and the others'),
    and the standard deviation of the spread they leave by chance once that is taken out (a sample variance over
    ``d`` degrees of freedom scatters by ``σ² √(2/d)``: the beams' means, ``K − 1``; the frames about their beams'
    quadratics, ``N − 3K``). M1 claims a spread only beyond ``k`` of those.

    Within: the larger of the noise about a local quadratic (:func:`lawful.perceive.noise.sigma`) and the weighted
    scatter about one quadratic over the beam's frames (a compression block stays several frames, so a 5-sample fit
    takes its error for motion); ``n`` drifting slower than that quadratic still counts against the law. A beam's
    mean: its frames' own line errors (``1 / mean weight``: a block next to the entry point stays all clip, so they
    do not average out), or the within noise over its frames where that is larger. Pooled by weight."""
    within, between, mass, dof = [], [], [], []
    for k, v in series.items():
        stated = np.isfinite(weights[k]).any()
        t = np.flatnonzero(np.isfinite(v) & (np.nan_to_num(weights[k], nan=1.0) > 0))
        if len(t) < 5:
            continue
        w = np.nan_to_num(weights[k][t], nan=1.0)
        r = v[t] - np.polyval(np.polyfit(t, v[t], noise.DEGREE, w=np.sqrt(w)), t)
        loc = noise.sigma(v)
        s2 = max(float(np.average(r**2, weights=w)) * len(t) / (len(t) - 3), loc**2 if math.isfinite(loc) else 0.0)
        within.append(s2)
        between.append(max(s2 / len(t), 1.0 / float(w.mean()) if stated else 0.0))
        mass.append(float(w.sum()))
        dof.append(len(t))
    if not mass:
        return 0.0, 0.0
    sw, sb = float(np.average(within, weights=mass)), float(np.average(between, weights=mass))
    K, N = len(mass), int(sum(dof))
    return sw + sb, math.hypot(sb * math.sqrt(2.0 / (K - 1)) if K > 1 else 0.0, sw * math.sqrt(2.0 / max(N - 3 * K, 1)))


def beam_frame(inc, out, sd_in: float = math.nan, sd_out: float = math.nan) -> tuple[float, float]:
    """``n = sin θ_air / sin θ_water`` from the water-side and air-side lines (horizontal surface), and its
    standard error from the lines' direction errors ``sd_in``, ``sd_out`` (rad)."""
    up = np.array([0.0, 1.0])
    tw, ta = angle_from_normal(inc[1], up), angle_from_normal(out[1], up)
    if math.sin(tw) <= 0:
        return math.nan, math.nan
    n = math.sin(ta) / math.sin(tw)
    return n, n * math.hypot(sd_out / math.tan(ta) if ta > 0 else math.nan, sd_in / math.tan(tw))


def _angle_sd(tracks: Tracks, name: str, i: int) -> float:
    """A line reading's direction error (rad); NaN where the reading has none (made elsewhere)."""
    v = tracks.regions[name].values.get("angle_sd")
    return math.nan if v is None else float(v[i])


def _unweighed(tracks: Tracks, name: str, i: int) -> bool:
    """Whether a line reading made here has no direction error: too short for four pieces (a stray bit of colour
    where a grazing beam leaves its region, read as a line along the normal: n = 0 on a studio CRF 35 clip)."""
    v = tracks.regions[name].values.get("angle_sd")
    return v is not None and not math.isfinite(float(v[i]))


GAP_FLOOR = 0.5  # px: least spread of the crossings' gap a refraction's own may depart from its beam's by k of


def _crossings(tracks: Tracks, j: int) -> tuple[dict, dict, np.ndarray] | None:
    """Beam ``j``'s ``in`` and ``out`` lines' ``sin² a`` and distance from the surface row per frame, and how far
    apart they cross the row (px; NaN where either or the row is unread); None without those regions."""
    surf = tracks.regions.get("surface")
    if surf is None or f"in_{j}" not in tracks.regions or f"out_{j}" not in tracks.regions:
        return None
    row = np.where(surf.ok, surf["row"], np.nan)
    lines = {p: tracks.regions[f"{p}_{j}"] for p in ("in", "out")}
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = {p: np.sin(r["angle"]) ** 2 for p, r in lines.items()}
        dy = {p: np.abs(row - r["y"]) for p, r in lines.items()}
        cross = {p: r["x"] + (row - r["y"]) / np.tan(r["angle"]) for p, r in lines.items()}
    return s2, dy, cross["in"] - cross["out"]


def _meets(gap: np.ndarray) -> np.ndarray:
    """Frames whose lines cross the surface where the beam's others do: the gap within ``k`` robust sds (at least
    :data:`GAP_FLOOR`) of its median over the frames. The air-side line of a refraction starts where the water-side
    one ends; a line elsewhere in the air region is no part of the beam (studio P20 seed 8500 under noise: a
    stand's vertical edge, read for a beam that had turned to total reflection, crossed the row 103 px from its
    entry point and gave ``n`` = 0.005 in 23 frames: the lawful clip scored 19)."""
    ok = np.isfinite(gap)
    if ok.sum() < 3:
        return ok
    mid = float(np.median(gap[ok]))
    spread = max(noise.robust_sd(gap[ok]), GAP_FLOOR)
    with np.errstate(invalid="ignore"):
        return ok & (np.abs(gap - mid) <= noise.k_for() * spread)


def _crossing_sd(tracks: Tracks, j: int) -> dict[str, np.ndarray]:
    """Per frame, the direction error (rad) of beam ``j``'s ``in`` and ``out`` lines that stays from frame to frame.

    Both lines must meet the surface at one point. Where they cross the surface row apart by a median ``Δ`` px
    over the frames both are read and meet (:func:`_meets`; a compression block next to the entry point, where a
    turning beam never moves on), each line is taken to be off by ``Δ/√2`` px there, across the line: a turn about
    its centroid of ``Δ sin²a / (√2 |row − y|)``. Zero where fewer than 3 frames give both crossings."""
    return _beam_crossings(tracks, j)[0]


def _beam_crossings(tracks: Tracks, j: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """:func:`_crossing_sd` of beam ``j`` and the frames where a refraction may be read: its lines meet
    (:func:`_meets`), or a crossing is missing (no surface row read: nothing to compare)."""
    zero = {p: np.zeros(len(tracks)) for p in ("in", "out")}
    got = _crossings(tracks, j)
    if got is None:
        return zero, np.ones(len(tracks), bool)
    s2, dy, gap = got
    ok = _meets(gap)
    meets = ok | ~np.isfinite(gap)
    if ok.sum() < 3:
        return zero, meets
    delta = abs(float(np.median(gap[ok])))
    with np.errstate(divide="ignore", invalid="ignore"):
        return {p: np.nan_to_num(delta * s2[p] / (math.sqrt(2.0) * dy[p]), nan=0.0, posinf=0.0) for p in s2}, meets


def _drop_outliers(series: np.ndarray) -> np.ndarray:
    """``series`` with NaN where a reading is off its beam's local trend by more than ``k`` robust sds of the
    residuals about a local quadratic (a line fit spoilt where another beam crosses or compression smears)."""
    r = noise.residuals(series)
    ok = np.isfinite(r)
    if ok.sum() < 5:
        return series
    sd = noise.MAD_TO_STD * float(np.median(np.abs(r[ok])))
    out = series.copy()
    out[ok & (np.abs(np.nan_to_num(r)) > noise.k_for() * max(sd, 1e-9))] = np.nan
    return out
