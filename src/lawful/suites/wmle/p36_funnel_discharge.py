"""P36 — discharge of water and sand from conical funnels (WMLE appendix B.8).

Two identical glass cone funnels, one filled with water and one with dry sand to the same height, are opened
together. Water leaves by Torricelli's law, ``Q = a √(2 g h)`` (``Q ∝ h^½``); sand by Beverloo's law, at a rate
that does not depend on the fill height (``Q ∝ h⁰``).

Readings: one ``level`` probe per funnel over the inside of its cone (``case.known["funnels"][m]["region"]``,
a polygon inset from the walls), giving the fill surface's row; the fill height above the cone's apex (the
outlet) is ``h = y_apex − row``. With ``V = (π/3) tan²α h³`` a discharge ``Q = −dV/dt ∝ h^β`` integrates to
``h(t) = h0 (1 − t/T)^{1/(3−β)}``; :func:`lawful.world.flows.fit_drain_exponent` fits ``(h0, T, β)`` to the
readings (the integrated law, never a derivative of the readings) with β's standard error from the fit (the
readings' noise: the larger of the level reader's stated sigma and the series' local-polynomial residual
sigma, :func:`lawful.perceive.noise.sigma`).

- M1 ``e1 = |β_water − 0.5| + |β_sand|``, ``s1 = q(e1; 1.0)`` exactly as the seed scores it. The evidence adds
  each β's standard error and ``e1_beyond_noise`` (each term beyond ``k`` standard errors, ``k`` for
  :data:`lawful.perceive.noise.FALSE_ALARM`: the part of the error the readings' noise cannot explain),
  which does not change the score. A level that was read in fewer than :data:`MIN_SAMPLES`
  samples, or fell by no more than ``k σ``, leaves β unmeasured: an operational zero. M2 is not defined.

Twin: the water drains at a constant volume rate, like the sand (``β_water = 0``). C: the share of samples
where each funnel's level was read.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive import noise
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._granular import discharge_measurement
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, \
    style_of
from lawful.tracks import Tracks
from lawful.world import flows
from lawful.world import liquids as lq
from lawful.world.scenes.granular import BETA_LAW, INSET, MATERIALS, funnels_frames



def beta_residual(b_water: float | None, se_water: float | None, b_sand: float | None, se_sand: float | None
                  ) -> MetricScore:
    """M1: ``e1 = |β_w − ½| + |β_s|``; ``s1 = q(e1; 1.0)`` (what lies beyond ``k`` standard errors is evidence)."""
    if b_water is None or b_sand is None:
        return MetricScore.operational_zero("a discharge exponent was not measured")
    k = noise.k_for()
    dw, ds = abs(b_water - 0.5), abs(b_sand)
    excess = max(0.0, dw - k * (se_water or 0.0)) + max(0.0, ds - k * (se_sand or 0.0))
    return MetricScore.measured(q(dw + ds, 1.0), dw + ds, beta_water=b_water, beta_sand=b_sand,
                                se_water=se_water, se_sand=se_sand, e1_beyond_noise=excess)


class FunnelDischarge(WmleTask):
    """Water and dry sand draining from identical cone funnels: Torricelli (β = ½) against Beverloo (β = 0)."""

    name = "funnel_discharge"
    label = "P36"
    family = FAMILIES[7]
    level = "H"
    required_objects = ()
    required_known = {
        "funnels": "{water, sand}: {apex: [x, y] (px) the cone's apex at the outlet, tan_half_angle, "
                   "region: polygon [[x, y], …] (px) inside the cone clear of its walls, from above the first "
                   "fill surface to above the outlet}"}

    def probes(self, case: Case) -> list[Probe]:
        return [Probe(f"funnel_{m}", "level", tuple(tuple(float(v) for v in p)
                                                    for p in case.known["funnels"][m]["region"]))
                for m in MATERIALS]

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        tan_a = math.tan(math.radians(float(rng.uniform(27.0, 33.0))))
        H = float(rng.uniform(188.0, 205.0))  # apex to rim
        y_rim = float(rng.uniform(40.0, 52.0))
        y_apex = y_rim + H
        half = H * tan_a
        sep = half + float(rng.uniform(12.0, 20.0))
        xc = 320.0 + float(rng.uniform(-8, 8))
        water_left = bool(rng.integers(2))
        xs = {"water": xc - sep if water_left else xc + sep, "sand": xc + sep if water_left else xc - sep}
        h0 = H * float(rng.uniform(0.72, 0.78))
        duration = 5.0
        ends = {m: float(rng.uniform(0.32, 0.45)) for m in MATERIALS}  # h_end / h0 at the last frame
        t_empty = {m: duration / (1.0 - ends[m] ** (3.0 - BETA_LAW[m])) for m in MATERIALS}
        anti_t_empty = duration / (1.0 - ends["water"] ** 3.0)
        y_low = y_apex - (4.0 + INSET / math.cos(math.atan(tan_a))) / tan_a - 4.0
        tint = lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))]
        glass = tuple(int(v) for v in np.clip(np.asarray(lq.GLASS_TINT) + rng.uniform(-15, 15), 0, 255))
        sand = tuple(int(v) for v in np.clip(np.asarray(flows.SAND) + rng.uniform(-15, 15, 3), 0, 255))
        funnels = {m: {"apex": [xs[m], y_apex], "rim_y": y_rim, "tan_half_angle": tan_a,
                       "region": flows.funnel_polygon(xs[m], y_apex, y_rim, tan_a, INSET, y_low),
                       "t_empty_s": t_empty[m]} for m in MATERIALS}
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view of two identical clear glass cone funnels held side by side over a tray, "
                    f"each with the same small outlet. The {'left' if water_left else 'right'} one is filled with "
                    "coloured water and the other with dry sand, both to the same height. At the start both outlets "
                    "are opened together and each funnel empties through its outlet in a thin stream; the filling "
                    "surfaces sink. The camera stays still and nothing is added."),
            objects=[],
            assumptions=["identical cones with their apex at the outlet, equal outlets and initial heights",
                         "water: inviscid outflow (Torricelli); sand: dry, free-flowing grains (Beverloo)",
                         "fixed side view, uniform time"],
            criteria=["M1: e1 = |β_water − 0.5| + |β_sand| from fits of Q ∝ h^β to the integrated cone drain law "
                      "(q, a = 1.0)"],
            known={"funnels": funnels, "ground_y": 338.0, "h0_px": h0, "stem_px": 26.0, "outlet_px": 5.0,
                   "liquid": list(tint), "glass": list(glass), "sand": list(sand), "anti_t_empty_s": anti_t_empty,
                   "style_seed": seed,
                   "anti_note": "twin: the water drains at a constant volume rate like the sand (β_water = 0)"})
        case.truth = GroundTruth(quantities={"beta_water": 0.5, "beta_sand": 0.0, "e1": 0.0, "anti_beta_water": 0.0,
                                             "anti_e1": 0.5})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from funnels_frames(case.known, case.width, case.height, style_of(case), frame_times(case), BETA_LAW,
                                  law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return discharge_measurement(case, tracks, MATERIALS)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        return self.readable(tracks, {mat: f"funnel_{mat}" for mat in MATERIALS})

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        return {"M1": beta_residual(m.get("beta_water"), m.get("beta_water_se"), m.get("beta_sand"),
                                    m.get("beta_sand_se"))}
