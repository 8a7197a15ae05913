"""P3 — complementary-angle projectiles: at equal launch speed, 30° and 60° throws land equally far.

Extraction (shared with P4 through :func:`projectile_arc`): the airborne stretch is the first run of
samples above the launch height, less its gross centroid errors (:func:`gross_errors`: a blurred ball
whose faint half the segmentation lost, a ball merged with its launch rail); ``y(x)`` is fitted with a
parabola (range between its roots at the launch height, apex at its vertex, fit RMS), ``x(t)`` with a
line and ``y(t)`` with a parabola (launch time at the first root, launch speed from both derivatives there).

M2's fit residual (:func:`excess_rms`) is the RMS *distance* of the samples from the fitted parabola
(a vertical residual on the steep flanks of a 60° arc multiplies the horizontal centroid noise by the
slope) with the part that the track's measured centroid noise explains removed: a noise-free
parabola scores ``u = 0`` whatever the tracker's jitter, a bent path keeps its bend. The noise is the
flight's own (:func:`flight_noise`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import geometric_mean, q
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, contrasting_colors, event, frame_times,
    sphere_box, steady_visible, style_of,
)
from lawful.tracks import Tracks
from lawful.world.draw import Scene, Sphere

G = 9.81
TUKEY = 4.685  # biweight cut-off (robust sigmas): 95 % efficiency on Gaussian noise
CENTROID_PX = 0.5  # centroid resolution: residuals within it are never gross errors
LIFT_PX = 2.0  # height above launch level (px, at least; 0.2 radius for larger balls) that counts as airborne


@dataclass
class Arc:
    """One tracked projectile flight in first-frame pixels (y down) and seconds.

    ``launch_y``: launch height (resting centre); ``yx``: parabola coefficients of ``y(x)``;
    ``yt``/``xt``: ``y(t)`` parabola and ``x(t)`` line; ``x_launch``/``x_land``: roots of ``y(x)`` at the
    launch height (``x_land`` None when the ball never came back down to it); ``apex``: vertex
    ``(x, y)``; ``rms``: RMS residual of ``y(x)`` (px); ``speed``: launch speed (px/s); ``t``, ``x``,
    ``y``: the airborne samples.
    """

    launch_y: float
    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    yx: np.ndarray
    yt: np.ndarray
    xt: np.ndarray
    x_launch: float
    x_land: float | None
    t_launch: float
    t_land: float | None
    apex: tuple[float, float]
    apex_seen: bool
    rms: float
    speed: float
    notes: dict = field(default_factory=dict)

    @property
    def range(self) -> float | None:
        return None if self.x_land is None else abs(self.x_land - self.x_launch)

    @property
    def height(self) -> float:
        return self.launch_y - self.apex[1]


def projectile_arc(t: np.ndarray, x: np.ndarray, y: np.ndarray, visible: np.ndarray,
                   radius: float | None = None) -> Arc | str:
    """The first flight of a tracked ball (radius in px, if known, sets the airborne margin), or a string
    saying why none was resolved."""
    t, x, y = (np.asarray(a, float) for a in (t, x, y))
    vis = np.asarray(visible, bool) & np.isfinite(x) & np.isfinite(y)
    if vis.sum() < 8:
        return "ball not tracked"
    first = np.flatnonzero(vis)[:3]
    y0, x0 = float(np.median(y[first])), float(np.median(x[first]))
    lift = max(LIFT_PX, 0.2 * radius) if radius else LIFT_PX
    air = vis & (y < y0 - lift)
    idx = np.flatnonzero(air)
    if len(idx) < 5:
        return "ball never left the launch height"
    start = int(idx[0])
    stop = start
    while stop + 1 < len(t) and (air[stop + 1] or (not vis[stop + 1] and stop + 2 < len(t) and air[stop + 2])):
        stop += 1
    stop, hit = _landing(y, vis, air, start, stop)
    sel = np.zeros(len(t), bool)
    sel[start:stop + 1] = True
    sel &= air
    if sel.sum() < 5:
        return "flight too short to resolve"
    ts, xs, ys = t[sel], x[sel], y[sel]
    gross = gross_errors(ts, xs, ys)
    if (~gross).sum() < 5:
        return "flight too short to resolve"
    ts, xs, ys = ts[~gross], xs[~gross], ys[~gross]
    direction = 1.0 if xs[-1] >= x0 else -1.0
    yx = np.polyfit(xs, ys, 2)
    yt = np.polyfit(ts, ys, 2)
    xt = np.polyfit(ts, xs, 1)
    if yx[0] <= 0 or yt[0] <= 0:
        return "flight does not curve downwards"
    rms = float(np.sqrt(np.mean((np.polyval(yx, xs) - ys) ** 2)))
    apex_x = -yx[1] / (2 * yx[0])
    apex = (float(apex_x), float(np.polyval(yx, apex_x)))
    roots = np.roots(yx - np.array([0, 0, y0]))
    roots = sorted(float(r.real) for r in roots if abs(r.imag) < 1e-9)
    troots = np.roots(yt - np.array([0, 0, y0]))
    troots = sorted(float(r.real) for r in troots if abs(r.imag) < 1e-9)
    if len(roots) < 2 or len(troots) < 2:
        return "flight never rises above the launch height in the fit"
    x_launch, x_far = (roots[0], roots[1]) if direction > 0 else (roots[1], roots[0])
    t_launch, t_far = troots
    later = np.flatnonzero(vis[stop + 1:])
    landed = hit or bool(len(later) and not air[stop + 1 + later[0]])  # next sighting is back at launch level
    apex_seen = bool(xs.min() < apex_x < xs.max())
    vy0 = float(np.polyval(np.polyder(yt), t_launch))
    speed = float(math.hypot(xt[0], vy0))
    return Arc(launch_y=y0, t=ts, x=xs, y=ys, yx=yx, yt=yt, xt=xt, x_launch=x_launch,
               x_land=x_far if landed else None, t_launch=t_launch, t_land=t_far if landed else None,
               apex=apex, apex_seen=apex_seen, rms=rms, speed=speed,
               notes={"x0": x0, "samples": len(ts), "gross_errors": [float(v) for v in t[sel][gross]]})


def gross_errors(t: np.ndarray, x: np.ndarray, y: np.ndarray, rounds: int = 10) -> np.ndarray:
    """``[n]`` bool: flight samples whose centroid is off the flight's ``x(t)`` line and ``y(t)`` parabola by
    more than the bulk of the samples explains: a motion-blurred ball whose faint half segmentation lost
    (3-6 px high, one sample here and there, or a run of them over the floor before landing), a ball
    merged with its launch rail.

    Tukey biweights (cut-off :data:`TUKEY` robust sigmas of each axis' residuals, the median absolute
    deviation, and at least :data:`CENTROID_PX`) reweight the two fits, started from least trimmed squares
    (:func:`_lts`), until they settle; a sample that ends with weight 0 is a gross error. The scale comes
    from the residuals themselves, so a path that bends everywhere (a violation, not a tracking slip)
    keeps its samples: only outliers of the bulk go. The measurement lists them (``gross_errors``).
    """
    t, x, y = (np.asarray(a, float) for a in (t, x, y))
    if len(t) < 6:
        return np.zeros(len(t), bool)
    fits = [_lts(t, x, 1), _lts(t, y, 2)]
    w = np.ones(len(t))
    for _ in range(rounds):
        z = np.zeros(len(t))
        keep = w > 0
        for i, (v, deg) in enumerate(((x, 1), (y, 2))):
            r = v - np.polyval(fits[i], t)
            mad = float(np.median(np.abs(r[keep] - np.median(r[keep]))))
            z = np.maximum(z, np.abs(r) / max(TUKEY * noise.MAD_TO_STD * mad, CENTROID_PX))
        new = np.where(z < 1, (1 - z * z) ** 2, 0.0)
        if (new > 0).sum() < 6 or np.allclose(new, w, atol=1e-4):
            break
        w = new
        fits = [np.polyfit(t[w > 0], v[w > 0], deg, w=np.sqrt(w[w > 0])) for v, deg in ((x, 1), (y, 2))]
    return w == 0


def _lts(t: np.ndarray, v: np.ndarray, deg: int, steps: int = 20) -> np.ndarray:
    """Least-trimmed-squares polynomial ``v(t)``: the fit whose ``h = (n + deg + 2) // 2`` smallest squared
    residuals sum least (Rousseeuw's high-breakdown fit, by concentration steps from the full fit and from
    each run of ``h`` consecutive samples), so a run of biased samples at one end of the flight cannot
    pull the start of :func:`gross_errors` as least squares does."""
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


def _landing(y: np.ndarray, vis: np.ndarray, air: np.ndarray, start: int, stop: int) -> tuple[int, bool]:
    """``(last flight sample, landed)`` of the airborne run ``start..stop``: after the apex, the first
    sample whose fall slows by more than noise explains (second difference of ``y`` below minus
    :func:`lawful.perceive.noise.curvature_threshold` of the track's own scatter; a free fall only ever
    speeds up) ends the flight before it. A ball rolling on after touching down, its blurred centroid a
    few px above its resting one, is not still flying."""
    run = np.arange(start, stop + 1)
    run = run[air[run]]
    apex = int(run[np.argmin(y[run])])
    thr = noise.curvature_threshold(noise.sigma(np.where(vis, y, np.nan)), floor=LIFT_PX)
    for k in range(apex + 2, stop + 1):
        if vis[k] and vis[k - 1] and vis[k - 2] and y[k] - 2 * y[k - 1] + y[k - 2] < -thr:
            return k - 1, True
    return stop, False


def excess_rms(arc: Arc, sigma_x: float, sigma_y: float) -> float:
    """RMS distance (px) of ``arc``'s samples from its ``y(x)`` parabola beyond the centroid noise.

    Distances are the vertical residuals over ``sqrt(1 + y'(x)²)``; a fit of 3 parameters to ``n``
    samples with noise ``σ⊥`` across the path leaves ``Σ d² ≈ Σ σ⊥² (n - 3) / n``, which is removed:
    ``sqrt(max(0, mean(d²) - mean(σ⊥²) (n - 3) / n))``. NaN noise counts as 0.
    """
    fp = np.polyval(np.polyder(arc.yx), arc.x)
    d2 = (arc.y - np.polyval(arc.yx, arc.x)) ** 2 / (1.0 + fp * fp)
    sx, sy = (v if math.isfinite(v) else 0.0 for v in (sigma_x, sigma_y))
    s2 = (fp * fp * sx * sx + sy * sy) / (1.0 + fp * fp)
    n = len(d2)
    return float(math.sqrt(max(0.0, float(np.mean(d2)) - float(np.mean(s2)) * max(n - 3, 0) / n)))


def flight_noise(tracks: Tracks, oid: str, arc: Arc, frame: tuple[int, int]) -> noise.TrackNoise:
    """Centroid noise of ``arc``'s samples (the flight's own: a blurred ball jitters more than a resting one),
    or of the whole track's steady samples where the flight has too few consecutive samples to tell."""
    tr = tracks[oid]
    flight = np.isin(tracks.t, arc.t)
    nz = noise.TrackNoise(*(noise.sigma(np.where(flight, v, np.nan)) for v in (tr.x, tr.y)))
    return nz if math.isfinite(nz.sigma) else noise.track_noise(tr, steady_visible(tr, frame))


def complementary_range_metric(R30: float, R60: float) -> MetricScore:
    """M1: e1 = R30/R60 - 1, s1 = q(e1; 0.15)."""
    e1 = R30 / R60 - 1.0
    return MetricScore.measured(q(e1, 0.15), e1)


def complementary_fit_metric(u30: float, u60: float, v30: float, v60: float) -> MetricScore:
    """M2: G(q(u30; 0.30), q(u60; 0.30), q(e_v; 0.20)), u = fit RMS / diameter, e_v = |v30/v60 - 1|."""
    e_v = abs(v30 / v60 - 1.0)
    s2 = geometric_mean([q(u30, 0.30), q(u60, 0.30), q(e_v, 0.20)])
    return MetricScore.measured(s2, e_v, u30=u30, u60=u60)


class ComplementaryAngleThrows(WmleTask):
    name = "complementary_angle_throws"
    label = "P3"
    family = FAMILIES[0]
    level = "M"
    required_objects = ("ball_30", "ball_60")
    required_events = ("launch", "landing")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        r = float(rng.uniform(12.0, 14.0))
        ground_y = float(rng.uniform(322.0, 336.0))
        xa = float(rng.uniform(45.0, 70.0))
        xb = xa + float(rng.uniform(44.0, 52.0))
        R = float(rng.uniform(400.0, min(470.0, 600.0 - xb)))
        v = float(rng.uniform(7.5, 9.0))
        ppm = R / (v * v * math.sin(math.radians(60)) / G)
        hold = float(rng.uniform(0.2, 0.3))
        t60 = 2 * v * math.sin(math.radians(60)) / G
        colors = contrasting_colors(seed, 2)
        y0 = ground_y - r
        duration = round(hold + t60 + 0.45, 4)
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view of a flat floor. Two identical balls sit side by side at the left, each on "
                    "its own launcher: the first aims 30 degrees above the floor, the second 60 degrees. Both "
                    "are fired at the same moment with the same speed, fly in separate lanes and land back on "
                    "the floor, where they stop. The camera does not move and time runs at a steady rate."),
            objects=[ObjectSpec(id="ball_30", shape="sphere", color=colors[0], box=sphere_box(xa, y0, r),
                                known={"angle_deg": 30.0}),
                     ObjectSpec(id="ball_60", shape="sphere", color=colors[1], box=sphere_box(xb, y0, r),
                                known={"angle_deg": 60.0})],
            assumptions=["identical balls", "equal launch speeds", "launch angles 30 and 60 degrees",
                         "landing at launch height", "negligible air resistance", "fixed side view, uniform time"],
            criteria=["M1: equal ranges R30 = R60", "M2: parabolic paths and equal launch speeds"],
            known={"g": G, "speed_m_s": v, "px_per_m": ppm, "ground_y": ground_y, "radius_px": r,
                   "x30": xa, "x60": xb, "range_px": R, "hold_s": hold, "colors": [list(c) for c in colors],
                   "style_seed": seed, "anti_gravity_factor_60": 1.3,
                   "anti_note": "in the twin the 60-degree ball falls with 1.3 g: its range is R/1.3 (e1 = 0.3)"},
        )
        tt = frame_times(case)
        (x30, y30), (x60, y60) = self._xy(case, tt, "true")
        case.truth = GroundTruth(
            tracks={"ball_30": [(float(a), float(b), float(c)) for a, b, c in zip(tt, x30, y30)],
                    "ball_60": [(float(a), float(b), float(c)) for a, b, c in zip(tt, x60, y60)]},
            events={"launch": hold, "landing_30": hold + t60 / math.sqrt(3), "landing_60": hold + t60},
            quantities={"range_px": R, "e1": 0.0},
        )
        return case, next(self.render(case))

    def _xy(self, case: Case, t: np.ndarray, law: Law):
        k = case.known
        g = k["g"] * k["px_per_m"]
        v = k["speed_m_s"] * k["px_per_m"]
        y0 = k["ground_y"] - k["radius_px"]
        out = []
        for x0, ang in ((k["x30"], 30.0), (k["x60"], 60.0)):
            gg = g * (k["anti_gravity_factor_60"] if (law == "anti" and ang == 60.0) else 1.0)
            a = math.radians(ang)
            T = 2 * v * math.sin(a) / gg
            s = np.clip(t - k["hold_s"], 0.0, T)
            out.append((x0 + v * math.cos(a) * s, y0 - (v * math.sin(a) * s - 0.5 * gg * s * s)))
        return out

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        r, y0 = k["radius_px"], k["ground_y"] - k["radius_px"]
        for x0, ang in ((k["x30"], 30.0), (k["x60"], 60.0)):  # painted launch-direction guides
            a = math.radians(ang)
            scene.marker_line((x0 + 1.8 * r * math.cos(a), y0 - 1.8 * r * math.sin(a)),
                              (x0 + 3.4 * r * math.cos(a), y0 - 3.4 * r * math.sin(a)), width=2)
        cols = [tuple(c) for c in k["colors"]]
        t = frame_times(case)
        (x30, y30), (x60, y60) = self._xy(case, t, law)
        for i in range(len(t)):
            yield scene.frame([Sphere(float(x30[i]), float(y30[i]), r, cols[0]),
                               Sphere(float(x60[i]), float(y60[i]), r, cols[1])])

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        idx = np.arange(len(tracks))
        for oid, tag in (("ball_30", "30"), ("ball_60", "60")):
            tr = tracks[oid]
            arc = projectile_arc(tracks.t, tr.x, tr.y, steady_visible(tr, (case.width, case.height)),
                                 radius=0.25 * float(tr.width_px[0] + tr.height_px[0] + 2))
            if isinstance(arc, str):
                m.notes[f"unresolved_{tag}"] = arc
                continue
            m.events.append(event(oid, "launch", float(np.interp(arc.t_launch, tracks.t, idx)), tracks))
            if arc.t_land is not None:
                m.events.append(event(oid, "landing", float(np.interp(arc.t_land, tracks.t, idx)), tracks))
            diameter = float(np.nanmean([tr.width_px[0], tr.height_px[0]])) + 1.0
            m.set(f"range_{tag}_px", arc.range, "ball did not come back to its launch height")
            nz = flight_noise(tracks, oid, arc, (case.width, case.height))
            m.set(f"fit_rms_{tag}_diam", excess_rms(arc, nz.sigma_x, nz.sigma_y) / diameter)
            m.set(f"fit_rms_raw_{tag}_diam", arc.rms / diameter)
            m.set(f"speed_{tag}_px_s", arc.speed)
            m.notes[f"gross_errors_{tag}"] = arc.notes["gross_errors"]
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        R30, R60 = m.get("range_30_px"), m.get("range_60_px")
        if R30 is not None and R60 is not None and R60 > 0:
            m1 = complementary_range_metric(R30, R60)
        else:
            m1 = MetricScore.operational_zero(self._why(m, "range"))
        vals = [m.get(k) for k in ("fit_rms_30_diam", "fit_rms_60_diam", "speed_30_px_s", "speed_60_px_s")]
        if all(v is not None for v in vals) and vals[3] > 0:
            m2 = complementary_fit_metric(*vals)
        else:
            m2 = MetricScore.operational_zero(self._why(m, "flight"))
        return {"M1": m1, "M2": m2}

    @staticmethod
    def _why(m: Measurement, what: str) -> str:
        reasons = [f"{k[-2:]}°: {v}" for k, v in m.notes.items() if k.startswith("unresolved_")]
        reasons += [f"{k}: {v}" for k, v in m.missing.items()]
        return f"{what} not resolved ({'; '.join(reasons) or 'unknown'})"
