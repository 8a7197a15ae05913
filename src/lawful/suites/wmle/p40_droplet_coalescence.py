"""P40 — volume conservation when two droplets coalesce (WMLE appendix B.9).

Two unequal free drops of dyed water drift together (a slowed-down close-up), touch, merge through a
growing neck and relax, after a damped shape oscillation, into one round drop of radius
``r_f = (r1³ + r2³)^{1/3}``.

- M1 ``e1 = |r_f³ / (r1³ + r2³) − 1|``, ``s1 = q(e1; 0.10)``;
- M2 ``e2 = |R_f − (R1 + R2) / 2|`` with roundness ``R = 1 − RMS_radial / r_fit``, ``s2 = q(e2; 0.10)``.

Reading: one region probe (``blobs``, the two largest components of the drop colour, left to right) over
the drops' stage, stated by the case (``known["stage"]``); a second component within the flicker of the largest's
outline area is a sliver of it, not a drop (:func:`~lawful.suites.wmle._bubbles.drops_read`). Pre-contact
frames: both drops read and at least ``CONTACT_GUARD`` frames before the first single-drop frame (a blurred gap
can bridge a frame early). Settled frames: single-component frames after the last one whose equivalent radius departs
from the final median by more than ``k·σ_r`` (``σ_r`` the radius series' measured noise, at least the last quarter's
own scatter about its straight line, an outline that wobbles more slowly than the noise fit follows, and at least
that of a digitised outline's area: its ~``2πr`` boundary pixels each in or out with a uniform error of variance 1/12,
so ``σ_A = √(2πr/12)`` px² and ``σ_r = σ_A / (2πr) = 1/√(24πr)`` px — a still drop's area flickers by that
much through a codec; ``k`` for the false-alarm rate ``noise.FALSE_ALARM``); at least ``MIN_FRAMES`` of each, else an operational zero.
Radii: the equivalent-area radius ``√(A/π)`` of each component, median over the frames (a circle fit
through boundary-pixel centres reads about half a pixel small, 1.5 % of volume at 30 px — 15 % of M1's
scale). Roundness: the probe's circle-fit radial RMS less the outline's sampling error in quadrature,
``√(max(0, rms² − GRID_VAR))``, median over the frames. A colour mask's outline follows the video's colour
planes, which common (4:2:0) video samples on a 2-px grid: a perfect circle then reads a radial RMS of up to
``2/√12`` px (measured through H.264: 0.51–0.53 px at radii 24–47 px; 1/√12 on lossless frames). Roughness
below that (1 % of a 50-px drop, a tenth of M2's scale) is not resolved and counts as round.

Twin: the merged drop keeps the projected *area* (``r_f = √(r1² + r2²)``) instead of the volume.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._bubbles import coalescence_measurement
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world import physics_more as pm
from lawful.world.appearance import object_colors
from lawful.world.scenes.bubbles import coalescence_frames

def volume_ratio(r1: float | None, r2: float | None, rf: float | None) -> MetricScore:
    """M1: ``e1 = |r_f³ / (r1³ + r2³) − 1|``, ``s1 = q(e1; 0.10)``."""
    if None in (r1, r2, rf) or not (r1 > 0 and r2 > 0 and rf > 0):
        return MetricScore.operational_zero("drop radii not resolved before contact and after settling")
    e1 = abs(rf**3 / (r1**3 + r2**3) - 1.0)
    return MetricScore.measured(q(e1, 0.10), e1, r1=r1, r2=r2, rf=rf)


def roundness_change(R1: float | None, R2: float | None, Rf: float | None) -> MetricScore:
    """M2: ``e2 = |R_f − (R1 + R2) / 2|``, ``s2 = q(e2; 0.10)``."""
    if None in (R1, R2, Rf):
        return MetricScore.operational_zero("roundness not resolved before contact and after settling")
    e2 = abs(Rf - 0.5 * (R1 + R2))
    return MetricScore.measured(q(e2, 0.10), e2, R1=R1, R2=R2, Rf=Rf)


class DropletCoalescence(WmleTask):
    """Two unequal drops approach, merge and settle into one."""

    name = "droplet_coalescence"
    label = "P40"
    family = FAMILIES[8]
    level = "M"
    required_events = ("contact", "settled")
    required_known = {"stage": "[x0, y0, x1, y1] (px) a box holding both drops throughout (and nothing else of their "
                               "colour)", "color": "RGB of the drops' liquid"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        r_big = float(rng.uniform(48.0, 56.0))
        r_small = r_big * float(rng.uniform(0.55, 0.8))
        big_left = bool(rng.integers(2))
        cy = float(rng.uniform(165.0, 195.0))
        gap = float(rng.uniform(36.0, 56.0))
        speed = float(rng.uniform(34.0, 46.0))  # closing speed, px/s (slowed down)
        xc = 320.0 + float(rng.uniform(-30, 30))  # the centre of mass (at rest)
        m1, m2 = r_big**3, r_small**3
        d0 = r_big + r_small + gap
        x_big = xc - d0 * m2 / (m1 + m2) * (1 if big_left else -1)
        x_small = xc + d0 * m1 / (m1 + m2) * (1 if big_left else -1)
        t_contact = gap / speed
        t_merge = float(rng.uniform(0.35, 0.5))
        rf = pm.merged_radius(r_big, r_small)
        rf_anti = math.hypot(r_big, r_small)
        # the l = 2 mode of a 1.2-mm drop of a water–glycerol mix (σ = 0.065 N/m, ρ = 1190, ν = 3e-5 m²/s),
        # shown slowed down by `slow`
        R_m = 1.2e-3
        slow = float(rng.uniform(35.0, 45.0))
        omega = pm.rayleigh_frequency(R_m, 0.065, 1190.0) / slow
        tau = pm.shape_mode_decay(R_m, 3e-5) * slow
        eps0 = float(rng.uniform(0.1, 0.16))
        duration = round(t_contact + t_merge + 6 * tau + 0.8, 3)
        color = object_colors(seed, 1)[0]
        x0 = min(x_big, x_small) - r_big - 40
        x1 = max(x_big, x_small) + r_big + 40
        stage = [max(2.0, x0), max(2.0, cy - 1.45 * rf - 20), min(WIDTH - 3.0, x1), min(HEIGHT - 3.0, cy + 1.45 * rf + 20)]
        prompt = (
            "Slowed-down close-up of two drops of a dyed water–glycerol mix floating freely in mid-air side by side, a large one "
            f"and a smaller one about {r_small / r_big:.1f} times its width. They drift towards each other, touch, "
            "join through a widening neck and wobble briefly before settling into one round drop. The camera does "
            "not move and the slow motion is steady.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=[],
            assumptions=["incompressible liquid, no evaporation or splashing", "free drops (no support, no gravity "
                         "sag at this scale)", "fixed camera, one image scale"],
            criteria=["M1: r_f³ = r1³ + r2³ from fitted radii (q, a = 0.10)",
                      "M2: final roundness equals the drops' mean roundness (q, a = 0.10)"],
            known={"stage": stage, "color": list(color), "drops": {
                "big": {"x": x_big, "r": r_big}, "small": {"x": x_small, "r": r_small}},
                "y": cy, "x_com": xc, "t_contact": t_contact, "t_merge": t_merge, "r_final": rf,
                "anti_r_final": rf_anti, "slow_motion": slow, "omega": omega, "tau": tau, "eps0": eps0, "style_seed": int(seed),
                "anti_note": "twin: the merged drop keeps the projected area (r_f = √(r1² + r2²)), not the volume"})
        case.truth = GroundTruth(events={"contact": t_contact, "merged": t_contact + t_merge},
                                 quantities={"r1": r_big, "r2": r_small, "r_final": rf, "e1": 0.0, "e2": 0.0,
                                             "anti_e1": rf_anti**3 / (m1 + m2) - 1.0})
        return case, next(iter(self.render(case)))

    def probes(self, case: Case) -> list[Probe]:
        return [Probe("drops", "blobs", tuple(case.known["stage"]), color=tuple(case.known["color"]), count=2)]

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        return coalescence_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return coalescence_measurement(tracks)

    def extra_consistency(self, case: Case, tracks: Tracks, measurement: Measurement) -> dict[str, float]:
        reg = tracks.regions.get("drops") if tracks.regions else None
        return {"drops_readable": reg.readable if reg is not None else 0.0}

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        return {"M1": volume_ratio(m.get("r1_px"), m.get("r2_px"), m.get("rf_px")),
                "M2": roundness_change(m.get("R1"), m.get("R2"), m.get("Rf"))}
