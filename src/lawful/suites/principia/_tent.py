"""Tent races shared by the Principia friction and inertia tasks: two objects released together from the
same height on opposite faces of a tent ramp race to finish rows near the feet.

Arrival (appendix A.2): the first time the object's lowest pixel (lower edge of its mask box)
reaches the finish row ``case.known['finish_y'][object]`` painted near the foot of its face;
sub-frame by a local parabola through the lower-edge samples around the crossing.
Release is the case's ``release`` or the objects' earliest sustained motion onset
(:func:`lawful.perceive.onset.release_of`; they start together from rest), not frame 0. DCS window: release → arrival.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case
from lawful.perceive import events
from lawful.perceive.onset import release_of
from lawful.result import Measurement
from lawful.tracks import Tracks

from lawful.suites.principia import _scene as sc
from lawful.suites.principia._common import (
    PrincipiaTask,
    add_event,
    finish_dcs,
    fit_parabola,
    parabola_level_time,
    per_object,
    record_dcs,
)

FOOT_DX = 200.0  # px from the apex to each foot
FINISH_BEFORE_FOOT = 18.0  # px up the slope from the foot
FLOOR_RUN = 40.0  # px an object travels on the floor after the foot before it stops


def arrival_index(tracks: Tracks, oid: str, finish_y: float) -> float | None:
    """Fractional sample index where the object's lower edge first reaches ``finish_y`` (None if never)."""
    tr = tracks[oid]
    edge = np.asarray(tr.bottom, float) + 0.5  # box rows are inclusive: the edge is half a pixel lower
    c = events.crossing(edge, finish_y, +1)
    if c is None:
        return None
    t = np.asarray(tr.t, float)
    j = int(math.floor(c))
    win = [i for i in range(max(0, j - 5), min(len(edge), j + 3)) if np.isfinite(edge[i])]
    coef = fit_parabola(t[win], edge[win]) if len(win) >= 4 else None
    if coef is not None:
        tc = parabola_level_time(coef, finish_y, after=t[max(j - 1, 0)])
        if tc is not None and tc <= t[min(j + 2, len(t) - 1)]:
            return float(np.interp(tc, t, np.arange(len(t))))
    return c


class TentRace(PrincipiaTask):
    """Two objects released together from the same height on opposite faces of a tent ramp."""

    object_ids = ("left", "right")  # overridden
    dcs_direction = "image y, downwards (down the slope)"
    required_known = {"finish_y": "pixel row of the finish line: one value, or one per object"}

    def _measure_arrivals(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float | None]:
        out = {}
        t_r, how = release_of(case, tracks, self.object_ids)
        m.set("release_time_s", t_r, how)
        for oid in self.object_ids:
            idx = arrival_index(tracks, oid, per_object(case, "finish_y", oid))
            record_dcs(m, tracks[oid], idx)
            if idx is None or t_r is None:
                m.set(f"arrival_time_{oid}", None, f"{oid}: never reaches its finish line" if idx is None
                      else f"release not found ({how})")
                out[oid] = None
            else:
                t = add_event(m, tracks, oid, "arrival", idx) - t_r
                m.set(f"arrival_time_{oid}", t)
                out[oid] = t
        finish_dcs(m, self.object_ids)
        return out

    def render(self, case: Case, law: str = "true") -> Iterator[np.ndarray]:
        k = case.known
        t = sc.frame_times(case)
        poses = self._poses(k, t, law)
        left, right = tent_faces(k)
        scene = sc.new_scene(k).ground(k["ground_y"]).ramp(sc.tent_polygon(left, right))
        for face in (left, right):
            p = face.point(k["finish_s"])
            scene.marker_line(tuple(p), tuple(p + 14 * (-face.n)), width=2)
        return sc.render_frames(case, scene, lambda f: self._items(k, {o: p[f] for o, p in poses.items()}))

    def _poses(self, k: dict, t: np.ndarray, law: str) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def _items(self, k: dict, pose: dict[str, np.ndarray]) -> list:
        raise NotImplementedError


def tent_faces(k: dict) -> tuple[sc.Face, sc.Face]:
    return sc.tent(320.0, k["apex_y"], FOOT_DX, k["ground_y"])


def tent_layout(rng: np.random.Generator, theta_deg: tuple[float, float]) -> dict:
    ground_y = round(float(rng.uniform(316, 330)), 1)
    theta = math.radians(float(rng.uniform(*theta_deg)))
    apex_y = round(ground_y - FOOT_DX * math.tan(theta), 3)
    return {"ground_y": ground_y, "apex_y": apex_y, "theta": theta}
