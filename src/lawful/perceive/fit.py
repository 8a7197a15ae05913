"""Robust fits of the package: the circle fits (pendulum pivots and rim centres; region arcs: :func:`fit_arc`) and
robust polynomial paths (:func:`lts_polyfit`, :func:`tukey_outliers`: gross centroid errors in a flight).

:func:`fit_circle` starts from the algebraic (Kåsa) circle and refines it by geometric least squares
(radial residuals). ``robust=True`` starts instead from the least-median-of-squares circle through
point triples (breakdown 50 %) and keeps points off the circle by more than ``k`` robust standard
deviations of the residuals (``k`` from :data:`lawful.perceive.noise.FALSE_ALARM`) out of the fit, so
stray points (an inner edge, a highlight's border, a string) do not pull the centre; the scatter is
measured on the points themselves, not set by a constant.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.optimize import least_squares

MIN_POINTS = 5
ROBUST_ROUNDS = 5
TRIPLES = 300  # random point triples tried by the least-median start


def _kasa(u: np.ndarray, v: np.ndarray) -> tuple[float, float, float]:
    """Algebraic circle (centre, radius) of centred points ``u, v``."""
    A = np.column_stack([u, v, np.ones_like(u)])
    sol, *_ = np.linalg.lstsq(A, u * u + v * v, rcond=None)
    cx, cy = sol[0] / 2, sol[1] / 2
    return float(cx), float(cy), math.sqrt(max(float(sol[2]) + cx * cx + cy * cy, 1e-12))


@lru_cache(maxsize=256)
def _triples(n: int) -> np.ndarray:
    """The :data:`TRIPLES` random index triples of :func:`_lmeds` for ``n`` points (fixed seed), drawn once per
    ``n``: 300 ``rng.choice`` calls cost 2.3 ms, two thirds of a ring's fit, on every frame."""
    rng = np.random.default_rng(0)
    idx = np.array([rng.choice(n, 3, replace=False) for _ in range(TRIPLES)])
    idx.setflags(write=False)
    return idx


def _lmeds(u: np.ndarray, v: np.ndarray) -> tuple[tuple[float, float, float], float]:
    """Least-median-of-squares circle of points ``u, v`` over random triples (fixed seed): circle and
    its robust residual scale (Rousseeuw's small-sample corrected ``1.4826·median``)."""
    n = len(u)
    idx = _triples(n)
    (x1, x2, x3), (y1, y2, y3) = u[idx].T, v[idx].T
    d = 2 * (x1 * (y2 - y3) + x2 * (y3 - y1) + x3 * (y1 - y2))
    ok = np.abs(d) > 1e-9
    s1, s2, s3 = x1**2 + y1**2, x2**2 + y2**2, x3**2 + y3**2
    with np.errstate(divide="ignore", invalid="ignore"):
        cx = (s1 * (y2 - y3) + s2 * (y3 - y1) + s3 * (y1 - y2)) / d
        cy = (s1 * (x3 - x2) + s2 * (x1 - x3) + s3 * (x2 - x1)) / d
    cx, cy = cx[ok], cy[ok]
    if len(cx) == 0:
        return _kasa(u, v), math.inf
    r = np.hypot(x1[ok] - cx, y1[ok] - cy)
    med = np.median(np.abs(np.hypot(u[None] - cx[:, None], v[None] - cy[:, None]) - r[:, None]), axis=1)
    b = int(np.argmin(med))
    return (float(cx[b]), float(cy[b]), float(r[b])), 1.4826 * (1 + 5 / max(n - 3, 1)) * float(med[b])


def _geometric(u: np.ndarray, v: np.ndarray, start: tuple[float, float, float]) -> np.ndarray:
    fit = least_squares(lambda p: np.hypot(u - p[0], v - p[1]) - p[2], list(start), method="lm")
    return fit.x


def fit_circle(x, y, robust: bool = False) -> tuple[float, float, float, float]:
    """Circle through points ``(x, y)`` ``[n]``: ``(cx, cy, r, rms)``, rms the radial residual of the points used.

    NaNs are ignored; all NaN for fewer than :data:`MIN_POINTS` points. ``robust``: points whose radial
    residual exceeds ``k·σ`` (``σ`` = 1.4826 × the median absolute residual of the current fit) are
    left out and the fit repeated, at most :data:`ROBUST_ROUNDS` times, never below ``MIN_POINTS``; the first
    fit is the least-median circle (:func:`_lmeds`), so up to half the points may be strays.
    """
    from lawful.perceive import noise

    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < MIN_POINTS:
        return (math.nan,) * 4
    mx, my = float(x.mean()), float(y.mean())
    u, v = x - mx, y - my
    keep = np.ones(len(u), bool)
    if not robust:
        p = _geometric(u, v, _kasa(u, v))
    else:
        k = noise.k_for()
        p, sigma = _lmeds(u, v)
        for _ in range(ROBUST_ROUNDS):
            res = np.abs(np.hypot(u - p[0], v - p[1]) - abs(p[2]))
            new = res <= max(k * sigma, 1e-9)
            if new.sum() < MIN_POINTS or np.array_equal(new, keep):
                break
            keep = new
            p = _geometric(u[keep], v[keep], (p[0], p[1], abs(p[2])))
            res = np.abs(np.hypot(u[keep] - p[0], v[keep] - p[1]) - abs(p[2]))
            sigma = 1.4826 * float(np.median(res))
    res = np.hypot(u[keep] - p[0], v[keep] - p[1]) - abs(p[2])
    return float(p[0] + mx), float(p[1] + my), float(abs(p[2])), float(np.sqrt(np.mean(res**2)))


def lts_polyfit(t: np.ndarray, v: np.ndarray, deg: int, steps: int = 20) -> np.ndarray:
    """Least-trimmed-squares polynomial ``v(t)``: the fit whose ``h = (n + deg + 2) // 2`` smallest squared
    residuals sum least (Rousseeuw's high-breakdown fit, by concentration steps from the full fit and from
    each run of ``h`` consecutive samples), so a run of biased samples at one end of the flight cannot
    pull a robust reweighting started from it (:func:`tukey_outliers`) as least squares does."""
    n = len(t)
    h = (n + deg + 2) // 2
    best, cost = np.polyfit(t, v, deg), math.inf
    for p in [best] + [np.polyfit(t[i:i + h], v[i:i + h], deg) for i in range(n - h + 1)]:
        for _ in range(steps):
            near = np.argsort((v - np.polyval(p, t)) ** 2)[:h]
            q_ = np.polyfit(t[near], v[near], deg)
            if np.allclose(q_, p, rtol=0, atol=1e-9):
                break
            p = q_
        c = float(np.sort((v - np.polyval(p, t)) ** 2)[:h].sum())
        if c < cost:
            best, cost = p, c
    return best


def tukey_outliers(t: np.ndarray, series: list[tuple[np.ndarray, int]], cut: float, floor: float,
                   rounds: int = 10) -> np.ndarray:
    """``[n]`` bool: samples off the polynomials ``v(t)`` of ``series`` (``[(v, degree)]``, one weight per
    sample shared by all) by more than the bulk of the samples explains.

    Tukey biweights (cut-off ``cut`` robust sigmas of each series' residuals, the median absolute deviation,
    and at least ``floor``) reweight the fits, started from least trimmed squares (:func:`lts_polyfit`),
    until they settle; a sample that ends with weight 0 is an outlier. The scale comes from the residuals
    themselves, so a path that bends everywhere keeps its samples: only outliers of the bulk go."""
    from lawful.perceive.noise import MAD_TO_STD

    t = np.asarray(t, float)
    series = [(np.asarray(v, float), deg) for v, deg in series]
    if len(t) < 6:
        return np.zeros(len(t), bool)
    fits = [lts_polyfit(t, v, deg) for v, deg in series]
    w = np.ones(len(t))
    for _ in range(rounds):
        z = np.zeros(len(t))
        keep = w > 0
        for i, (v, deg) in enumerate(series):
            r = v - np.polyval(fits[i], t)
            mad = float(np.median(np.abs(r[keep] - np.median(r[keep]))))
            z = np.maximum(z, np.abs(r) / max(cut * MAD_TO_STD * mad, floor))
        new = np.where(z < 1, (1 - z * z) ** 2, 0.0)
        if (new > 0).sum() < 6 or np.allclose(new, w, atol=1e-4):
            break
        w = new
        fits = [np.polyfit(t[w > 0], v[w > 0], deg, w=np.sqrt(w[w > 0])) for v, deg in series]
    return w == 0


def _arc_parts(q: np.ndarray, pts: np.ndarray, c0: np.ndarray, t0: np.ndarray, m0: np.ndarray):
    """For :func:`fit_arc`'s parameters ``q = (n0, phi, k)`` (the arc's offset from ``c0`` along ``m0``, its turn
    from ``t0``, its curvature): ``u = k |r|^2 - 2 r.m``, ``S = sqrt(1 + k u)``, ``r``, ``|r|^2`` and ``m``."""
    n0, phi, k = q
    mm = -np.sin(phi) * t0 + np.cos(phi) * m0
    r = pts - (c0 + n0 * m0)
    rr = np.sum(r * r, 1)
    u = k * rr - 2 * (r @ mm)
    return u, np.sqrt(np.maximum(1 + k * u, 0.0)), r, rr, mm


def _arc_resid(q, pts, c0, t0, m0) -> np.ndarray:
    """Signed distances of ``pts`` from the arc ``q``: ``u / (1 + S)`` (finite as the curvature goes to 0)."""
    u, S = _arc_parts(q, pts, c0, t0, m0)[:2]
    return u / (1 + S)


def _arc_jac(q, pts, c0, t0, m0) -> np.ndarray:
    """``[N, 3]`` derivatives of :func:`_arc_resid` by ``(n0, phi, k)``, in closed form."""
    _, phi, k = q
    u, S, r, rr, mm = _arc_parts(q, pts, c0, t0, m0)
    S1, Sd = 1 + S, np.maximum(S, 1e-12)
    df_du = (S1 - u * k / (2 * Sd)) / (S1 * S1)
    du_dn0 = -2 * k * (r @ m0) + 2 * float(m0 @ mm)
    du_dphi = 2 * (r @ (np.cos(phi) * t0 + np.sin(phi) * m0))
    return np.stack([df_du * du_dn0, df_du * du_dphi, df_du * rr - u * u / (2 * Sd) / (S1 * S1)], 1)


def fit_arc(pts: np.ndarray) -> tuple[float, float, float, float]:
    """Geometric least-squares circle through ``pts`` ``[N, 2]`` in a curvature parametrisation that stays
    well-posed for a short or straight arc (region probes' films and surfaces): centre (far off, or ±1e12, for a
    straight one), radius, radial rms. Started from a parabola in the points' principal axes."""
    c0 = pts.mean(0)
    _, _, vt = np.linalg.svd(pts - c0, full_matrices=False)
    t0, m0 = vt[0], vt[1]
    s, n = (pts - c0) @ t0, (pts - c0) @ m0
    a, b, c = np.polynomial.polynomial.polyfit(s, n, 2) if len(s) >= 3 else (0.0, 0.0, 0.0)
    args = (pts, c0, t0, m0)
    q = least_squares(_arc_resid, [a, np.arctan(b), 2 * c / (1 + b * b) ** 1.5], jac=_arc_jac, method="lm",
                      args=args).x
    n0, _, k = q
    u, S, _, _, mm = _arc_parts(q, *args)
    rms = float(np.sqrt(np.mean((u / (1 + S)) ** 2)))
    k = k if abs(k) > 1e-12 else 1e-12
    cen = c0 + n0 * m0 + mm / k
    return float(cen[0]), float(cen[1]), float(1 / abs(k)), rms
