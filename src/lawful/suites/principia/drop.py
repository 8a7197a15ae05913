"""Restitution and gravity (Principia Table 2, rows 1-2): two balls dropped from different heights.

One recording feeds two columns:

- ``restitution``: per ball ``F = sqrt(r / h)`` (rebound height over drop height; equals the
  coefficient of restitution ``e``), compared between the balls: ``S(F_ball_1, F_ball_2)``.
- ``gravity``: Galileo's ``h1 / h2 = (t1 / t2)^2``. The two sides are ``F1 = h1 / h2`` (drop
  heights, measured) and ``F2 = (t1 / t2)^2`` (fall times, measured). ``S`` is unchanged if
  the balls are relabelled (both sides invert).

Measurements per ball (pixels of the first frame, y down):

- first impact: found coarsely by :func:`lawful.perceive.events.impacts` near the ground line
  (``case.known['ground_y']``), then refined: parabolas are fitted to the last fall samples and
  to the first rebound arc; the impact is where they meet (sub-frame time ``t_imp`` and centroid
  row ``y_imp``). Without a rebound arc, the fall parabola is solved for the row where the ball's
  lower edge (centroid + median box half-height) touches the ground line;
- drop height ``h = y_imp - y0`` (release centroid to contact centroid; equals ground line minus
  the ball's lower edge at release); fall time ``t_imp - t_r`` with ``t_r`` the release: the case's
  ``release`` or the balls' sustained motion onset (:func:`lawful.perceive.onset.release_of`), not frame 0;
- rebound height ``r = y_imp - y_apex`` with the apex the vertex of the rebound parabola.

Objects ``ball_1``, ``ball_2``; ``case.known``: ``ground_y``. DCS window: release → first impact. A ball lost
(beyond a short gap it falls straight through) before its first impact is seen has no drop height, fall time or
rebound (unmeasurable); its window ends at the loss, or at its lowest point if it was seen down at the ground before.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case
from lawful.perceive.onset import release_of
from lawful.result import Measurement
from lawful.tracks import Tracks
from lawful.world.scenes.pairs import drop_height_px, drop_truth, dropped_balls

from lawful.suites.principia import _scene as sc
from lawful.suites.principia._common import PrincipiaTask, finish_dcs
from lawful.suites.principia._drop_measure import measure_ball

IDS = ("ball_1", "ball_2")
ANTI_G_SCALE = 3.0  # the higher ball falls with 3 g in the twin: (t1/t2)^2 off by 3x, S = 0.5
ANTI_E_HIGH = 0.88  # twin restitutions: 0.88 and 0.88 / 2.6 (S = 0.56)


class Drop(PrincipiaTask):
    """Two identical balls dropped together from heights ``h1 != h2`` onto one floor."""

    name = "drop"
    label = "Table 2: Restitution, Gravity"
    phenomena = ("restitution", "gravity")
    sides = {"restitution": ("restitution_F1", "restitution_F2"), "gravity": ("gravity_F1", "gravity_F2")}
    object_ids = IDS
    dcs_direction = "image y, downwards (the balls fall)"
    required_known = {"ground_y": "pixel row of the floor line"}

    # ------------------------------------------------------------------ cases
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = sc.rng_for(seed)
        ground_y = round(float(rng.uniform(312, 328)), 1)
        r_px = round(float(rng.uniform(11, 14)), 2)
        dx = float(rng.uniform(85, 140))
        h_high_px = ground_y - 2 * r_px - float(rng.uniform(14, 26))
        ratio = float(rng.uniform(1.5, 3.0))
        high = int(rng.integers(2))  # which ball (0: left) is dropped from higher up
        h_px = [h_high_px / ratio, h_high_px / ratio]
        h_px[high] = h_high_px
        h_high_m = float(rng.uniform(1.0, 2.0))
        px_per_m = h_high_px / h_high_m
        e = float(rng.uniform(0.55, 0.8))
        known = {
            "ground_y": ground_y,
            "px_per_m": round(px_per_m, 4),
            "g": sc.G,
            "radius_px": r_px,
            "x": [round(320 - dx, 2), round(320 + dx, 2)],
            "drop_height_px": [round(h, 3) for h in h_px],
            "drop_height_m": [round(h / px_per_m, 5) for h in h_px],
            "restitution": round(e, 4),
            "colors": sc.pick_colors(seed, 2),
            "style_seed": sc.style_seed(index, seed),
            "anti": {
                "g_scale": [ANTI_G_SCALE if i == high else 1.0 for i in range(2)],
                "restitution": [ANTI_E_HIGH / sc.ANTI_FACTOR if i == high else ANTI_E_HIGH for i in range(2)],
            },
        }
        duration = 3.0
        first = dropped_balls(known, known["drop_height_px"])
        c = sc.colors(known, 2)
        objects = [sc.spec(oid, "sphere", c[i], first[i]) for i, oid in enumerate(IDS)]
        names = [sc.color_name(x) for x in c]
        prompt = (
            f"Side view from a camera that never moves. A {names[0]} ball and a {names[1]} ball of the same size "
            "and material hang in the air above a hard floor, one higher than the other. At the start both are "
            "let go from rest at the same instant; they fall straight down, strike the floor and bounce up "
            "again several times, each bounce lower than the one before, until they come to rest."
        )
        case = sc.make(self.name, index, seed, prompt=prompt, duration=duration, objects=objects, known=known,
                       assumptions=["no air resistance", "both balls have the same coefficient of restitution",
                                    "released together from rest"],
                       criteria=["restitution", "gravity"])
        case.truth = _truth(case)
        return case, next(iter(self.render(case)))

    # ------------------------------------------------------------------ render
    def render(self, case: Case, law: str = "true") -> Iterator[np.ndarray]:
        k = case.known
        t = sc.frame_times(case)
        heights = [drop_height_px(k, i, t, law) for i in range(2)]
        scene = sc.new_scene(k).ground(k["ground_y"])
        return sc.render_frames(case, scene, lambda f: dropped_balls(k, [heights[0][f], heights[1][f]]))

    # ------------------------------------------------------------------ measure
    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        if why := self.case_problem(case):
            return self.bad_case(why)
        m = Measurement()
        ground_y = float(case.known["ground_y"])
        t_r, how = release_of(case, tracks, IDS)
        m.set("release_time_s", t_r, how)
        got = {oid: measure_ball(m, tracks, case, oid, ground_y, t_r) for oid in IDS}
        finish_dcs(m, IDS, tracks, case.width)
        h1, h2 = (got[o]["h"] for o in IDS)
        t1, t2 = (got[o]["t"] for o in IDS)
        r1, r2 = (got[o]["r"] for o in IDS)

        def miss(*keys_vals):
            for oid, key, v in keys_vals:
                if v is None:
                    return m.missing.get(f"{key}_{oid}", f"{oid}: {key} not measured")
            return ""

        why = miss(("ball_1", "drop_height", h1), ("ball_1", "rebound_height", r1))
        m.set("restitution_F1", math.sqrt(r1 / h1) if not why else None, why)
        why = miss(("ball_2", "drop_height", h2), ("ball_2", "rebound_height", r2))
        m.set("restitution_F2", math.sqrt(r2 / h2) if not why else None, why)
        why = miss(("ball_1", "drop_height", h1), ("ball_2", "drop_height", h2))
        m.set("gravity_F1", h1 / h2 if not why else None, why)
        why = miss(("ball_1", "fall_time", t1), ("ball_2", "fall_time", t2))
        m.set("gravity_F2", (t1 / t2) ** 2 if not why else None, why)
        return m


def _truth(case: Case):
    t = sc.frame_times(case)
    return sc.truth(t, *drop_truth(case.known, IDS, t))
