"""P20 — refraction and total internal reflection of four beams at a water surface (WMLE B.4).

Four submerged lasers of different colours each aim at a fixed point of a still water surface from
below and turn slowly, so each beam's incidence in the water sweeps across the critical angle
(48.6° for n = 1.333): below it the beam leaves into the air, bent away from the normal; beyond it
the beam is totally reflected back into the water. One water, one index: every refraction gives
the same ``n = sin θ_air / sin θ_water``, and a total reflection at ``θ_water`` says ``n ≥ 1 / sin θ_water``.

Readings per beam ``k`` (colour probes, regions in ``case.known["beams"]``): ``in_k`` (water, the
laser's side of the normal at its entry point), ``out_k`` (air, the far side) and ``back_k`` (water, the
far side: the totally reflected beam), and the surface row (a ``level`` band). A frame of beam ``k``
is a refraction when ``in_k`` and ``out_k`` are read, a total reflection when ``in_k`` and ``back_k`` are
read and ``out_k`` is not; refractions flatter than ``MAX_AIR_DEG``, unweighable or off their beam's trend are
left out, and each ``n`` carries its standard error ``sd`` (:mod:`lawful.suites.wmle._refraction`).

- M1 ``e1 = std(n) / mean(n)`` over every refraction of every beam, ``s1 = q(e1; 0.05)``, each reading weighted by
  ``1 / sd²`` (a compression-spoilt line, or a steep beam whose ``n`` rests on a small ``sin θ_water``, counts
  little). The variance that the readings add is taken out (:func:`_noise_var`: within a beam, its scatter about a
  local quadratic or about one quadratic over the clip, whichever is larger, since a stale compression block
  spoils several frames alike; between beams, each mean's error, at least its lines' own), and a spread no larger
  than ``k`` times what that noise leaves by chance is not claimed (``e1_floor``; operational zero where it reaches
  the tolerance: such beams cannot be read well enough). A total reflection enters as its
  bound ``1 / sin θ_water`` only when the bound exceeds the refractions' mean by more than ``k·σ`` (a reflection the
  refractions' index forbids). No refraction read: operational zero. M2 is not defined.

Twin: each beam bends and reflects as for its own index (``anti_n``, spread 0.88–1.24 × 1.333), so the
inferred indices disagree.
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
from lawful.suites.wmle._beams import THIN
from lawful.suites.wmle._refraction import (  # noqa: F401  (tests use beam_frame, _crossing_sd)
    _crossing_sd, _noise_var, _weights, beam_frame, index_measurement,
)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world import optics
from lawful.world.scenes.light import TIR_TANK, tir_frames, tir_layout

N_WATER = 1.333
MIN_REFRACTIONS = 5
TOL_E1 = 0.05  # the seed's tolerance a of M1
MAX_AIR_DEG = 72.0  # a refracted beam flatter than this hugs the surface: its region's edge cuts it askew


def index_metric(n_by_beam: dict[str, list], bounds: list[float],
                 sd_by_beam: dict[str, list] | None = None) -> MetricScore:
    """M1 from per-beam index series (time order, NaN where no refraction), total-reflection bounds and,
    optionally, each reading's standard error from its lines' fits (``sd_by_beam``, same shape): the readings are
    then weighted by ``1 / sd²`` (a frame whose lines say little about ``n``, e.g. a steep beam with
    ``cot θ_water`` large, counts little), and the spread the readings add is taken out (:func:`_noise_var`)."""
    series = {k: np.asarray(v, float) for k, v in n_by_beam.items()}
    weights = {k: _weights(v, (sd_by_beam or {}).get(k)) for k, v in series.items()}
    use = {k: np.isfinite(v) & (np.nan_to_num(weights[k], nan=1.0) > 0) for k, v in series.items()}
    vals = np.concatenate([v[use[k]] for k, v in series.items()]) if series else np.array([])
    if len(vals) < MIN_REFRACTIONS:
        return MetricScore.operational_zero(f"{len(vals)} refractions read (< {MIN_REFRACTIONS})")
    w = np.concatenate([np.nan_to_num(weights[k][use[k]], nan=1.0) for k in series])
    sig2, chance = _noise_var(series, weights)
    mean = float(np.average(vals, weights=w))
    forbidden = [b for b in bounds if math.isfinite(b) and b > mean + noise.k_for() * math.sqrt(sig2)]
    allv, allw = np.r_[vals, forbidden], np.r_[w, np.full(len(forbidden), float(np.mean(w)))]
    m = float(np.average(allv, weights=allw))
    excess = float(np.average((allv - m) ** 2, weights=allw)) - sig2
    floor = math.sqrt(noise.k_for() * chance) / m
    info = dict(n_mean=mean, n_noise=math.sqrt(sig2), refractions=float(len(vals)),
                forbidden_reflections=float(len(forbidden)), e1_floor=floor)
    if floor >= TOL_E1:  # the readings could hide a spread the size of the tolerance: no verdict
        return MetricScore.operational_zero(f"beams too noisy: a spread up to e1 = {floor:.3f} is noise", **info)
    e1 = math.sqrt(excess) / m if excess > noise.k_for() * chance else 0.0
    return MetricScore.measured(q(e1, TOL_E1), e1, **info)


class TotalInternalReflection(WmleTask):
    """Four submerged lasers sweeping across the critical angle at fixed points of a water surface."""

    name = "total_internal_reflection"
    label = "P20"
    family = FAMILIES[3]
    level = "H"
    required_objects = ()
    required_known = {
        "beams": "[{color: RGB, in: polygon, out: polygon, back: polygon}] per beam (px): the water on its "
                 "laser's side of the normal at its entry point, the air and the water on the far side; "
                 "optional color_water: the beam's RGB seen in the water (default color)",
        "surface_region": "box [x0, y0, x1, y1] (px): a column band across the surface, clear of the beams",
    }

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        ys, beams = tir_layout(rng, WIDTH, HEIGHT)
        anti = (N_WATER * np.array([0.88, 1.0, 1.12, 1.24])[rng.permutation(4)]).tolist()
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=3.0,
            prompt=("A long glass tank of still, faintly blue water stands in front of a pale panel. Four small "
                    "waterproof lasers - red, green, violet and amber - sit under the water, each aimed up at its "
                    "own spot on the surface. Over a few seconds each laser slowly tilts about that spot, so its "
                    "beam meets the surface more and more steeply or more and more obliquely. At small slants a "
                    "beam passes out into the air, bent away from the vertical; at large slants it no longer "
                    "leaves the water and is reflected back down from the surface like from a mirror. The beams "
                    "are visible in both water and air; the camera is fixed and level."),
            objects=[],
            assumptions=["one water (n = 1.333) under air", "a flat, still surface",
                         "the lasers turn about fixed entry points; the beams lie in the image plane"],
            criteria=["M1: refractive indices inferred from every beam and frame agree, std / mean (q, a = 0.05); "
                      "a total reflection bounds n from below"],
            known={"surface_y": ys, "beams": beams, "style_seed": seed, "anti_n": anti,
                   "surface_region": [TIR_TANK[0] + 12.0, ys - 35.0, TIR_TANK[0] + 50.0, ys + 35.0],
                   "anti_note": "twin: each beam bends and reflects as for its own index anti_n[k]"},
        )
        case.truth = GroundTruth(quantities={"n": N_WATER, "e1": 0.0,
                                             "critical_deg": math.degrees(optics.critical_angle(N_WATER, 1.0))})
        return case, next(self.render(case))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        indices = [N_WATER] * 4 if law == "true" else case.known["anti_n"]
        yield from tir_frames(case.known, case.width, case.height, style_of(case), frame_times(case), case.duration,
                              indices)

    def probes(self, case: Case) -> list[Probe]:
        out = [Probe("surface", "level", tuple(float(v) for v in case.known["surface_region"]))]
        for j, b in enumerate(case.known["beams"]):
            air = tuple(int(v) for v in b["color"])
            water = tuple(int(v) for v in b.get("color_water", air))
            out += [Probe(f"{part}_{j}", "line", [tuple(map(float, p)) for p in b[part]], color=c, thin=THIN)
                    for part, c in (("in", water), ("out", air), ("back", water))]
        return out

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return index_measurement(case, tracks, MAX_AIR_DEG)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        nan = {key: {k: [math.nan if v is None else v for v in s] for k, s in m.notes.get(key, {}).items()}
               for key in ("n", "n_sd")}
        return {"M1": index_metric(nan["n"], m.notes.get("tir_bounds", []), nan["n_sd"])}

    def extra_consistency(self, case: Case, tracks: Tracks, measurement: Measurement) -> dict[str, float]:
        return self.readable(tracks, ["surface"] + [f"in_{j}" for j in range(len(case.known["beams"]))])
