"""Oscillation kit of the recordings tasks R4 (pendulum) and R5 (spring): noise-aware period statistics and
damped-sinusoid fits.

- :func:`turning_se`: timing standard error of a turning point refined by a parabola through three samples,
  ``sd(t*) = σ·Δt / (√2·|y₋ − 2y₀ + y₊|)`` (the vertex offset ``(y₋ − y₊) / (2(y₋ − 2y₀ + y₊))``);
- :func:`weighted_spread`: the inverse-variance weighted relative spread of period estimates and what noise
  alone would give (``√((n − 1)/Σw) / mean``);
- :func:`amplitude_trend`: the relative change of a period across the measured amplitude range from a weighted
  straight line in ``A²`` (the leading order of every finite-amplitude law), with its standard error;
- :func:`damped_fit`: ``c + A0·exp(−γτ − βτ²)·cos(φ0 + ω0 ∫ dτ / f(A(τ)))`` by least squares, ``f`` an
  amplitude-to-period factor (1 for a linear oscillator, the elliptic factor for a pendulum).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.integrate import cumulative_trapezoid
from scipy.optimize import least_squares

from lawful.perceive import noise
from lawful.suites.recordings.common import release_time, rest_position
from lawful.suites.wmle.common import event


def usable_series(tr, frame: tuple[float, float] | None) -> tuple[np.ndarray, np.ndarray]:
    """``x``, ``y`` ``[T]`` of a track where it is visible and not cut by the frame edge (NaN elsewhere)."""
    ok = np.asarray(tr.visible, bool) & ~noise.touches_border(tr, frame) & np.isfinite(np.asarray(tr.xy)).all(1)
    return np.where(ok, tr.x, np.nan), np.where(ok, tr.y, np.nan)


def turning_se(s: np.ndarray, idx: float, sigma: float, dt: float) -> float:
    """Standard error (s) of the time of a turning point of ``s`` near fractional index ``idx`` (see module doc)."""
    j = int(round(idx))
    if j < 1 or j + 1 >= len(s) or not np.all(np.isfinite(s[j - 1:j + 2])):
        return math.nan
    d = abs(float(s[j - 1] - 2 * s[j] + s[j + 1]))
    return math.inf if d == 0 else sigma * dt / (math.sqrt(2.0) * d)


def weighted_spread(values, se) -> tuple[float, float, float, float]:
    """``(cv, se_cv, mean, se_mean)`` of estimates ``values`` with standard errors ``se`` (inverse-variance
    weights; estimates with a non-finite or zero ``se`` are left out). ``cv`` is the weighted standard
    deviation over the weighted mean; ``se_cv`` the value noise alone gives, ``√((n − 1)/Σw)/mean``.
    NaN for fewer than two estimates."""
    v, e = np.asarray(values, float), np.asarray(se, float)
    ok = np.isfinite(v) & np.isfinite(e) & (e > 0)
    v, e = v[ok], e[ok]
    if len(v) < 2:
        return (math.nan,) * 4
    w = 1.0 / e**2
    m = float(np.sum(w * v) / w.sum())
    sd = math.sqrt(float(np.sum(w * (v - m) ** 2) / w.sum()))
    return sd / abs(m), math.sqrt((len(v) - 1) / w.sum()) / abs(m), m, 1.0 / math.sqrt(w.sum())


def weighted_line(x, y, se, min_n: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Inverse-variance weighted straight line ``y = c0 + c1·x``: ``(coef, cov, x used)``; None with fewer than
    ``min_n`` usable points (finite, ``se > 0``) or no spread in ``x``."""
    x, y, se = (np.asarray(v, float) for v in (x, y, se))
    ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(se) & (se > 0)
    x, y, se = x[ok], y[ok], se[ok]
    if len(x) < min_n or np.ptp(x) <= 0:
        return None
    X = np.column_stack([np.ones_like(x), x]) / se[:, None]
    coef, *_ = np.linalg.lstsq(X, y / se, rcond=None)
    return coef, np.linalg.inv(X.T @ X), x


def amplitude_trend(values, se, amps) -> tuple[float, float]:
    """Relative change ``b·(A²max − A²min)/a`` of ``values`` over the amplitude range from the weighted line
    ``a + b·A²`` and its standard error; NaN with fewer than three estimates or no amplitude range."""
    fit = weighted_line(np.asarray(amps, float) ** 2, values, se, min_n=3)
    if fit is None:
        return math.nan, math.nan
    coef, cov, A2 = fit
    a, b, span = float(coef[0]), float(coef[1]), float(np.ptp(A2))
    rel = b * span / a
    # d(rel) = span/a db − b span/a² da
    g = np.array([-b * span / a**2, span / a])
    return rel, math.sqrt(float(g @ cov @ g))


def damped_model(p: np.ndarray, tau: np.ndarray, factor: Callable[[np.ndarray], np.ndarray] | None) -> np.ndarray:
    """``c + A(τ)·cos(φ0 + ω0 ∫ dτ/f(A))``, ``A(τ) = A0·exp(−γτ − βτ²)``; ``p = [c, A0, γ, β, ω0, φ0]``;
    ``tau`` increasing (s)."""
    c, A0, gam, beta, w0, phi0 = p
    env = A0 * np.exp(-gam * tau - beta * tau**2)
    rate = w0 / factor(np.abs(env)) if factor is not None else np.full_like(tau, w0)
    phase = phi0 + cumulative_trapezoid(rate, tau, initial=0.0)
    return c + env * np.cos(phase)


def damped_fit(t: np.ndarray, s: np.ndarray, p0, factor=None, quadratic: bool = True,
               bounds_w: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares fit of :func:`damped_model` to the finite samples of ``s(t)``; ``p0`` the start
    ``[c, A0, γ, β, ω0, φ0]`` (``t`` measured from ``t[0]``). Returns ``(params, residuals [n])``;
    ``quadratic=False`` holds β at 0 (a pure exponential envelope)."""
    t, s = np.asarray(t, float), np.asarray(s, float)
    ok = np.isfinite(t) & np.isfinite(s)
    tau, y = t[ok] - t[ok][0], s[ok]
    p0 = np.asarray(p0, float).copy()
    for i, v in ((0, float(np.median(y))), (1, 0.5 * float(np.ptp(y))), (2, 0.0), (3, 0.0), (5, 0.0)):
        if not math.isfinite(p0[i]):
            p0[i] = v
    free = [0, 1, 2, 3, 4, 5] if quadratic else [0, 1, 2, 4, 5]

    def full(q):
        p = p0.copy()
        p[free] = q
        return p

    def resid(q):
        return damped_model(full(q), tau, factor) - y

    w0 = p0[4]
    lo = np.full(len(free), -np.inf)
    hi = np.full(len(free), np.inf)
    k = free.index(4)
    lo[k], hi[k] = (1 - bounds_w) * w0, (1 + bounds_w) * w0
    best = None
    for dphi in (0.0, 0.5, -0.5):  # a few phase starts against a wrong basin
        q0 = p0[free].copy()
        q0[free.index(5)] += dphi
        q0 = np.clip(q0, lo + 1e-9, hi - 1e-9)
        fit = least_squares(resid, q0, bounds=(lo, hi), x_scale="jac")
        if best is None or fit.cost < best.cost:
            best = fit
    return full(best.x), best.fun


def envelope_start(t: np.ndarray, amps: list[float], times: list[float]) -> tuple[float, float]:
    """``(A0, γ)`` from turning-point amplitudes ``amps`` at ``times`` (a log-linear fit; γ = 0 for one)."""
    a, tt = np.asarray(amps, float), np.asarray(times, float)
    ok = np.isfinite(a) & (a > 0) & np.isfinite(tt)
    a, tt = a[ok], tt[ok]
    if len(a) == 0:
        return math.nan, 0.0
    if len(a) == 1:
        return float(a[0]), 0.0
    b, lnA = np.polyfit(tt - t[0], np.log(a), 1)
    return float(math.exp(lnA)), float(-b)

def from_release(case, tracks, m, oid: str, s: np.ndarray, sig_px: float, px: float = 1.0) -> np.ndarray | None:
    """``s`` ``[T]`` with the samples before release set to NaN (None when there is no release: ``period_s`` is
    then missing with the reason). Records the release event, ``notes['release']`` and the observation interval.
    ``sig_px``: the noise of ``s·px`` (px); ``px`` turns ``s`` into pixels (the pendulum's angle → arc)."""
    t = np.asarray(tracks.t, float)
    t_rel, how = release_time(case, t, np.abs(s - rest_position(s)) * px, sig_px)
    m.notes["release"] = how
    if t_rel is None:
        m.set("period_s", None, f"no release: {how}")
        return None
    i_rel = int(np.searchsorted(t, t_rel - 1e-9))
    m.events.append(event(oid, "release", float(np.interp(t_rel, t, np.arange(len(t)))), tracks))
    m.notes["interval"] = [i_rel, len(t)]
    return np.where(np.arange(len(t)) >= i_rel, s, np.nan)


def noise_metric(m, key: str, se_key: str | None, a: float, norm_key: str | None = None, sigma: float | None = None,
                 missing: str = "undefined"):
    """``q(beyond_noise(e, se) / norm; a)`` from measured quantities: ``e = m[key]``, ``se = m[se_key]`` (or
    ``sigma``), ``norm = m[norm_key]`` (1 when None). A missing value gives a metric ``missing``
    (``"undefined"`` or ``"operational_zero"``) with the measurement's reason."""
    from lawful.score.wmle import q
    from lawful.suites.recordings.common import beyond_noise
    from lawful.suites.wmle.common import MetricScore

    e = m.get(key)
    se = sigma if se_key is None else m.get(se_key)
    norm = 1.0 if norm_key is None else m.get(norm_key)
    if e is None or not norm:
        why = m.missing.get(key) or m.missing.get(norm_key or "", "") or m.missing.get("period_s", "not measured")
        return getattr(MetricScore, missing)(why)
    se = math.nan if se is None else se
    v = beyond_noise(e, se) / norm
    return MetricScore.measured(q(v, a), v, raw=e, se=se, norm=norm)
