"""Extraction for WMLE electromagnetism tasks: the arrival and speed of a magnet and a block sliding down copper
(P29); a magnet's entry into a coil and lamp readings (P30); two charged balls' rest angles and offsets about their
pivot (P31); compass-needle directions about their dials (P32); the rises of a closed and a split ring (P33)."""

from __future__ import annotations

import math

import numpy as np
from scipy.ndimage import median_filter

from lawful.case import Case
from lawful.perceive import events, noise
from lawful.result import Measurement
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle._slopes import path_distance
from lawful.suites.wmle.common import event
from lawful.tracks import Tracks

LIT_FLOOR = 15.0  # luma levels (6 % of full scale): a smaller rise is no visible light, whatever the noise
CLEAR_AREA = 0.85  # a sighting with at least this share of the first area is whole (not behind the coil)
FIT_N = 4  # clear sightings extrapolated to the entrance
EDGE_PX = 2.0  # a clear sighting's box ends more than this short of the coil
SETTLED_S = 1.0  # P31's settled window: the clip's last second
SETTLE_SHARE = 0.10  # a settled ball ranges over less than this share of its offset (beyond noise)
LENGTH_SHARE = 0.05  # equal, fixed strings: lengths agree within this share of the mean (beyond noise)
LENGTH_RUN = 5  # a string's length varies over its running median of this many sightings: a run of up to 2 stray
# sightings (a blob of the ball's colour taken while it swung fast) is not a string that changed
IDS_ = ("left", "right")  # P31's balls, P32's needles
FINAL_N = 5  # P32: the final samples read
MIN_VALID = 2  # P32: jointly readable final samples the median needs
ROTATION_FLOOR_DEG = 3.0  # P32: a needle has turned once it leaves its first direction by this much (or noise's)


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
    ``match_s`` of it (``lit``: None when fewer than half the window's samples read both lamps); ``unresolved`` where
    no entry was seen but the magnet is seen past the coil (it went in unseen)."""
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
        if np.any(vis & (tr.box[:, 0] > float(case.known["coil"][2]))):  # it came out: it went in, unseen
            m.notes["unresolved"] = "the magnet's entry was not seen, yet it is seen past the coil"
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


def symmetric_rest_measurement(case: Case, tracks: Tracks) -> Measurement:
    """Rest angles, outward offsets and thread lengths of the balls ``left`` and ``right`` over the settled
    window; ``notes['failure']`` lists observed failures (no separation, not settled, unequal or changing
    threads), ``notes['unresolved']`` why nothing could be measured."""
    m = Measurement()
    t = np.asarray(tracks.t, float)
    vis = {b: np.asarray(tracks[b].visible, bool) for b in IDS_}
    joint = vis["left"] & vis["right"]
    if joint.sum() < 6:
        m.notes["unresolved"] = "the two balls are seen together in fewer than 6 samples"
        return m
    piv = case.known.get("pivot")
    if piv is None:
        fits = pk.fit_pivots_on_one_bar([(tracks[b].x[vis[b]], tracks[b].y[vis[b]]) for b in IDS_])
        ok = [f for f in fits if math.isfinite(f[0])]
        if not ok:
            m.notes["unresolved"] = "no pivot: the case states none and the paths are too short to fit one"
            return m
        piv = (float(np.mean([f[0] for f in ok])), float(ok[0][1]))
    cx, cy = float(piv[0]), float(piv[1])
    m.notes["pivot"] = [cx, cy]
    sig = max(noise.track_noise(tracks[b]).sigma for b in IDS_)
    sig = sig if math.isfinite(sig) else 0.0
    kk = noise.k_for()
    m.notes["noise_px"] = sig
    x = {b: np.where(joint, tracks[b].x, np.nan) for b in IDS_}
    y = {b: np.where(joint, tracks[b].y, np.nan) for b in IDS_}
    off = {"left": cx - x["left"], "right": x["right"] - cx}
    win = joint & (t >= t[-1] - SETTLED_S + 1e-9)
    if win.sum() < 3:
        m.notes["unresolved"] = "fewer than 3 joint samples in the settled window"
        return m
    i_win = int(np.flatnonzero(win)[0])
    first = int(np.flatnonzero(joint)[0])
    d = {b: float(np.median(off[b][win])) for b in IDS_}
    theta = {b: float(np.degrees(np.median(np.arctan2(off[b][win], y[b][win] - cy)))) for b in IDS_}
    length = {b: np.hypot(x[b] - cx, y[b] - cy) for b in IDS_}
    L = {b: float(np.nanmedian(length[b])) for b in IDS_}
    m.set("theta_left_deg", theta["left"])
    m.set("theta_right_deg", theta["right"])
    m.set("offset_left_px", d["left"])
    m.set("offset_right_px", d["right"])
    m.set("length_left_px", L["left"])
    m.set("length_right_px", L["right"])
    failures = []
    sep0 = off["left"][first] + off["right"][first]
    if not (d["left"] > 0 and d["right"] > 0) or d["left"] + d["right"] - sep0 <= 2 * kk * sig:
        failures.append(f"no outward separation (offsets {d['left']:.1f}, {d['right']:.1f} px; first "
                        f"separation {sep0:.1f} px)")
    else:
        grow = np.flatnonzero(joint & (off["left"] + off["right"] - sep0 > 2 * kk * sig))
        m.events.append(event("left", "separation", float(grow[0]), tracks))
    step = kk * sig * math.sqrt(2)
    spread = {b: float(np.ptp(x[b][win])) for b in IDS_}
    m.notes["settled_range_px"] = spread
    if any(spread[b] > SETTLE_SHARE * abs(d[b]) + step for b in IDS_):
        failures.append(f"not settled: positions over the last {SETTLED_S:g} s range over {spread} px")
    else:
        m.events.append(event("left", "settled", float(i_win), tracks))
    mean_L = 0.5 * (L["left"] + L["right"])
    var_L = {b: float(np.ptp(median_filter(length[b][joint], LENGTH_RUN, mode="nearest"))) for b in IDS_}
    if abs(L["left"] - L["right"]) > LENGTH_SHARE * mean_L + step or \
            any(v > LENGTH_SHARE * mean_L + 2 * step for v in var_L.values()):
        failures.append(f"threads not equal and fixed (lengths {L['left']:.1f}, {L['right']:.1f} px; "
                        f"ranges {var_L} px)")
    if failures:
        m.notes["failure"] = "; ".join(failures)
    return m


# ----------------------------------------------------------------------------- P32: compass needles


def separation_deg(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Smallest angle (degrees, 0–180) between directions ``a`` and ``b`` (radians)."""
    d = np.abs(np.angle(np.exp(1j * (np.asarray(a, float) - np.asarray(b, float)))))
    return np.degrees(d)


def needle_directions(case: Case, tracks: Tracks) -> tuple[dict, dict, np.ndarray]:
    """Per needle: direction (rad) ``[T]`` and readable ``[T]``; and the joint readable mask."""
    kk = noise.k_for()
    ang, ok = {}, {}
    for b in IDS_:
        tr = tracks[b]
        c = np.asarray(case.known["dials"][b], float)
        dx, dy = tr.x - c[0], tr.y - c[1]
        sig = noise.track_noise(tr).sigma
        floor = max(kk * (sig if math.isfinite(sig) else 0.0), 1.0)
        ok[b] = np.asarray(tr.visible, bool) & (np.hypot(dx, dy) > floor)
        ang[b] = np.where(ok[b], np.arctan2(dy, dx), np.nan)
    return ang, ok, ok["left"] & ok["right"]


def needle_separation_measurement(case: Case, tracks: Tracks) -> Measurement:
    """Rotation events, final directions and the median separation of the two needles over the final
    ``FINAL_N`` samples (``separation_deg``, with ``MIN_VALID`` jointly readable ones)."""
    m = Measurement()
    n = len(tracks)
    ang, ok, joint = needle_directions(case, tracks)
    kk = noise.k_for()
    for b in IDS_:
        seen = np.flatnonzero(ok[b])
        if len(seen) == 0:
            continue
        c = case.known["dials"][b]
        r0 = math.hypot(tracks[b].x[seen[0]] - c[0], tracks[b].y[seen[0]] - c[1])
        sig = noise.track_noise(tracks[b]).sigma
        thr = max(ROTATION_FLOOR_DEG, math.degrees(kk * (sig if math.isfinite(sig) else 0.0) * math.sqrt(2) / r0))
        turned = np.flatnonzero(ok[b] & (separation_deg(ang[b], ang[b][seen[0]]) > thr))
        if len(turned):
            m.events.append(event(b, f"rotation_{b}", float(turned[0]), tracks))
        m.set(f"final_direction_{b}_deg", float(np.degrees(ang[b][seen[-1]])))
    last = np.arange(max(0, n - FINAL_N), n)
    use = last[joint[last]]
    m.notes["final_readable"] = int(len(use))
    m.notes["final_samples"] = int(len(last))
    if len(use):
        d = separation_deg(ang["left"][use], ang["right"][use])
        m.notes["final_separations_deg"] = [float(v) for v in d]
        if len(use) >= MIN_VALID:
            m.set("separation_deg", float(np.median(d)))
    return m


# ----------------------------------------------------------------------------- P29, P33


def eddy_arrival_measurement(tracks: Tracks, ids: tuple[str, str], common_share: float, speed_from: float) -> Measurement:
    """P29: when each body first reaches the common displacement (``common_share`` of the smaller maximum path
    distance, the pair seen together) and its mean speed from ``speed_from`` of that distance to all of it."""
    m = Measurement()
    paths = {b: path_distance(tracks, b) for b in ids}
    for b in ids:
        if paths[b] is None:
            m.notes["unresolved"] = f"{b}: seen in fewer than 6 samples"
            return m
    joint = np.isfinite(paths["magnet"]) & np.isfinite(paths["block"])
    if joint.sum() < 6:
        m.notes["unresolved"] = "magnet and block seen together in fewer than 6 samples"
        return m
    peak = {b: float(np.max(paths[b][joint])) for b in ids}
    sig = max(noise.track_noise(tracks[b]).sigma for b in ids)
    floor = noise.step_threshold(sig, floor=1.0)
    m.notes["max_displacement_px"] = peak
    m.notes["motion_floor_px"] = floor
    if min(peak.values()) < floor:
        m.notes["unresolved"] = (f"the smaller maximum displacement ({min(peak.values()):.2f} px) is within "
                                 f"noise ({floor:.2f} px)")
        return m
    d = common_share * min(peak.values())
    m.set("common_displacement_px", d)
    frames = np.asarray(tracks.frames, float)
    t = np.asarray(tracks.t, float)
    f0 = float(frames[0])
    m.set("f0", f0)
    for b in ids:
        s = np.where(joint, paths[b], np.nan)
        hit = np.flatnonzero(joint & (s >= d))
        if len(hit):
            m.set(f"arrival_frame_{b}", float(frames[hit[0]]))
            m.events.append(event(b, f"arrival_{b}", float(hit[0]), tracks, d))
        i_lo, i_hi = events.crossing(s, speed_from * d, +1), events.crossing(s, d, +1)
        if i_lo is not None and i_hi is not None and i_hi > i_lo:
            dt = events.index_to_time(i_hi, t) - events.index_to_time(i_lo, t)
            m.set(f"speed_{b}_px_s", (1 - speed_from) * d / dt)
    return m


def ring_rise_measurement(case: Case, tracks: Tracks, ids: tuple[str, ...], peak_rise) -> Measurement:
    """P33: each ring's highest rise above its first sighting (``peak_rise(t, rise, threshold, ring)``: the task's
    rule for a peak and its plateau), per initial diameter; a closed ring that never rises beyond noise is noted
    (``closed_zero``)."""
    m = Measurement()
    t = np.asarray(tracks.t, float)
    kk = noise.k_for()
    edge = 2 * noise.mask_edge(tracks, case.width)  # localisation's step between samples
    rel, why = {}, {}
    for b in ids:
        tr = tracks[b]
        vis = np.asarray(tr.visible, bool)
        if vis.sum() < 3:
            why[b] = f"{b}: seen in fewer than 3 samples"
            continue
        i0 = int(np.flatnonzero(vis)[0])
        rise = np.where(vis, tr.y[i0] - tr.y, np.nan)
        sig = noise.track_noise(tr).sigma
        thr = kk * (sig if math.isfinite(sig) else 0.0) * math.sqrt(2)
        h, i, reason = peak_rise(t, rise, thr, b, edge)
        diam = _diameter(case, b, tr, i0)
        m.notes[f"rise_threshold_{b}_px"] = thr
        m.notes[f"diameter_{b}_px"] = diam
        if h is None:
            why[b] = f"{b}: {reason}"
            continue
        m.events.append(event(b, f"peak_{b}", float(i), tracks, h))
        m.set(f"rise_{b}_px", h)
        rel[b] = max(h, 0.0) / diam
        m.set(f"rise_{b}_per_diameter", rel[b])
        if b == "closed" and h <= thr:
            m.notes["closed_zero"] = True
    if why:
        m.notes["unresolved"] = "; ".join(why.values())
    return m


def _diameter(case: Case, oid: str, tr, i0: int) -> float:
    """A ring's initial outer diameter (px): its case box's width less the 1-px pad each side, else the
    width of its first tracked box."""
    o = next((o for o in case.objects if o.id == oid), None)
    if o is not None and o.known.get("diameter_px"):
        return float(o.known["diameter_px"])
    if o is not None and o.box is not None and len(o.box) == 4:
        return float(o.box[2] - o.box[0]) - 2.0
    return float(tr.box[i0, 2] - tr.box[i0, 0])
