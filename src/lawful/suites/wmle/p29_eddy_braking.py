"""P29 — eddy-current braking on a copper incline (WMLE appendix B.7).

A bar magnet and a non-magnetic block of the same size and mass are let go together from rest at
the same height on two identical copper inclines. The moving magnet induces eddy currents in the
copper whose field opposes its motion: the magnet soon slides at a low terminal speed, while the
block speeds up freely; the magnet arrives later and moves more slowly.

- M1 ``r_t = (f_m - f0 + 1) / (f_c - f0 + 1)``, ``f_m``/``f_c`` the first frames at which magnet and
  block have slid a common distance, 80 % of the smaller maximum displacement over the samples where
  both are seen, ``f0`` the first frame; ``s1 = I[r_t > 1]``.
- M2 ``r_v = v_m / v_c``, each speed the mean over the stretch from 40 % to 100 % of the common distance
  (sub-frame crossing times); ``s2 = I[r_v < 1]``.

Operational zeros: an object not seen in 6 samples, or a smaller maximum displacement that noise alone
could produce (below ``noise.step_threshold`` of the track's measured localisation noise).

Twin: no eddy braking — the magnet slides without drag and, as if it met less friction, speeds up
``anti_accel_factor`` (1.15–1.35) times as fast as the block, so it arrives first (a tie would leave
the ordering tests to tracking noise).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec, pad_box
from lawful.result import Measurement
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.suites.wmle._electro import eddy_arrival_measurement
from lawful.tracks import Tracks
from lawful.world.em import COPPER, colors_clear_of
from lawful.world.scenes.electro import eddy_centre, eddy_frames, eddy_items, eddy_slid

IDS = ("magnet", "block")
COMMON_SHARE = 0.8  # the common displacement: this share of the smaller maximum displacement
SPEED_FROM = 0.4  # speeds are means from this share of the common displacement to all of it
COPPER_HUE_GAP = 40.0  # object hues at least this far (degrees) from the copper's


def arrival_ratio(f_m: float | None, f_c: float | None, f0: float) -> MetricScore:
    """M1: ``r_t = (f_m - f0 + 1) / (f_c - f0 + 1)``; ``s1 = I[r_t > 1]``."""
    if f_m is None or f_c is None:
        return MetricScore.operational_zero("an arrival at the common displacement was not observed")
    r_t = (f_m - f0 + 1.0) / (f_c - f0 + 1.0)
    return MetricScore.measured(float(r_t > 1.0), r_t, f_m=f_m, f_c=f_c, f0=f0)


def speed_ratio(v_m: float | None, v_c: float | None) -> MetricScore:
    """M2: ``r_v = v_m / v_c``; ``s2 = I[r_v < 1]``."""
    if v_m is None or v_c is None or not (v_c > 0 and math.isfinite(v_m)):
        return MetricScore.operational_zero("a speed over the common stretch was not resolved")
    r_v = v_m / v_c
    return MetricScore.measured(float(r_v < 1.0), r_v, v_m=v_m, v_c=v_c)


class EddyBraking(WmleTask):
    """A magnet and a matched non-magnetic block sliding down two identical copper inclines."""

    name = "eddy_braking"
    label = "P29"
    family = FAMILIES[6]
    level = "E"
    required_objects = IDS
    required_events = ("arrival_magnet", "arrival_block")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        theta = float(rng.uniform(24.0, 32.0))
        span = float(rng.uniform(250.0, 272.0))
        gap = float(rng.uniform(16.0, 30.0))
        w = float(rng.uniform(34.0, 42.0))
        h = float(rng.uniform(15.0, 19.0))
        duration = 3.5
        finish = float(rng.uniform(0.45, 0.6))  # share of the clip the block needs to reach the end block
        start = 0.5 * w + 6.0
        stop = span / math.cos(math.radians(theta)) - start - 0.5 * w - 10.0
        magnet_left = bool(rng.integers(2))
        c_magnet, c_block = colors_clear_of(seed, 2, COPPER, COPPER_HUE_GAP)
        k = {
            "theta_deg": round(theta, 4), "span_px": round(span, 3),
            "ground_y": round(float(rng.uniform(320.0, 334.0)), 2),
            "base_px": round(float(rng.uniform(22.0, 36.0)), 2),
            "lane_x": [round((WIDTH - 2 * span - gap) / 2, 3), round((WIDTH - 2 * span - gap) / 2 + span + gap, 3)],
            "lanes": {"magnet": 0 if magnet_left else 1, "block": 1 if magnet_left else 0},
            "w_px": round(w, 3), "h_px": round(h, 3), "start_px": round(start, 3), "stop_px": round(stop, 3),
            "accel_px": round(2 * stop / (finish * duration) ** 2, 4), "tau_s": round(float(rng.uniform(0.15, 0.3)), 4),
            "north_down": bool(rng.integers(2)), "colors": {"magnet": list(c_magnet), "block": list(c_block)},
            "style_seed": int(seed), "anti_accel_factor": round(float(rng.uniform(1.15, 1.35)), 4),
            "anti_note": "twin: no eddy braking; the magnet speeds up anti_accel_factor times as fast as the block",
        }
        first = eddy_items(k, 0.0, 0.0)
        north = first[0].halves()[0]
        objects = [ObjectSpec(id="magnet", shape="block", color=tuple(c_magnet), box=pad_box(north.bbox())),  # north half
                   ObjectSpec(id="block", shape="block", color=tuple(c_block), box=pad_box(first[1].bbox()))]
        where = ("left", "right") if magnet_left else ("right", "left")
        prompt = (
            "Fixed side view of two identical inclines covered with thick copper plate, standing side by side "
            f"and sloping down to the right at about {theta:.0f} degrees, each with a stop at its lower end. Near "
            f"the top of the {where[0]} incline rests a strong bar magnet, one half painted and marked N, the other "
            f"half white and marked S; at the same height on the {where[1]} incline rests a plain non-magnetic block "
            "of the same size and weight. At the start both are let go together from rest and slide down the "
            "copper. The camera does not move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=objects,
            assumptions=["magnet and block matched in size, mass and surface", "identical copper inclines",
                         "released together from rest at the same height", "fixed side view, uniform time"],
            criteria=["M1: the magnet reaches the common displacement later, r_t > 1 (indicator)",
                      "M2: the magnet is slower over the common stretch, v_m / v_c < 1 (indicator)"], known=k)
        t = frame_times(case)
        tracks = {}
        for b in IDS:
            xy = [eddy_centre(k, b, float(s)) for s in eddy_slid(k, b, t)]
            tracks[b] = [(round(float(a), 5), round(x, 3), round(y, 3)) for a, (x, y) in zip(t, xy)]
        case.truth = GroundTruth(tracks=tracks, events={"release": 0.0}, quantities=_truth(k, t))
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from eddy_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return eddy_arrival_measurement(tracks, IDS, COMMON_SHARE, SPEED_FROM)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        return {"M1": arrival_ratio(m.get("arrival_frame_magnet"), m.get("arrival_frame_block"), m.get("f0") or 0.0),
                "M2": speed_ratio(m.get("speed_magnet_px_s"), m.get("speed_block_px_s"))}


def _truth(k: dict, t: np.ndarray) -> dict:
    out = {}
    for law, tag in (("true", ""), ("anti", "anti_")):
        s = {b: eddy_slid(k, b, t, law) for b in IDS}
        d = COMMON_SHARE * min(float(s[b].max()) for b in IDS)
        f = {b: int(np.flatnonzero(s[b] >= d)[0]) for b in IDS}
        out[f"{tag}r_t"] = (f["magnet"] + 1) / (f["block"] + 1)
    return out
