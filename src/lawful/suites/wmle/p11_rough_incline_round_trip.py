"""P11 — sliding up and down a rough incline (WMLE appendix B.2).

A block is pushed up an incline of about 30° with kinetic friction coefficient μ = 0.20; it slows,
stops and slides back down. Friction opposes the motion both ways, so the deceleration going up,
``g (sin θ + μ cos θ)``, exceeds the acceleration coming down, ``g (sin θ - μ cos θ)``.

- M1 ``R* = (sin θ + 0.20 cos θ) / (sin θ - 0.20 cos θ)`` with the measured incline angle θ,
  ``e1 = |(a_up / a_down) / R* - 1|``, ``s1 = q(e1; 0.10)``. A confirmed ascent-only event (the
  block goes up, stops and stays up for at least 0.5 s to the end of the clip) scores ``s1 = 0.1``.
  M2 is not defined.

Extraction: the block's distance ``s(t)`` along its path (projection of the centroid's displacement
on the path's principal direction, positive up the slope); θ is the path's angle to the image
horizontal. The apex is the highest sample; ``a_up`` and ``a_down`` are ``-2 c₂`` of quadratic fits
to the ascent (after the launch sample, before the apex sample) and to the descent (after the apex
sample, before the block comes to rest at the bottom). The two stretches are fitted jointly
(:func:`round_trip_fit`): the block stops at the apex, so both parabolas share their vertex (time and
position) and the fit's parameters are ``a_up`` and the ratio itself, whose standard error follows
from the fit's residual scatter. The fits are robust (soft L1 past 0.5 px): heavy compression moves a
few centroids by 1-2 px, which plain least squares lets bend a curvature.

Uncertainty: ``e1`` is scored exactly as the seed defines it; the evidence adds ``k σ_e`` (``σ_e`` the
ratio's standard error combined with that of ``R*`` from the path angle's standard error, ``k`` for
:data:`lawful.perceive.noise.FALSE_ALARM`) and ``e1_beyond_noise = max(0, e1 - k σ_e)``, the part of
the error the measurement's own noise cannot explain (at a few tenths of a pixel of centroid noise the
ratio of two fitted curvatures is known to about half a percent).

Twin: the descent mirrors the ascent with ``a_up / a_down = anti_ratio`` (0.9–1.15) instead of R*,
as on a frictionless slope.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._slopes import (  # noqa: F401  (re-exported: recordings.r07 and tests use them)
    path_coordinate, quad_accel, round_trip_fit, round_trip_measurement,
)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.slopes import (  # noqa: F401  (recordings.r07 uses block_item)
    MU, block_item, friction_ratio, rough_incline_frames, rough_incline_layout, slide_px, slope_frame,
)

G = 9.81


def round_trip_ratio(a_up: float | None, a_down: float | None, theta: float | None,
                     sigma_rel: float = 0.0) -> MetricScore:
    """M1: ``e1 = |(a_up / a_down) / R*(θ) - 1|``; ``s1 = q(e1; 0.10)``.

    ``sigma_rel``: relative standard error of ``(a_up / a_down) / R*`` (evidence only: ``uncertainty`` and
    ``e1_beyond_noise``).
    """
    if a_up is None or a_down is None or theta is None:
        return MetricScore.operational_zero("ascent or descent acceleration not resolved")
    R = friction_ratio(theta)
    if not math.isfinite(R):
        return MetricScore.operational_zero(f"measured incline angle {math.degrees(theta):.1f}° too shallow "
                                            "for the block to slide down")
    if a_up <= 0 or a_down <= 0:
        return MetricScore.measured(0.0, math.inf, "rule: no deceleration up or no acceleration down",
                                    a_up=a_up, a_down=a_down, R_star=R)
    e1 = abs((a_up / a_down) / R - 1.0)
    allow = noise.k_for() * max(0.0, sigma_rel) * (a_up / a_down) / R
    return MetricScore.measured(q(e1, 0.10), e1, ratio=a_up / a_down, R_star=R, theta_deg=math.degrees(theta),
                                uncertainty=allow, e1_beyond_noise=max(0.0, e1 - allow))


def ascent_only() -> MetricScore:
    """The rule for a confirmed ascent-only event: ``s1 = 0.1``."""
    return MetricScore.measured(0.1, None, "rule: confirmed ascent-only event")


class RoughInclineRoundTrip(WmleTask):
    """A block pushed up a rough 30° incline slides back down (μ = 0.20)."""

    name = "rough_incline_round_trip"
    label = "P11"
    family = FAMILIES[1]
    level = "H"
    required_objects = ("block",)
    required_events = ("launch", "apex")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        geo, raw = rough_incline_layout(rng, G)
        theta, bh, start, launch, t_up, a_up_px, duration = (raw[n] for n in (
            "theta", "bh", "start", "launch", "t_up", "a_up_px", "duration"))
        R, anti = geo["R_star"], float(rng.uniform(0.9, 1.15))
        color = object_colors(seed, 1)[0]
        k = {**geo, "color": list(color), "style_seed": int(seed), "anti_ratio": round(anti, 5),
             "anti_note": "twin: the descent acceleration is a_up / anti_ratio instead of a_up / R_star"}
        first = block_item(k, start)
        x0, y0, x1, y1 = first.bbox()
        objects = [ObjectSpec(id="block", shape="block", color=tuple(color), box=(x0 - 1, y0 - 1, x1 + 1, y1 + 1),
                              known={"mu": MU})]
        prompt = (
            f"Fixed side view of a straight wooden incline rising to the right at about {theta:.0f} degrees, with a "
            "small stop post at its lower end. A rectangular block rests on the slope just above the post. The "
            "surface is rough: the kinetic friction coefficient between block and slope is 0.20. After a "
            "moment the block is given one quick push up the slope; it slides up, slows down, stops, then "
            "slides back down to the post. The camera does not move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=objects,
            assumptions=["kinetic friction coefficient 0.20 both ways", "incline about 30 degrees",
                         "one push at the start, then free sliding", "fixed side view, uniform time"],
            criteria=["M1: (a_up / a_down) / R*(theta) = 1 (q, a = 0.10); ascent only scores 0.1"], known=k)
        t = frame_times(case)
        foot, u, n = slope_frame(k)
        s = slide_px(k, t, "true")
        c = foot[None] + s[:, None] * u[None] + 0.5 * bh * n[None]
        case.truth = GroundTruth(
            tracks={"block": [(round(float(a), 5), round(float(x), 3), round(float(y), 3)) for a, (x, y) in zip(t, c)]},
            events={"launch": launch, "apex": launch + t_up},
            quantities={"R_star": R, "a_up_px_s2": a_up_px, "a_down_px_s2": a_up_px / R, "e1": 0.0,
                        "anti_e1": abs(anti / R - 1)})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from rough_incline_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return round_trip_measurement(tracks, "block", MU)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        if m.notes.get("ascent_only"):
            return {"M1": ascent_only()}
        th = m.get("theta_deg")
        return {"M1": round_trip_ratio(m.get("a_up_px_s2"), m.get("a_down_px_s2"),
                                       math.radians(th) if th is not None else None, m.get("ratio_rel_se") or 0.0)}
