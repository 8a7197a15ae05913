"""P39 — curvature of the partition between two unequal soap bubbles (WMLE appendix B.9).

Two joined soap bubbles of unequal radii float against a dark, out-of-focus backdrop. Their films meet at 120°, and the
film between them bulges into the larger bubble with ``1/r_p = 1/r_s − 1/r_l`` (the Laplace pressures).

Readings: three ``blobs`` probes (``select="brighter"``: the thin bright films over the dark backdrop), each
over a region stated by the case that holds one film and no other: ``known["films"]["small"]`` /
``["large"]`` a band around the far side of each bubble's outer film (away from the junctions), and
``["partition"]`` a band around the separating film between the junctions (wide enough for a straight or a
reversed film too). The probe's circle fit through all the film strip's pixels (``fit="pixels"``: the
strip's centre line) gives each radius; the partition's radius is signed ``+`` when its centre of curvature
lies on the small bubble's side (it bulges into the large one).

- Per sample where all three films were read: ``E_t = |r_p (1/r_s − 1/r_l) − 1|``.
- M1 ``e1``: the frame-duration-weighted median of ``E_t`` over the intervals (runs of such samples) of at
  least :data:`MIN_FRAMES` frames and :data:`MIN_SECONDS` s; ``s1 = q(e1; 1.0)``. No such interval: an
  operational zero.
- The score is the seed's; the evidence adds ``e1_beyond_noise``, what ``e1`` exceeds ``k σ_E`` by (the part
  of the error the readings' own noise cannot explain): ``σ_E`` the larger of ``E_t``'s per-sample noise (its series'
  local-polynomial residuals, :func:`lawful.perceive.noise.sigma`) and the fit's curvature error carried
  into it, ``median |κ_pred| σ_κ / κ²`` (a still film's error does not average out over samples; through
  CRF-35 video the film's fitted curvature is off by up to ~25 % while ``σ_κ / κ`` reads ~7 %).
- Special case: a resolved nearly straight partition. The partition's curvature ``κ = 1/r_p`` has the
  standard error of a circle fit's curvature over a chord ``L`` with ``N`` outline points of radial scatter
  ``ρ`` (the probe's radial RMS): ``σ_κ = 2 ρ √180 / (L² √N)`` (the quadratic term of a least-squares fit to
  points spread evenly along the chord), ``N ≈ 2 L`` (two edges). When the weighted median curvature is
  within ``k σ_κ`` of 0 (straight) and more than ``k σ_κ`` from the predicted ``1/r_s − 1/r_l`` (the
  prediction excluded), ``s1 = 0`` (the unbounded-error limit), ``k`` for
  :data:`lawful.perceive.noise.FALSE_ALARM`. Otherwise the formula applies. M2 is not defined.

Twin: a straight partition (even seeds) or one bulging into the smaller bubble (odd seeds). C: the share of
samples where each film was read.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive import noise
from lawful.perceive.noise import weighted_median
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._bubbles import FILMS, MIN_FRAMES, MIN_SECONDS, partition_measurement
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, \
    style_of
from lawful.tracks import Tracks
from lawful.world import flows
from lawful.world.scenes.bubbles import double_bubble_frames, film_regions

def partition_residual(E: np.ndarray, w: np.ndarray, kappa: np.ndarray, kappa_pred: np.ndarray,
                       kappa_se: np.ndarray, sigma_E: float = 0.0) -> MetricScore:
    """M1 from the qualified samples' ``E_t``, weights, signed partition curvature, predicted curvature, the
    curvature's standard error and ``E_t``'s measured per-sample noise (see the module docstring)."""
    if len(E) == 0:
        return MetricScore.operational_zero(f"no partition interval of ≥ {MIN_FRAMES} frames and ≥ {MIN_SECONDS} s")
    k = noise.k_for()
    e1 = weighted_median(E, w)
    km, kp = weighted_median(kappa, w), weighted_median(kappa_pred, w)
    band = k * float(np.median(kappa_se))
    if abs(km) <= band < abs(kp - km):
        return MetricScore.measured(0.0, math.inf, reason="a resolved straight partition excludes the prediction",
                                    e1_median=e1, kappa=km, kappa_pred=kp, kappa_band=band)
    # E_t = κ_pred/κ − 1 carries the curvature's error as |κ_pred| σ_κ / κ²
    s_fit = float(np.median(np.abs(kappa_pred) * kappa_se / kappa**2))
    s = max(sigma_E if math.isfinite(sigma_E) else 0.0, s_fit)
    allow = k * s
    return MetricScore.measured(q(e1, 1.0), e1, kappa=km, kappa_pred=kp, kappa_band=band,
                                sigma_E=s, e1_beyond_noise=max(0.0, e1 - allow))


class DoubleBubble(WmleTask):
    """Two joined unequal soap bubbles: the partition film bulges into the larger one, 1/r_p = 1/r_s − 1/r_l."""

    name = "double_bubble"
    label = "P39"
    family = FAMILIES[8]
    level = "M"
    required_objects = ()
    required_known = {
        "films": "{small, large, partition}: polygon [[x, y], …] (px) a band around that film holding no other "
                 "film (small/large: the far side of each bubble's outer film; partition: the separating film "
                 "between the junctions, clear of them), over a backdrop darker than the films",
        "centres": "{small, large}: [x, y] (px) the bubbles' first-frame centres (the partition's side)"}

    def probes(self, case: Case) -> list[Probe]:
        return [Probe(f"film_{f}", "blobs", tuple(tuple(float(v) for v in p) for p in case.known["films"][f]),
                      select="brighter", count=1, fit="pixels") for f in FILMS]

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        r_s = float(rng.uniform(40.0, 52.0))
        r_l = r_s * float(rng.uniform(1.35, 1.8))
        g = flows.double_bubble(r_s, r_l)
        phi = math.radians(float(rng.uniform(-30.0, 30.0))) + (math.pi if rng.integers(2) else 0.0)
        u = np.array([math.cos(phi), math.sin(phi)])  # small → large
        span = r_s + g["d"] + r_l
        cs = np.array([320.0, 180.0 + float(rng.uniform(-12, 12))]) - u * (span / 2 - r_s)
        cl = cs + u * g["d"]
        films = film_regions(cs, r_s, r_l, phi)
        twin = "straight" if seed % 2 == 0 else "reversed"
        duration = 3.0
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Close-up of two soap bubbles stuck together, floating in still air in front of a dark cloth: "
                    f"one is about {r_l / r_s:.1f} times as wide as the other. Their thin, rainbow-tinted films are "
                    "seen edge-on as bright outlines, and a single film separates the two bubbles where they join. "
                    "The pair drifts very gently and nothing pops; the camera holds still."),
            objects=[],
            assumptions=["one soap solution, equal surface tension in every film", "bubbles at rest in still air "
                         "(no flow, negligible gravity at this size)", "the films seen in the plane of the centres"],
            criteria=["M1: partition curvature 1/r_p = 1/r_s − 1/r_l, frame-duration-weighted median of "
                      "|r_p (1/r_s − 1/r_l) − 1| over partition intervals (q, a = 1.0); a resolved straight partition "
                      "that excludes the prediction scores 0"],
            known={"films": films, "centres": {"small": cs.tolist(), "large": cl.tolist()}, "r_small": r_s,
                   "r_large": r_l, "r_partition": g["r_p"], "axis_rad": phi, "bob_px": float(rng.uniform(1.5, 3.0)),
                   "bob_s": float(rng.uniform(1.8, 2.6)), "phase": float(rng.uniform(0, 2 * math.pi)),
                   "twin": twin, "style_seed": seed,
                   "anti_note": f"twin: the partition is {'straight' if twin == 'straight' else 'bulging into the smaller bubble'}"})
        anti = {"anti_s1": 0.0} if twin == "straight" else {"anti_e1": 2.0}  # a straight film's e1 is unbounded
        case.truth = GroundTruth(quantities={"r_small": r_s, "r_large": r_l, "r_partition": g["r_p"], "e1": 0.0,
                                             **anti})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        return double_bubble_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return partition_measurement(case, tracks)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        regs = tracks.regions or {}
        return {f"readable_{f}": (regs[f"film_{f}"].readable if f"film_{f}" in regs else 0.0) for f in FILMS}

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        s = m.notes["series"]
        return {"M1": partition_residual(*(np.asarray(s[k], float) for k in ("E", "w", "kappa", "kappa_pred",
                                                                             "kappa_se")),
                                         sigma_E=m.notes.get("sigma_E", 0.0))}
