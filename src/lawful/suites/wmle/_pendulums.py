"""Pendulum kit shared by the WMLE pendulum tasks P12–P15: scene, swings, periods, pivots, sinusoid fits.

Scene (640 × 360 side view): a metal support bar near the top; each pendulum hangs from a pivot on
the bar's lower edge by a thin string to a shaded bob. Every render number lives in
``case.known["pendulums"]`` (one dict per pendulum, see :func:`pendulum_dict`), so a render is a
pure function of the case. A twin pendulum is the law-correct swing replayed on a stretched clock:
``angle_anti(t) = angle(t / period_factor)``, i.e. the same amplitudes with the period multiplied
by ``anti_period_factor``.

Measurement on a bob's track ``x(t), y(t)`` (first-frame pixels, y down):

- **crossings** of the swing centre line (sub-frame, linear interpolation); a full cycle is the time
  between a crossing and the next crossing in the same direction, so an offset of the centre line
  cancels; the period is the mean of the full cycles;
- **pivot** by a circle fit to the bob's path (algebraic fit refined by Gauss–Newton); its radius is
  the pendulum length in pixels;
- **sinusoid fit** of the angle about the pivot: ``A cos(ω t) + B sin(ω t) + c``, ω refined by least
  squares from the crossing period; the RMS residual is in radians;
- **halt** (:func:`halt`): a bob that rests to the end of the clip, for at least its longest full cycle, right
  after swinging well beyond noise (in the last quarter cycle before the rest). A pendulum comes to rest only as
  its swing dies away; one that stops dead mid-swing (a generator's motion that freezes) measured its periods on
  the swings before and would pass every metric. The share of the bob's tracked time before the halt is a factor of C (``swinging``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
from scipy.optimize import least_squares

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import events, noise
from lawful.perceive.fit import fit_circle
from lawful.result import Measurement
from lawful.suites.wmle.common import FAMILIES, WmleTask, event, frame_times, sphere_box, style_of
from lawful.tracks import Tracks
from lawful.world.draw import Bob, Scene, String
from lawful.world.physics import pendulum_angle, pendulum_period

G = 9.81
SUPPORT_Y = 34.0  # lower edge of the support bar (px): the pivots' row
MIN_CYCLES = 1  # full cycles needed for a period
MIN_VISIBLE = 12  # visible samples needed to measure a pendulum
MIN_ARC_PX = 10.0  # a bob path shorter than this (px) does not define a pivot


class PendulumPair(WmleTask):
    """Base of P12–P15: pendulums on one bar (the scene above), drawn from ``case.known['pendulums']``."""

    family = FAMILIES[2]
    optional_known = {"pendulums": "[{id, pivot_x, pivot_y}] pivots in px (default: fitted to the swings)"}

    def render(self, case: Case, law: str = "true") -> Iterator[np.ndarray]:
        return render_pendulums(case, law)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        return swinging(m)


def pendulum_dict(oid: str, pivot_x: float, length_px: float, length_m: float, amplitude_deg: float,
                  side: int, radius_px: float, color: Sequence[int], anti_period_factor: float = 1.0,
                  pivot_y: float = SUPPORT_Y) -> dict:
    """The render record of one pendulum (px, m, degrees); ``side`` +1 releases it to the right."""
    return {"id": oid, "pivot_x": round(float(pivot_x), 3), "pivot_y": float(pivot_y),
            "length_px": round(float(length_px), 3), "length_m": round(float(length_m), 5),
            "amplitude_deg": float(amplitude_deg), "side": int(side), "radius_px": round(float(radius_px), 3),
            "color": [int(c) for c in color], "anti_period_factor": round(float(anti_period_factor), 5)}


def swing_angle(p: dict, t: np.ndarray, g: float, law: str = "true") -> np.ndarray:
    """Signed angle (rad, positive to the right on screen) of pendulum ``p`` at times ``t`` (s)."""
    t = np.asarray(t, float)
    if law == "anti":
        t = t / float(p["anti_period_factor"])
    theta = pendulum_angle(t, float(p["length_m"]), math.radians(float(p["amplitude_deg"])), g)
    return int(p["side"]) * theta


def bob_position(p: dict, angle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bob centre (px) for swing angles ``angle`` (rad)."""
    L = float(p["length_px"])
    return p["pivot_x"] + L * np.sin(angle), p["pivot_y"] + L * np.cos(angle)


def period_of(p: dict, g: float, law: str = "true") -> float:
    """Period (s) of pendulum ``p`` in the reference (``law='true'``) or the twin."""
    T = pendulum_period(float(p["length_m"]), math.radians(float(p["amplitude_deg"])), g)
    return T * (float(p["anti_period_factor"]) if law == "anti" else 1.0)


def object_spec(p: dict) -> ObjectSpec:
    x, y = bob_position(p, np.array(math.radians(p["amplitude_deg"]) * p["side"]))
    return ObjectSpec(id=p["id"], shape="bob", color=tuple(p["color"]),
                      box=sphere_box(float(x), float(y), float(p["radius_px"])),
                      known={"length_m": p["length_m"], "length_px": p["length_px"],
                             "amplitude_deg": p["amplitude_deg"]})


def support_span(pends: list[dict]) -> tuple[float, float]:
    xs = [p["pivot_x"] for p in pends]
    return min(xs) - 60.0, max(xs) + 60.0


def render_pendulums(case: Case, law: str = "true") -> Iterator[np.ndarray]:
    """Frames of the pendulums of ``case.known['pendulums']`` (``law='anti'``: stretched periods)."""
    k = case.known
    pends = k["pendulums"]
    scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
    x0, x1 = support_span(pends)
    scene.support(x0, x1, SUPPORT_Y)
    t = frame_times(case)
    pos = [bob_position(p, swing_angle(p, t, k["g"], law)) for p in pends]
    for i in range(len(t)):
        items = []
        for p, (x, y) in zip(pends, pos):
            items.append(String((p["pivot_x"], p["pivot_y"]), (float(x[i]), float(y[i]))))
        for p, (x, y) in zip(pends, pos):
            items.append(Bob(float(x[i]), float(y[i]), float(p["radius_px"]), tuple(p["color"])))
        yield scene.frame(items)


def pendulum_truth(case: Case, quantities: dict[str, float]) -> GroundTruth:
    """Ground-truth bob tracks of the reference and the given true quantities."""
    k = case.known
    t = frame_times(case)
    tracks = {}
    for p in k["pendulums"]:
        x, y = bob_position(p, swing_angle(p, t, k["g"]))
        tracks[p["id"]] = [(round(float(a), 5), round(float(b), 3), round(float(c), 3)) for a, b, c in zip(t, x, y)]
    return GroundTruth(tracks=tracks, quantities=quantities)


def pendulum_case(task, index: int, seed: int, *, prompt: str, duration: float, pends: list[dict],
                  assumptions: list[str], criteria: list[str], known: dict) -> Case:
    from lawful.suites.wmle.common import FPS, HEIGHT, WIDTH

    k = {"g": G, "ground_y": 352.0, "support_y": SUPPORT_Y, "pendulums": pends, "style_seed": int(seed)}
    k.update(known)
    return Case(id=task.case_id(index), suite="wmle", task=task.name, seed=int(seed), variant=f"style-{seed}",
                width=WIDTH, height=HEIGHT, fps=FPS, duration=float(duration), prompt=prompt,
                objects=[object_spec(p) for p in pends], assumptions=assumptions, criteria=criteria, known=k)


# ----------------------------------------------------------------------------- measurement


def swing_centre(x: np.ndarray, fallback: float) -> float:
    """Centre line of an oscillation ``x`` ``[T]``: midway between the median maxima and minima."""
    x = np.asarray(x, float)
    fin = x[np.isfinite(x)]
    if len(fin) < 3:
        return float(fallback)
    prom = 0.2 * float(np.ptp(fin))
    hi = [x[int(round(i))] for i in events.turning_points(x, "max", prom)]
    lo = [x[int(round(i))] for i in events.turning_points(x, "min", prom)]
    if hi and lo:
        return 0.5 * (float(np.median(hi)) + float(np.median(lo)))
    return float(fallback)


def crossing_indices(x: np.ndarray, level: float, bridge: int = 0) -> list[tuple[float, int]]:
    """All crossings of ``level`` by ``x`` ``[T]``: ``(fractional index, direction ±1)`` in order.

    A crossing lies between two consecutive finite samples on opposite sides of the level (linear
    interpolation); a sample exactly at the level counts with the side it came from, so touching
    the level and turning back is no crossing. Finite samples with up to ``bridge`` hidden ones between them
    count as consecutive (0: hidden samples are not bridged).
    """
    d = np.asarray(x, float) - level
    at = np.flatnonzero(np.isfinite(d))
    side = np.sign(d[at])
    for k in range(1, len(side)):  # a sample on the level keeps the side it came from
        if side[k] == 0:
            side[k] = side[k - 1]
    out: list[tuple[float, int]] = []
    for k in np.flatnonzero((side[1:] * side[:-1]) < 0) + 1:
        i, j = at[k - 1], at[k]
        if j - i - 1 > bridge:
            continue
        a, b = d[i], d[j]
        out.append((float(i + (j - i) * a / (a - b)), 1 if b > a else -1))
    return out


def _alternating(cr: list[tuple[float, int]]) -> list[tuple[float, int]]:
    """Back-and-forth jitter at the centre line left out: crossings must alternate in direction."""
    kept: list[tuple[float, int]] = []
    for c, d in cr:
        if not kept or kept[-1][1] != d:
            kept.append((c, d))
    return kept


def full_cycles(times: Sequence[float]) -> list[float]:
    """Durations between each crossing and the next crossing in the same direction (``t[k+2] - t[k]``)."""
    t = list(times)
    return [t[k + 2] - t[k] for k in range(len(t) - 2)]


def measure_swing(tracks: Tracks, oid: str, fallback_centre: float) -> dict:
    """Crossing times, full cycles and the mean period (s) of one bob; ``reason`` when not resolved."""
    tr = tracks[oid]
    vis = np.asarray(tr.visible, bool)
    out: dict = {"crossings": [], "cycles": [], "period": None, "centre": None, "reason": ""}
    if vis.sum() < MIN_VISIBLE:
        out["reason"] = f"{oid}: tracked in {int(vis.sum())} samples (< {MIN_VISIBLE})"
        return out
    x = np.where(vis, tr.x, np.nan)
    centre = swing_centre(x, fallback_centre)
    out["centre"] = centre
    # a bob hidden for a sample or two as it crosses (blurred most at its fastest) would drop that crossing, and
    # the next half-swing would read three (studio P13 seed 8600 under ghost3: 1.58 s for 1.06 s): gaps under a
    # third of the half-swing seen elsewhere are bridged (one crossing at most fits in them), cycles over longer
    # ones are not counted
    seen = [c for c, _ in _alternating(crossing_indices(x, centre))]
    half = float(np.median(np.diff(seen))) if len(seen) >= 3 else 0.0
    bridge = max(int(math.ceil(half / 3.0)) - 1, 0)
    kept = _alternating(crossing_indices(x, centre, bridge=bridge))
    long_gaps = [(a, b) for a, b in events.runs(~vis) if b - a > bridge]
    times = [events.index_to_time(c, tracks.t) for c, _ in kept]
    out["crossings"] = times
    out["crossing_index"] = [c for c, _ in kept]
    idx = out["crossing_index"]
    cycles = [c for k, c in enumerate(full_cycles(times))
              if not any(a < idx[k + 2] and b > idx[k] for a, b in long_gaps)]
    out["cycles"] = cycles
    if len(cycles) < MIN_CYCLES:
        out["reason"] = f"{oid}: {len(times)} centre crossings, no full cycle"
        return out
    out["period"] = float(np.mean(cycles))
    return out


def halt(tracks: Tracks, oid: str, cycles: Sequence[float]) -> dict | None:
    """Where bob ``oid`` stops for good against physics (see the module docstring): ``{"index", "t_s", "share",
    "moved_px", "why"}`` with ``share`` its tracked time before the halt, or None (swinging to the end, at rest
    for less than its longest full cycle, or at rest after its swing died away).

    The rest: the final samples within ``band`` = :func:`lawful.perceive.noise.step_threshold` of the track's noise
    of where the bob ends. It is a halt where, in the quarter of its longest cycle before the rest, the bob was
    more than twice that from where it rests (``moved_px``): a swing dying away enters the band from just outside
    it, within twice its width unless it loses more than 15/16 of its amplitude a cycle (then it hardly swings);
    a swing stopped at any phase has moved at least 29 % of its amplitude in the last quarter cycle."""
    tr = tracks[oid]
    xy = np.asarray(tr.xy, float)
    seen = np.flatnonzero(np.asarray(tr.visible, bool) & np.isfinite(xy).all(axis=1))
    longest = max((c for c in cycles if math.isfinite(c)), default=None)
    if longest is None or len(seen) < 3:
        return None
    t = np.asarray(tracks.t, float)
    band = noise.step_threshold(noise.track_noise(tr).sigma)
    end = np.median(xy[seen[-3:]], axis=0)
    out = np.flatnonzero(np.hypot(*(xy[seen] - end).T) > band)
    if not len(out) or out[-1] + 1 >= len(seen):
        return None
    h = int(seen[out[-1] + 1])  # the first sample of the final rest
    if t[seen[-1]] - t[h] < longest:
        return None
    before = seen[(t[seen] < t[h]) & (t[seen] >= t[h] - longest / 4)]
    moved = float(np.hypot(*(xy[before] - end).T).max()) if len(before) else 0.0
    if moved <= 2 * band:
        return None
    share = float((t[h] - t[seen[0]]) / (t[seen[-1]] - t[seen[0]]))
    why = (f"{oid} stops dead at {t[h]:.2f} s, {moved:.1f} px from where it then rests a quarter cycle before, "
           f"and rests {t[seen[-1]] - t[h]:.2f} s (longest cycle {longest:.2f} s)")
    return {"index": h, "t_s": float(t[h]), "share": share, "moved_px": moved, "why": why}


def add_swing_events(m: Measurement, tracks: Tracks, oid: str, swing: dict) -> None:
    for c in swing.get("crossing_index", []):
        m.events.append(event(oid, "centre_crossing", c, tracks))
    if swing.get("period") is not None:
        m.events.append(event(oid, f"period_{oid}", swing["crossing_index"][-1], tracks, swing["period"]))


def measure_swings(m: Measurement, tracks: Tracks, piv: dict[str, tuple[float, float]],
                   ids: Sequence[str]) -> dict[str, dict]:
    """Each bob's swing about its pivot's column (:func:`measure_swing`), with its events, ``period_<id>_s``
    (or the reason it is missing) and ``cycles_<id>`` recorded in ``m``."""
    swings = {}
    for oid in ids:
        sw = swings[oid] = measure_swing(tracks, oid, piv[oid][0])
        add_swing_events(m, tracks, oid, sw)
        m.set(f"period_{oid}_s", sw["period"], sw["reason"])
        m.notes[f"cycles_{oid}"] = sw["cycles"]
        record_halt(m, tracks, oid, sw["cycles"])
    return swings


def record_halt(m: Measurement, tracks: Tracks, oid: str, cycles: Sequence[float]) -> None:
    """:func:`halt` of bob ``oid`` given its measured ``cycles`` (s), recorded in ``m`` as a ``halt`` event and
    ``notes["halt_<oid>"]`` where it happened."""
    stop = halt(tracks, oid, cycles)
    if stop is not None:
        m.events.append(event(oid, "halt", stop["index"], tracks))
        m.notes[f"halt_{oid}"] = stop


def swinging(m: Measurement) -> dict[str, float]:
    """The C factor ``swinging``: the least share of a bob's tracked time before it halted (1 without a halt)."""
    return {"swinging": min([1.0] + [v["share"] for k, v in m.notes.items() if k.startswith("halt_")])}


def fit_pivots_on_one_bar(paths: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[tuple[float, float, float]]:
    """Pivots of pendulums hanging from one horizontal bar: circles with a common centre row.

    ``paths``: per pendulum the bob centre ``(x [n], y [n])`` (px, NaN ignored). Each circle has its
    own centre column and radius; the centre row is shared. On short arcs the radius and the
    centre row of a single circle trade off against each other; sharing the row pins the
    difference of the radii to the difference of the bobs' lowest rows. Returns ``[(cx, cy, r)]``
    (NaN for a pendulum with fewer than 5 points or a path spanning less than ``MIN_ARC_PX``).
    """
    pts, singles = [], []
    for x, y in paths:
        x, y = np.asarray(x, float), np.asarray(y, float)
        ok = np.isfinite(x) & np.isfinite(y)
        pts.append((x[ok], y[ok]))
        singles.append(fit_circle(x[ok], y[ok]))
    use = [i for i, (x, y) in enumerate(pts) if len(x) >= 5 and math.isfinite(singles[i][0])
           and math.hypot(np.ptp(x), np.ptp(y)) >= MIN_ARC_PX]
    out = [(math.nan, math.nan, math.nan)] * len(paths)
    if not use:
        return out
    cy0 = float(np.median([singles[i][1] for i in use]))
    p0 = [cy0]
    for i in use:
        x, y = pts[i]
        cx = singles[i][0]
        p0 += [cx, float(np.median(np.hypot(x - cx, y - cy0)))]

    def resid(p):
        cy = p[0]
        return np.concatenate([np.hypot(pts[i][0] - p[1 + 2 * k], pts[i][1] - cy) - p[2 + 2 * k]
                               for k, i in enumerate(use)])

    fit = least_squares(resid, p0, method="lm")
    for k, i in enumerate(use):
        out[i] = (float(fit.x[1 + 2 * k]), float(fit.x[0]), float(abs(fit.x[2 + 2 * k])))
    return out


def sinusoid_rms(t: np.ndarray, a: np.ndarray, period_guess: float) -> tuple[float, float]:
    """RMS residual of the best sinusoid ``A cos ωt + B sin ωt + c`` to ``a(t)`` and its period.

    ``period_guess`` (s) seeds ω; ω is refined by least squares with the linear terms solved
    exactly at each step. NaNs are ignored. Returns ``(rms, period)``.
    """
    t, a = np.asarray(t, float), np.asarray(a, float)
    ok = np.isfinite(t) & np.isfinite(a)
    t, a = t[ok], a[ok]
    if len(t) < 6 or not (period_guess and math.isfinite(period_guess) and period_guess > 0):
        return math.nan, math.nan

    def resid(w):
        M = np.column_stack([np.cos(w[0] * t), np.sin(w[0] * t), np.ones_like(t)])
        coef, *_ = np.linalg.lstsq(M, a, rcond=None)
        return M @ coef - a

    w0 = 2 * math.pi / period_guess
    fit = least_squares(resid, [w0], bounds=([0.5 * w0], [1.5 * w0]))
    r = resid(fit.x)
    return float(np.sqrt(np.mean(r * r))), float(2 * math.pi / fit.x[0])


def swing_lengths(tracks: Tracks, ids: Sequence[str], m: Measurement | None = None) -> dict[str, float | None]:
    """First-frame lengths (px): pivot recovered from the swings (one bar) to the bob's first position."""
    paths = []
    for oid in ids:
        tr = tracks[oid]
        vis = np.asarray(tr.visible, bool)
        paths.append((tr.x[vis], tr.y[vis]))
    fits = fit_pivots_on_one_bar(paths)
    out: dict[str, float | None] = {}
    for oid, (cx, cy, r) in zip(ids, fits):
        x0, y0 = first_visible_xy(tracks, oid)
        ok = all(math.isfinite(v) for v in (cx, cy, x0, y0))
        out[oid] = float(math.hypot(x0 - cx, y0 - cy)) if ok else None
        if m is not None:
            m.notes[f"pivot_{oid}"] = [cx, cy, r]
    return out


def first_visible_xy(tracks: Tracks, oid: str) -> tuple[float, float]:
    tr = tracks[oid]
    idx = np.flatnonzero(np.asarray(tr.visible, bool))
    if len(idx) == 0:
        return math.nan, math.nan
    return float(tr.x[idx[0]]), float(tr.y[idx[0]])


def pivots(case: Case, tracks: Tracks, ids: Sequence[str]) -> dict[str, tuple[float, float]]:
    """First-frame pivot ``(x, y)`` (px) of each pendulum: from ``case.known['pendulums']`` when the
    case states it (the string's attachment on the bar), else recovered from the swings
    (:func:`fit_pivots_on_one_bar`), e.g. for a hand-written case of a real recording."""
    known = {p["id"]: (float(p["pivot_x"]), float(p["pivot_y"])) for p in case.known.get("pendulums", [])
             if "pivot_x" in p and "pivot_y" in p}  # an entry may state other things only (a KeyError before)
    out = {o: known[o] for o in ids if o in known}
    if len(out) < len(ids):
        paths = []
        for oid in ids:
            tr = tracks[oid]
            vis = np.asarray(tr.visible, bool)
            paths.append((tr.x[vis], tr.y[vis]))
        for oid, (cx, cy, _) in zip(ids, fit_pivots_on_one_bar(paths)):
            out.setdefault(oid, (cx, cy))
    return out
