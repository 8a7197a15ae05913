"""R2's measurement of a bouncing ball's flights (:class:`~lawful.suites.recordings.r02_bounce.Bounce`).

Extraction. Release: :func:`~lawful.suites.recordings.common.release_time` on the downward
displacement. Impacts: turning points (lowest points) of the tracked centre after release, prominent
beyond ``max(k·σ·√2, r/4)`` (σ the track's measured vertical noise, ``r`` the ball's radius). Each
flight between impacts — and the drop from release to the first impact — is fitted with a parabola
``y(t)`` (the samples next to an impact left out: a ball squashed or blurred at the floor; samples off
the parabola by more than ``k·σ + 0.5 px`` rejected, then refitted). Consecutive parabolas meet at
the impact (sub-frame); the contact level is where they meet, unless samples at the impact lie above
both parabolas beyond the noise (a ball dwelling on a soft floor: the parabolas meet below it), then
the lowest of those; flights run between the parabolas' crossings of the contact levels (the last
flight, with no parabola after it, to its crossing of their median). The drop counts as half a
flight: its apex is its parabola's vertex (the release point for a drop from rest), its flight time
twice vertex → first impact. Each complete rebound (both its impacts seen) gives an apex height
``h_k`` above the contact level and a flight time ``T_k``; flights are used in an unbroken run.

Per pair of consecutive flights: ``e_h = √(h_{k+1}/h_k)``, ``e_t = T_{k+1}/T_k``, ``e_k = (e_h + e_t)/2``.
Standard errors: the flight fits are refitted on ``N_DRAWS`` copies of the samples with Gaussian
noise of σ added (fixed seed; σ measured on the flights' samples alone, impacts left out); ``se`` of
every derived number is its spread there.

"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lawful.case import Case
from lawful.perceive import events as ev
from lawful.perceive import noise
from lawful.perceive.events import level_crossings
from lawful.result import Measurement
from lawful.score.wmle import cv
from lawful.suites.recordings.common import release_time, rest_position
from lawful.suites.wmle.common import event, fill_gaps, steady_xy
from lawful.suites.wmle.p01_bounce_height_decay import _meet
from lawful.tracks import Tracks

MIN_ARC_SAMPLES = 5
N_DRAWS = 200
RESOLUTION_PX = 0.5  # centroid resolution added to k·σ when rejecting samples off a flight's parabola


@dataclass
class Flights:
    """The flights of one clip: per flight its samples ``(t, y)``; ``drop`` whether flight 0 is the drop."""

    t: list[np.ndarray] = field(default_factory=list)
    y: list[np.ndarray] = field(default_factory=list)
    drop: bool = False
    t_near: list[float] = field(default_factory=list)  # coarse impact times between consecutive flights
    ends: list[float | None] = field(default_factory=list)  # coarse time of the impact ending each flight
    gap_t: list[np.ndarray] = field(default_factory=list)  # samples between consecutive flights (at the impact)
    gap_y: list[np.ndarray] = field(default_factory=list)
    tol: float = 0.0  # px off a parabola beyond which a sample is not on it


def robust_parabola(t: np.ndarray, y: np.ndarray, tol: float, rounds: int = 3) -> np.ndarray:
    """``[n]`` bool: samples kept by a parabola ``y(t)`` fit that rejects those off by more than ``tol`` px."""
    keep = np.isfinite(y)
    for _ in range(rounds):
        if keep.sum() < MIN_ARC_SAMPLES:
            break
        p = np.polyfit(t[keep], y[keep], 2)
        new = np.isfinite(y) & (np.abs(y - np.polyval(p, t)) <= tol)
        if np.array_equal(new, keep):
            break
        keep = new
    return keep


def _crossing(p: np.ndarray, level: float, near: float, sign: int) -> float | None:
    """Time near ``near`` where parabola ``p`` crosses ``level`` going down (``sign`` +1, y grows) or up (−1)."""
    roots = level_crossings(p, level, sign)
    return min(roots, key=lambda r: abs(r - near)) if roots else None


def flight_numbers(fl: Flights, ys: list[np.ndarray] | None = None, gys: list[np.ndarray] | None = None) -> dict | None:
    """Heights ``[n]`` (px above the contact level), flight times ``[n]`` (s), apex times, impact times and
    contact levels of an unbroken run of flights (``ys``/``gys`` replace the flights' and the contact
    samples' ``y``, for the noise draws).

    Consecutive parabolas must meet between their flights (the impact). The contact level is where they
    meet, unless samples between the flights lie above both parabolas beyond the noise (a ball that dwells
    on a soft floor): then the lowest of those. Flights run between the parabolas' crossings of the
    contact levels; the last flight, with no parabola after it, ends where it comes back to their median."""
    ys = fl.y if ys is None else ys
    gys = fl.gap_y if gys is None else gys
    arcs = []
    for t, y in zip(fl.t, ys):
        p = np.polyfit(t, y, 2)
        arcs.append(p if p[0] > 0 else None)  # image y grows down: gravity makes the leading term > 0
    if arcs[0] is None:
        return None
    down, up, levels, meets = [], [], [], []
    for i, tn in enumerate(fl.t_near):
        a1, a2 = arcs[i], arcs[i + 1]
        tm = _meet(a1, a2, tn) if a1 is not None and a2 is not None else None
        if tm is None or not (fl.t[i][-1] - 1e-9 <= tm <= fl.t[i + 1][0] + 1e-9):
            break  # the parabolas must meet between the two flights' samples
        level = float(np.polyval(a1, tm))
        tg, yg = fl.gap_t[i], gys[i]
        off = yg < np.minimum(np.polyval(a1, tg), np.polyval(a2, tg)) - fl.tol
        if off.any():
            level = min(level, float(np.max(yg[off])))
        td, tu = _crossing(a1, level, tm, +1), _crossing(a2, level, tm, -1)
        if td is None or tu is None:
            break
        down.append(td)
        up.append(tu)
        levels.append(level)
        meets.append(tm)
    if not levels:
        return None
    floor = float(np.median(levels))
    last = len(levels)
    if fl.ends[last] is not None and arcs[last] is not None:
        td = _crossing(arcs[last], floor, fl.ends[last], +1)
        if td is not None and td >= fl.t[last][-1] - 1e-9:
            down.append(td)
            levels.append(floor)
    h, T, apex = [], [], []
    for k in range(0 if fl.drop else 1, len(down)):
        p = arcs[k]
        tv = -p[1] / (2 * p[0])
        ref = levels[0] if k == 0 else 0.5 * (levels[k - 1] + levels[k])
        h.append(ref - float(np.polyval(p, tv)))
        T.append(2.0 * (down[0] - tv) if k == 0 else down[k] - up[k - 1])
        apex.append(tv)
    return {"heights": h, "flights": T, "apex": apex, "drop": fl.drop, "impacts": meets + down[len(meets):],
            "levels": levels, "floor": floor}


def restitution_pairs(h: list[float], T: list[float]) -> dict[str, np.ndarray]:
    """Per consecutive pair: ``e_h = √(h_{k+1}/h_k)``, ``e_t = T_{k+1}/T_k``, their mean ``e``, ``d = e_t − e_h``."""
    h, T = np.asarray(h, float), np.asarray(T, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        e_h = np.sqrt(h[1:] / h[:-1])
        e_t = T[1:] / T[:-1]
    return {"e_h": e_h, "e_t": e_t, "e": 0.5 * (e_h + e_t), "d": e_t - e_h}


def restitution_stats(pairs: dict[str, np.ndarray]) -> dict[str, float]:
    e = pairs["e"]
    return {"cv": cv(e) if len(e) >= 2 else math.nan, "mean": float(np.mean(e)) if len(e) else math.nan}


def draw_spread(fl: Flights, sigma: float, n_pairs: int, seed: int = 0) -> dict[str, np.ndarray | float]:
    """Standard errors of the pair quantities and of ``CV(e)``, ``mean(e)`` from ``N_DRAWS`` noisy refits."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {"d": [], "e": [], "cv": [], "mean": []}
    for _ in range(N_DRAWS):
        out = flight_numbers(fl, [y + rng.normal(0.0, sigma, len(y)) for y in fl.y],
                             [y + rng.normal(0.0, sigma, len(y)) for y in fl.gap_y])
        if out is None or len(out["heights"]) < n_pairs + 1:
            continue
        p = restitution_pairs(out["heights"][:n_pairs + 1], out["flights"][:n_pairs + 1])
        rows["d"].append(p["d"])
        rows["e"].append(p["e"])
        s = restitution_stats(p)
        rows["cv"].append(s["cv"])
        rows["mean"].append(s["mean"])
    if len(rows["d"]) < N_DRAWS // 2:
        return {"d": np.full(n_pairs, math.inf), "e": np.full(n_pairs, math.inf), "cv": math.inf, "mean": math.inf}
    return {"d": np.nanstd(np.asarray(rows["d"]), axis=0), "e": np.nanstd(np.asarray(rows["e"]), axis=0),
            "cv": float(np.nanstd(rows["cv"])) if n_pairs >= 2 else math.nan, "mean": float(np.nanstd(rows["mean"]))}


def bounce_measurement(case: Case, tracks: Tracks) -> Measurement:
    """R2's numbers: release, impacts and apexes, the flights' heights and times, their restitution pairs and
    the pairs' standard errors from noise draws (``notes['pairs']``, ``notes['se']``)."""
    m = Measurement()
    tr, t, vis, _, y = steady_xy(case, tracks, "ball")
    if vis.sum() < 2 * MIN_ARC_SAMPLES:
        m.notes["unresolved"] = "ball not tracked"
        return m
    sig = noise.track_noise(tr, vis).sigma_y
    sig = sig if math.isfinite(sig) else RESOLUTION_PX
    m.notes["sigma_y_px"] = sig
    k = noise.k_for()
    first = int(np.flatnonzero(vis)[0])
    r = 0.25 * float(tr.width_px[first] + tr.height_px[first])
    t_rel, how = release_time(case, t, y - rest_position(y), sig)
    m.notes["release_source"] = how
    if t_rel is None:
        m.notes["unresolved"] = f"no release: {how}"
        return m
    idx = np.arange(len(t))
    i_rel = float(np.interp(t_rel, t, idx))
    m.events.append(event("ball", "release", i_rel, tracks))
    prom = max(noise.step_threshold(sig), 0.25 * r)
    yf = np.where(idx >= i_rel, fill_gaps(y), np.nan)
    imp = [p for p in ev.turning_points(yf, "max", prominence=prom) if p > i_rel + 1]
    fl = split_flights(t, y, i_rel, imp, k * sig + RESOLUTION_PX)
    out = flight_numbers(fl) if fl is not None else None
    if out is None:
        m.notes["unresolved"] = "no impact with flights on both sides resolved"
        return m
    n = len(out["heights"])
    for tm, lv in zip(out["impacts"], out["levels"]):  # one level per impact
        m.events.append(event("ball", "impact", float(np.interp(tm, t, idx)), tracks, value=lv))
    for j, (tv, h) in enumerate(zip(out["apex"], out["heights"])):
        if j or not fl.drop:
            m.events.append(event("ball", "rebound_apex", float(np.interp(tv, t, idx)), tracks, value=h))
    m.notes["interval"] = [max(0, int(i_rel) - 2), min(len(t), int(np.searchsorted(t, out["impacts"][-1])) + 2)]
    m.set("floor_level_px", out["floor"])
    m.set("n_flights", float(n))
    m.notes.update(heights=out["heights"], flights=out["flights"], drop=fl.drop)
    if n < 2:
        m.notes["unresolved"] = "no complete rebound: restitution unmeasurable"
        return m
    pairs = restitution_pairs(out["heights"], out["flights"])
    # the noise of the flights themselves (the impacts, squashed or blurred, left out)
    on_flights = np.isin(t, np.concatenate(fl.t))
    sig_f = noise.track_noise(tr, vis & on_flights).sigma_y
    sig_f = sig_f if math.isfinite(sig_f) else sig
    m.notes["sigma_flights_px"] = sig_f
    se = draw_spread(fl, sig_f, n - 1)
    if not np.isfinite(se["d"]).all():
        m.notes["unresolved"] = "flights not resolved in most noise draws: restitution unmeasurable"
        return m
    m.notes["pairs"] = {a: [float(v) for v in b] for a, b in pairs.items()}
    m.notes["se"] = {a: ([float(v) for v in b] if np.ndim(b) else float(b)) for a, b in se.items()}
    m.set("restitution_height", float(np.mean(pairs["e_h"])))
    m.set("restitution_timing", float(np.mean(pairs["e_t"])))
    m.set("restitution", float(np.mean(pairs["e"])))
    return m


def split_flights(t: np.ndarray, y: np.ndarray, i_rel: float, imp: list[float], tol: float) -> Flights | None:
    """The drop and the flights between impacts (and after the last one), as far as an unbroken run resolves."""
    idx = np.arange(len(t))
    bounds = [i_rel] + imp + [len(t) + 1.0]
    fl = Flights(tol=tol)
    for j, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        sel = (idx >= a + (0 if j == 0 else 1)) & (idx <= b - 1) & np.isfinite(y)
        ts, ys = t[sel], y[sel]
        keep = robust_parabola(ts, ys, tol) if len(ts) >= MIN_ARC_SAMPLES else np.zeros(len(ts), bool)
        if keep.sum() < MIN_ARC_SAMPLES:
            if j == 0:
                continue  # the drop not resolved: start with the first rebound
            break
        if j == 0:
            fl.drop = True
        elif fl.t:
            fl.t_near.append(float(np.interp(a, idx, t)))
            gap = (t > fl.t[-1][-1]) & (t < ts[keep][0]) & np.isfinite(y)
            fl.gap_t.append(t[gap])
            fl.gap_y.append(y[gap])
        fl.t.append(ts[keep])
        fl.y.append(ys[keep])
        fl.ends.append(float(np.interp(b, idx, t)) if j < len(imp) else None)
    return fl if len(fl.t) >= 2 else None

