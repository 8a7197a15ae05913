"""Extraction for WMLE electromagnetism tasks: a magnet's entry into a coil and lamp readings (P30)."""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.suites.wmle.common import event
from lawful.tracks import Tracks

LIT_FLOOR = 15.0  # luma levels (6 % of full scale): a smaller rise is no visible light, whatever the noise
CLEAR_AREA = 0.85  # a sighting with at least this share of the first area is whole (not behind the coil)
FIT_N = 4  # clear sightings extrapolated to the entrance
EDGE_PX = 2.0  # a clear sighting's box ends more than this short of the coil


def lit_mask(luma: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Samples where a lamp is lit (see the module docstring), its off level and threshold."""
    y = np.where(ok, np.asarray(luma, float), np.nan)
    if not np.isfinite(y).any():
        return np.zeros(len(y), bool), math.nan, math.nan
    off = float(np.nanpercentile(y, 10))
    s = noise.sigma(y)
    thr = max(noise.k_for() * math.sqrt(2) * (s if math.isfinite(s) else 0.0), LIT_FLOOR)
    return np.nan_to_num(y - off, nan=-np.inf) > thr, off, thr


def entry_index(tr, x0: float, north_leads: bool, first: int) -> tuple[float, int] | None:
    """Fractional sample at which the magnet's leading end reaches the coil's entrance ``x0``, and the last
    sample where the tracked half was seen whole and clear of the coil; None without evidence of entry.

    The leading end is the centroid plus half the first-frame box width (plus a whole one when the south
    half leads), from clear sightings only: area at least ``CLEAR_AREA`` of the first one, box ending more
    than ``EDGE_PX`` short of ``x0`` (a compressed edge spreads by a pixel or two), and before the first sample
    where the magnet's box reaches the coil (a blob taken for it behind it later is no approach). A crossing between two
    clear sightings is interpolated. Otherwise every sample after the last clear one shows the half hidden,
    shrunk or at the coil: the last ``FIT_N`` clear sightings are extrapolated linearly, and the crossing
    counts when it falls before the sample after the first of those (a magnet that stops short of the coil
    stays clear to the end: no entry).
    """
    vis = np.asarray(tr.visible, bool)
    w0 = float(tr.box[first, 2] - tr.box[first, 0])
    a0 = float(tr.area[first])
    lead = tr.x + 0.5 * w0 + (0.0 if north_leads else w0)
    clear = vis & (tr.area >= CLEAR_AREA * a0) & (tr.box[:, 2] < x0 - EDGE_PX)
    at_coil = np.flatnonzero(vis & (tr.box[:, 2] >= x0 - EDGE_PX))
    if len(at_coil):  # the approach ends where the magnet reaches the coil: a later sighting is no approach
        clear &= np.arange(len(vis)) < at_coil[0]
    idx = np.flatnonzero(clear)
    if len(idx) == 0 or lead[idx[0]] >= x0:
        return None
    for j, i in zip(idx[:-1], idx[1:]):
        if lead[j] < x0 <= lead[i]:
            return float(j + (x0 - lead[j]) / (lead[i] - lead[j]) * (i - j)), int(i)
    last = int(idx[-1])
    use = idx[-FIT_N:]
    if last + 1 >= len(vis) or len(use) < 2:
        return None
    slope, icpt = np.polyfit(use.astype(float), lead[use], 1)
    if slope <= 0:
        return None
    f = (x0 - icpt) / slope
    return (float(f), last) if last <= f <= last + 2 else None


def coil_entry_measurement(case: Case, tracks: Tracks, match_s: float) -> Measurement:
    """The magnet's entry (``entered``, ``entry_time_s``, C's interval) and whether a lamp lit within
    ``match_s`` of it (``lit``: None when fewer than half the window's samples read both lamps)."""
    m = Measurement()
    tr = tracks["magnet"]
    t = np.asarray(tracks.t, float)
    vis = np.asarray(tr.visible, bool)
    x0 = float(case.known["coil"][0])
    seen = np.flatnonzero(vis)
    if len(seen) < 3:
        m.notes["unresolved"] = "the magnet was seen in fewer than 3 samples"
        return m
    entry = entry_index(tr, x0, bool(case.known.get("north_leads", True)), seen[0])
    m.notes["interval"] = [0, int(seen[-1]) + 1]
    entered = entry is not None
    if entered:
        f, last_clear = entry
        m.set("entry_time_s", float(np.interp(f, np.arange(len(t)), t)))
        m.events.append(event("magnet", "entry", f, tracks))
        m.notes["interval"] = [0, last_clear + 1]  # inside the coil the windings hide the magnet
    m.notes["entered"] = entered
    if not entered:
        m.notes["interval"] = [0, int(seen[-1]) + 1]
        return m
    t_e = m.get("entry_time_s")
    win = np.abs(t - t_e) <= match_s + 1e-9
    read, lit_any = np.ones(len(t), bool), np.zeros(len(t), bool)
    for n in case.known["lamps"]:
        rs = tracks.regions.get(f"lamp_{n}")
        if rs is None:
            read[:] = False
            continue
        ok = np.asarray(rs.ok, bool)
        lit, off, thr = lit_mask(rs["luma"], ok)
        m.notes[f"lamp_{n}"] = {"off_luma": off, "threshold": thr, "lit_samples": int(lit.sum())}
        read &= ok
        lit_any |= lit
    m.notes["indicator_readable"] = float(read[win].mean()) if win.any() else 0.0
    if m.notes["indicator_readable"] < 0.5:
        m.notes["lit"] = None
        return m
    m.notes["lit"] = bool((lit_any & read & win).any())
    hits = np.flatnonzero(lit_any & read & win)
    if len(hits):
        m.events.append(event("indicator", "lit_at_entry", float(hits[0]), tracks))
    return m
