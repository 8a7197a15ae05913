"""R2 — bounce: one ball's restitution from whatever rebounds the clip shows.

Object ``ball``. ``known`` (all optional): ``restitution`` (the ball's coefficient on this floor, when
the experimenter measured it). Nothing needs calibrating: every metric is a ratio of pixels or times.

Extraction (release, impacts, the flights' parabolas, contact levels, heights ``h_k`` and flight times ``T_k``,
standard errors from ``N_DRAWS`` noise draws): :mod:`lawful.suites.recordings._bounces`.

Per pair of consecutive flights: ``e_h = √(h_{k+1}/h_k)``, ``e_t = T_{k+1}/T_k``, ``e_k = (e_h + e_t)/2``.

Metrics (``q(β(e), a)``, ``β(e) = beyond_noise(e, se)``: :func:`lawful.suites.recordings.common.beyond_noise`):

- M1 height–time agreement (the law test that needs no calibration: under one gravity both ratios are
  the restitution): mean over pairs of ``q(β(e_t − e_h), A_AGREE)``; ``A_AGREE = 0.05`` (a 5 % restitution
  disagreement scores 0.5; a bounce that floats, apexes in slow motion, disagrees by far more);
- M2 restitution physical and constant: ``G(q(β(max(0, e_k − 1)), A_GAIN), q(β(CV(e_k)), A_CONST))``
  (the worst pair for the gain); ``A_GAIN = 0.05``; ``A_CONST = 0.05`` (a real ball's coefficient
  drifts by a few per cent between impact speeds). With one pair (drop and one rebound) the gain
  alone: a rebound above the drop is a violation one rebound shows;
- M3 (only when ``known.restitution``): ``q(β(ē − e_known), A_KNOWN)``, ``ē`` the mean of ``e_k``,
  ``A_KNOWN = 0.05``.

No complete rebound: every metric is an operational zero (restitution unmeasurable), never a violation.

Drawn case: a ball held still, let go and bouncing on a floor (slight sideways drift), three full
rebounds shown. Anti twin: a bounce that floats — heights decay as ``e²`` per bounce but the k-th
rebound's flight lasts ``ANTI_FLOAT^k`` times what its height allows (apexes in slow motion).
"""

from __future__ import annotations
import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import geometric_mean, q
from lawful.suites.base import Law
from lawful.suites.recordings._bounces import bounce_measurement, restitution_stats
from lawful.suites.recordings.common import RecordingTask, beyond_noise, unresolved_scores
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, frame_times, sphere_box, style_of,
)
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.scenes.recordings import ball_frames, drifting_bounce_xy

A_AGREE, A_GAIN, A_CONST, A_KNOWN = 0.05, 0.05, 0.05, 0.05
ANTI_FLOAT = 1.25


def bounce_metrics(pairs: dict, se: dict, known_e: float | None = None) -> dict[str, MetricScore]:
    """M1–M3 of the module docstring from :func:`~lawful.suites.recordings._bounces.restitution_pairs` and their
    standard errors ``se``."""
    d, e = np.asarray(pairs["d"], float), np.asarray(pairs["e"], float)
    s1 = [q(beyond_noise(float(di), float(si)), A_AGREE) for di, si in zip(d, se["d"])]
    worst = int(np.nanargmax(np.abs(d))) if np.isfinite(d).any() else 0
    out = {"M1": MetricScore.measured(float(np.mean(s1)), float(d[worst]), e_h=float(pairs["e_h"][worst]),
                                      e_t=float(pairs["e_t"][worst]), se=float(se["d"][worst]))}
    gains = [q(beyond_noise(max(0.0, float(ei) - 1.0), float(si)), A_GAIN) for ei, si in zip(e, se["e"])]
    s_gain = min(gains) if gains else math.nan
    st = restitution_stats(pairs)
    if len(e) >= 2:
        s_const = q(beyond_noise(st["cv"], se["cv"]), A_CONST)
        out["M2"] = MetricScore.measured(geometric_mean([s_gain, s_const]), st["cv"], gain=float(np.max(e) - 1.0),
                                         s_gain=s_gain, s_const=s_const, se_cv=se["cv"])
    else:
        out["M2"] = MetricScore.measured(s_gain, float(np.max(e) - 1.0), "one restitution only: energy gain checked, "
                                         "constancy needs two", s_gain=s_gain)
    if known_e is not None:
        r = st["mean"] - float(known_e)
        out["M3"] = MetricScore.measured(q(beyond_noise(r, se["mean"]), A_KNOWN), r, e=st["mean"], se=se["mean"])
    return out


class Bounce(RecordingTask):
    name = "bounce"
    label = "R2"
    family = FAMILIES[0]
    level = "E"
    required_objects = ("ball",)
    required_events = ("release", "impact", "rebound_apex")
    required_known: dict[str, str] = {}
    optional_known = {"restitution": "the ball's coefficient of restitution on this floor, when measured (adds M3)"}

    # --- case ----------------------------------------------------------------------------------
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        e = float(rng.uniform(0.72, 0.86))
        r = float(rng.uniform(10.0, 14.0))
        ground_y = float(rng.uniform(312.0, 334.0))
        top_y = float(rng.uniform(40.0, 62.0))
        x = float(rng.uniform(200.0, 440.0))
        vx = float(rng.uniform(-25.0, 25.0))
        t0 = float(rng.uniform(0.45, 0.58))  # fall time of the drop
        hold = float(rng.uniform(0.25, 0.4))
        h0 = ground_y - r - top_y
        g = 2.0 * h0 / t0**2
        duration = hold + t0 * (1 + 2 * e + 2 * e**2 + 2 * e**3) + 0.25
        color = object_colors(seed, 1)[0]
        case = Case(
            id=self.case_id(index), suite="recordings", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=round(duration, 4),
            prompt=("Fixed side view of a hard floor. A rubber ball is held still near the top of the picture, let go, "
                    "and bounces on the floor several times, each rebound lower than the one before."),
            objects=[ObjectSpec(id="ball", shape="sphere", color=color, box=sphere_box(x, top_y, r))],
            assumptions=["released from rest", "level floor", "negligible air resistance", "fixed camera"],
            criteria=["M1: height- and time-based restitution agree", "M2: restitution at most 1 and constant",
                      "M3: restitution as known"],
            known={"restitution": e, "g_px_s2": g, "h0_px": h0, "ground_y": ground_y, "radius_px": r, "x": x,
                   "vx_px_s": vx, "top_y": top_y, "hold_s": hold, "color": list(color), "style_seed": seed,
                   "anti_float": ANTI_FLOAT,
                   "anti_note": "twin: heights decay as e^2 per bounce, the k-th rebound lasts anti_float^k times "
                                "what its height allows (a bounce that floats)"},
        )
        tt = frame_times(case)
        xs, ys = self._xy(case, tt, "true")
        case.truth = GroundTruth(tracks={"ball": [(float(a), float(b), float(c)) for a, b, c in zip(tt, xs, ys)]},
                                 events={"release": hold, "impact_1": hold + t0},
                                 quantities={"restitution": e, "floor_level_px": ground_y - r, "drop_height_px": h0})
        return case, next(self.render(case))

    def _xy(self, case: Case, t: np.ndarray, law: Law) -> tuple[np.ndarray, np.ndarray]:
        return drifting_bounce_xy(case.known, t, law)

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        xs, ys = self._xy(case, frame_times(case), law)
        return ball_frames(case.known, case.width, case.height, style_of(case), xs, ys)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return bounce_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        keys = ("M1", "M2", "M3") if "restitution" in case.known else ("M1", "M2")  # M3 needs known.restitution
        if (zeros := unresolved_scores(m, keys)) is not None:
            return zeros
        pairs = {a: np.asarray(b, float) for a, b in m.notes["pairs"].items()}
        se = {a: (np.asarray(b, float) if isinstance(b, list) else float(b)) for a, b in m.notes["se"].items()}
        return bounce_metrics(pairs, se, case.known.get("restitution"))
