"""P17 — refraction of a laser beam at a still air–water interface (WMLE B.4).

A fixed laser shines a thin beam down through the air onto the flat surface of tinted water in a
glass tank (a frosted panel behind it makes the beam visible). Both the incident and the refracted
beam show. Snell's law with n = 1.333: ``sin θi / sin θr = 1.333``, angles from the surface normal, and
the refracted beam starts where the incident one meets the surface.

Readings (:mod:`lawful.perceive.regions`, regions from ``case.known``): the surface row (``level`` in a
column band clear of the beams), the incident beam (``line`` in the air on the laser's side of the
normal) and the refracted beam (``line`` in the water).

- M1 ``e1 = sin θi / sin θr − 1.333`` (median over frames), ``s1 = q(e1; 0.12)``; angles from the
  normal to the measured (horizontal) surface.
- M2 ``e2 = |p_i − p_r| / W_c``: where the two beams' lines cross the surface row, over the calibrated
  inner width of the tank ``known["container_width_px"]`` (median over frames); ``s2 = q(e2; 0.025)``.

Both need ≥ ``MIN_FRAMES`` frames with all three readings, else operational zeros. Twin: the beam
bends as if the index were ``anti_n`` (1.0, straight on, or 2.0), still from the contact point.
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
from lawful.suites.wmle import _beams
from lawful.suites.wmle._beams import refraction_frame, refraction_measurement  # noqa: F401  (tests use both)
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, style_of
from lawful.tracks import Tracks
from lawful.world import optics
from lawful.world.scenes.light import refraction_tank_frames

N_WATER = 1.333
MIN_FRAMES = 3
GAP = 6.0  # px kept clear of the surface by the beam regions
TINTS = {"blue": (60, 130, 205), "teal": (35, 160, 155), "amber": (205, 150, 55)}


def snell_metric(ratios) -> MetricScore:
    """M1: ``e1 = sin θi / sin θr − 1.333`` (median over frames); ``s1 = q(e1; 0.12)``."""
    x = np.asarray([v for v in ratios if math.isfinite(v)], float)
    if len(x) < MIN_FRAMES:
        return MetricScore.operational_zero(f"both beams and the surface read in {len(x)} frames (< {MIN_FRAMES})")
    e1 = float(np.median(x)) - N_WATER
    return MetricScore.measured(q(e1, 0.12), e1, ratio=float(np.median(x)), frames=float(len(x)))


def contact_gap_metric(gaps_px, width_px: float) -> MetricScore:
    """M2: ``e2 = median |p_i − p_r| / W_c``; ``s2 = q(e2; 0.025)``."""
    x = np.asarray([v for v in gaps_px if math.isfinite(v)], float)
    if len(x) < MIN_FRAMES or not width_px > 0:
        return MetricScore.operational_zero("surface crossings not resolved")
    e2 = float(np.median(x)) / width_px
    return MetricScore.measured(q(e2, 0.025), e2, gap_px=float(np.median(x)))


class Refraction(WmleTask):
    """A laser beam refracted at the surface of water in a tank."""

    name = "refraction"
    label = "P17"
    family = FAMILIES[3]
    level = "M"
    required_objects = ()
    required_known = {
        "beam_color": "RGB of the laser beam; optional beam_color_water: its RGB seen in the water (default beam_color)",
        "incident_region": "polygon [[x, y], …] (px) in the air holding the incident beam only",
        "refracted_region": "polygon [[x, y], …] (px) in the water holding the refracted beam only",
        "surface_region": "box [x0, y0, x1, y1] (px): a column band across the surface, clear of the beams",
        "container_width_px": "the tank's calibrated inner width (px)",
    }

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        xL, xR = float(rng.uniform(70.0, 105.0)), float(rng.uniform(535.0, 570.0))
        yT, yB = float(rng.uniform(100.0, 125.0)), float(rng.uniform(318.0, 332.0))
        ys = float(rng.uniform(178.0, 205.0))
        side = float(rng.choice([-1.0, 1.0]))  # +1: the laser is on the left, the beam travels right
        th_i = float(rng.uniform(35.0, 58.0))
        xc = 320.0 + side * float(rng.uniform(10.0, 60.0))
        src_y = float(rng.uniform(28.0, 55.0))
        src = np.array([xc - side * (ys - src_y) * math.tan(math.radians(th_i)), src_y])
        tint_name = ("blue", "teal", "amber")[int(rng.integers(3))]
        beam_name, beam = _beams.beam_color(seed, avoid=("violet",) if tint_name == "blue" else ())
        anti_n = float(rng.choice([1.0, 2.0]))
        band_x = (xL + 10.0, xL + 50.0) if side > 0 else (xR - 50.0, xR - 10.0)
        c = np.array([xc, ys])
        up, along = np.array([0.0, -1.0]), np.array([-side, 0.0])  # towards the light; towards the laser
        known = {
            "tank": [xL, yT, xR, yB], "surface_y": ys, "contact": c.tolist(), "source": src.tolist(),
            "laser_side": side, "theta_i_deg": th_i, "tint_name": tint_name, "tint": list(TINTS[tint_name]),
            "beam_name": beam_name, "beam_color": list(beam), "style_seed": seed, "anti_n": anti_n,
            "container_width_px": xR - xL,
            "surface_region": [band_x[0], ys - 35.0, band_x[1], ys + 35.0],
            "incident_region": _beams.surface_quad(c, along, up, 2.0, 190, GAP, 140, WIDTH, HEIGHT),
            "refracted_region": _beams.surface_quad(c, -along, up, -20.0, min(200.0, (xR - xc if side > 0 else
                                                    xc - xL) - 5), -(yB - 5 - ys), -GAP, WIDTH, HEIGHT),
            "anti_note": "twin: the beam bends as for refractive index anti_n (1.0 or 2.0)",
        }
        th_r = math.degrees(optics.snell(math.radians(th_i), 1.0, N_WATER))
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=2.0,
            prompt=(f"A glass tank, half full of still {tint_name}-tinted water, stands in front of a pale frosted "
                    f"panel. A laser pointer held above the tank on the {'left' if side > 0 else 'right'} shines "
                    f"a thin {beam_name} beam down onto the water surface, about {th_i:.0f} degrees from the "
                    "vertical. The beam is visible in the air and inside the water, where it continues "
                    "downwards towards the bottom. Nothing moves; the camera is fixed and level."),
            objects=[],
            assumptions=["clear water of refractive index 1.333 under air", "a flat, still surface",
                         "a fixed laser and camera; the beam lies in the image plane"],
            criteria=["M1: sin θi / sin θr − 1.333 (q, a = 0.12)",
                      "M2: both beams meet the surface at one point, gap / tank width (q, a = 0.025)"],
            known=known,
        )
        case.truth = GroundTruth(quantities={"theta_i_deg": th_i, "theta_r_deg": th_r, "e1": 0.0, "e2": 0.0,
                                             "anti_e1": anti_n - N_WATER})
        return case, next(self.render(case))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        n = N_WATER if law == "true" else case.known["anti_n"]
        yield from refraction_tank_frames(case.known, case.width, case.height, style_of(case), case.n_frames, n)

    def probes(self, case: Case) -> list[Probe]:
        k = case.known
        beam = tuple(int(v) for v in k["beam_color"])
        return [Probe("surface", "level", tuple(float(v) for v in k["surface_region"])),
                Probe("incident", "line", _beams.polygon(case, "incident_region"), color=beam, thin=_beams.THIN),
                Probe("refracted", "line", _beams.polygon(case, "refracted_region"),
                      color=tuple(int(v) for v in k.get("beam_color_water", beam)), thin=_beams.THIN)]

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return refraction_measurement(tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        return {"M1": snell_metric(m.notes.get("ratio", [])),
                "M2": contact_gap_metric(m.notes.get("gap_px", []), float(case.known["container_width_px"]))}

    def extra_consistency(self, case: Case, tracks: Tracks, measurement: Measurement) -> dict[str, float]:
        return self.readable(tracks, ("surface", "incident", "refracted"))
