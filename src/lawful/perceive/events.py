"""Events on 1-D track signals: smoothing, velocity, crossings, turning points, impacts, half-periods.

Signals are float arrays ``[T]`` sampled once per track sample (NaN where the object was not
seen); image ``y`` grows downward, so a ball at its lowest point is a *maximum* of ``y``.
Every event is returned as a **fractional sample index** (sub-frame interpolation: linear for
crossings, a parabola through three samples for turning points, intersecting branch lines for
impacts). :func:`index_to_time` turns such an index into seconds with the track's ``t``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


def _scipy_signal():
    """``scipy.signal``, imported on first use (it takes ~0.7 s; commands that score nothing skip it)."""
    import scipy.signal

    return scipy.signal


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """``(start, stop)`` (stop exclusive) of each run of True in ``mask`` ``[T]``."""
    f = np.concatenate([[False], np.asarray(mask, bool), [False]])
    d = np.flatnonzero(np.diff(f.astype(int)))
    return list(zip(d[::2], d[1::2]))


MATRIX_N = 400  # runs up to this long are filtered by the filter's own matrix (1.3 MB at most, made once per length)


def savgol(y: np.ndarray, window: int, order: int) -> np.ndarray:
    """scipy's Savitzky-Golay filter of one finite run ``y`` (``mode="interp"``). The filter is linear: up to
    :data:`MATRIX_N` samples it is applied as its matrix (:func:`savgol_matrix`), equal to the filter to rounding
    and made once per run length (scipy refits its coefficients and both edges on every call: 0.86 ms for 96
    samples, 2 % of evaluating a flat 640x360 clip)."""
    if len(y) > MATRIX_N:
        return _scipy_signal().savgol_filter(y, window, order, mode="interp")
    return savgol_matrix(len(y), window, order) @ y


def savgol_matrix(n: int, window: int, order: int) -> np.ndarray:
    """``S`` with ``savgol_filter(y, window, order, mode="interp") == S @ y`` for runs of ``n`` samples (read-only;
    kept up to :data:`MATRIX_N` samples, made afresh for a longer run: n^2 values)."""
    return _kept_savgol_matrix(n, window, order) if n <= MATRIX_N else _savgol_matrix(n, window, order)


def _savgol_matrix(n: int, window: int, order: int) -> np.ndarray:
    op = _scipy_signal().savgol_filter(np.eye(n), window, order, axis=0, mode="interp")
    op.flags.writeable = False
    return op


_kept_savgol_matrix = lru_cache(maxsize=32)(_savgol_matrix)


def smooth(y, window: int = 7, order: int = 2) -> np.ndarray:
    """Savitzky-Golay smoothing ``[T] -> [T]``, NaN-aware.

    Each run of finite samples is filtered on its own (NaNs stay NaN); runs shorter than
    ``window`` use the largest odd window that fits, and runs shorter than ``order + 2`` are
    returned unchanged. ``window <= 2`` returns a copy.
    """
    y = np.asarray(y, float)
    out = y.copy()
    if window <= 2:
        return out
    for a, b in runs(np.isfinite(y)):
        n = b - a
        win = min(window if window % 2 else window + 1, n if n % 2 else n - 1)
        if win <= order + 1:
            continue
        out[a:b] = savgol(y[a:b], win, order)
    return out


def velocity(signal, t) -> np.ndarray:
    """Time derivative ``[T]`` (signal units per second) by central differences on ``t`` ``[T]`` seconds.

    Uses one-sided differences at run ends; NaN where the signal is NaN or a run has one sample.
    """
    y = np.asarray(signal, float)
    t = np.asarray(t, float)
    out = np.full_like(y, np.nan)
    for a, b in runs(np.isfinite(y)):
        if b - a >= 2:
            out[a:b] = np.gradient(y[a:b], t[a:b])
    return out


def index_to_time(index: float | None, t) -> float | None:
    """Physical time (s) of a fractional sample ``index`` by linear interpolation of ``t`` ``[T]``."""
    if index is None or not np.isfinite(index):
        return None
    t = np.asarray(t, float)
    i = float(index)
    if len(t) == 1:
        return float(t[0])
    if i <= len(t) - 1:
        return float(np.interp(i, np.arange(len(t)), t))
    return float(t[-1] + (i - (len(t) - 1)) * (t[-1] - t[-2]))


MAX_BRIDGED_GAP = 2  # missing samples a crossing may fall into (an object hidden at a contact, say)


def crossing(signal, level: float, direction: int = +1, start: float = 0) -> float | None:
    """First fractional index ``>= start`` where ``signal`` crosses ``level``, linearly interpolated.

    ``direction=+1``: rising (``s[i-1] < level <= s[i]``); ``-1``: falling
    (``s[i-1] > level >= s[i]``); ``0``: either. Consecutive finite samples are compared across a gap
    of at most :data:`MAX_BRIDGED_GAP` NaNs (interpolated over it); across a longer gap nothing is
    said. A signal already past the level at ``start`` has not *crossed* it: the next crossing is
    returned, else None.
    """
    s = np.asarray(signal, float)
    i0 = max(1, int(np.floor(start)) + 1)  # first pair (i0 - 1, i0) reaching past ``start``
    if len(s) < 2 or i0 >= len(s):
        return None
    idx = np.flatnonzero(np.isfinite(s))
    idx = idx[idx >= i0 - 1]
    if len(idx) < 2:
        return None
    ia, ib = idx[:-1], idx[1:]
    a, b = s[ia], s[ib]
    near = (ib - ia) <= MAX_BRIDGED_GAP + 1
    up = near & (a < level) & (b >= level)
    down = near & (a > level) & (b <= level)
    hit = up if direction > 0 else down if direction < 0 else (up | down)
    for j in np.flatnonzero(hit):
        c = float(ia[j] + (ib[j] - ia[j]) * (level - a[j]) / (b[j] - a[j]))
        if c >= start:
            return c
    return None


def all_crossings(signal, level: float) -> list[float]:
    """Every fractional index where ``signal`` crosses ``level`` (either direction), in order.

    Touching the level and turning back counts as no crossing; a run of samples exactly at the
    level counts once, where it is left on the other side.
    """
    s = np.asarray(signal, float)
    side = np.sign(s - level)
    out = []
    last_i, last_side = None, 0.0
    for i in np.flatnonzero(np.isfinite(s) & (side != 0)):
        if last_i is not None and side[i] != last_side:
            lo, hi = s[last_i], s[i]
            out.append(float(last_i + (i - last_i) * (level - lo) / (hi - lo)))
        last_i, last_side = i, side[i]
    return out


def _parabolic(s: np.ndarray, i: int) -> float:
    """Sub-sample offset of the vertex of the parabola through ``s[i-1], s[i], s[i+1]`` (in [-0.5, 0.5])."""
    if i <= 0 or i >= len(s) - 1:
        return 0.0
    a, b, c = s[i - 1], s[i], s[i + 1]
    den = a - 2 * b + c
    if not np.isfinite(den) or den == 0:
        return 0.0
    return float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))


def turning_points(signal, kind: str = "max", prominence: float = 0.0, distance: int = 1) -> list[float]:
    """Fractional indices of the local maxima (``kind='max'``) or minima (``'min'``) of ``signal``.

    Peaks come from ``scipy.signal.find_peaks`` (``prominence`` in signal units, ``distance`` in
    samples) on each NaN-free run; each is refined by a parabola through its three samples.
    Extremes at the ends of a run are not turning points (the motion was not seen reversing).
    """
    if kind not in ("max", "min"):
        raise ValueError("kind must be 'max' or 'min'")
    s = np.asarray(signal, float)
    sign = 1.0 if kind == "max" else -1.0
    out: list[float] = []
    for a, b in runs(np.isfinite(s)):
        seg = sign * s[a:b]
        if len(seg) < 3:
            continue
        peaks, _ = _scipy_signal().find_peaks(seg, prominence=prominence if prominence > 0 else None,
                                              distance=max(1, distance))
        out.extend(a + p + _parabolic(seg, int(p)) for p in peaks)
    return [float(v) for v in out]


def impacts(bottom_y, ground_y: float, tol: float, prominence: float | None = None) -> list[float]:
    """Fractional indices where downward motion reverses at the ground (image ``y`` grows down).

    ``bottom_y`` ``[T]``: the object's lowest pixel row (or centroid with ``ground_y`` shifted by
    the radius); ``ground_y``: ground row; ``tol``: how far above the ground (px) a reversal still
    counts. A reversal is a local maximum of ``bottom_y`` (prominence ``prominence``, default
    ``tol``). Its index is refined by intersecting straight lines through the samples before
    and after (a bounce is a V, not a parabola); the corner of that V (the contact the
    sampling skipped) or the sample itself must lie at ``>= ground_y - tol``. A ball resting
    on the ground gives the first sample of its contact plateau. Up to :data:`MAX_BRIDGED_GAP` missing
    samples (a ball blurred over its contact shadow at the impact) do not split the track: the
    reversal is found over the samples on both sides, the V's lines through them at their own indices.
    """
    s = np.asarray(bottom_y, float)
    prom = tol if prominence is None else prominence
    out = []
    idx = np.flatnonzero(np.isfinite(s))
    for run in np.split(idx, np.flatnonzero(np.diff(idx) > MAX_BRIDGED_GAP + 1) + 1):
        if len(run) < 3:
            continue
        seg = s[run]
        peaks, props = _scipy_signal().find_peaks(seg, prominence=max(prom, 1e-9), plateau_size=(1, None))
        for p, left, width in zip(peaks, props["left_edges"], props["plateau_sizes"]):
            if width > 1:
                x, top = float(run[left]), float(seg[p])
            else:
                x, top = _v_apex(seg, int(p), run)
            if max(top, seg[p]) >= ground_y - tol:
                out.append(x)
    return out


def _v_apex(s: np.ndarray, i: int, at: np.ndarray | None = None) -> tuple[float, float]:
    """Corner ``(index, value)`` of a V-shaped maximum at sample ``i``: the descending and ascending
    lines (two samples each side, sample ``i`` given to the side it fits best) intersected. ``at``:
    the samples' indices where they are not consecutive (a gap bridged), default ``0 .. n-1``."""
    n = len(s)
    at = np.arange(n, dtype=float) if at is None else np.asarray(at, float)
    even = 0 < i < n - 1 and at[i + 1] - at[i] == at[i] - at[i - 1] == 1
    fallback = (at[i] + (_parabolic(s, i) if even else 0.0), float(s[i]))
    if i < 2 or i > n - 3:
        return fallback
    best = None
    for left, right in (((i - 2, i - 1, i), (i + 1, i + 2)), ((i - 2, i - 1), (i, i + 1, i + 2))):
        xl, xr = at[list(left)], at[list(right)]
        pl, pr = np.polyfit(xl, s[list(left)], 1), np.polyfit(xr, s[list(right)], 1)
        if pl[0] - pr[0] <= 0:
            continue
        x = (pr[1] - pl[1]) / (pl[0] - pr[0])
        res = np.sum((np.polyval(pl, xl) - s[list(left)]) ** 2) + np.sum((np.polyval(pr, xr) - s[list(right)]) ** 2)
        if at[i - 1] <= x <= at[i + 1] and (best is None or res < best[0]):
            best = (res, float(x), float(np.polyval(pl, x)))
    return (best[1], best[2]) if best is not None else fallback


def rebound_apexes(y, impact_indices: list[float], prominence: float = 0.0) -> list[float]:
    """Fractional index of the highest point (minimum image ``y``) after each impact, before the next."""
    s = np.asarray(y, float)
    out = []
    tops = turning_points(s, "min", prominence)
    bounds = list(impact_indices) + [len(s)]
    for k in range(len(impact_indices)):
        inside = [p for p in tops if bounds[k] < p < bounds[k + 1]]
        if inside:
            out.append(min(inside, key=lambda p: s[int(round(p))]))
    return out


def half_periods(x, anchor_x: float, min_amplitude: float = 0.0) -> list[float]:
    """Turning points of an oscillation that follow a crossing of the anchor line.

    ``x`` ``[T]``: e.g. a pendulum bob's horizontal centroid; ``anchor_x``: the vertical line
    through the pivot. Between consecutive crossings of ``anchor_x`` (and after the last one)
    the extreme farthest from the anchor is a turning point, refined by a parabola; it must
    lie inside the stretch (the motion was seen reversing) and, if ``min_amplitude > 0``, at
    least that far from the anchor. Consecutive differences of the returned fractional indices
    are half-periods; the release point before the first crossing is not included.
    """
    s = np.asarray(x, float)
    crossings = all_crossings(s, anchor_x)
    out = []
    for k, c in enumerate(crossings):
        a = int(np.floor(c)) + 1
        b = int(np.floor(crossings[k + 1])) + 1 if k + 1 < len(crossings) else len(s)
        seg = s[a:b]
        if len(seg) < 3 or not np.isfinite(seg).any():
            continue
        dev = np.abs(seg - anchor_x)
        p = int(np.nanargmax(dev))
        if p == 0 or p >= len(seg) - 1 or not (np.isfinite(seg[p - 1]) and np.isfinite(seg[p + 1])):
            continue
        if dev[p] < min_amplitude:
            continue
        sign = 1.0 if seg[p] > anchor_x else -1.0
        out.append((float(a + p + _parabolic(sign * s, a + p)), sign, float(dev[p])))
    # jitter around the anchor can split one swing: keep the farthest of same-side neighbours
    kept: list[tuple[float, float, float]] = []
    for tp in out:
        if kept and kept[-1][1] == tp[1]:
            if tp[2] > kept[-1][2]:
                kept[-1] = tp
            continue
        kept.append(tp)
    return [tp[0] for tp in kept]


def spring_turning_points(y, prominence: float = 0.0) -> list[float]:
    """Lowest points of a hanging mass (vertical velocity turns from down to up): maxima of image ``y``."""
    return turning_points(y, "max", prominence)


def level_crossings(coef, level: float, direction: int = 0) -> list[float]:
    """Sorted real times where the parabola ``y = a t² + b t + c`` (``coef``) is at ``level``; ``direction`` +1
    keeps only those where ``y`` grows there (``2at + b ≥ 0``; image y down: going down), −1 where it falls."""
    a, b, c = (float(v) for v in coef)
    roots = [float(r.real) for r in np.roots([a, b, c - level]) if abs(r.imag) < 1e-9]
    return sorted(r for r in roots if direction * (2 * a * r + b) >= 0)


def local_crossing_time(t: np.ndarray, y: np.ndarray, level: float, k: int = 7, deg: int = 2) -> float | None:
    """When ``y`` ``[T]`` first rises through ``level``: the root of a degree-``deg`` least-squares fit to the
    ``k`` finite samples nearest the sampled crossing (:func:`crossing`), so the
    crossing time averages the noise of ``k`` samples instead of two. The root nearest the sampled crossing
    within the fitted samples' span; without one (a fit too flat there), the sampled crossing. None if
    ``y`` never crosses."""
    t, y = np.asarray(t, float), np.asarray(y, float)
    tc = index_to_time(crossing(y, level, +1), t)
    if tc is None:
        return None
    ok = np.flatnonzero(np.isfinite(y) & np.isfinite(t))
    near = ok[np.argsort(np.abs(t[ok] - tc))[:k]]
    if len(near) < deg + 2:
        return tc
    p = np.polyfit(t[near] - tc, y[near], deg)
    p[-1] -= level
    lo, hi = float(t[near].min()) - tc, float(t[near].max()) - tc
    roots = [float(r.real) for r in np.roots(p) if abs(r.imag) < 1e-9 and lo <= r.real <= hi]
    return tc + min(roots, key=abs) if roots else tc
