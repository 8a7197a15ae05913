"""Extraction for WMLE granular tasks: flank angles of a pile's profile (P35); discharge exponents of
draining funnels from their fill heights (P36)."""

from __future__ import annotations

import math

import numpy as np
from scipy.ndimage import median_filter
from scipy.stats import siegelslopes

from lawful.case import Case
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.suites.wmle.common import event
from lawful.tracks import Tracks
from lawful.world import flows

MEDIAN_COLUMNS = 9
TRIM_BASE, TRIM_APEX = 0.15, 0.8
MIN_COLUMNS = 8
MIN_FRAMES = 3
MIN_SAMPLES = 12  # P36: level readings a drain-law fit needs


def flank_angles(x: np.ndarray, top: np.ndarray, floor_y: float) -> tuple[float, float] | None:
    """Left and right flank angles (degrees) of one pile profile ``top`` ``[W]`` (rows, NaN = no sand) over
    columns ``x`` ``[W]``; None when a flank has fewer than ``MIN_COLUMNS`` usable columns (see :func:`_flank`)."""
    x, top = np.asarray(x, float), np.asarray(top, float)
    h = floor_y - top
    filled = np.where(np.isfinite(h), h, 0.0)
    hf = median_filter(filled, size=MEDIAN_COLUMNS, mode="nearest")
    k = int(np.argmax(hf))
    H = float(hf[k])
    if H <= 0:
        return None
    band = np.isfinite(h) & (hf >= TRIM_BASE * H) & (hf <= TRIM_APEX * H)
    out = []
    for side in (np.arange(len(x)) < k, np.arange(len(x)) > k):
        sel = band & side
        if sel.sum() < MIN_COLUMNS:
            return None
        slope = _flank(x[sel], top[sel])
        if slope is None:
            return None
        out.append(math.degrees(math.atan(abs(slope))))
    return out[0], out[1]


def _flank(x: np.ndarray, top: np.ndarray) -> float | None:
    """Slope of one flank's read top rows ``top`` over columns ``x``: a line through the sand's upper edge.

    A shadow or highlight on the sand hides its top pixels from the colour selection, and the column reads a
    lower row; nothing adds sand above the surface (the stream falls onto the apex, trimmed away). So columns
    more than a row and 3 sigmas *below* the line are left out and the line is fitted again, until it holds
    still: sigma the residuals' robust sd (a row: tops rounded to rows stand up to one off a line through the
    others, and a robust line through a staircase runs through its corners with sigma 0). The first line is
    Siegel's repeated median (up to half the columns may be off it; Theil–Sen's pairs of a dip a third of the
    flank wide tilted it by 3°, too far for the residuals to single the dip out). Studio P35 seed 8200: the
    apex's shade cut 14 columns of the small pile's left flank, read 22.0° for 33.9°; now 32.0°. None when
    fewer than ``MIN_COLUMNS`` columns are left."""
    step = np.diff(np.unique(top))
    row = float(step.min()) if step.size else 1.0
    a, b = siegelslopes(top, x)
    keep = np.ones(len(x), bool)
    for _ in range(len(x)):
        r = top - (a * x + b)
        new = r <= 3 * noise.robust_sd(r[keep]) + row
        if new.sum() < MIN_COLUMNS:
            return None
        a, b = np.polyfit(x[new], top[new], 1)
        if (new == keep).all():
            break
        keep = new
    return float(a)


def repose_measurement(case: Case, tracks: Tracks, ids: tuple[str, str]) -> Measurement:
    """Median left, right and mean flank angles of each pile (``pile_{id}`` profiles) over the frames where
    both piles' flanks were read."""
    m = Measurement()
    floor_y = float(case.known["floor_y"])
    per = {}
    for oid in ids:
        reg = tracks.regions.get(f"pile_{oid}") if tracks.regions else None
        if reg is None:
            m.notes["unresolved"] = f"{oid} pile not read"
            return m
        rows = [flank_angles(reg.columns, reg["top"][i], floor_y) if reg.ok[i] else None
                for i in range(len(reg.ok))]
        per[oid] = rows
    both = [i for i in range(len(per[ids[0]])) if per[ids[0]][i] is not None and per[ids[1]][i] is not None]
    m.notes["frames_read"] = len(both)
    if len(both) < MIN_FRAMES:
        m.notes["unresolved"] = f"both piles' flanks read in {len(both)} frames (< {MIN_FRAMES})"
        return m
    m.events.append(event("piles", "angles_read", float(both[0]), tracks))
    for oid in ids:
        lr = np.array([per[oid][i] for i in both])
        m.set(f"alpha_{oid}_left_deg", float(np.median(lr[:, 0])))
        m.set(f"alpha_{oid}_right_deg", float(np.median(lr[:, 1])))
        m.set(f"alpha_{oid}_deg", float(np.median(lr.mean(1))))
    return m


def fit_heights(t: np.ndarray, h: np.ndarray, ok: np.ndarray, stated_sigma: np.ndarray) -> tuple[dict | None, str]:
    """β of one funnel from its fill heights (see the module docstring); a reason when unmeasured."""
    use = ok & np.isfinite(h)
    if use.sum() < MIN_SAMPLES:
        return None, f"{int(use.sum())} level readings (< {MIN_SAMPLES})"
    s_res = noise.sigma(np.where(use, h, np.nan))
    s_read = float(np.nanmedian(stated_sigma[use])) if np.isfinite(stated_sigma[use]).any() else 0.0
    sig = max(s_res if math.isfinite(s_res) else 0.0, s_read)
    drop = float(np.median(h[use][:3]) - np.median(h[use][-3:]))
    if drop <= noise.k_for() * max(sig, 0.1):
        return None, f"the level fell {drop:.2f} px, within its noise"
    fit = flows.fit_drain_exponent(t[use], h[use], sigma=sig)
    if fit is None:
        return None, "the drain law could not be fitted"
    fit["sigma_px"] = sig
    return fit, ""


def discharge_measurement(case: Case, tracks: Tracks, materials: tuple[str, ...]) -> Measurement:
    """β and its standard error per funnel of ``materials`` (``funnel_{m}`` level readings, heights above the
    apex), fitted to the integrated cone drain law."""
    m = Measurement()
    t = np.asarray(tracks.t, float)
    if len(t) > 1 and not np.all(np.diff(t) > 0):  # no sample times: the frames at the case's rate
        t = np.asarray(tracks.frames, float) / case.fps
    for mat in materials:
        reg = tracks.regions.get(f"funnel_{mat}") if tracks.regions else None
        if reg is None or "row" not in reg.values:
            m.notes["unresolved"] = f"the {mat} level was never read"
            return m
        h = float(case.known["funnels"][mat]["apex"][1]) - np.asarray(reg["row"], float)
        fit, why = fit_heights(t, h, reg.ok, np.asarray(reg.sigma, float))
        if fit is None:
            m.notes["unresolved"] = f"{mat}: {why}"
            return m
        m.set(f"beta_{mat}", fit["beta"])
        m.set(f"beta_{mat}_se", fit["beta_se"])
        m.notes[f"fit_{mat}"] = {k: round(v, 4) if isinstance(v, float) else v for k, v in fit.items()}
    return m
