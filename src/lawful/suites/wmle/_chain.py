"""Extraction for WMLE P7 (hanging chain): the catenary fit and the settled bead contour."""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import least_squares

from lawful.case import Case
from lawful.result import Measurement
from lawful.suites.wmle.common import event, steady_visible
from lawful.tracks import Tracks

SETTLED_FRACTION = 0.15
SETTLED_MOTION_PX = 1.0
RELEASE_MOTION_PX = 3.0  # a bead moving this far from its first-frame place shows the release


def catenary_y(x: np.ndarray, a: float, x0: float, c: float) -> np.ndarray:
    """Hanging-chain curve in image coordinates (y down): ``c - a cosh((x - x0) / a)``."""
    return c - a * np.cosh((np.asarray(x, float) - x0) / a)


def fit_catenary(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    """Least-squares catenary through points ``(x, y)`` ``[n ≥ 4]``: returns ``(a, x0, c, rmse)`` (px)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    A, B, _ = np.polyfit(x, y, 2)  # y ≈ A x² + B x + C, A < 0 for a sagging chain (image y down)
    span = max(float(np.ptp(x)), 1.0)
    if A < 0:
        a0 = -1.0 / (2 * A)
        x00 = -B / (2 * A)
    else:
        a0, x00 = 10 * span, float(np.mean(x))
    c0 = float(np.max(y)) + a0

    def resid(p):
        a = math.exp(p[0])
        return catenary_y(x, a, p[1], p[2]) - y

    sol = least_squares(resid, [math.log(min(max(a0, 1e-3 * span), 1e3 * span)), x00, c0], method="lm",
                        max_nfev=2000)
    a, x0, c = math.exp(sol.x[0]), float(sol.x[1]), float(sol.x[2])
    rmse = float(np.sqrt(np.mean(resid(sol.x) ** 2)))
    return a, x0, c, rmse


def settled_chain_measurement(case: Case, tracks: Tracks, beads: tuple[str, ...]) -> Measurement:
    """Release and settled events, the settled bead contour (median over the last ``SETTLED_FRACTION``),
    its sag, catenary fit (``catenary_rmse_px``, ``catenary_a_px``) and the end beads' height difference."""
    m = Measurement()
    n = len(tracks)
    w0 = int(math.floor(n * (1 - SETTLED_FRACTION)))
    pts, spread, release = [], 0.0, None
    for b in beads:
        tr = tracks[b]
        moved = np.flatnonzero(np.hypot(*(tr.xy - tr.xy[0]).T) > RELEASE_MOTION_PX)
        if len(moved):
            release = int(moved[0]) if release is None else min(release, int(moved[0]))
        steady = steady_visible(tr, (case.width, case.height))
        vis = steady[w0:]
        if vis.sum() >= max(2, 0.5 * (n - w0)):
            xy = tr.xy[w0:][vis]
        else:  # out of view while settled (a pan took it out of the picture): its last sightings, if at rest
            xy = tr.xy[np.flatnonzero(steady)[-max(2, (n - w0) // 2):]]
            if len(xy) < 2 or float(np.max(np.ptp(xy, axis=0))) > SETTLED_MOTION_PX * 3:
                m.notes["unresolved"] = f"{b} not visible while the chain should be at rest"
                return m
            m.notes.setdefault("from_last_sightings", []).append(b)
        pts.append(np.median(xy, axis=0))
        spread = max(spread, float(np.max(np.ptp(xy, axis=0))))
    pts = np.array(pts)
    if release is not None:
        m.events.append(event("chain", "release", float(max(release - 1, 0)), tracks))
    m.notes["settled_beads"] = pts.round(3).tolist()
    m.set("settled_motion_px", spread)
    if spread <= SETTLED_MOTION_PX * 3:
        m.events.append(event("chain", "settled", float(w0), tracks, value=spread))
    order = np.argsort(pts[:, 0])
    x, y = pts[order, 0], pts[order, 1]
    sag = float(np.max(y) - 0.5 * (y[0] + y[-1]))
    m.set("sag_px", sag)
    if sag > 2.0:
        a, _, _, rmse = fit_catenary(x, y)
        m.set("catenary_rmse_px", rmse)
        m.set("catenary_a_px", a)
    m.set("support_dh_px", float(pts[-1, 1] - pts[0, 1]))
    m.set("span_px", float(abs(pts[-1, 0] - pts[0, 0])))
    return m
