"""Tent races shared by the Principia friction and inertia tasks: two objects released together from the
same height on opposite faces of a tent ramp race to finish rows near the feet.

Arrival (appendix A.2): the first time the object's lowest pixel (lower edge of its mask box, less its
steady offset from the case box at release) reaches the finish row ``case.known['finish_y'][object]``
painted near the foot of its face; sub-frame by a parabola through the lower-edge samples before the
crossing (:func:`arrival_index`).
Release is the case's ``release`` or the objects' earliest sustained motion onset
(:func:`lawful.perceive.onset.release_of`; they start together from rest), not frame 0. DCS window: release → arrival.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case
from lawful.perceive import events, noise
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
    whole,
)

FOOT_DX = 200.0  # px from the apex to each foot
FINISH_BEFORE_FOOT = 18.0  # px up the slope from the foot
FLOOR_RUN = 40.0  # px an object travels on the floor after the foot before it stops
FIT_SECONDS = 0.5  # span of the samples the crossing's parabola goes through
DESCENT_SAMPLES = 6  # the last samples short of the finish row that must show the edge still moving down


def lower_edge(tracks: Tracks, oid: str) -> np.ndarray:
    """``[T]`` the mask's lower edge (``bottom + 0.5``: box rows are inclusive); NaN where not seen whole."""
    tr = tracks[oid]
    return np.where(whole(tr), np.asarray(tr.bottom, float) + 0.5, np.nan)


def arrival_index(tracks: Tracks, oid: str, finish_y: float, offset: float = 0.0,
                  release: float = 0.0) -> tuple[float | None, str, int | None]:
    """Fractional sample index where the object's lowest point first reaches ``finish_y``, or None and why; and
    where the arrival is not seen, the last sample of the descent that was (else None).

    The lowest point is the :func:`lower_edge` less its steady ``offset`` (:func:`edge_offset`), from
    ``release`` (s) on. The crossing is timed by a parabola through the last :data:`FIT_SECONDS` of samples
    up to the last one short of the finish: all on the face. The studio finish lies ~2 px above where the
    lowest point meets the floor, so the sample past it may already be on the floor (a window reaching past
    the crossing put inertia seed 2's tube 1.1 frames late).

    An edge that comes to rest short of the row and crosses it later was not timed by rolling there
    (:func:`stalled`): None. Nor was one seen short of the row before a gap longer than a crossing may bridge and
    past it after (a tube and a solid crossing each other at the foot of a valley, studio inertia seed 6002):
    the object arrived unseen, which is not "never".
    """
    t = np.asarray(tracks[oid].t, float)
    edge = lower_edge(tracks, oid) - offset
    start = max(float(np.interp(release, t, np.arange(len(t)))), 0.0)
    c = events.crossing(edge, finish_y, +1, start=start)
    if c is None:
        seen = np.flatnonzero(np.isfinite(edge) & (np.arange(len(edge)) >= math.floor(start)))
        past = seen[edge[seen] >= finish_y]
        if len(past) and past[0] > seen[0]:  # seen short of the row (every sighting before the first past it is)
            p, q = int(seen[seen < past[0]][-1]), int(past[0])
            return None, (f"{oid}: crossed its finish line unseen (samples {p + 1}-{q - 1} not seen whole, "
                          f"short of it before, past it after)"), p
        return None, f"{oid}: never reaches its finish line", None
    j = int(math.floor(c))
    if why := stalled(edge, j, c, finish_y):
        return None, f"{oid}: {why}", j
    lo = max(0, j - int(round(FIT_SECONDS / max(float(np.median(np.diff(t))), 1e-6))) + 1)
    win = [i for i in range(lo, j + 1) if np.isfinite(edge[i]) and t[i] >= release]
    coef = fit_parabola(t[win], edge[win]) if len(win) >= 4 else None
    if coef is not None:
        tc = parabola_level_time(coef, finish_y, after=t[j])
        if tc is not None and tc <= t[min(j + 1, len(t) - 1)]:
            return float(np.interp(tc, t, np.arange(len(t)))), "", None
    return c, "", None


def stalled(edge: np.ndarray, j: int, c: float, finish_y: float) -> str:
    """Why the crossing at fractional sample ``c`` is no arrival, else ''.

    Down a face the lowest point moves fastest where it reaches the finish row. If instead a line through its
    last :data:`DESCENT_SAMPLES` samples up to ``j`` (the last short of the row) descends no faster than the
    edge's own noise allows (slope within ``k`` standard errors of 0, :func:`lawful.perceive.noise.k_for`,
    from its measured ``sigma``), the edge came to rest short of the row: a mask edge biased by a contact
    shadow under blur (studio inertia seed 1002's tube rested 0.4 px short for six samples), and the later
    crossing is a spike or a part of another object.
    """
    prior = np.flatnonzero(np.isfinite(edge[: j + 1]))[-DESCENT_SAMPLES:]
    if len(prior) < DESCENT_SAMPLES:
        return ""
    x = prior - prior.mean()
    slope = float(np.dot(x, edge[prior] - edge[prior].mean()) / np.dot(x, x))
    sigma = noise.sigma(edge)
    need = noise.k_for() * sigma / math.sqrt(float(np.dot(x, x))) if math.isfinite(sigma) else 0.0
    if slope > need:
        return ""
    return (f"its lowest edge rested {finish_y - edge[prior[-1]]:.1f} px short of the finish row over samples "
            f"{prior[0]}-{prior[-1]} ({slope:+.2f} px a sample; noise allows {need:.2f}) before crossing it at "
            f"sample {c:.1f}: when it arrived is not seen")


def edge_offset(t: np.ndarray, edge: np.ndarray, start_edge: float, finish_y: float, release: float) -> float:
    """Steady offset (px) of the tracked lower ``edge`` from the true one, given the first-frame ``start_edge``.

    A colour mask's edge sits a steady offset off the silhouette (shading, the contact shadow, codec chroma):
    about -1.0 px for studio inertia seed 2's tube and +0.4 px for its solid cylinder, the same along the
    whole run (it made the tube arrive a frame late); the case box gives the true edge at release.

    A parabola through the samples from ``release`` until the edge has covered half its way to ``finish_y``
    (constant acceleration down the face: the simulated lowest point departs from one by < 0.07 px over the
    whole run) gives the edge at release; the offset is its distance from ``start_edge``. 0 when fewer than
    4 such samples.
    """
    idx = np.flatnonzero(np.isfinite(edge) & (t >= release))
    if len(idx) < 4:
        return 0.0
    moved = edge[idx] - float(np.median(edge[idx[:3]]))
    past = np.flatnonzero(moved >= (finish_y - start_edge) / 2)
    early = idx[: past[0] if len(past) else len(idx)]  # up to the first sample past half-way
    coef = fit_parabola(t[early], edge[early]) if len(early) >= 4 else None
    return 0.0 if coef is None else float(np.polyval(coef, release)) - start_edge


class TentRace(PrincipiaTask):
    """Two objects released together from the same height on opposite faces of a tent ramp."""

    object_ids = ("left", "right")  # overridden
    dcs_direction = "image y, downwards (down the slope)"
    required_known = {"finish_y": "pixel row of the finish line: one value, or one per object"}

    def _measure_arrivals(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float | None]:
        out = {}
        t_r, how = release_of(case, tracks, self.object_ids)
        m.set("release_time_s", t_r, how)
        offsets = m.notes.setdefault("edge_offset_px", {})
        for oid in self.object_ids:
            finish, t0 = per_object(case, "finish_y", oid), 0.0 if t_r is None else t_r
            off = edge_offset(np.asarray(tracks[oid].t, float), lower_edge(tracks, oid), case.object(oid).box[3],
                              finish, t0)
            # a mask edge's bias, plus its whole-row rounding and the release fit's error (as much again):
            # beyond that the object does not start where the case's box says, and the painted line rules
            bound = 2 * noise.mask_edge(tracks, case.width)
            if abs(off) > bound:
                m.notes.setdefault("edge_offset_unused", {})[oid] = (
                    f"{off:+.2f} px off the case box at release is more than a mask edge ({bound:.2f} px): "
                    "timed to the painted finish line as tracked")
                off = 0.0
            offsets[oid] = round(off, 3)
            idx, why, seen_to = arrival_index(tracks, oid, finish, off, t0)
            # an arrival not seen: the direction is judged on the descent that was (the rest may climb the far face)
            record_dcs(m, tracks[oid], idx if idx is not None else seen_to, lost=seen_to)
            if idx is None or t_r is None:
                m.set(f"arrival_time_{oid}", None, why or f"release not found ({how})")
                out[oid] = None
            else:
                t = add_event(m, tracks, oid, "arrival", idx) - t_r
                m.set(f"arrival_time_{oid}", t)
                out[oid] = t
        finish_dcs(m, self.object_ids, tracks, case.width)
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
