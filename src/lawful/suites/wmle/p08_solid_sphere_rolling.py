"""P8 — pure rolling of a marked solid sphere: the centre advances R per radian of rotation (v = ωR).

The ball (drawn end-on with a radial marker stripe) is released on an incline and rolls onto the level
floor. Extraction: centre path length ``s`` from the smoothed tracked centre, rotation ``φ`` from the
unwrapped marker angle (``TrackingPlan(angles=True)``), radius as the case states it for the first frame
(else the centre's height above the floor line, else the mask box). M1 is the robust (Theil–Sen) slope of ``s`` against ``φ``; M2 the median
relative slip ``|v - ωR| / v`` over moving frames, with ``v`` and ``ω`` taken over one marker revolution.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from scipy.stats import theilslopes

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import events as ev
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law, TrackingPlan
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, frame_times, sphere_box, steady_visible,
    style_of,
)
from lawful.tracks import Tracks
from lawful.world.draw import Cylinder, Scene
from lawful.world.physics import rolling_distance

G = 9.81
SOLID_SPHERE = 0.4  # I / (m R^2)
MIN_SPEED_PX_FRAME = 1.0
SMOOTH = 5
REVOLUTIONS = 1  # rates are averaged over this many marker revolutions
# dark saturated bodies: the marker stripe is drawn light on them, the contrast the marker angle needs
DARK_BODIES = ((40, 90, 225), (135, 45, 210))


def rolling_slope_metric(b: float, r: float) -> MetricScore:
    """M1: e1 = |b| / r - 1 for the fitted slope b of centre displacement against rotation; s1 = q(e1; 0.25)."""
    e1 = abs(b) / r - 1.0
    return MetricScore.measured(q(e1, 0.25), e1)


def rolling_slip_metric(v: np.ndarray, omega: np.ndarray, r: float, eps: float = 1e-6) -> MetricScore:
    """M2: e2 = median |v - ω r| / max(v, ε) over the given moving samples; s2 = q(e2; 0.35)."""
    v, omega = np.abs(np.asarray(v, float)), np.abs(np.asarray(omega, float))
    if len(v) == 0:
        return MetricScore.operational_zero("no moving frames with a visible marker")
    e2 = float(np.median(np.abs(v - omega * r) / np.maximum(v, eps)))
    return MetricScore.measured(q(e2, 0.35), e2)


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


class SolidSphereRolling(WmleTask):
    name = "solid_sphere_rolling"
    label = "P8"
    family = FAMILIES[1]
    level = "M"
    required_objects = ("ball",)
    required_events = ("release",)
    plan = TrackingPlan(angles=True)

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        theta = math.radians(float(rng.uniform(12.0, 18.0)))
        r = float(rng.uniform(20.0, 24.0))
        ground_y = float(rng.uniform(316.0, 332.0))
        corner_x = float(rng.uniform(300.0, 340.0))
        incline_len = float(rng.uniform(250.0, 290.0))  # surface length from the ball's contact to the corner
        ppm = float(rng.uniform(90.0, 110.0))
        hold = float(rng.uniform(0.15, 0.3))
        color = DARK_BODIES[seed % len(DARK_BODIES)]
        d = (math.cos(theta), math.sin(theta))
        n = (math.sin(theta), -math.cos(theta))
        contact = (corner_x - incline_len * d[0], ground_y - incline_len * d[1])
        start = (contact[0] + r * n[0], contact[1] + r * n[1])
        known = {"g": G, "incline_deg": math.degrees(theta), "radius_px": r, "ground_y": ground_y,
                 "corner": [corner_x, ground_y], "incline_len_px": incline_len, "px_per_m": ppm, "hold_s": hold,
                 "start": list(start), "color": list(color), "style_seed": seed, "anti_spin_factor": 0.55,
                 "anti_note": "the twin turns only 0.55 rad per radian of rolling (it skids): b = r / 0.55"}
        # time at which the ball would leave the frame: end the clip a little before
        a = G * ppm * math.sin(theta) / (1 + SOLID_SPHERE)
        t1 = math.sqrt(2 * incline_len / a)
        v1 = a * t1
        flat = (WIDTH - 2 * r - 8) - corner_x
        duration = round(min(4.5, hold + t1 + flat / v1), 4)
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view of a gentle wooden incline that runs into a level floor. A solid ball with a "
                    "painted stripe from its centre to its rim rests at the top of the incline. It is let go "
                    "without a push and rolls without slipping down the incline and on along the floor, the stripe "
                    "turning with it. The camera does not move and time runs at a steady rate."),
            objects=[ObjectSpec(id="ball", shape="sphere", color=color, box=sphere_box(start[0], start[1], r),
                                known={"radius_px": r})],
            assumptions=["solid uniform sphere", "released from rest", "rolls without slipping",
                         "ball keeps contact with the surface", "fixed side view, uniform time"],
            criteria=["M1: centre displacement per radian of rotation equals the radius",
                      "M2: v = ωR frame by frame"],
            known=known,
        )
        tt = frame_times(case)
        xy, _ = self._state(case, tt, "true")
        case.truth = GroundTruth(
            tracks={"ball": [(float(t), float(p[0]), float(p[1])) for t, p in zip(tt, xy)]},
            events={"release": hold, "corner": hold + t1},
            quantities={"radius_px": r, "e1": 0.0, "e2": 0.0},
        )
        return case, next(self.render(case))

    def _incline_travel(self, case: Case) -> float:
        """Centre travel (px) down the incline before the ball meets the floor (a concave corner)."""
        k = case.known
        th = math.radians(k["incline_deg"])
        return (k["corner"][1] - k["radius_px"] - k["start"][1]) / math.sin(th)

    def _path(self, case: Case, ell: np.ndarray) -> np.ndarray:
        """Centre position ``[T, 2]`` after rolling a centre-path length ``ell`` (px): down the incline's
        offset line, then along the floor's (the contact switches at the concave corner)."""
        k = case.known
        th = math.radians(k["incline_deg"])
        sx, sy = k["start"]
        L = self._incline_travel(case)
        ell = np.asarray(ell, float)
        on_incline = np.minimum(ell, L)
        x = sx + on_incline * math.cos(th) + np.maximum(ell - L, 0.0)
        y = sy + on_incline * math.sin(th)
        return np.stack([x, y], axis=-1)

    def _state(self, case: Case, t: np.ndarray, law: Law) -> tuple[np.ndarray, np.ndarray]:
        k = case.known
        th = math.radians(k["incline_deg"])
        L = self._incline_travel(case)
        s = np.maximum(np.asarray(t) - k["hold_s"], 0.0)
        a = k["g"] * k["px_per_m"] * math.sin(th) / (1 + SOLID_SPHERE)
        t1 = math.sqrt(2 * L / a)
        ell = np.where(s <= t1, rolling_distance(s, th, SOLID_SPHERE, k["g"]) * k["px_per_m"],
                       L + a * t1 * (s - t1))
        spin = k["anti_spin_factor"] if law == "anti" else 1.0
        return self._path(case, ell), spin * ell / k["radius_px"]

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        style = style_of(case)
        th = math.radians(k["incline_deg"])
        cx, cy = k["corner"]
        x0 = max(-5.0, cx - (k["incline_len_px"] + 60) * math.cos(th))
        y0 = cy - (cx - x0) * math.tan(th)
        scene = Scene(case.width, case.height, style).ground(cy)
        scene.ramp([(x0, y0), (cx, cy), (x0, cy)])
        color = tuple(k["color"])
        xy, phi = self._state(case, frame_times(case), law)
        for (x, y), a in zip(xy, phi):
            yield scene.frame([Cylinder(float(x), float(y), k["radius_px"], color, angle=float(a))])

    @staticmethod
    def _radius(case: Case, tr, idx: np.ndarray) -> tuple[float, str]:
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

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        tr = tracks["ball"]
        vis = steady_visible(tr, (case.width, case.height)) & np.isfinite(tr.angle)
        idx = np.flatnonzero(vis)
        if len(idx) < 8:
            m.notes["unresolved"] = "ball or its marker not tracked"
            return m
        r, how = self._radius(case, tr, idx)
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
        b = float(theilslopes(s[sel], phi_raw[sel])[0])
        m.set("displacement_per_radian_px", b)
        m.notes["slip"] = {"v": v[sel].round(4).tolist(), "omega": omega[sel].round(6).tolist()}
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        r = m.get("radius_px")
        slip = m.notes["slip"]
        return {"M1": rolling_slope_metric(m.get("displacement_per_radian_px"), r),
                "M2": rolling_slip_metric(np.array(slip["v"]), np.array(slip["omega"]), r)}
