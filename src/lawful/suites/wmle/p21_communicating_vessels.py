"""P21 — liquid levels in communicating vessels with unequal arms (WMLE appendix B.5).

A U-tube whose arms differ in width holds a coloured liquid; it starts disturbed (one level higher),
sloshes and settles with nothing added or removed. Hydrostatics puts both free surfaces at one height,
whatever the arms' widths.

Readings: one ``level`` probe per arm (``case.known["arms"]``: a column band inside each arm, clear of
the walls and spanning the rows the surface can reach), the surface row per frame with its standard error.
The terminal window is the last quarter of the samples (at least :data:`MIN_TERMINAL`); only samples where
both levels were read count (the seed's "overlapping terminal frames").

- M1 ``e1 = (median y_l − median y_r) / H_ref``, ``H_ref = max(frame height, the arm regions' combined
  vertical span)``; ``s1 = q(e1; 1.0)``.
- M2 ``e2 = max(|b_l|, |b_r|) / H_frame``, ``b`` the least-squares slopes of the surface rows against the
  frame index over the terminal window; ``s2 = q(e2; 1 frame⁻¹)``.
- Fewer than :data:`MIN_TERMINAL` overlapping terminal samples: both metrics are operational zeros.

Twin: the narrow arm's level ends ``anti_offset_px`` above (or below) the wide one's, volume conserved.
C: the share of samples where each arm's level was readable (no tracked object).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._liquids import terminal_levels, terminal_levels_measurement  # noqa: F401  (tests)
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, \
    style_of
from lawful.tracks import Tracks
from lawful.world import liquids as lq
from lawful.world.scenes.vessels import u_tube_frames

ARMS = ("left", "right")


def level_difference(med_left: float | None, med_right: float | None, h_ref: float) -> MetricScore:
    """M1: ``e1 = (median y_l − median y_r) / H_ref``; ``s1 = q(e1; 1.0)``."""
    if med_left is None or med_right is None:
        return MetricScore.operational_zero("terminal levels not resolved")
    e1 = (med_left - med_right) / h_ref
    return MetricScore.measured(q(e1, 1.0), e1, median_left=med_left, median_right=med_right, H_ref=h_ref)


def residual_motion(b_left: float | None, b_right: float | None, h_frame: float) -> MetricScore:
    """M2: ``e2 = max(|b_l|, |b_r|) / H_frame`` (slopes in px per frame); ``s2 = q(e2; 1 frame⁻¹)``."""
    if b_left is None or b_right is None:
        return MetricScore.operational_zero("terminal slopes not resolved")
    e2 = max(abs(b_left), abs(b_right)) / h_frame
    return MetricScore.measured(q(e2, 1.0), e2, slope_left=b_left, slope_right=b_right)


class CommunicatingVessels(WmleTask):
    """A U-tube with a narrow and a wide arm: a disturbed liquid settles to one level in both."""

    name = "communicating_vessels"
    label = "P21"
    family = FAMILIES[4]
    level = "E"
    required_objects = ()
    required_known = {"arms": "{left, right}: [x0, y0, x1, y1] (px) a column band inside each arm, clear of the "
                              "walls, spanning the rows its surface can reach"}

    def probes(self, case: Case) -> list[Probe]:
        arms = case.known["arms"]
        return [Probe(f"arm_{a}", "level", tuple(float(v) for v in arms[a])) for a in ARMS]

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        narrow_left = bool(rng.integers(2))
        w_n, w_w = float(rng.integers(30, 43)), float(rng.integers(70, 101))
        gap = float(rng.integers(90, 160))
        w_l, w_r = (w_n, w_w) if narrow_left else (w_w, w_n)
        x_l0 = float(np.round(320 - (w_l + gap + w_r) / 2 + rng.uniform(-40, 40))) - 0.5
        x_l1 = x_l0 + w_l
        x_r0 = x_l1 + gap
        x_r1 = x_r0 + w_r
        y_top, y_ch0, y_ch1 = 47.5, 289.5, 317.5
        ground_y = 322.0 + 3.0
        y_eq = float(rng.uniform(155, 185))
        z0 = float(rng.uniform(35, 55))  # the narrow arm starts this far up
        period, zeta = float(rng.uniform(1.0, 1.5)), float(rng.uniform(0.22, 0.3))
        offset = float(rng.uniform(18, 40) * rng.choice([-1, 1]))  # twin: narrow minus wide rest level (up > 0)
        a_l, a_r = w_l**2, w_r**2  # round arms: cross-sections scale with the width squared
        z0_left = z0 if narrow_left else -z0 * a_r / a_l  # narrow right arm up z0: the wide left one drops less
        off_left = offset if narrow_left else -offset
        tint = lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))]
        glass = tuple(int(v) for v in np.clip(np.asarray(lq.GLASS_TINT) + rng.uniform(-18, 18), 0, 255))
        m = 8.0
        band = lambda x0, x1: [x0 + m, y_top + 4.0, x1 - m, y_ch0 - 4.0]  # noqa: E731
        duration = 5.0
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view of a clear glass U-tube standing on a table, one arm "
                    f"{'on the left ' if narrow_left else 'on the right '}narrow and the other much wider, joined at "
                    "the bottom by a short horizontal tube. It holds a coloured liquid. At the start the liquid in the "
                    "narrow arm has just been pushed up above the level in the wide arm and is let go: it sloshes "
                    "back and forth between the arms and calms down. No liquid is added or removed, and the camera "
                    "does not move."),
            objects=[],
            assumptions=["one liquid, nothing added or removed", "both arms open to the same air",
                         "arms wide enough that capillarity is negligible", "fixed side view, uniform time"],
            criteria=["M1: equal final levels in both arms, (median y_l − median y_r)/H_ref (q, a = 1.0)",
                      "M2: no residual motion, max terminal slope / H_frame (q, a = 1 per frame)"],
            known={"arms": {"left": band(x_l0, x_l1), "right": band(x_r0, x_r1)},
                   "cavities": [[x_l0, y_top, x_l1, y_ch0], [x_r0, y_top, x_r1, y_ch0], [x_l0, y_ch0, x_r1, y_ch1]],
                   "ground_y": ground_y, "y_eq": y_eq, "z0_left_px": z0_left, "area_left": a_l, "area_right": a_r,
                   "period_s": period, "zeta": zeta, "liquid": list(tint), "glass": list(glass), "style_seed": seed,
                   "anti_offset_px": off_left,
                   "anti_note": "twin: the left level ends anti_offset_px above the right one (volume conserved)"},
        )
        t = frame_times(case)
        yl, yr = lq.u_tube_levels(t, y_eq, z0_left, a_l, a_r, period, zeta)
        case.truth = GroundTruth(quantities={"rest_row": y_eq, "e1": 0.0, "anti_e1": -off_left / HEIGHT,
                                             "left_row_end": float(yl[-1]), "right_row_end": float(yr[-1])})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from u_tube_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return terminal_levels_measurement(tracks, ARMS)

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        return self.readable(tracks, {a: f"arm_{a}" for a in ARMS})

    def h_ref(self, case: Case) -> float:
        arms = case.known["arms"]
        span = max(arms[a][3] for a in ARMS) - min(arms[a][1] for a in ARMS)
        return float(max(case.height, span))

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        return {"M1": level_difference(m.get("median_left_px"), m.get("median_right_px"), self.h_ref(case)),
                "M2": residual_motion(m.get("slope_left_px_per_frame"), m.get("slope_right_px_per_frame"),
                                      float(case.height))}
