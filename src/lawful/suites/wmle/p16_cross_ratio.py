"""P16 — cross-ratio of four markers on a rigid rod sliding between a wall and the floor (WMLE B.4).

A rod leans on a wall, its top end sliding down the wall and its foot out along the floor. Four
markers are fixed on it. A camera is a projective map, so the cross-ratio of the markers' image
positions along the rod's image line is the same in every frame, whatever the perspective.

- M1 ``e1 = CV(χ)`` over frames, ``χ = (t3 − t1)(t4 − t2) / ((t3 − t2)(t4 − t1))`` with ``t1 < … < t4``
  the markers' positions along their fitted image line; ``s1 = q(e1; 0.10)``. The variance that the
  markers' measured localisation noise adds to χ is taken out (:func:`cross_ratio_constancy`).
- M2 ``e2 = mean over frames of RMS_collinearity / marker span``, the markers' perpendicular RMS about
  that line over ``t4 − t1``; ``s2 = q(e2; 0.05)``.

Frames count where all four markers are steadily seen and on their local trajectories (an
outlier test at the tracks' own measured noise); both metrics need ≥ ``MIN_FRAMES`` such frames,
else operational zeros.

The render draws the scene on a plane and views it through a mild perspective homography
(``known["homography"]``), so image spacings change as the rod turns while χ stays fixed. Twin: the
third marker creeps along the rod as it slides (``anti_drift``, a share of the rod's length, sized so
χ ends 22–30 % higher), so the spacing is not rigid and χ drifts; the markers stay on the rod (M2 unchanged).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import cv2
import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import cv, q
from lawful.suites.base import Law
from lawful.suites.wmle._optics import cross_ratio_measurement, frame_cross_ratio  # noqa: F401  (tests use it)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, contrasting_colors, frame_times, sphere_box,
    style_of,
)
from lawful.tracks import Tracks
from lawful.world import optics
from lawful.world.scenes.light import MARKERS as IDS
from lawful.world.scenes.light import marker_drift as _drift_for
from lawful.world.scenes.light import rod_markers, sliding_rod_frames

MIN_FRAMES = 5


def cross_ratio_constancy(chis) -> MetricScore:
    """M1: ``e1 = CV(χ)`` over frames; ``s1 = q(e1; 0.10)``.

    ``chis``: χ per sample in time order (NaN where not resolved). The spread that marker localisation
    noise alone adds is removed: ``e1 = √max(var(χ) − σ², 0) / mean(χ)`` with ``σ`` the per-frame noise of
    χ measured from its residuals about a local quadratic (:func:`lawful.perceive.noise.sigma`), so a
    rigid rod reads ``e1 ≈ 0`` at any video quality and a drifting χ (smooth over frames) keeps its CV.
    """
    series = np.asarray(list(chis), float)
    x = series[np.isfinite(series)]
    if len(x) < MIN_FRAMES:
        return MetricScore.operational_zero(f"cross-ratio resolved in {len(x)} frames (< {MIN_FRAMES})")
    sig = noise.sigma(series)
    sig = sig if math.isfinite(sig) else 0.0
    e1 = math.sqrt(max(float(x.var()) - sig * sig, 0.0)) / abs(float(x.mean()))
    return MetricScore.measured(q(e1, 0.10), e1, cv_raw=cv(x), chi_noise=sig, chi_mean=float(x.mean()),
                                frames=float(len(x)))


def collinearity(ratios) -> MetricScore:
    """M2: ``e2 = mean(RMS_collinearity / span)`` over frames; ``s2 = q(e2; 0.05)``."""
    x = np.asarray([r for r in ratios if math.isfinite(r)], float)
    if len(x) < MIN_FRAMES:
        return MetricScore.operational_zero(f"collinearity resolved in {len(x)} frames (< {MIN_FRAMES})")
    e2 = float(x.mean())
    return MetricScore.measured(q(e2, 0.05), e2)


class CrossRatio(WmleTask):
    """Four markers on a rod sliding down between a wall and the floor."""

    name = "cross_ratio"
    label = "P16"
    family = FAMILIES[3]
    level = "E"
    required_objects = IDS

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        wall_x = float(rng.uniform(70.0, 100.0))
        floor_y = float(rng.uniform(300.0, 318.0))
        L = float(rng.uniform(255.0, 285.0))
        phi0, phi1 = float(rng.uniform(64.0, 72.0)), float(rng.uniform(22.0, 30.0))
        s = [float(rng.uniform(0.06, 0.12)), float(rng.uniform(0.30, 0.40)), float(rng.uniform(0.56, 0.66)),
             float(rng.uniform(0.88, 0.94))]
        drift_id, drift = 3, _drift_for(s, 1.0 + float(rng.uniform(0.22, 0.30)))  # the twin's χ ends 22-30 % up
        hold, slide = float(rng.uniform(0.25, 0.4)), float(rng.uniform(2.6, 3.0))
        k = float(rng.uniform(18.0, 30.0))  # perspective: the top or the bottom edge widens by 2k px
        src = np.float32([[0, 0], [WIDTH - 1, 0], [WIDTH - 1, HEIGHT - 1], [0, HEIGHT - 1]])
        dst = src.copy()
        edge = (0, 1) if rng.integers(2) else (3, 2)
        dst[edge[0], 0] -= k
        dst[edge[1], 0] += k
        H = cv2.getPerspectiveTransform(src, dst).astype(float)
        colors = contrasting_colors(seed, 4, 45.0)
        r = float(rng.uniform(9.0, 10.5))
        duration = round(hold + slide + 0.3, 3)
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("A straight wooden pole leans against a vertical wall, its foot on a flat floor, seen from the "
                    "side by a camera that looks slightly askew at the wall. Four small coloured balls are fixed "
                    "along the pole. After a moment the foot slips: the top end slides down the wall while the "
                    "foot slides away along the floor, the pole staying straight, until it lies much flatter. "
                    "The camera does not move; everything stays in view."),
            objects=[ObjectSpec(id=oid, shape="sphere", color=c, box=(0, 0, 1, 1)) for oid, c in zip(IDS, colors)],
            assumptions=["the pole and the markers' spacing are rigid", "the markers lie on the pole's axis",
                         "a fixed camera (a projective view)"],
            criteria=["M1: cross-ratio of the four markers constant over frames, CV (q, a = 0.10)",
                      "M2: markers collinear, RMS / span (q, a = 0.05)"],
            known={"wall_x": wall_x, "floor_y": floor_y, "rod_px": L, "phi0_deg": phi0, "phi1_deg": phi1,
                   "hold_s": hold, "slide_s": slide, "marker_s": s, "radius_px": r, "homography": H.tolist(),
                   "colors": [list(c) for c in colors], "style_seed": seed, "anti_marker": drift_id,
                   "anti_drift": drift,
                   "anti_note": "twin: one inner marker creeps along the pole by anti_drift of its length"},
        )
        xy = rod_markers(case.known, frame_times(case), "true")
        for j, o in enumerate(case.objects):
            o.box = sphere_box(float(xy[0, j, 0]), float(xy[0, j, 1]), r)
        chi = optics.cross_ratio(s)
        case.truth = GroundTruth(
            tracks={oid: [(float(t), float(a), float(b)) for t, (a, b) in zip(frame_times(case), xy[:, j])]
                    for j, oid in enumerate(IDS)},
            quantities={"chi_world": chi, "e1": 0.0, "e2": 0.0})
        return case, next(self.render(case))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from sliding_rod_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return cross_ratio_measurement(case, tracks, IDS)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        def series(key):
            return [math.nan if v is None else v for v in m.notes.get(key, [])]
        return {"M1": cross_ratio_constancy(series("chi")), "M2": collinearity(series("collinearity"))}
