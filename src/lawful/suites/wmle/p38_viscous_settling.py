"""P38 — terminal settling of unequal spheres in glycerin: Stokes speed ∝ r² (WMLE appendix B.9).

Two spheres of one material (radii ratio ≥ 1.1) are released together just below the surface of a
tall glycerin tank and settle at constant terminal speeds ``v = 2 Δρ g r² / (9 μ)`` after a short
transient; the larger one reaches the floor first.

- M1 ``e1 = |(v_large / v_small) / (r_large / r_small)² − 1|``, ``s1 = q(e1; 1.0)``; M2 not defined.

Speeds: each sphere's longest *qualified* terminal-speed window — consecutive steady sightings (gaps
of at most ``GAP`` samples) that a straight line ``y = y0 + v t`` fits with every residual within
``k·σ`` (``σ`` the track's measured noise, ``k`` for the false-alarm rate ``noise.FALSE_ALARM`` shared
over the window's samples), at least ``MIN_WINDOW`` samples and ``0.25 s`` long, whose speed is nonzero
(beyond ``k`` standard errors); the earliest window wins ties. Radii: the first-frame radius the
case states (``objects[].known.radius_px``; as P8, image geometry the case states comes first: the
mask loses the shaded rim, up to a pixel on an 8-px ball), else the mask box ``(w + h + 2) / 4``.
A radius ratio below 1.1 or a sphere without a window is an operational zero.

Twin: the small sphere settles at ``v_large · r_small / r_large`` (speed ∝ r, not r²).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._liquids import terminal_speeds_measurement, terminal_window  # noqa: F401  (tests)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world import matter
from lawful.world import physics_more as pm
from lawful.world.appearance import OBJECT_PALETTE, object_colors
from lawful.world.scenes.vessels import settling_y, viscous_settling_frames

IDS = ("small", "large")
G = 9.81
MIN_RADIUS_RATIO = 1.1
TINT = 0.18  # share of the glycerin's colour in a sphere seen through it


def settling_ratio(v_large: float | None, v_small: float | None, r_large: float | None,
                   r_small: float | None) -> MetricScore:
    """M1: ``e1 = |(v_l / v_s) / (r_l / r_s)² − 1|``, ``s1 = q(e1; 1.0)``; radius ratio ≥ 1.1 required."""
    if None in (v_large, v_small, r_large, r_small) or not (v_small > 0 and r_small > 0 and r_large > 0):
        return MetricScore.operational_zero("a terminal speed or a radius was not resolved")
    rr = r_large / r_small
    if rr < MIN_RADIUS_RATIO:
        return MetricScore.operational_zero(f"radius ratio {rr:.3f} < {MIN_RADIUS_RATIO}", radius_ratio=rr)
    e1 = abs((v_large / v_small) / rr**2 - 1.0)
    return MetricScore.measured(q(e1, 1.0), e1, speed_ratio=v_large / v_small, radius_ratio=rr)


class ViscousSettling(WmleTask):
    """Two unequal spheres of one material settling side by side through glycerin."""

    name = "viscous_settling"
    label = "P38"
    family = FAMILIES[8]
    level = "E"
    required_objects = IDS
    required_events = ("terminal_small", "terminal_large")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        r_s_px = float(rng.uniform(7.0, 9.5))
        ratio = float(rng.uniform(1.3, 1.7))
        r_s_m = float(rng.uniform(1.5, 2.2)) * 1e-3
        ppm = r_s_px / r_s_m
        rho_s, rho_f = float(rng.uniform(2400.0, 2600.0)), 1260.0
        v_l_px = float(rng.uniform(85.0, 110.0))
        mu = 2 * (rho_s - rho_f) * G * (ratio * r_s_m) ** 2 / (9 * v_l_px / ppm)  # glycerin's viscosity
        tank = (float(rng.uniform(150.0, 190.0)), 12.0, 0.0, 338.0)
        tank = (tank[0], tank[1], WIDTH - tank[0] + float(rng.uniform(-20, 20)), tank[3])
        fill_y = 30.0
        cx = 0.5 * (tank[0] + tank[2])
        gap = float(rng.uniform(70.0, 100.0))
        large_left = bool(rng.integers(2))
        xs = (cx - gap, cx + gap) if large_left else (cx + gap, cx - gap)  # (large, small)
        y0 = fill_y + 26.0
        hold = float(rng.uniform(0.3, 0.5))
        floor = tank[3]
        r_l_px = r_s_px * ratio
        t_large = (floor - r_l_px - y0) / v_l_px
        duration = round(hold + t_large + 0.9, 3)
        palette = object_colors(seed, len(OBJECT_PALETTE))
        base = next(c for c in palette if c not in ((245, 120, 20), (240, 215, 20), (220, 40, 40)))
        color = matter.tinted(base, matter.GLYCERIN, TINT)
        balls = {"large": {"x": xs[0], "r_px": r_l_px, "r_m": ratio * r_s_m},
                 "small": {"x": xs[1], "r_px": r_s_px, "r_m": r_s_m}}
        for b in balls.values():
            b["v_px"] = pm.stokes_speed(b["r_m"], rho_s, rho_f, mu, G) * ppm
            b["tau_s"] = pm.stokes_relaxation(b["r_m"], rho_s, rho_f, mu)
        balls["small"]["anti_v_px"] = balls["large"]["v_px"] / ratio
        balls["large"]["anti_v_px"] = balls["large"]["v_px"]
        prompt = (
            "Fixed side view of a tall glass tank filled with clear amber glycerin. Two solid glass beads of the "
            f"same kind, one about {ratio:.1f} times wider than the other, are held side by side just below the "
            "surface and let go together. They sink slowly through the thick liquid, each soon settling to a "
            "steady speed, until the larger bead reaches the floor of the tank. The camera does not move and time "
            "runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt,
            objects=[ObjectSpec(id=o, shape="sphere", color=color, box=sphere_box(balls[o]["x"], y0, balls[o]["r_px"]),
                                known={"radius_px": round(balls[o]["r_px"], 4), "radius_m": balls[o]["r_m"]})
                     for o in IDS],
            assumptions=["same material, densities ρ_s > ρ_f", "creeping flow (Reynolds number ≪ 1)",
                         "released together from rest", "walls far enough not to slow the beads",
                         "fixed side view, uniform time"],
            criteria=["M1: (v_large / v_small) = (r_large / r_small)² (q, a = 1.0)"],
            known={"g": G, "px_per_m": ppm, "rho_sphere": rho_s, "rho_fluid": rho_f, "viscosity_pa_s": mu,
                   "tank": list(tank), "fill_y": fill_y, "start_y": y0, "hold_s": hold, "balls": balls,
                   "color": list(color), "style_seed": int(seed),
                   "anti_note": "twin: the small bead sinks at v_large·r_small/r_large (speed ∝ r)"})
        t = frame_times(case)
        case.truth = GroundTruth(
            tracks={o: [(float(a), balls[o]["x"], float(b)) for a, b in zip(t, settling_y(case.known, o, t, "true"))]
                    for o in IDS},
            quantities={"v_small_px_s": balls["small"]["v_px"], "v_large_px_s": balls["large"]["v_px"],
                        "radius_ratio": ratio, "e1": 0.0, "anti_e1": 1.0 - 1.0 / ratio})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from viscous_settling_frames(case.known, case.width, case.height, style_of(case), case.seed, IDS,
                                           frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return terminal_speeds_measurement(case, tracks, IDS)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        return {"M1": settling_ratio(m.get("v_large_px_s"), m.get("v_small_px_s"), m.get("radius_large_px"),
                                     m.get("radius_small_px"))}
