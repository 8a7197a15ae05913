"""WMLE's measured consistency C (no VLM): observability factors of the tracked objects.

``C = 100 × found × persistence × continuity × order × reading_order × stability × events``, each factor in
[0, 1]:

- ``found``        fraction of the required objects visible in the first tracked frame;
- ``persistence``  mean over required objects of the fraction of samples in the observation interval
                   where the object is visible; gaps of at most ``GAP_TOLERANCE`` samples between two
                   sightings are forgiven (tracker dropouts, brief occlusion);
- ``continuity``   ``max(0, 1 - JUMP_PENALTY × n_jumps)`` where a jump (teleport / identity switch) is a
                   sighting far from the motion model's prediction: constant-velocity extrapolation
                   from the two previous sightings misses it by more than ``k·σ_e + 2·v·Δt + a·Δt² +
                   1 px`` (``σ_e`` the prediction's noise from the track's measured localisation noise,
                   ``k`` for the false-alarm rate ``noise.FALSE_ALARM``; ``v`` the larger of the speeds
                   before and after it, so a bounce or a collision — at most a full reversal — is no
                   jump, whatever the object's size; ``a`` the larger acceleration seen just before it or just after
                   it, from the three sightings on either side: a ring kicked off a coil from rest, decelerating
                   at 25 px per frame² at once, is no jump); with the default penalty 0.25 a single jump
                   already fails the gate (C ≤ 75);
- ``order``        mean over required objects of 1 − the share of *zigzags* among the runs of three consecutive
                   steps each longer than ``2 · MASK_EDGE_PX`` tracked px (the most two mask edges sitting off the
                   silhouette can move a centroid between two frames: no localisation error does it), plus what the
                   change of the mask's area can move it (:func:`lawful.score.order.count_zigzags`): a zigzag
                   turns back twice in a row (each step's dot product with the next negative). Motion sampled
                   faster than it changes cannot: a turning point or a bounce turns back once. Frames out of order
                   can (shuffled frames, swapped neighbours, a generator's temporal flicker): on the flat WMLE
                   P2, P4, P6, P8, P9, P12–P15 clips, 0 zigzags in every law-correct clip, 20–57 % of the triples
                   with the frames after the first shuffled and 100 % with neighbouring frames swapped, where
                   ``continuity`` saw nothing (its allowance grows with the speeds the disorder itself shows).
                   The bound is fixed, not measured (a noise measured on such a clip grows with its speed and hides
                   it: Principia's gate, which takes the larger of the two, misses clips out of order throughout
                   whose objects never rest):
                   centroids with Gaussian noise of 1 px or more zigzag past it, which no tracked clip has shown;
- ``reading_order`` the same test on the task's region readings (:mod:`lawful.perceive.regions`), pooled:
                   1 − zigzags / runs over every level and profile reading, a step counting when it is longer than
                   its reading can make it without the thing read moving: a level's row, ``k`` times the two rows'
                   standard errors in quadrature plus the wider of their ``band`` s (a surface seen as a strip lets
                   the step sit anywhere across it: a studio U-tube's tilted surface flips 6 px between frames at
                   the top of its swing, stated to 0.3 px); a profile's top, the mean change over the columns read
                   in both frames (at least 3), two mask edges (``2 · MASK_EDGE_PX``). Lines, brightness and blobs
                   are left out: a studio shadow's direction scatters 0.03 rad about a still line whose stated
                   error is 0.000–0.005 rad, and bounded instead by two mask edges over its length (0.035–0.09 rad
                   in P20), a beam's turn per frame (0.008–0.018 rad) is never a run; a light's flicker and a
                   melting blob's outline zigzag in lawful clips;
- ``stability``    mean over required objects of the fraction of sightings whose mask area is what
                   the object's first-frame area ``A0`` and its motion allow: within
                   ``[(A0 − L·D) / AREA_RATIO, AREA_RATIO·A0 + L·D]`` with ``L`` the blur streak
                   (≤ the per-sample displacement) and ``D = √A0`` its width across the motion: a body
                   swept ``L`` during the exposure covers ``A0 + L·D`` pixels in part and about
                   ``A0 − L·D`` in full (its core, all a colour mask may keep of a pale streak; a
                   disc's lens-shaped core is within 11 % of it; none once ``L ≥ D``); sightings whose box touches the
                   frame edge (cut by it) are left out (duplication merges or splits change the area;
                   an object that shrinks to a speck or doubles is not the same object);
- ``events``       fraction of the task's ``required_events`` found in ``measurement.events``.

Tasks may restrict the observation interval by setting ``measurement.notes["interval"] = [i0, i1]``
(sample indices, end exclusive) inside ``extract`` and may add task-specific factors by overriding
:meth:`WmleTask.extra_consistency`.

Seam for judges: a ``judge_C`` value in ``measurement.notes`` or ``case.known`` (0–100) replaces the
measured C; the measured factors stay in the evidence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lawful.perceive import noise
from lawful.score.order import count_zigzags, reading_steps, zigzags  # noqa: F401 (count_zigzags: re-exported)
from lawful.tracks import Tracks

GAP_TOLERANCE = 2
JUMP_PENALTY = 0.25
AREA_RATIO = 1.75


@dataclass
class ConsistencyChecks:
    """The measured observability factors and the resulting C (0–100)."""

    found: float = 1.0
    persistence: float = 1.0
    continuity: float = 1.0
    order: float = 1.0
    reading_order: float = 1.0
    stability: float = 1.0
    events: float = 1.0
    extra: dict[str, float] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def C(self) -> float:
        c = self.found * self.persistence * self.continuity * self.order * self.reading_order
        c *= self.stability * self.events
        for v in self.extra.values():
            c *= v
        return 100.0 * float(min(1.0, max(0.0, c)))

    def as_dict(self) -> dict[str, float]:
        d = {"found": self.found, "persistence": self.persistence, "continuity": self.continuity, "order": self.order,
             "reading_order": self.reading_order, "stability": self.stability, "events": self.events}
        d.update(self.extra)
        return {k: round(float(v), 6) for k, v in d.items()}


def _persistence(vis: np.ndarray, gap_tolerance: int) -> float:
    """Fraction of samples visible, forgiving gaps of ≤ ``gap_tolerance`` samples between two sightings."""
    n = len(vis)
    if n == 0:
        return 0.0
    ok = vis.copy()
    idx = np.flatnonzero(vis)
    for a, b in zip(idx[:-1], idx[1:]):
        if 1 < b - a <= gap_tolerance + 1:
            ok[a:b] = True
    return float(ok.mean())


def count_jumps(track, seen: np.ndarray, sigma: float, alpha: float = noise.FALSE_ALARM,
                contact: np.ndarray | None = None) -> int:
    """Sightings far from the constant-velocity prediction of the two before (see the module docstring).

    ``seen``: indices of the sightings; ``sigma``: the track's localisation noise (px); ``contact``: per sample,
    whether the object touched another one then (:func:`touching`): a miss there is a collision, not a jump.
    """
    xy = np.asarray(track.xy, float)
    t = np.asarray(track.t, float)
    k = noise.k_for(alpha)
    sig = sigma if math.isfinite(sigma) else 0.0
    seen = np.asarray(seen, int)
    if len(seen) < 3:
        return 0
    # every sighting n >= 2 at once (the arithmetic of one sighting, in the same order, as arrays)
    a, b, c = seen[:-2], seen[1:-1], seen[2:]
    r = (t[c] - t[b]) / np.maximum(t[b] - t[a], 1e-12)
    r_ = r[:, None]
    v_before = (xy[b] - xy[a]) / (b - a)[:, None]
    pred = xy[b] + r_ * (xy[b] - xy[a])
    miss = _norms(xy[c] - pred)
    sd = sig * np.sqrt(1 + (1 + r) ** 2 + r**2)
    speed = _norms(v_before)
    # the step after, not touching sample c: from seen[n + 1] to seen[n + 2], where there is one
    step = _norms(xy[seen[2:]] - xy[seen[1:-1]]) / (seen[2:] - seen[1:-1])  # [j]: from seen[j + 1] to seen[j + 2]
    after = np.full(len(c), -np.inf)
    after[:-2] = step[2:]  # sighting n (row n - 2): from seen[n + 1] to seen[n + 2]
    speed = np.maximum(speed, after)
    acc = np.zeros(len(c))  # the acceleration seen just before (px per sample²), carried over
    if len(c) > 1:
        acc[1:] = _accel(xy, seen[:-3], seen[1:-2], seen[2:-1])
    if len(c) > 3:  # or just after, from the three sightings after it (a launch from rest decelerating at once)
        np.maximum(acc[:-3], _accel(xy, seen[3:-2], seen[4:-1], seen[5:]), out=acc[:-3])
    gap = c - b
    far = miss > k * sd + 2.0 * speed * gap + acc * gap ** 2 + 1.0
    if contact is not None:
        far &= ~np.asarray(contact, bool)[c]
    return int(np.count_nonzero(far))


def touching(tracks: Tracks, oid: str, reach: float) -> np.ndarray:
    """Per sample, whether object ``oid``'s box came within ``reach`` px of another visible object's box (on both
    axes): struck, it may have been set moving within the frame interval (studio P6 seed 7500: a block sliding into
    one at rest moved it 3.9 px in one sample), and their masks meet at the seam."""
    box = np.asarray(tracks[oid].box, float)
    out = np.zeros(len(box), bool)
    for other in tracks.ids:
        if other == oid:
            continue
        b = np.asarray(tracks[other].box, float)
        with np.errstate(invalid="ignore"):
            gx = np.maximum(box[:, 0] - b[:, 2], b[:, 0] - box[:, 2])
            gy = np.maximum(box[:, 1] - b[:, 3], b[:, 1] - box[:, 3])
            out |= np.maximum(gx, gy) <= reach  # (NaN where either is not seen: False)
    return out


def _reading_order(tracks: Tracks, i0: int, i1: int, edge: float, notes: dict) -> float:
    """``reading_order``: 1 − zigzags / runs over every checkable region reading, samples ``[i0, i1)``; the counts
    per reading in ``notes["reading_zigzags"]``."""
    zig = runs = 0
    for name, series in tracks.regions.items():
        got = reading_steps(series, edge)
        if got is None:
            continue
        z, r = zigzags(got[0][i0:max(i0, i1 - 1)], got[1][i0:max(i0, i1 - 1)])
        notes.setdefault("reading_zigzags", {})[name] = [z, r]
        zig, runs = zig + z, runs + r
    return 1.0 - zig / runs if runs else 1.0


def _accel(xy: np.ndarray, p: np.ndarray, q: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Acceleration (px per sample²) over each triple of sightings ``p < q < u``: the change of velocity from
    ``p -> q`` to ``q -> u`` over half their span."""
    v1, v2 = (xy[q] - xy[p]) / (q - p)[:, None], (xy[u] - xy[q]) / (u - q)[:, None]
    return _norms(v2 - v1) / np.maximum((u - p) / 2, 1)


def _norms(d: np.ndarray) -> np.ndarray:
    """Euclidean length of each row of ``d`` ``[N, 2]`` (as ``np.linalg.norm`` of the row: sqrt of its dot)."""
    return np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])


def measure_consistency(
    tracks: Tracks,
    required_objects: list[str],
    event_names: list[str],
    required_events: list[str],
    interval: tuple[int, int] | None = None,
    sizes: dict[str, float] | None = None,
    frame: tuple[float, float] | None = None,
) -> ConsistencyChecks:
    """Observability factors of C from tracks (see the module docstring for the definitions).

    ``interval`` is ``[i0, i1)`` in sample indices (default: all samples); ``sizes`` the objects'
    first-frame areas in px² for the area model (default: the first visible sample's mask area);
    ``frame`` the ``(width, height)`` of the picture (sightings touching its edge do not count for
    stability).
    """
    chk = ConsistencyChecks()
    n = len(tracks)
    i0, i1 = (0, n) if interval is None else (max(0, int(interval[0])), min(n, int(interval[1])))
    if i1 <= i0:
        i0, i1 = 0, n
    objs = list(required_objects)
    edge = noise.mask_edge(tracks, frame[0] if frame else None)  # case px
    if objs:
        present = [o for o in objs if o in tracks]
        chk.found = sum(bool(tracks[o].visible[0]) for o in present) / len(objs) if n else 0.0
        pers, stab, order, jumps = [], [], [], 0
        for o in objs:
            if o not in tracks:
                pers.append(0.0)
                stab.append(0.0)
                continue
            tr = tracks[o]
            vis = np.asarray(tr.visible[i0:i1], bool)
            pers.append(_persistence(vis, GAP_TOLERANCE))
            seen = np.flatnonzero(vis) + i0
            if len(seen) == 0:
                stab.append(0.0)
                continue
            zig, runs = count_zigzags(tr, seen, 2 * edge)
            order.append(1.0 - zig / runs if runs else 1.0)
            chk.notes.setdefault("zigzags", {})[o] = [zig, runs]
            sigma = noise.track_noise(tr).sigma
            nj = count_jumps(tr, seen, sigma, contact=touching(tracks, o, 2 * edge))
            jumps += nj
            chk.notes.setdefault("jumps", {})[o] = nj
            chk.notes.setdefault("noise_px", {})[o] = None if not math.isfinite(sigma) else round(sigma, 3)
            cut = noise.touches_border(tr, frame)
            whole_seen = seen[~cut[seen]]
            all_vis = np.flatnonzero(np.asarray(tr.visible, bool) & ~cut)
            a0 = float((sizes or {}).get(o) or (tr.area[all_vis[0]] if len(all_vis) else 0.0))
            if a0 > 0 and len(whole_seen):
                d = math.sqrt(a0)
                streak = np.nan_to_num(noise.speed_steps(np.asarray(tr.xy, float), seen)[whole_seen])
                a = tr.area[whole_seen]
                ok = (a >= np.maximum(a0 - streak * d, 0.0) / AREA_RATIO) & (a <= AREA_RATIO * a0 + streak * d)
                stab.append(float(np.mean(ok)))
            else:
                stab.append(1.0)
        chk.persistence = float(np.mean(pers))
        chk.stability = float(np.mean(stab))
        chk.continuity = max(0.0, 1.0 - JUMP_PENALTY * jumps)
        chk.order = float(np.mean(order)) if order else 1.0
    chk.reading_order = _reading_order(tracks, i0, i1, edge, chk.notes)
    if required_events:
        have = set(event_names)
        chk.events = sum(e in have for e in required_events) / len(required_events)
        chk.notes["missing_events"] = [e for e in required_events if e not in have]
    chk.notes["interval"] = [i0, i1]
    return chk
