"""Bubble and drop readings: a WMLE P39 double bubble's partition curvature over qualified intervals; which P40
samples show the two drops before contact and the merged drop settled, and a drop outline's roundness."""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.perceive.regions import RegionSeries
from lawful.result import Measurement
from lawful.suites.wmle.common import event
from lawful.tracks import Tracks

FILMS = ("small", "large", "partition")  # P39
MIN_FRAMES = 3  # P40: pre-contact and settled frames; P39: a partition interval's frames
MIN_SECONDS = 0.08  # P39: a partition interval's least duration
CONTACT_GUARD = 2
GRID_VAR = 4.0 / 12.0  # variance (px²) of an outline sampled on a 2-px grid (4:2:0 chroma, see the docstring)



def qualified_intervals(ok: np.ndarray, t: np.ndarray, dt: float) -> np.ndarray:
    """Samples ``[T]`` (bool) in runs of ``ok`` lasting at least :data:`MIN_FRAMES` frames and
    :data:`MIN_SECONDS` s (a run of ``n`` frames lasts ``t_last − t_first + dt``)."""
    out = np.zeros(len(ok), bool)
    idx = np.flatnonzero(np.diff(np.r_[0, np.asarray(ok, int), 0]))
    for a, b in zip(idx[::2], idx[1::2]):
        if b - a >= MIN_FRAMES and t[b - 1] - t[a] + dt >= MIN_SECONDS - 1e-9:
            out[a:b] = True
    return out


def curvature_se(rms: np.ndarray, length: np.ndarray) -> np.ndarray:
    """``σ_κ = 2 ρ √180 / (L² √(2L))``: a least-squares curvature's standard error (see the module docstring)."""
    L = np.asarray(length, float)
    return 2.0 * np.asarray(rms, float) * math.sqrt(180.0) / (L**2 * np.sqrt(2.0 * L))


def roundness(r_fit: np.ndarray, roundness_probe: np.ndarray) -> np.ndarray:
    """``1 − RMS/r`` with the outline's grid sampling error removed from the probe's radial RMS."""
    r = np.asarray(r_fit, float)
    rms = (1.0 - np.asarray(roundness_probe, float)) * r
    return 1.0 - np.sqrt(np.maximum(rms**2 - GRID_VAR, 0.0)) / r


def _scatter(i: np.ndarray, r: np.ndarray) -> float:
    """Robust standard deviation of ``r`` about its straight line over samples ``i`` (0 with under 5): how steadily
    the settled drop reads. Its outline can wobble more slowly than the local noise fit follows (studio seed 7600:
    0.1-0.2 px about its final radius from sample to sample of a local noise of 0.04), and a trend is no scatter."""
    if len(i) < 5:
        return 0.0
    return noise.robust_sd(r - np.polyval(np.polyfit(i, r, 1), i))


def drop_phases(n_blobs: np.ndarray, r_single: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """Pre-contact and settled samples ``[T]`` (bool) from the number of components read per sample and the
    equivalent radius of the single component; a reason when either is missing."""
    n = np.asarray(n_blobs)
    T = len(n)
    pre, settled = np.zeros(T, bool), np.zeros(T, bool)
    ones = np.flatnonzero(n == 1)
    twos = np.flatnonzero(n == 2)
    if len(twos) == 0:
        return pre, settled, "two separate drops never read"
    if len(ones) == 0 or ones[-1] < twos[0]:
        return pre, settled, "the drops never merged into one"
    first_one = int(ones[ones > twos[0]][0])
    pre[twos[twos < first_one - CONTACT_GUARD]] = True
    after = np.zeros(T, bool)
    after[first_one:] = True
    single = after & (n == 1)
    r = np.where(single, r_single, np.nan)
    idx = np.flatnonzero(single)
    tail = idx[-max(MIN_FRAMES, len(idx) // 4):]
    final = float(np.median(r[tail]))
    sig = noise.sigma(r)
    grid = 1.0 / math.sqrt(24.0 * math.pi * final) if final > 0 else 0.0  # a digitised outline's area flicker
    tol = noise.k_for() * max(sig if math.isfinite(sig) else 0.0, grid, _scatter(tail, r[tail]))
    off = idx[np.abs(r[idx] - final) > tol]
    start = int(off[-1]) + 1 if len(off) else int(idx[0])
    settled[start:] = single[start:]
    if pre.sum() < MIN_FRAMES:
        return pre, settled, f"{int(pre.sum())} pre-contact frames (< {MIN_FRAMES})"
    if settled.sum() < MIN_FRAMES:
        return pre, settled, f"the merged drop settled in {int(settled.sum())} frames (< {MIN_FRAMES})"
    return pre, settled, ""


def drops_read(area: np.ndarray) -> np.ndarray:
    """How many drops each sample ``[T, 2]`` of component areas (px², NaN = none) shows: the largest, and the second
    only where its area stands above ``k`` times the flicker of the largest's outline, ``σ_A = √(4πr/3)`` px² (its
    ~``πr`` boundary cells of the 2-px colour grid each in or out, area variance ``4²/12``): a speck within it (a
    sliver of the drop's own rim cut off by its darker shading, studio seed 8200: 4-14 px² beside a drop of 87 px
    radius in 50 of 59 samples after contact, so the merged drop was never read alone) changes no volume M1 can
    see and is not a drop."""
    a = np.where(np.isfinite(area), area, 0.0)
    big, second = a.max(1), a.min(1)
    flicker = noise.k_for() * np.sqrt(4.0 * math.pi * np.sqrt(big / math.pi) / 3.0)
    return (big > 0).astype(int) + (second > flicker)


def coalescence_measurement(tracks: Tracks) -> Measurement:
    """P40's radii ``r1_px``, ``r2_px`` (pre-contact, left to right), ``rf_px`` (settled) and roundness ``R1``, ``R2``,
    ``Rf`` from the ``drops`` region (two largest components); ``unresolved`` when the phases are not read."""
    m = Measurement()
    reg: RegionSeries | None = tracks.regions.get("drops") if tracks.regions else None
    if reg is None or not reg.ok.any():
        m.notes["unresolved"] = "the drops were not read"
        return m
    area = np.asarray(reg["area"], float)
    n = drops_read(area) * reg.ok
    r_eq = np.sqrt(area / math.pi)
    rnd = roundness(reg["r"], reg["roundness"])
    rows = np.arange(len(area))
    big = np.argmax(np.where(np.isfinite(area), area, -1.0), 1)  # the drop, not a speck beside it
    r_big, rnd_big = r_eq[rows, big], rnd[rows, big]
    pre, settled, why = drop_phases(n, np.where(n == 1, r_big, np.nan))
    m.notes["pre_contact"] = np.flatnonzero(pre).tolist()
    m.notes["settled"] = np.flatnonzero(settled).tolist()
    ones = np.flatnonzero(n == 1)
    if len(ones) and pre.any():
        m.events.append(event("drops", "contact", float(ones[ones > np.flatnonzero(pre)[0]][0]), tracks))
    if settled.any():
        m.events.append(event("drops", "settled", float(np.flatnonzero(settled)[0]), tracks))
    if why:
        m.notes["unresolved"] = why
        return m
    m.set("r1_px", float(np.median(r_eq[pre, 0])))
    m.set("r2_px", float(np.median(r_eq[pre, 1])))
    m.set("rf_px", float(np.median(r_big[settled])))
    m.set("R1", float(np.median(rnd[pre, 0])))
    m.set("R2", float(np.median(rnd[pre, 1])))
    m.set("Rf", float(np.median(rnd_big[settled])))
    return m


def partition_measurement(case: Case, tracks: Tracks) -> Measurement:
    """P39's partition readings from the three film regions: per-sample ``E_t``, weights, signed curvature, predicted
    curvature and its standard error over the qualified intervals (``notes["series"]``), ``E_t``'s noise."""
    m = Measurement()
    regs = tracks.regions or {}
    if any(f"film_{f}" not in regs or "r" not in regs[f"film_{f}"].values for f in FILMS):
        m.notes["unresolved"] = "a film was never read"
        return m
    r = {f: np.asarray(regs[f"film_{f}"]["r"], float)[:, 0] for f in FILMS}
    p = regs["film_partition"]
    t = np.asarray(tracks.t, float)
    if len(t) > 1 and not np.all(np.diff(t) > 0):
        t = np.asarray(tracks.frames, float) / case.fps
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 1.0 / case.fps
    cs, cl = (np.asarray(case.known["centres"][b], float) for b in ("small", "large"))
    side = np.sign((p["cx"][:, 0] - p["x"][:, 0]) * (cs[0] - cl[0]) + (p["cy"][:, 0] - p["y"][:, 0]) * (cs[1] - cl[1]))
    kappa = side / r["partition"]
    ok = np.ones(len(t), bool)
    for f in FILMS:
        ok &= regs[f"film_{f}"].ok & np.isfinite(r[f]) & (r[f] > 0)
    ok &= np.isfinite(kappa) & (side != 0)
    use = qualified_intervals(ok, t, dt)
    kp = 1.0 / r["small"] - 1.0 / r["large"]
    E = np.abs(kp / np.where(use, kappa, np.nan) - 1.0)
    length = np.hypot(p["x1"][:, 0] - p["x0"][:, 0], p["y1"][:, 0] - p["y0"][:, 0])
    rms = (1.0 - p["roundness"][:, 0]) * r["partition"]
    w = np.full(len(t), dt)
    m.notes["samples"] = {"read": int(ok.sum()), "in_intervals": int(use.sum())}
    m.notes["series"] = {"E": E[use].tolist(), "w": w[use].tolist(), "kappa": kappa[use].tolist(),
                         "kappa_pred": kp[use].tolist(), "kappa_se": curvature_se(rms, length)[use].tolist()}
    sig = noise.sigma(np.where(use, E, np.nan))
    m.notes["sigma_E"] = float(sig) if math.isfinite(sig) else 0.0
    if use.any():
        for f in ("small", "large"):
            m.set(f"r_{f}_px", float(np.median(r[f][use])))
        m.set("r_partition_px", float(1.0 / np.median(kappa[use])))
    return m
