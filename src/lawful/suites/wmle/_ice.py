"""Extraction for WMLE ice tasks: vessel levels from ``level`` probe bands (P28); water level, ice and
walls before and after a block melts afloat (P25, P26, with their shared :class:`MeltingScene`); initial
and terminal level and ice evidence (P27); liquid height and vessel width before and after freezing (P24)."""

from __future__ import annotations

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.suites.wmle.common import style_of
from lawful.tracks import Tracks
from lawful.world import liquids as lq
from lawful.world.draw import Scene
from lawful.world.scenes.ice import melting_frame, melting_layout, melting_tank

BEFORE_SHARE, AFTER_SHARE, MIN_WINDOW = 0.08, 0.15, 5
WATER_BANDS = ("water_left", "water_right")
LEVEL_SCALE = 0.05  # P25's M1 scale a, as a share of the vessel's inside height
INITIAL_SHARE = 0.10  # P27's initial window: this share of the clip (at least MIN_SAMPLES samples)
TERMINAL_SHARE = 0.20
MIN_SAMPLES = 3
FREEZE_INITIAL, FREEZE_TERMINAL, FREEZE_MIN = 0.15, 0.25, 3  # P24's windows: shares of the clip, least samples
CONFIRM = 3  # P27: residual ice is ice read in every sample of the terminal window, at least this many


def _listed(a: np.ndarray) -> list:
    """A JSON-friendly list: floats, None where not finite."""
    return [round(float(v), 6) if np.isfinite(v) else None for v in np.asarray(a, float)]


def side_levels(tracks: Tracks, side: str, bands: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """A vessel's level row and its standard error per sample (mean of its readable bands; NaN where none)."""
    T = len(tracks.frames)
    rs = [tracks.regions.get(f"{side}_{b}") for b in bands]
    rs = [r for r in rs if r is not None and "row" in r.values]
    if not rs:
        return np.full(T, np.nan), np.full(T, np.nan)
    rows = np.vstack([np.where(r.ok, r["row"], np.nan) for r in rs])
    sig = np.vstack([np.where(r.ok, r.sigma, np.nan) for r in rs])
    n = np.isfinite(rows).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        row = np.where(n > 0, np.nansum(rows, 0) / np.maximum(n, 1), np.nan)
        sg = np.where(n > 0, np.sqrt(np.nansum(sig**2, 0)) / np.maximum(n, 1), np.nan)
    return row, sg


def lead_measurement(case: Case, tracks: Tracks, sides: tuple[str, str], bands: tuple[str, ...]) -> Measurement:
    """Per vessel of ``sides``: relative liquid heights ``(bottom − row) / H`` and their uncertainties ``k σ / H``
    per sample (``notes``), the one-pixel floor and the largest lead of ``sides[0]`` (``max_lead_px``)."""
    m = Measurement()
    k = noise.k_for()
    h, u, H = {}, {}, {}
    for s in sides:
        x0, y0, x1, y1 = case.known["vessels"][s]
        H[s] = float(y1 - y0)
        row, sg = side_levels(tracks, s, bands)
        h[s] = (y1 - row) / H[s]
        u[s] = k * sg / H[s]
    t = np.asarray(tracks.t, float)
    if len(t) > 1 and not np.all(np.diff(t) > 0):  # no sample times: the frames at the case's rate
        t = np.asarray(tracks.frames, float) / case.fps
    m.notes["t"] = [float(v) for v in t]
    m.notes["heights"] = {s: _listed(h[s]) for s in sides}
    m.notes["uncertainties"] = {s: _listed(u[s]) for s in sides}
    m.notes["floor"] = 1.0 / min(H.values())
    joint = np.isfinite(h[sides[0]]) & np.isfinite(h[sides[1]])
    if joint.any():
        m.set("max_lead_px", float(np.nanmax(np.where(joint, h[sides[0]] - h[sides[1]], np.nan))) * H[sides[0]])
    return m


# ----------------------------------------------------------------------------- P25, P26: a block melting afloat


def windows(T: int) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks of the *before* and *after* samples."""
    nb, na = max(MIN_WINDOW, int(np.ceil(BEFORE_SHARE * T))), max(MIN_WINDOW, int(np.ceil(AFTER_SHARE * T)))
    before, after = np.zeros(T, bool), np.zeros(T, bool)
    before[:nb], after[max(0, T - na):] = True, True
    return before, after


def water_level(tracks: Tracks, agree: float = np.inf) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Per sample: the mean row of the readable water bands, its standard error, and whether any was read; a sample
    whose bands, both read, lie more than ``agree`` px apart is not read (:func:`bands_apart`)."""
    got = _water_rows(tracks)
    if got is None:
        return None
    rows, sig = got
    rows[:, bands_apart(rows, agree)[0]] = np.nan
    n = np.isfinite(rows).sum(0)
    with np.errstate(invalid="ignore"):
        y = np.nanmean(np.where(n > 0, rows, 0.0), 0) if n.any() else np.full(rows.shape[1], np.nan)
        s = np.sqrt(np.nansum(sig**2, 0)) / np.maximum(n, 1)
    y = np.where(n > 0, y, np.nan)
    return y, s, n > 0


def _water_rows(tracks: Tracks) -> tuple[np.ndarray, np.ndarray] | None:
    """The water bands' rows and standard errors ``[bands, T]`` (NaN where unread); None where a band has no row."""
    regs = [tracks.regions.get(b) for b in WATER_BANDS]
    if any(r is None or "row" not in r.values for r in regs):
        return None
    return (np.stack([np.where(r.ok, r["row"], np.nan) for r in regs]),
            np.stack([np.where(r.ok, r.sigma, np.nan) for r in regs]))


def bands_apart(rows: np.ndarray, agree: float) -> tuple[np.ndarray, np.ndarray]:
    """Per sample of ``rows`` ``[bands, T]`` (NaN where unread): whether every band was read and they lie more than
    ``agree`` px apart, and whether every band was read. The open water either side of the ice is one surface: bands
    that disagree by the metric's own scale read something else in one of them (studio P25 seed 8700: a dark backdrop
    shape seen through the glass just above the water, its top edge 56 px above the surface, taken for it in one band
    in every sample and in the other in some: the level moved 26 px as the ice melted, and the twin scored 88.5 with
    C 97.9)."""
    both = np.isfinite(rows).all(0)
    with np.errstate(invalid="ignore"):
        return both & (np.ptp(np.where(both, rows, 0.0), 0) > agree), both


def levels_agree(tracks: Tracks, agree: float) -> float:
    """C factor: the share of the samples with every water band read in which they agree within ``agree`` px (1 where
    none has)."""
    got = _water_rows(tracks)
    if got is None:
        return 1.0
    apart, both = bands_apart(got[0], agree)
    return 1.0 - float(apart.sum()) / both.sum() if both.any() else 1.0


def persistent(seen: np.ndarray) -> np.ndarray:
    """``seen`` where a neighbouring sample also sees it: ice melts over many frames, so a sighting in one frame
    alone (a compression artefact of the ice's colour, 25 px in one of 22 end frames of a CRF 35 clip) is not ice."""
    s = np.asarray(seen, bool)
    nb = np.zeros_like(s)
    nb[1:] |= s[:-1]
    nb[:-1] |= s[1:]
    return s & nb


def melt_seen(ice_ok: np.ndarray, before: np.ndarray, after: np.ndarray) -> str:
    """'' when the ice is there before and gone after (a lone end sighting is not ice: :func:`persistent`),
    else why not."""
    if ice_ok[before].mean() < 0.5:
        return "no ice seen at the start"
    if persistent(ice_ok)[after].any():
        return "ice still seen at the end"
    return ""


def wall_spacing(walls) -> np.ndarray:
    """Per sample, the vessel's width between its walls (NaN where not both were read), by one rule for the clip:
    between their inner edges where the wall colour held both walls in every sample the strip was read (the blobs'
    ``x1`` and ``x0``: exact for a sharp wall, and steady on a thick glass wall whose middle shifts with its
    highlights), else between the centres of the valleys they leave in the strip (``mid``), in every sample: blur
    mixes a thin wall out of its colour (flat P25 seed 8400 defocused: no blob in any sample, C 0, the lawful clip
    scored 0) and moves its edges, not its middle. One rule for all samples, so a width's change is never a switch
    from one reading to the other (a wall's thickness: 3 px in 240)."""
    x0, x1 = np.asarray(walls["x0"], float), np.asarray(walls["x1"], float)
    if x0.ndim != 2 or x0.shape[1] < 2:
        return np.full(len(walls.ok), np.nan)
    inner = x0[:, 1] - x1[:, 0]
    read = np.asarray(walls.ok, bool)
    mid = walls.values.get("mid")
    if np.isfinite(inner[read]).all() or mid is None:
        return inner
    mid = np.asarray(mid, float)
    return mid[:, 1] - mid[:, 0]


class MeltingScene:
    """The glass, water and floating ice block shared by P25 and P26 (parameters in ``case.known``)."""

    layout = staticmethod(melting_layout)
    frame = staticmethod(melting_frame)

    @staticmethod
    def probes(case: Case) -> list[Probe]:
        k = case.known
        return ([Probe(b, "level", tuple(float(v) for v in k["bands"][b])) for b in WATER_BANDS]
                + [Probe("ice", "blobs", tuple(k["ice"]), color=tuple(k["ice_color"]), fit="none"),
                   Probe("walls", "blobs", tuple(k["walls"]), color=tuple(k["wall_color"]), count=2, pick="walls",
                         fit="none", edges="subpixel")])

    @staticmethod
    def tank(case: Case) -> tuple[Scene, lq.Tank]:
        return melting_tank(case.known, case.width, case.height, style_of(case))


def level_agreement(case: Case) -> float:
    """px within which the water bands must agree: the level metric's scale, :data:`LEVEL_SCALE` of the vessel's
    inside height (a disagreement that size leaves the level unknown at the scale it is scored on)."""
    v = case.known["vessel"]
    return LEVEL_SCALE * float(v[3] - v[1])


def melt_level_measurement(case: Case, tracks: Tracks) -> Measurement:
    """Median water level before and after the melt and the vessel's width (:func:`wall_spacing`) then
    (``notes['unresolved']`` when the ice is not seen to melt or too few levels are readable)."""
    m = Measurement()
    lev = water_level(tracks, level_agreement(case))
    ice, walls = tracks.regions.get("ice"), tracks.regions.get("walls")
    if lev is None or ice is None or walls is None:
        m.notes["unresolved"] = "a region was never read"
        return m
    y, _, ok = lev
    before, after = windows(len(y))
    why = melt_seen(ice.ok, before, after)
    if why:
        m.notes["unresolved"] = why
        return m
    if (ok & before).sum() < MIN_WINDOW or (ok & after).sum() < MIN_WINDOW:
        m.notes["unresolved"] = "too few readable levels before or after"
        return m
    m.set("level_before_px", float(np.median(y[ok & before])))
    m.set("level_after_px", float(np.median(y[ok & after])))
    w = wall_spacing(walls)
    for name, sel in (("before", before), ("after", after)):
        good = sel & np.isfinite(w)
        m.set(f"width_{name}_px", float(np.median(w[good])) if good.sum() >= MIN_WINDOW else None,
              f"vessel walls not found {name}")
    return m


def window_sigma(rows: np.ndarray, stated: np.ndarray) -> float:
    """A window's level uncertainty: the larger of the median stated error and 1.4826 MAD of the rows."""
    spread = 1.4826 * float(np.median(np.abs(rows - np.median(rows)))) if len(rows) else 0.0
    s = float(np.nanmedian(stated)) if len(stated) else 0.0
    return max(s if np.isfinite(s) else 0.0, spread)


# ----------------------------------------------------------------------------- P26: ice holding a stone


def stone_melt_measurement(tracks: Tracks) -> Measurement:
    """P26's level before and after the melt per water band and its change ``d`` (rows) with resolution ``δ``:
    means over the bands that resolve a change (all bands when none does); ``unresolved`` when the melt is not seen,
    too few levels read or bands resolve opposite signs."""
    m = Measurement()
    regs = [tracks.regions.get(b) for b in WATER_BANDS]
    ice = tracks.regions.get("ice")
    if any(r is None or "row" not in r.values for r in regs) or ice is None:
        m.notes["unresolved"] = "a region was never read"
        return m
    before, after = windows(len(regs[0].ok))
    why = melt_seen(ice.ok, before, after)
    if why:
        m.notes["unresolved"] = why
        return m
    bands = []  # (y_before, d, δ) per band with ≥ 5 readable levels in both windows
    for r in regs:
        y, sig = np.where(r.ok, r["row"], np.nan), np.where(r.ok, r.sigma, np.nan)
        ok = np.isfinite(y)
        if (ok & before).sum() >= 5 and (ok & after).sum() >= 5:
            yb, ya = y[ok & before], y[ok & after]
            sb, sa = window_sigma(yb, sig[ok & before]), window_sigma(ya, sig[ok & after])
            bands.append((float(np.median(yb)), float(np.median(yb) - np.median(ya)), level_change_uncertainty(sb, sa)))
    if not bands:
        m.notes["unresolved"] = "too few readable levels before or after"
        return m
    signs = {np.sign(d) for _, d, delta in bands if abs(d) > delta}
    if len(signs) > 1:
        m.notes["unresolved"] = "the water bands resolve level changes of opposite signs"
        return m
    use = [b for b in bands if abs(b[1]) > b[2]] or bands
    m.set("level_before_px", float(np.mean([b[0] for b in bands])))
    m.set("level_after_px", float(np.mean([b[0] - b[1] for b in bands])))
    m.set("level_change_px", float(np.mean([b[1] for b in use])))
    m.set("resolution_px", float(np.mean([b[2] for b in use])))
    m.set("bands_resolved", float(sum(abs(d) > delta for _, d, delta in bands)))
    return m


# ----------------------------------------------------------------------------- P27: ice melting in brine


def window_level(rows: np.ndarray, sigma: np.ndarray, ok: np.ndarray, window: np.ndarray):
    """Median row of a window and its uncertainty ``max(median σ, 1.4826 MAD)``, or None with too few readings."""
    sel = window & ok & np.isfinite(rows)
    if sel.sum() < MIN_SAMPLES:
        return None
    r = rows[sel]
    med = float(np.median(r))
    spread = 1.4826 * float(np.median(np.abs(r - med)))
    stated = float(np.nanmedian(sigma[sel])) if np.isfinite(sigma[sel]).any() else 0.0
    return med, max(stated, spread)


def level_change_uncertainty(sig_before: float, sig_after: float) -> float:
    """``δ_y = max(1 px, k √(σ_b² + σ_a²))``."""
    return max(1.0, noise.k_for() * float(np.hypot(sig_before, sig_after)))


def level_and_ice_measurement(case: Case, tracks: Tracks, sides: tuple[str, ...]) -> Measurement:
    """Level before and after (medians over the initial and terminal windows of the ``level_{side}`` bands),
    its change and uncertainty, and the ice evidence (blob area) then, with ``residual_ice_confirmed``."""
    m = Measurement()
    T = len(tracks.frames)
    first, last = np.zeros(T, bool), np.zeros(T, bool)
    first[:max(MIN_SAMPLES, int(np.ceil(INITIAL_SHARE * T)))] = True
    last[max(0, T - max(MIN_SAMPLES, int(np.ceil(TERMINAL_SHARE * T)))):] = True
    lv = [tracks.regions.get(f"level_{s}") for s in sides]
    lv = [r for r in lv if r is not None and "row" in r.values]
    if lv:
        rows = np.vstack([np.where(r.ok, r["row"], np.nan) for r in lv])
        sig = np.vstack([np.where(r.ok, r.sigma, np.nan) for r in lv])
        n = np.isfinite(rows).sum(0)
        row = np.where(n > 0, np.nansum(rows, 0) / np.maximum(n, 1), np.nan)  # the mean of the readable bands
        sg = np.sqrt(np.nansum(sig**2, 0)) / np.maximum(n, 1)
        ok = n > 0
        b, a = window_level(row, sg, ok, first), window_level(row, sg, ok, last)
        if b and a:
            m.set("y_before_px", b[0])
            m.set("y_after_px", a[0])
            m.set("dy_px", b[0] - a[0])
            m.set("delta_y_px", level_change_uncertainty(b[1], a[1]))
    ice = tracks.regions.get("ice")
    if ice is not None and "area" in ice.values:
        E = np.where(ice.ok, np.nansum(np.nan_to_num(ice["area"], nan=0.0).reshape(T, -1), 1), 0.0)
        m.set("E_initial_px2", float(np.median(E[first])))
        m.set("E_terminal_px2", float(np.median(E[last])))
        # a solid left at the end was there through the terminal window (ice does not form again): readings that come
        # and go are not one (studio seed 7000: the brine lightening near the surface as the meltwater mixes came within
        # the colour threshold in specks, read as up to 2000 px2 of "ice" in 16 of the 29 terminal samples, the law
        # clip scored 50); a piece read only in some of them is scored by its evidence ratio instead
        m.notes["residual_ice_confirmed"] = bool(last.sum() >= CONFIRM and ice.ok[last].all() and one_piece(ice, last))
    return m


def one_piece(blobs, window: np.ndarray) -> bool:
    """Whether the largest piece of a ``blobs`` reading in each sample of ``window`` overlaps (boxes) the largest in the
    sample before: one solid that stays, not readings scattered anew each frame (studio P27 seed 7100: slivers 2-4 px
    tall along the ice region's top edge, 10-50 px wide at another place each sample, the largest of them jumping
    from the tank's wall to its middle, were "ice" in all 29 terminal samples and the law clip scored 57.5). True
    where the reading has no boxes."""
    if not all(k in blobs.values for k in ("x0", "y0", "x1", "y1")):
        return True
    idx = np.flatnonzero(window)
    values = {k: np.asarray(blobs[k], float).reshape(len(window), -1)[idx] for k in ("area", "x0", "y0", "x1", "y1")}
    big = np.nan_to_num(values["area"], nan=-1.0).argmax(1)
    box = np.stack([values[k][np.arange(len(idx)), big] for k in ("x0", "y0", "x1", "y1")], 1)
    a, b = box[:-1], box[1:]
    return bool(np.all((b[:, 0] < a[:, 2]) & (a[:, 0] < b[:, 2]) & (b[:, 1] < a[:, 3]) & (a[:, 1] < b[:, 3])))


# ----------------------------------------------------------------------------- P24: freezing expansion


def freeze_windows(T: int) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks ``[T]`` of the initial and terminal windows."""
    first, last = np.zeros(T, bool), np.zeros(T, bool)
    first[:max(FREEZE_MIN, int(np.ceil(FREEZE_INITIAL * T)))] = True
    last[max(0, T - max(FREEZE_MIN, int(np.ceil(FREEZE_TERMINAL * T)))):] = True
    return first, last


def window_median(values: np.ndarray, ok: np.ndarray, window: np.ndarray) -> float | None:
    """Median of ``values`` over the readable samples of ``window`` (None with fewer than ``FREEZE_MIN``)."""
    sel = window & ok & np.isfinite(values)
    return float(np.median(values[sel])) if sel.sum() >= FREEZE_MIN else None


def freeze_measurement(case: Case, tracks: Tracks) -> Measurement:
    """Column height above ``bottom_y`` (``surface`` level) at the start and the end, and the vessel's width
    (:func:`wall_spacing` of the ``walls``) then."""
    m = Measurement()
    s, wl = tracks.regions.get("surface"), tracks.regions.get("walls")
    T = len(tracks.frames)
    first, last = freeze_windows(T)
    m.notes["interval"] = [0, T]
    if s is not None and "row" in s.values:
        y_b = float(case.known["bottom_y"])
        for key, win in (("H_water_px", first), ("H_ice_px", last)):
            v = window_median(y_b - s["row"], s.ok, win)
            if v is not None:
                m.set(key, v)
    if wl is not None and "x0" in wl.values:
        width = wall_spacing(wl)
        ok = wl.ok & np.isfinite(width) & (width > 0)
        for key, win in (("W_initial_px", first), ("W_final_px", last)):
            v = window_median(width, ok, win)
            if v is not None:
                m.set(key, v)
    return m
