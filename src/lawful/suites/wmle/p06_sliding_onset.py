"""P6 — sliding onset independent of mass: on a slowly tilting board two blocks of different mass (same
contact) start to slide at the same moment, i.e. at the same inclination tan θ = μ_s.

Extraction: the board turns about a hinge whose first-frame position is known from the case. While a
block rests on the board it turns rigidly with it, so its distance to the hinge stays put (up to a slow
drift of the tracked centroid); the onset is when that distance starts to shrink, from a fit of rest plus
a slide from rest (sub-frame; :func:`~lawful.suites.wmle._slopes.slide_onset`). An onset the track's
noise cannot place (it may be at the first sample, or too few samples before the slide) leaves both
metrics an operational zero with the reason. The board's inclination at onset is the block's own turn
about the hinge up to that moment (rigid phase), so no board tracking is needed and the first-frame
angle cancels between the two blocks.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle._slopes import sliding_onset_measurement
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, contrasting_colors, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world.scenes.slopes import tilting_board_frames, tilting_board_positions

G = 9.81
BOTH_STAY_PUT = 0.7


def onset_frame_metric(f_l: float, f_r: float, n_frames: float) -> MetricScore:
    """M1: e1 = |f_l - f_r| / N_f, s1 = q(e1; 1.0)."""
    e1 = abs(f_l - f_r) / n_frames
    return MetricScore.measured(q(e1, 1.0), e1)


def onset_angle_metric(theta_l_deg: float, theta_r_deg: float) -> MetricScore:
    """M2: e2 = |θ_l - θ_r| in degrees, s2 = q(e2; 90°)."""
    e2 = abs(theta_l_deg - theta_r_deg)
    return MetricScore.measured(q(e2, 90.0), e2)


class SlidingOnset(WmleTask):
    name = "sliding_onset"
    label = "P6"
    family = FAMILIES[1]
    level = "E"
    required_objects = ("block_left", "block_right")
    required_events = ("tilt", "onset")
    required_known = {"hinge": "first-frame [x, y] (px) of the board's hinge"}
    optional_known = {"board_angle0_deg": "the board's angle at the first frame (default 0)"}

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        hinge = (float(rng.uniform(90.0, 130.0)), float(rng.uniform(300.0, 320.0)))
        board_len = float(rng.uniform(430.0, 470.0))
        mu_s = float(rng.uniform(0.36, 0.48))
        theta_c = math.degrees(math.atan(mu_s))
        duration = 4.0
        t_onset = float(rng.uniform(0.42, 0.5)) * duration
        omega = theta_c / t_onset  # deg/s, board turns from flat at t = 0
        big, small = (58.0, 40.0), (40.0, 28.0)
        sizes = [big, small] if rng.uniform() < 0.5 else [small, big]
        s_left = float(rng.uniform(120.0, 160.0))
        s_right = float(rng.uniform(290.0, 340.0))
        colors = contrasting_colors(seed, 2)
        ppm = board_len / 1.2
        objs = []
        for oid, s, (w, h), col in (("block_left", s_left, sizes[0], colors[0]),
                                    ("block_right", s_right, sizes[1], colors[1])):
            cx, cy = hinge[0] + s, hinge[1] - h / 2
            mass = 2.0 if w == big[0] else 0.7
            objs.append(ObjectSpec(id=oid, shape="block", color=col, box=(cx - w / 2 - 1, cy - h / 2 - 1,
                                                                         cx + w / 2 + 1, cy + h / 2 + 1),
                                   known={"mass_kg": mass, "width_px": w, "height_px": h}))
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("Fixed side view. A long wooden board lies flat, hinged at its left end, with a small stop at "
                    "the hinge. Two blocks of the same material but different size and mass sit on the board, one "
                    "near the hinge and one further out. The free end of the board is raised slowly and steadily; "
                    "at some inclination the blocks start to slide down towards the hinge. The camera does not move "
                    "and time runs at a steady rate."),
            objects=objs,
            assumptions=["both blocks have the same contact surface (same static friction)", "board tilted slowly",
                         "rigid board turning about a fixed hinge", "fixed side view, uniform time"],
            criteria=["M1: both blocks start sliding in the same frame", "M2: both start at the same inclination"],
            known={"g": G, "hinge": list(hinge), "board_length_px": board_len, "board_thickness_px": 12.0,
                   "board_angle0_deg": 0.0, "tilt_rate_deg_s": omega, "max_tilt_deg": theta_c + 12.0,
                   "mu_static": mu_s, "mu_kinetic": 0.8 * mu_s,
                   "onset_angle_deg": theta_c, "px_per_m": ppm, "s_px": [s_left, s_right],
                   "sizes_px": [list(sizes[0]), list(sizes[1])], "colors": [list(c) for c in colors],
                   "style_seed": seed, "anti_onset_delta_deg": 8.0,
                   "anti_note": "in the twin the right block needs 8 degrees more tilt before it slides"},
        )
        tt = frame_times(case)
        pos = self._positions(case, tt, "true")
        case.truth = GroundTruth(
            tracks={oid: [(float(a), float(b), float(c)) for a, (b, c) in zip(tt, pos[oid])] for oid in pos},
            events={"onset": theta_c / omega},
            quantities={"onset_angle_deg": theta_c, "e1": 0.0, "e2": 0.0},
        )
        return case, next(self.render(case))

    def _positions(self, case: Case, times: np.ndarray, law: Law) -> dict[str, np.ndarray]:
        return tilting_board_positions(case.known, case.fps, case.duration, times, law)

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from tilting_board_frames(case.known, case.width, case.height, style_of(case), case.fps, case.duration,
                                        frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return sliding_onset_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if m.notes.get("untracked_l") or m.notes.get("untracked_r"):
            why = "a block is not measurable"
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        lost = [f"{oid}: {m.notes[f'unresolved_{tag}']}" for oid, tag in (("block_left", "l"), ("block_right", "r"))
                if m.notes.get(f"unresolved_{tag}")]
        if lost:
            why = "; ".join(lost)
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        if m.notes.get("stayed_l") and m.notes.get("stayed_r"):
            why = "rule: two measurable blocks that both stay put"
            return {"M1": MetricScore.measured(BOTH_STAY_PUT, None, why),
                    "M2": MetricScore.measured(BOTH_STAY_PUT, None, why)}
        n = m.get("n_frames")
        m1 = onset_frame_metric(m.get("onset_frame_l"), m.get("onset_frame_r"), n)
        m2 = onset_angle_metric(m.get("onset_angle_l_deg"), m.get("onset_angle_r_deg"))
        if m.notes.get("stayed_l") or m.notes.get("stayed_r"):
            why = "one block never slid: its onset is taken at the end of the video (a lower bound)"
            m1.reason = m2.reason = why
        return {"M1": m1, "M2": m2}
