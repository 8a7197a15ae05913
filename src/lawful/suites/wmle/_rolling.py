"""Extraction for WMLE P8 (a marked ball rolling): radius, path length, unwrapped marker angle and
rates averaged over one marker revolution."""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import theilslopes

from lawful.case import Case
from lawful.perceive import events as ev
from lawful.result import Measurement
from lawful.suites.wmle.common import event, steady_visible
from lawful.tracks import Tracks

MIN_SPEED_PX_FRAME = 1.0
SMOOTH = 5
REVOLUTIONS = 1  # rates are averaged over this many marker revolutions
SLOPE_TOL = 0.25  # M1's tolerance on the slope's relative error: a 95 % interval wider than it does not resolve M1


def _running_integral(y: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Integral over sample index of the piecewise-linear interpolant of ``y`` ``[n]`` from 0 to ``pos``."""
    n = len(y)
    cum = np.concatenate([[0.0], np.cumsum(0.5 * (y[1:] + y[:-1]))])
    pos = np.clip(pos, 0.0, n - 1.0)
    k = np.minimum(np.floor(pos).astype(int), n - 2)
    f = pos - k
    return cum[k] + y[k] * f + 0.5 * (y[k + 1] - y[k]) * f * f


def revolution_rates(t: np.ndarray, s: np.ndarray, phi: np.ndarray, max_window: float = 31.0
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Speed ``v`` (px/s) and spin ``ω`` (rad/s) per sample from path length ``s`` and unwrapped marker
    angle ``phi`` ``[T]`` (uniform ``t``), both averaged over a window of one marker revolution.

    Marker-angle errors that depend on the marker's orientation (shading, light direction) repeat once
    per revolution: the running mean of ``phi`` over exactly one revolution (``2π/|ω|`` samples,
    fractional, at most ``max_window``) removes them; ``ω`` is the central difference of that mean,
    ``v`` likewise for ``s``. Exact for uniformly accelerated motion.
    """
    t, s, phi = (np.asarray(a, float) for a in (t, s, phi))
    n = len(t)
    if n < 4:
        return np.full(n, np.nan), np.full(n, np.nan)
    dt = float(np.median(np.diff(t)))
    idx = np.arange(n, dtype=float)
    per_sample = np.abs(np.gradient(ev.smooth(phi, 9)))  # rad per sample, biased: refined below

    def rate(y: np.ndarray, width: np.ndarray) -> np.ndarray:
        def window_mean(c: np.ndarray) -> np.ndarray:
            return (_running_integral(y, c + width / 2) - _running_integral(y, c - width / 2)) / width

        out = (window_mean(idx + 1) - window_mean(idx - 1)) / (2 * dt)
        inside = (idx - 1 - width / 2 >= 0) & (idx + 1 + width / 2 <= n - 1)
        return np.where(inside, out, np.nan)

    for _ in range(3):  # the window needs the spin rate; the rate needs the window
        width = np.clip(REVOLUTIONS * 2 * math.pi / np.maximum(per_sample, 1e-9), 2.0, max_window)
        omega = rate(phi, width)
        ok = np.isfinite(omega)
        if ok.sum() < 2:
            break
        per_sample = np.abs(np.interp(idx, idx[ok], omega[ok])) * dt
    v = rate(s, width)
    return v, omega


def ball_radius(case: Case, tr, idx: np.ndarray) -> tuple[float, str]:
    """Ball radius (px), in order of preference: the case's first-frame radius (image geometry the
    case states, like its floor line); the centre's height above the known floor line while the ball
    rolls on the floor; the mask box.

    Colour masks lose the ball's shaded rim (the box under-reads the radius by up to a pixel) and,
    under heavy compression, its shadowed bottom (the centre reads high by up to a pixel): at the
    scale of M1 (0.25) a 1 % radius error costs 4 points, so stated geometry comes first.
    """
    stated = case.object("ball").known.get("radius_px") if any(o.id == "ball" for o in case.objects) else None
    if stated:
        return float(stated), "first-frame radius stated by the case"
    w = np.nanmedian(tr.width_px[idx])
    h = np.nanmedian(tr.height_px[idx])
    r_box = 0.25 * (w + h + 2.0)  # box spans pixel centres: diameter ≈ extent + 1
    floor = case.known.get("ground_y")
    if floor is None:
        return float(r_box), "mask box"
    y = np.asarray(tr.y[idx], float)
    tail = y[-max(5, len(y) // 5):]
    level = float(np.median(tail))
    on_floor = np.abs(tail - level) < 1.5
    r_floor = float(floor) - level
    if on_floor.sum() >= 5 and abs(r_floor / r_box - 1) <= 0.25:
        return r_floor, "height above the floor line"
    return float(r_box), "mask box"


def rolling_measurement(case: Case, tracks: Tracks) -> Measurement:
    """Radius, moving samples' ``v`` and ``ω`` (``notes['slip']``) and the Theil–Sen slope of path length
    against marker angle (``displacement_per_radian_px``) of the ball ``ball``; unresolved where the slope's 95 %
    interval is wider than :data:`SLOPE_TOL` of it (a small ball's marker under CRF 35 read -2.4 px/rad, interval
    -24 to 13, for a true 11.2: P 28.6)."""
    m = Measurement()
    tr = tracks["ball"]
    vis = steady_visible(tr, (case.width, case.height)) & np.isfinite(tr.angle)
    idx = np.flatnonzero(vis)
    if len(idx) < 8:
        m.notes["unresolved"] = "ball or its marker not tracked"
        return m
    r, how = ball_radius(case, tr, idx)
    m.notes["radius_from"] = how
    t = np.asarray(tracks.t, float)[idx]
    x = ev.smooth(tr.x[idx], SMOOTH)
    y = ev.smooth(tr.y[idx], SMOOTH)
    phi_raw = np.unwrap(np.asarray(tr.angle[idx], float))
    step = np.hypot(np.diff(x), np.diff(y))
    s = np.concatenate([[0.0], np.cumsum(step)])
    v, omega = revolution_rates(t, s, phi_raw)
    frame_dt = 1.0 / max(tracks.fps, 1e-9)
    moving = v * frame_dt >= MIN_SPEED_PX_FRAME
    m.set("radius_px", r)
    if moving.sum() < 5:
        m.notes["unresolved"] = "ball never rolled"
        return m
    first = int(np.flatnonzero(moving)[0])
    m.events.append(event("ball", "release", float(idx[max(first - 1, 0)]), tracks))
    sel = np.flatnonzero(moving)
    b, _, lo, hi = (float(v) for v in theilslopes(s[sel], phi_raw[sel]))
    if not hi - lo <= 2 * SLOPE_TOL * abs(b):  # (measured: law, anti, CRF 35 and blur copies 0.0005-0.074)
        m.notes["unresolved"] = (f"marker angle too unsteady to pin the rolling slope: {b:.1f} px/rad, 95 % interval "
                                 f"{lo:.1f} to {hi:.1f}, wider than +-{SLOPE_TOL:.0%} (M1's tolerance)")
        return m
    m.set("displacement_per_radian_px", b)
    m.notes["slip"] = {"v": v[sel].round(4).tolist(), "omega": omega[sel].round(6).tolist()}
    return m
