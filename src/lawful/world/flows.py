"""Discharge from conical funnels (WMLE P36) and double soap bubbles (WMLE P39): physics and drawing.

Physics (tested against closed forms in ``tests/test_wmle_p36_funnel_discharge.py`` /
``tests/test_wmle_p39_double_bubble.py``):

- a cone of half-angle ``α`` with its apex at the outlet holds ``V = (π/3) tan²α h³`` below the fill
  height ``h``; a discharge ``Q = −dV/dt = c h^β`` then drains it as ``h(t) = h0 (1 − t/T)^{1/(3−β)}``
  (:func:`drain_head`): Torricelli's ``Q = a √(2 g h)`` is ``β = ½`` (:func:`torricelli_empty_time`),
  Beverloo's head-independent granular flow ``β = 0`` (:func:`beverloo_rate`);
- :func:`fit_drain_exponent` fits ``(h0, T, β)`` of that integrated law to a measured ``h(t)`` (no
  differentiation of the readings), with standard errors;
- :func:`double_bubble`: the standard double bubble of outer radii ``r_s < r_l`` (films meeting at 120°):
  centre distance ``d² = r_s² + r_l² − r_s r_l``, partition radius ``1/r_p = 1/r_s − 1/r_l`` bulging into the
  larger bubble, the junction points and the partition's centre.

Drawing (area-sampled on uint8 RGB frames): :func:`draw_funnel` (a glass cone funnel with its fill, stem and
outlet stream), :func:`draw_film` (thin iridescent film arcs of a double bubble).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import curve_fit

from lawful.world.liquids import GLASS_TINT, WALL, over
from lawful.world.matter import SAND  # noqa: F401 (re-exported for the funnel task)

G = 9.81


# ----------------------------------------------------------------------------- funnels: physics


def cone_volume(h, tan_a: float) -> np.ndarray:
    """Volume below fill height ``h`` of a cone of half-angle ``atan(tan_a)`` standing on its apex."""
    return math.pi / 3.0 * tan_a**2 * np.asarray(h, float) ** 3


def drain_head(t, h0: float, t_empty: float, beta: float) -> np.ndarray:
    """Fill height of a cone drained by ``Q ∝ h^β`` from ``h0`` at ``t = 0`` to empty at ``t_empty``:
    ``h0 (1 − t/T)^{1/(3−β)}`` (0 after ``T``)."""
    u = np.clip(1.0 - np.asarray(t, float) / t_empty, 0.0, None)
    return h0 * u ** (1.0 / (3.0 - beta))


def torricelli_empty_time(h0: float, tan_a: float, outlet_area: float, g: float = G) -> float:
    """Time for ``Q = a √(2 g h)`` to empty a cone (SI): ``T = 2π tan²α h0^{5/2} / (5 a √(2g))``."""
    return 2.0 * math.pi * tan_a**2 * h0**2.5 / (5.0 * outlet_area * math.sqrt(2.0 * g))


def beverloo_rate(outlet_d: float, grain_d: float, bulk_density: float, C: float = 0.58, k: float = 1.5,
                  g: float = G) -> float:
    """Beverloo's mass flow (kg/s) of grains of diameter ``grain_d`` through a round outlet ``outlet_d`` (m):
    ``W = C ρ_b √g (D − k d)^{5/2}``, independent of the fill height."""
    return C * bulk_density * math.sqrt(g) * max(outlet_d - k * grain_d, 0.0) ** 2.5


def fit_drain_exponent(t, h, sigma: float | None = None) -> dict | None:
    """Least-squares fit of :func:`drain_head` ``(h0, T, β)`` to heights ``h`` at times ``t`` (the integrated
    law, no derivative of the readings). ``sigma``: the readings' standard error (px) for the parameters'
    standard errors (else the fit's residual scatter). ``None`` when the fit fails."""
    t, h = np.asarray(t, float), np.asarray(h, float)
    ok = np.isfinite(t) & np.isfinite(h) & (h > 0)
    t, h = t[ok], h[ok]
    if len(t) < 6 or h[0] <= h[-1] or t[-1] <= t[0]:
        return None
    t0 = t[0]
    tt = t - t0
    best = None
    for b0 in (0.0, 0.5, 1.0):  # a few starts: the fit is smooth but β and T trade off
        n = 3.0 - b0
        frac = max(min(h[-1] / h[0], 0.95), 0.05)
        T0 = tt[-1] / (1.0 - frac**n)
        try:
            p, cov = curve_fit(lambda x, a, T, b: drain_head(x, a, T, b), tt, h, p0=(h[0], T0, b0),
                               bounds=([0.0, tt[-1] * 1.0001, -3.0], [np.inf, np.inf, 2.5]), maxfev=4000)
        except (RuntimeError, ValueError):
            continue
        res = h - drain_head(tt, *p)
        rss = float(res @ res)
        if best is None or rss < best[2]:
            best = (p, cov, rss)
    if best is None:
        return None
    p, cov, rss = best
    dof = max(len(tt) - 3, 1)
    s_fit = math.sqrt(rss / dof)
    s = max(s_fit, float(sigma)) if sigma is not None and np.isfinite(sigma) else s_fit
    # curve_fit scaled cov by s_fit²; rescale to the larger of the stated and the fitted noise
    scale = (s / s_fit) ** 2 if s_fit > 0 else 1.0
    se = np.sqrt(np.clip(np.diag(cov) * scale, 0.0, None))
    return {"h0": float(p[0]), "t_empty": float(p[1] + t0), "beta": float(p[2]), "beta_se": float(se[2]),
            "rms": s_fit, "n": int(len(tt))}


# ----------------------------------------------------------------------------- funnels: drawing


def _cover(d: np.ndarray) -> np.ndarray:
    return np.clip(d + 0.5, 0.0, 1.0)


def funnel_inside(cols: np.ndarray, rows: np.ndarray, x: float, y_apex: float, y_rim: float, tan_a: float
                  ) -> np.ndarray:
    """Area share ``[rows, cols]`` inside the cone ``(x, apex row, rim row, tan of the half-angle)``."""
    X, Y = cols[None, :], rows[:, None]
    c = math.cos(math.atan(tan_a))
    d = ((y_apex - Y) * tan_a - np.abs(X - x)) * c  # distance to the nearer wall, positive inside
    return _cover(d) * _cover(Y - y_rim)


def funnel_polygon(x: float, y_apex: float, y_rim: float, tan_a: float, inset: float, y_low: float
                   ) -> list[list[float]]:
    """The inside of the cone inset by ``inset`` px from its walls, between the rim (+ inset) and ``y_low``."""
    w = lambda y: (y_apex - y) * tan_a - inset / math.cos(math.atan(tan_a))  # noqa: E731
    y0 = y_rim + inset
    return [[x - w(y0), y0], [x + w(y0), y0], [x + w(y_low), y_low], [x - w(y_low), y_low]]


def draw_funnel(img: np.ndarray, x: float, y_apex: float, y_rim: float, tan_a: float, surface: float, fill,
                texture: np.ndarray | None = None, stem: float = 30.0, outlet: float = 5.0,
                stream_to: float | None = None, stream_w: float = 3.0, wall: float = 3.0, glass=GLASS_TINT,
                wall_color=WALL) -> np.ndarray:
    """Paint a glass cone funnel (apex at ``(x, y_apex)``, rim at ``y_rim``), filled with ``fill`` below the
    row ``surface``, its stem (``stem`` px long, ``outlet`` px bore) and an outlet stream down to ``stream_to``
    (``stream_w`` px wide; none when ``stream_w`` ≤ 0). ``texture`` ``[H, W]`` (frame-sized) modulates the fill."""
    h, w = img.shape[:2]
    half = (y_apex - y_rim) * tan_a + wall + 3
    y_end = y_apex + stem
    bottom = max(y_end, stream_to or y_end)
    c0, c1 = max(0, int(x - half - 2)), min(w, int(x + half + 3))
    r0, r1 = max(0, int(y_rim - 2)), min(h, int(bottom + 3))
    win = img[r0:r1, c0:c1].astype(np.float32)
    cols = np.arange(c0, c1, dtype=np.float32)
    rows = np.arange(r0, r1, dtype=np.float32)
    X, Y = cols[None, :], rows[:, None]
    inside = funnel_inside(cols, rows, x, y_apex, y_rim, tan_a)
    grown = funnel_inside(cols, rows, x, y_apex + wall / math.sin(math.atan(tan_a)), y_rim, tan_a)
    bore = _cover(outlet / 2 - np.abs(X - x)) * _cover(Y - y_apex + 2) * _cover(y_end - Y)
    tube = _cover(outlet / 2 + wall - np.abs(X - x)) * _cover(Y - y_apex + 2) * _cover(y_end - Y)
    inner = np.maximum(inside, bore)
    over(win, wall_color, np.clip(np.maximum(grown, tube) - inner, 0, 1))
    over(win, glass, 0.8 * inner)
    col = np.asarray(fill, np.float32)
    if texture is not None:
        col = col[None, None, :] * texture[r0:r1, c0:c1][..., None]
    below = np.clip(Y + 0.5 - surface, 0.0, 1.0) * np.ones_like(X)
    over(win, col, 0.95 * np.maximum(inside * below, bore))
    if stream_to is not None and stream_w > 0:
        s = _cover(stream_w / 2 - np.abs(X - x)) * _cover(Y - y_end) * _cover(stream_to - Y)
        over(win, col, 0.9 * s)
    img[r0:r1, c0:c1] = np.clip(win + 0.5, 0, 255).astype(np.uint8)
    return img


# ----------------------------------------------------------------------------- double bubble


def double_bubble(r_s: float, r_l: float) -> dict:
    """Geometry of the standard double bubble with outer radii ``r_s ≤ r_l`` in a frame whose x axis runs
    from the small bubble's centre (origin) to the large one's: ``d`` (centre distance), ``x_j`` / ``y_j``
    (the junctions at ``(x_j, ±y_j)``), ``r_p`` (partition radius, inf when equal) and ``x_p`` (the
    partition circle's centre on the axis, on the small bubble's side, so the film bulges into the large one)."""
    if not 0 < r_s <= r_l:
        raise ValueError("need 0 < r_s <= r_l")
    d = math.sqrt(r_s**2 + r_l**2 - r_s * r_l)
    x_j = (d * d + r_s**2 - r_l**2) / (2 * d)
    y_j = math.sqrt(max(r_s**2 - x_j**2, 0.0))
    r_p = math.inf if r_l == r_s else r_s * r_l / (r_l - r_s)
    x_p = -math.inf if math.isinf(r_p) else x_j - math.sqrt(r_p**2 - y_j**2)
    return {"d": d, "x_j": x_j, "y_j": y_j, "r_p": r_p, "x_p": x_p}


def iridescent(theta: np.ndarray, phase: float, base: float = 175.0, swing: float = 60.0) -> np.ndarray:
    """A soap film's thin-film colours ``[…, 3]`` along an arc parameter ``theta`` (radians)."""
    k = np.asarray(theta, np.float32)[..., None] * 2.0 + phase + np.array([0.0, 2.1, 4.2], np.float32)
    return base + swing * np.cos(k)


def draw_film(img: np.ndarray, cs, cl, r_s: float, r_l: float, partition, width: float = 2.2,
              phase: float = 0.0, veil: float = 0.06) -> np.ndarray:
    """Paint a double bubble: the small and large outer films (centres ``cs``, ``cl``, radii ``r_s``, ``r_l``)
    each outside the other bubble, and the ``partition`` between the junctions: ``("arc", cx, cy, r)`` or
    ``("line", x0, y0, x1, y1)`` (drawn where it is inside both bubbles). ``veil``: the faint sheen of the films'
    faces over each bubble's disc."""
    h, w = img.shape[:2]
    pad = width + 3
    x0 = max(0, int(min(cs[0] - r_s, cl[0] - r_l) - pad))
    x1 = min(w, int(max(cs[0] + r_s, cl[0] + r_l) + pad) + 1)
    y0 = max(0, int(min(cs[1] - r_s, cl[1] - r_l) - pad))
    y1 = min(h, int(max(cs[1] + r_s, cl[1] + r_l) + pad) + 1)
    win = img[y0:y1, x0:x1].astype(np.float32)
    X = np.arange(x0, x1, dtype=np.float32)[None, :]
    Y = np.arange(y0, y1, dtype=np.float32)[:, None]
    ds = np.hypot(X - cs[0], Y - cs[1])
    dl = np.hypot(X - cl[0], Y - cl[1])
    in_s, in_l = _cover(r_s - ds), _cover(r_l - dl)
    over(win, (235, 240, 250), veil * np.maximum(in_s, in_l))
    ring = lambda d, r: _cover(width / 2 - np.abs(d - r))  # noqa: E731
    over(win, iridescent(np.arctan2(Y - cs[1], X - cs[0]), phase), ring(ds, r_s) * (1 - _cover(r_l - dl - 1)))
    over(win, iridescent(np.arctan2(Y - cl[1], X - cl[0]), phase + 1.3), ring(dl, r_l) * (1 - _cover(r_s - ds - 1)))
    inside_both = _cover(r_s - ds + 1) * _cover(r_l - dl + 1)
    if partition[0] == "arc":
        _, px, py, rp = partition
        dp = np.hypot(X - px, Y - py)
        a = ring(dp, rp)
        th = np.arctan2(Y - py, X - px) * (rp / max(r_s, 1.0))
    else:
        _, ax, ay, bx, by = partition
        L = math.hypot(bx - ax, by - ay)
        nx, ny = -(by - ay) / L, (bx - ax) / L
        a = _cover(width / 2 - np.abs((X - ax) * nx + (Y - ay) * ny))
        th = ((X - ax) * (bx - ax) + (Y - ay) * (by - ay)) / (L * max(r_s, 1.0))
    over(win, iridescent(th, phase + 2.6), a * inside_both)
    img[y0:y1, x0:x1] = np.clip(win + 0.5, 0, 255).astype(np.uint8)
    return img
