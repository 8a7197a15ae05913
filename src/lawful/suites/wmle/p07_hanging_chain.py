"""P7 — static shape of a hanging chain: released from a kinked shape, it settles into a catenary.

The chain carries seven coloured marker beads at equal spacing along its length (the two end beads
sit on the supports and share a colour, so colour-dependent centroid bias cancels in M2); each bead
is a tracked object, so the settled contour is read from ordinary tracks (no frame access needed).
Settled contour = the median bead positions over the last ``SETTLED_FRACTION`` of the clip; a bead out
of view then (a moving camera took it out of the picture) counts at its last sightings if they were at
rest (an end bead on its support), else the video is unresolved.

M1 fits ``y = c - a cosh((x - x0) / a)`` (image y down) to the settled beads: e1 = RMSE / measured sag.
M2 is the support-height difference over the horizontal span, from the end beads.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from scipy.optimize import brentq, least_squares

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, frame_times, sphere_box,
    steady_visible, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.draw import Scene, Sphere

N_BEADS = 7
BEAD_R = 8.0
LINK_R = 2.6
LINK_COLOR = (62, 62, 66)
SETTLED_FRACTION = 0.15
SETTLED_MOTION_PX = 1.0
RELEASE_MOTION_PX = 3.0  # a bead moving this far from its first-frame place shows the release
BEADS = tuple(f"bead_{i}" for i in range(N_BEADS))


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


def catenary_fit_metric(rmse: float, sag: float) -> MetricScore:
    """M1: e1 = RMSE / measured sag, s1 = q(e1; 0.10)."""
    if not sag > 0:
        return MetricScore.operational_zero("no measurable sag")
    e1 = rmse / sag
    return MetricScore.measured(q(e1, 0.10), e1)


def support_level_metric(dh: float, span: float) -> MetricScore:
    """M2: e2 = support-height difference / horizontal span, s2 = q(e2; 0.02)."""
    if not span > 0:
        return MetricScore.operational_zero("no horizontal span")
    e2 = abs(dh) / span
    return MetricScore.measured(q(e2, 0.02), e2)


def _catenary_param(span: float, length: float) -> float:
    """Catenary parameter ``a`` (px) of a chain of ``length`` between level supports ``span`` apart."""
    return brentq(lambda a: 2 * a * math.sinh(span / (2 * a)) - length, span / 200, span * 100)


def _arc_points(points: np.ndarray, fractions: np.ndarray) -> np.ndarray:
    """Points at the given fractions of arc length along a polyline ``[m, 2]``."""
    seg = np.hypot(*np.diff(points, axis=0).T)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    s = np.asarray(fractions) * cum[-1]
    return np.stack([np.interp(s, cum, points[:, 0]), np.interp(s, cum, points[:, 1])], axis=1)


class HangingChain(WmleTask):
    name = "hanging_chain"
    label = "P7"
    family = FAMILIES[1]
    level = "E"
    required_objects = BEADS
    required_events = ("release", "settled")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        # whole-pixel supports: both end beads rasterise alike
        span = float(round(rng.uniform(360.0, 430.0)))
        xa = float(round(rng.uniform(95.0, 545.0 - span)))
        ys = float(round(rng.uniform(55.0, 75.0)))
        ratio = float(rng.uniform(1.2, 1.35))
        length = span * ratio
        a = _catenary_param(span, length)
        sag = a * (math.cosh(span / (2 * a)) - 1)
        pin_frac = float(rng.uniform(0.22, 0.36))
        colors = object_colors(seed, N_BEADS - 1)
        colors.append(colors[0])  # both end beads alike: equal colour-dependent centroid bias on the supports
        ground_y = 346.0
        known = {"supports": [[xa, ys], [xa + span, ys]], "span_px": span, "chain_length_px": length,
                 "catenary_a_px": a, "sag_px": sag, "pin_fraction": pin_frac, "ground_y": ground_y,
                 "settle_period_s": float(rng.uniform(0.9, 1.3)), "colors": [list(c) for c in colors],
                 "style_seed": seed, "anti_low_point_fraction": 0.3,
                 "anti_note": "the twin settles into a skewed curve whose lowest point sits at 30% of the span"}
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=4.0,
            prompt=("Fixed side view. A flexible chain of small dark links with seven coloured marker beads hangs "
                    "between two hooks at the same height. At the start a thin pin holds one point of the chain "
                    "up and to the side, so the chain forms a bent, lopsided shape; the pin is pulled away, the "
                    "chain swings and settles to rest under gravity. The camera does not move."),
            objects=[],
            assumptions=["uniform flexible inextensible chain", "supports at equal heights", "chain released from rest",
                     "comes to rest before the end", "fixed side view"],
            criteria=["M1: settled contour is a catenary (fit RMSE / sag)", "M2: support heights equal"],
            known=known,
        )
        start = self._shape(case, np.zeros(1), "true")[0]
        case.objects = [ObjectSpec(id=b, shape="sphere", color=colors[i], box=sphere_box(*start[i], BEAD_R))
                        for i, b in enumerate(BEADS)]
        _, _, _, rmse = fit_catenary(*self._settled(case, "anti")[1].T)
        case.known["anti_e1"] = rmse / self._sag_of(self._settled(case, "anti")[1])
        tt = frame_times(case)
        beads = self._shape(case, tt, "true")
        case.truth = GroundTruth(
            tracks={b: [(float(t), float(p[0]), float(p[1])) for t, p in zip(tt, beads[:, i])]
                    for i, b in enumerate(BEADS)},
            events={"settled": float(self._settle_time(case))},
            quantities={"sag_px": sag, "catenary_a_px": a, "e1": 0.0, "e2": 0.0},
        )
        return case, next(self.render(case))

    # --- shapes ---------------------------------------------------------------------------------
    def _settled(self, case: Case, law: Law, n: int = 241) -> tuple[np.ndarray, np.ndarray]:
        """Settled curve ``[n, 2]`` and bead positions ``[N_BEADS, 2]``, both at equal arc-length spacing."""
        k = case.known
        (xa, ys), _ = k["supports"]
        a, span = k["catenary_a_px"], k["span_px"]
        u = np.linspace(0.0, 1.0, 4001)
        depth = a * math.cosh(span / (2 * a)) - a * np.cosh((u - 0.5) * span / a)  # below the supports, px
        if law == "anti":  # the same curve warped sideways: its low point moves to the anti fraction
            f = k["anti_low_point_fraction"]
            u = np.where(u <= 0.5, 2 * f * u, f + (1 - f) * 2 * (u - 0.5))
            for _ in range(20):  # keep the chain's length
                seg = np.hypot(np.diff(u) * span, np.diff(depth)).sum()
                if abs(seg - k["chain_length_px"]) < 1e-3:
                    break
                depth = depth * (1 + (k["chain_length_px"] - seg) / max(seg - span, 1e-6) * 0.5)
        pts = np.stack([xa + u * span, ys + depth], axis=1)
        curve = _arc_points(pts, np.linspace(0, 1, n))
        beads = _arc_points(pts, np.linspace(0, 1, N_BEADS))
        return curve, beads

    def _initial(self, case: Case, n: int) -> np.ndarray:
        """The pinned, kinked start shape: two straight pieces from the supports to the pin."""
        k = case.known
        (xa, ys), (xb, _) = k["supports"]
        px = xa + k["pin_fraction"] * k["span_px"]
        L = k["chain_length_px"]
        # pin depth d so that the two straight pieces have the chain's length
        d = brentq(lambda d: math.hypot(px - xa, d) + math.hypot(xb - px, d) - L, 0.0, L)
        pts = np.array([[xa, ys], [px, ys + d], [xb, ys]])
        return _arc_points(pts, np.linspace(0, 1, n))

    def _settle_time(self, case: Case) -> float:
        return 0.55 * case.duration

    def _shape(self, case: Case, times: np.ndarray, law: Law, n: int = N_BEADS) -> np.ndarray:
        """Chain points ``[T, n, 2]`` at equal arc-length spacing over time (damped swing into the settled shape)."""
        curve, _ = self._settled(case, law, n)
        start = self._initial(case, n)
        dev = np.abs(start - curve).max()
        gamma = math.log(max(dev, 1.0) / 0.05) / self._settle_time(case)
        w = 2 * math.pi / case.known["settle_period_s"]
        amp = np.exp(-gamma * np.asarray(times)) * np.cos(w * np.asarray(times))
        return curve[None] + amp[:, None, None] * (start - curve)[None]

    @staticmethod
    def _sag_of(beads: np.ndarray) -> float:
        return float(np.max(beads[:, 1]) - 0.5 * (beads[0, 1] + beads[-1, 1]))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        for x, y in k["supports"]:
            scene.platform(x - 5, y - 4, x + 5, k["ground_y"])  # posts
            scene.support(x - 16, x + 16, y - 6, thickness=5)
        cols = [tuple(c) for c in k["colors"]]
        n_links = int(k["chain_length_px"] / (1.9 * LINK_R))
        times = frame_times(case)
        links = self._shape(case, times, law, n_links)
        beads = self._shape(case, times, law, N_BEADS)
        # links stop short of the marker beads so no dark pixels touch a bead's outline
        frac = np.linspace(0, 1, n_links)
        gap = (BEAD_R + LINK_R + 1.5) / k["chain_length_px"]
        keep = np.min(np.abs(frac[:, None] - np.linspace(0, 1, N_BEADS)[None, :]), axis=1) > gap
        for i in range(len(times)):
            items = [Sphere(float(x), float(y), LINK_R, LINK_COLOR, specular=0.2) for x, y in links[i][keep]]
            items += [Sphere(float(x), float(y), BEAD_R, cols[j]) for j, (x, y) in enumerate(beads[i])]
            yield scene.frame(items)

    # --- measurement ----------------------------------------------------------------------------
    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        n = len(tracks)
        w0 = int(math.floor(n * (1 - SETTLED_FRACTION)))
        pts, spread, release = [], 0.0, None
        for b in BEADS:
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

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        rmse, sag = m.get("catenary_rmse_px"), m.get("sag_px")
        m1 = catenary_fit_metric(rmse, sag) if rmse is not None else MetricScore.operational_zero("no sag to fit")
        return {"M1": m1, "M2": support_level_metric(m.get("support_dh_px"), m.get("span_px"))}
