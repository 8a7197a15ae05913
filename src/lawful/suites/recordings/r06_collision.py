"""R6 — two bodies collide on a straight track: momentum is conserved, kinetic energy is not created.

Objects ``cart_1``, ``cart_2`` (any shapes; either may move or rest before the collision), each with
``known.mass_kg`` (kg, any ratio). Positions are projected on the track direction (the principal
direction of both bodies' displacements, positive from ``cart_1`` towards ``cart_2``); momenta are in
kg·px/s, the same scale for both bodies, so no calibration is needed.

Contact, windows and velocities (``v`` before, ``v'`` after, their standard errors from the measured
noise ``σ`` along the track): :mod:`lawful.suites.recordings._carts`.

- M1 momentum: ``e1 = (Σ m v' − Σ m v) / Σ |m v|``, ``se1 = √(Σ m²(se_v² + se_v'²)) / Σ |m v|``;
  ``s1 = q(beyond_noise(e1, se1), 0.10)`` (a 10 % momentum mismatch beyond noise scores 0.5).
- M2 no energy created: restitution ``c = (v2' − v1') / (v1 − v2)`` must lie in ``[0, 1]`` (below 0 the
  bodies pass through each other) and ``KE' / KE − 1 ≤ 0``; ``e2`` the larger excess, each beyond its
  propagated noise; ``s2 = q(e2, 0.10)``.
- M3 no push along the track: in each of the four windows the speed gain ``max(0, a·sgn v)·T`` (``T``
  the window's span; ``|a|·T`` for a body at rest) relative to the closing speed ``v1 − v2``, beyond its
  noise; the largest; ``s3 = q(e3, 0.10)``. Slowing down (friction) is allowed.

No contact, no closing speed, or a window with fewer than ``MIN_WINDOW`` samples: every metric is an
operational zero (unmeasurable), never a violation. Twin (``known.anti_kind``): ``fast`` — the lighter
body's velocity change is ``1 + anti_gain`` times the lawful one (momentum and energy created);
``swap`` — the bodies exchange velocities as equal masses would (momentum off by ``(m2 − m1)(v1 − v2)``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.suites.base import Law, TrackingPlan
from lawful.suites.recordings._carts import IDS, collision_measurement, energy_metric, momentum_metric, steady_metric
from lawful.suites.recordings.common import RecordingTask, unresolved_scores
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, contrasting_colors, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world.scenes.recordings import cart_boxes, cart_collision, carts_frames, mirror_x

A_MOMENTUM, A_ENERGY, A_STEADY = 0.10, 0.10, 0.10  # q scales of M1, M2, M3


class Collision(RecordingTask):
    """Two carts of known masses collide on a straight track (1-D collision, any restitution)."""

    name = "collision"
    label = "R6"
    family = FAMILIES[0]
    level = "M"
    required_objects = IDS
    required_events = ("collision",)
    object_known = {"mass_kg": "the body's mass in kg"}
    plan = TrackingPlan()

    def case_problem(self, case: Case) -> str:
        if why := super().case_problem(case):
            return why
        for o in case.objects:
            if o.id in IDS:
                m = o.known["mass_kg"]
                if not m > 0:
                    return f"objects.{o.id}.known.mass_kg must be > 0 (got {m})"
        return ""

    # --- case and clips ---------------------------------------------------------------------------
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        while True:
            m = rng.uniform(0.2, 1.0, 2)
            if abs(math.log(m[0] / m[1])) >= math.log(1.4):
                break
        w = np.clip(36.0 * (m / 0.5) ** (1 / 3), 26.0, 52.0)
        h = 0.55 * w
        v1 = float(rng.uniform(170.0, 260.0))
        v2 = 0.0 if rng.random() < 0.5 else float(rng.uniform(-0.35, 0.25)) * v1
        launch, t_c = float(rng.uniform(0.2, 0.35)), float(rng.uniform(1.1, 1.4))
        decel = float(rng.uniform(0.0, 0.10)) * v1 if rng.random() < 0.5 else 0.0
        x1 = float(rng.uniform(50.0, 80.0))
        x2 = x1 + (w[0] + w[1]) / 2 + (v1 - v2) * (t_c - launch - 0.06) - 0.5 * decel * (t_c - launch) ** 2
        k = {"ground_y": float(rng.uniform(290.0, 320.0)), "widths": w.round(3).tolist(),
             "heights": h.round(3).tolist(),
             "x0": [round(x1, 3), round(float(x2), 3)], "v0": [0.0, round(v2, 4)], "push_v": round(v1, 4),
             "launch_s": round(launch, 4), "push_s": 0.1, "decel_px_s2": round(decel, 4),
             "restitution": round(float(rng.uniform(0.2, 1.0)), 4),
             "end_stop_x": (round(float(rng.uniform(600.0, 625.0)), 2) if rng.random() < 0.6 else None),
             "mirror": bool(rng.random() < 0.3), "style_seed": int(seed),
             "anti_kind": "fast" if rng.random() < 0.5 else "swap", "anti_gain": round(float(rng.uniform(0.5, 0.8)), 4),
             "anti_note": "fast: the lighter body's velocity change is (1 + anti_gain) times the lawful one; "
                          "swap: the bodies exchange velocities as equal masses would"}
        k["colors"] = [list(c) for c in contrasting_colors(seed, 2)]
        sim = cart_collision(k, m, np.arange(int(round(6.0 * FPS))) / FPS, "true", FPS)
        duration = min(sim["t_c"] + float(rng.uniform(1.2, 1.6)), sim["t_next"] - 0.2)
        duration = math.floor(duration * FPS) / FPS
        objects = [ObjectSpec(id=oid, shape="block", color=tuple(k["colors"][i]), box=box,
                              known={"mass_kg": round(float(m[i]), 4)})
                   for i, (oid, box) in enumerate(zip(IDS, cart_boxes(k, w, h, WIDTH)))]
        case = Case(
            id=self.case_id(index), suite="recordings", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=round(duration, 4), objects=objects, known=k,
            prompt=(f"Fixed side view of a level track with two carts of {m[0]:.3f} kg and {m[1]:.3f} kg. The first "
                    "cart is pushed towards the second; they collide and move on along the track. The camera does "
                    "not move."),
            assumptions=["known masses", "level straight track, little friction", "fixed side view, uniform time"],
            criteria=["M1: momentum conserved", "M2: kinetic energy not created (restitution in [0, 1])",
                      "M3: no speed gain within a free-motion window"])
        tt = frame_times(case)
        sim = cart_collision(k, m, tt, "true", FPS)
        case.truth = GroundTruth(
            tracks={oid: [(float(a), mirror_x(k, float(b), WIDTH), k["ground_y"] - h[i] / 2)
                          for a, b in zip(tt, sim["x"][i])]
                    for i, oid in enumerate(IDS)},
            events={"collision": sim["t_c"]},
            quantities={**{f"{o}_{w}_px_s": float(sim[key][i]) for key, w in (("v_c", "before"), ("v_after", "after"))
                           for i, o in enumerate(IDS)}, "restitution": k["restitution"]})
        return case, next(self.render(case))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        m = np.array([o.known["mass_kg"] for o in case.objects])
        x = cart_collision(case.known, m, frame_times(case), law, FPS)["x"]
        return carts_frames(case.known, case.width, case.height, style_of(case), x)

    # --- measurement ---------------------------------------------------------------------------------
    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return collision_measurement(case, tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if (zeros := unresolved_scores(m, ("M1", "M2", "M3"))) is not None:
            return zeros
        mass = [next(o.known["mass_kg"] for o in case.objects if o.id == oid) for oid in IDS]
        g = {key: m.get(f"{key}_v_px_s") for key in (f"{o}_{w}" for w in ("before", "after") for o in IDS)}
        v = [g[f"{o}_before"] for o in IDS]
        va = [g[f"{o}_after"] for o in IDS]
        se = [m.get(f"{o}_before_se_px_s") for o in IDS]
        sa = [m.get(f"{o}_after_se_px_s") for o in IDS]
        closing = v[0] - v[1]
        if closing <= noise.k_for() * math.hypot(*se):
            why = "the bodies do not approach each other before the collision"
            return {f"M{i}": MetricScore.operational_zero(why) for i in (1, 2, 3)}
        fits = {key: {"v": m.get(f"{key}_v_px_s"), "se": m.get(f"{key}_se_px_s"), "acc": m.get(f"{key}_acc_px_s2"),
                      "se_acc": m.get(f"{key}_se_acc_px_s2"), "span": m.get(f"{key}_span_s")} for key in g}
        return {"M1": momentum_metric(mass, v, va, se, sa, A_MOMENTUM),
                "M2": energy_metric(mass, v, va, se, sa, A_ENERGY), "M3": steady_metric(fits, closing, A_STEADY)}
