"""Extraction for WMLE P5 (head-on collision): the contact time from the struck ball's onset and the
velocities before and after it from the steady windows nearest the contact."""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.perceive.onset import sustained_onset
from lawful.result import Measurement
from lawful.suites.windows import MIN_WINDOW, grow_window, motion_sigma, poly_fit, wobble_sigma
from lawful.suites.wmle.common import event, steady_visible
from lawful.tracks import Tracks

MARGIN_FRAMES = 1.5  # frames either side of the contact left out of the velocity windows
# least departure (px) of the struck ball that counts, whatever its measured noise: a frozen clip has exact
# centroids (noise 0) and a codec's 0.01-px flicker would otherwise read as a push (thresholds of the flat
# and studio clips' own noise are 0.14-0.5 px, so this binds only on still ones)
MIN_DEPARTURE_PX = 0.1


def collision_measurement(case: Case, tracks: Tracks) -> Measurement:
    """``v1_before_px_s``, ``v1_after_px_s`` (``red_ball``) and ``v2_after_px_s`` (``blue_ball``), signed along the
    striker's approach, and the contact time ``collision_s``."""
    m = Measurement()
    t = np.asarray(tracks.t, float)
    red, blue = tracks["red_ball"], tracks["blue_ball"]
    vr, vb = steady_visible(red, (case.width, case.height)), steady_visible(blue, (case.width, case.height))
    xr = np.where(vr, red.x, np.nan)
    xb = np.where(vb, blue.x, np.nan)
    if vr.sum() < 6 or vb.sum() < 6:
        m.notes["unresolved"] = "a ball is not tracked"
        return m
    xb0 = float(np.median(xb[np.flatnonzero(vb)[:3]]))
    sig = {o: motion_sigma(tracks[o], v, x) for o, v, x in (("red_ball", vr, xr), ("blue_ball", vb, xb))}
    # the windows grow within the noise the centroid shows at their own scale as well (a smooth wobble cut the struck
    # ball's window to 5 samples of a 6.5-sample period and 96.7 % of its speed: studio seed 8700)
    grow_sig = {o: max((s for s in (sig[o], wobble_sigma(x, vis)) if math.isfinite(s)), default=math.nan)
                for o, vis, x in (("red_ball", vr, xr), ("blue_ball", vb, xb))}
    thr = max(MIN_DEPARTURE_PX, noise.k_for() * (sig["blue_ball"] if math.isfinite(sig["blue_ball"]) else 0.5) * math.sqrt(2.0))
    dt = 1.0 / max(tracks.fps, 1e-9)
    start, steps = 0, []
    while True:
        i0 = sustained_onset(np.abs(xb[start:] - xb0), thr)
        if i0 is None:
            m.notes["unresolved"] = f"the struck ball never moved beyond {thr:.2f} px (k·σ√2, at least {MIN_DEPARTURE_PX})"
            return m
        i0 += start
        post = np.flatnonzero(vb & (t >= t[i0]) & (t <= t[i0] + 6 * dt))
        p = np.polyfit(t[post], xb[post], 1) if len(post) >= 3 else None
        if p is None or abs(p[0]) * (t[post[-1]] - t[post[0]]) > thr:
            break
        # a new resting level, not a push: it moves no further than thr over the samples after it (a codec step of a
        # still ball's centroid: flat WMLE P5 seed 1003, 0.2 px at frame 13, read as the contact at frame 0)
        steps.append(int(i0))
        xb0, start = float(np.median(xb[post])), i0 + 1
    if steps:
        m.notes["rest_steps"] = steps
    t_c = float(t[i0])
    if p is not None and abs(p[0]) > 0:  # the struck ball leaves rest at once: its line meets the rest position at contact
        lag = thr / abs(p[0]) + dt  # how late a move of thr px is seen
        t_c = float(np.clip((xb0 - p[1]) / p[0], t[i0] - lag, t[i0]))
    m.events.append(event("blue_ball", "collision", float(np.interp(t_c, t, np.arange(len(t)))), tracks))
    k = np.arange(len(t))
    fits = {}
    series = {"red_ball": (xr, vr), "blue_ball": (xb, vb)}
    for name, oid, side in (("v1_before", "red_ball", -1), ("v1_after", "red_ball", 1), ("v2_after", "blue_ball", 1)):
        x, vis = series[oid]
        near = k[vis & (side * (t - t_c) >= MARGIN_FRAMES * dt)]
        idx = grow_window(t, x, near[::-1] if side < 0 else near, grow_sig[oid])  # nearest the contact first
        if len(idx) < MIN_WINDOW:
            m.notes["unresolved"] = f"too few steady samples {'before' if side < 0 else 'after'} the collision"
            return m
        c, se = poly_fit(t, x, idx, t_c, sig[oid], 1)  # the prompt's balls roll freely: a line
        fits[name] = {"v": float(c[1]), "se": float(se[1]), "window": [int(idx[0]), int(idx[-1])]}
    sign = 1.0 if fits["v1_before"]["v"] >= 0 else -1.0
    for name, f in fits.items():
        m.set(f"{name}_px_s", sign * f["v"])
    m.notes["windows"] = {n: f["window"] for n, f in fits.items()}
    after_end = max(f["window"][1] for f in fits.values()) + 1
    m.set("collision_s", t_c)
    m.notes["interval"] = [0, after_end]
    return m
