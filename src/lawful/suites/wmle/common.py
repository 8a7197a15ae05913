"""Shared machinery of the WMLE tasks: the task base class, per-metric results, the measured consistency C.

A WMLE task subclasses :class:`WmleTask`, sets ``name``, ``label`` ("P1" …), ``family``, ``level``,
``required_objects`` and ``required_events``, and implements ``make_case``, ``render``, ``extract``
(tracks → :class:`~lawful.result.Measurement`) and ``metrics`` (measurement → ``{"M1": MetricScore, …}``).
The base class adds the consistency score C to every measurement and turns metrics into one
:class:`~lawful.result.Score` under the task's label.

Consistency C (no VLM)
----------------------
``C = 100 × found × persistence × continuity × stability × events``, each factor in [0, 1]:

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

Metric statuses
---------------
``measured`` (value from a resolved measurement or a task's special rule), ``operational_zero`` (the
extraction completed but could not resolve the quantity: contributes 0 to P, is not a measured
violation) and ``undefined`` (input/execution problem: excluded from P's denominator). A video whose
metrics are all undefined has no physics score: status ``invalid``. A completed extraction is
``scored`` even when every metric is an operational zero (P = 0, ``extra["unresolved"] = True``;
the leaderboard counts it as unmeasurable). Task-specific rules (P1's 0.1, P6's 0.7) are ``measured``
with the rule named in ``extra["metric_reasons"]``.

The Score of a video: ``{label: Score(status, value=S, metrics={"C", "P", "M1", "M2"}, residuals={"M1": e1,
"M1.<component>": …}, extra={"S", "gated", "C_source", "C_checks", "metric_status", "metric_reasons",
"unresolved", "label", "level", "family"})}``.
"""

from __future__ import annotations

import math
import re
from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

from lawful.case import Case
from lawful.perceive import noise
from lawful.result import Event, Measurement, Score, finite_float
from lawful.score.wmle import CONSISTENCY_GATE, composite, passes_gate, physical_score
from lawful.suites.base import Task, TrackingPlan
from lawful.tracks import Tracks

from lawful.suites.wmle.kinematics import (  # noqa: F401 (re-exported: the tasks import them from here)
    departure_time, fill_gaps, interval_slopes, local_poly_value, ls_slope, steady_visible, steady_xy,
)

FAMILIES: tuple[str, ...] = (
    "Translational motion and collisions",
    "Rolling, friction, and rigid-body statics",
    "Pendulum motion and oscillations",
    "Optics and projective geometry",
    "Hydrostatics and buoyancy",
    "Phase transitions and melting",
    "Electrostatics, magnetism, and electromagnetic induction",
    "Granular media and discharge flow",
    "Surface tension and viscous flow",
)
LEVELS = ("E", "M", "H")

# Frame and clip geometry shared by the built-in WMLE cases.
WIDTH, HEIGHT, FPS = 640, 360, 24.0

GAP_TOLERANCE = 2
JUMP_PENALTY = 0.25
AREA_RATIO = 1.75

MetricStatus = Literal["measured", "operational_zero", "undefined"]


@dataclass
class MetricScore:
    """One metric's outcome: its score ``value`` in [0, 1] (None when undefined), status and evidence.

    ``residual`` is the metric's primary residual (e.g. ``e1``); ``components`` any further residuals
    or sub-scores it combined (``{"e_p": …, "c": …}``).
    """

    value: float | None
    status: MetricStatus = "measured"
    residual: float | None = None
    components: dict[str, float | None] = field(default_factory=dict)
    reason: str = ""

    @classmethod
    def measured(cls, value: float, residual: float | None = None, reason: str = "", **components: float | None):
        return cls(float(value), "measured", finite_float(residual), {k: finite_float(v) for k, v in
                                                                        components.items()}, reason)

    @classmethod
    def operational_zero(cls, reason: str, **components: float | None) -> "MetricScore":
        return cls(0.0, "operational_zero", None, {k: finite_float(v) for k, v in components.items()}, reason)

    @classmethod
    def undefined(cls, reason: str) -> "MetricScore":
        return cls(None, "undefined", None, {}, reason)


@dataclass
class ConsistencyChecks:
    """The measured observability factors and the resulting C (0–100)."""

    found: float = 1.0
    persistence: float = 1.0
    continuity: float = 1.0
    stability: float = 1.0
    events: float = 1.0
    extra: dict[str, float] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def C(self) -> float:
        c = self.found * self.persistence * self.continuity * self.stability * self.events
        for v in self.extra.values():
            c *= v
        return 100.0 * float(min(1.0, max(0.0, c)))

    def as_dict(self) -> dict[str, float]:
        d = {"found": self.found, "persistence": self.persistence, "continuity": self.continuity,
             "stability": self.stability, "events": self.events}
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


def count_jumps(track, seen: np.ndarray, sigma: float, alpha: float = noise.FALSE_ALARM) -> int:
    """Sightings far from the constant-velocity prediction of the two before (see the module docstring).

    ``seen``: indices of the sightings; ``sigma``: the track's localisation noise (px).
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
    return int(np.count_nonzero(miss > k * sd + 2.0 * speed * gap + acc * gap ** 2 + 1.0))


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
    if objs:
        present = [o for o in objs if o in tracks]
        chk.found = sum(bool(tracks[o].visible[0]) for o in present) / len(objs) if n else 0.0
        pers, stab, jumps = [], [], 0
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
            sigma = noise.track_noise(tr).sigma
            nj = count_jumps(tr, seen, sigma)
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
    if required_events:
        have = set(event_names)
        chk.events = sum(e in have for e in required_events) / len(required_events)
        chk.notes["missing_events"] = [e for e in required_events if e not in have]
    chk.notes["interval"] = [i0, i1]
    return chk


class WmleTask(Task):
    """Base class of the WMLE tasks P1–P40: one leaderboard column named by the label."""

    suite: ClassVar[str] = "wmle"
    label: ClassVar[str] = ""
    family: ClassVar[str] = ""
    level: ClassVar[str] = ""
    required_objects: ClassVar[tuple[str, ...]] = ()  # empty: every object of the case
    required_events: ClassVar[tuple[str, ...]] = ()
    plan: ClassVar[TrackingPlan] = TrackingPlan()

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.label:
            cls.phenomena = (cls.label,)
            if cls.family and cls.family not in FAMILIES:
                raise ValueError(f"{cls.__name__}: unknown family '{cls.family}'")
            if cls.level and cls.level not in LEVELS:
                raise ValueError(f"{cls.__name__}: level must be one of {LEVELS}")

    @property
    def number(self) -> int:
        """The label's number (P12 → 12)."""
        return label_number(self.label)

    def case_id(self, index: int) -> str:
        return f"wmle-p{self.number:02d}-{index:02d}"

    # --- to implement -------------------------------------------------------------------------
    @abstractmethod
    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        """The task's observables (quantities, events) from tracks; never raises for missing evidence."""

    @abstractmethod
    def metrics(self, case: Case, measurement: Measurement) -> dict[str, MetricScore]:
        """``{"M1": MetricScore, "M2": …}`` exactly as the task defines them."""

    def extra_consistency(self, case: Case, tracks: Tracks, measurement: Measurement) -> dict[str, float]:
        """Task-specific observability factors in [0, 1] multiplied into C (default none)."""
        return {}

    @staticmethod
    def readable(tracks: Tracks, regions: dict[str, str] | list[str]) -> dict[str, float]:
        """C factors ``readable_<key>``: the share of samples in which each region reading was read (0 if never
        taken); ``regions`` maps a factor key to a probe name, or lists probe names used as keys."""
        names = regions if isinstance(regions, dict) else {k: k for k in regions}
        return {f"readable_{k}": (tracks.regions[n].readable if n in tracks.regions else 0.0) for k, n in names.items()}

    # --- provided -----------------------------------------------------------------------------
    def objects_to_watch(self, case: Case) -> list[str]:
        return list(self.required_objects) or [o.id for o in case.objects]

    def consistency(self, case: Case, tracks: Tracks, measurement: Measurement) -> ConsistencyChecks:
        interval = measurement.notes.get("interval")
        chk = measure_consistency(
            tracks,
            self.objects_to_watch(case),
            [e.name for e in measurement.events],
            list(self.required_events),
            interval=tuple(interval) if interval is not None else None,
            frame=(case.width, case.height),
        )
        chk.extra.update({k: float(min(1.0, max(0.0, v))) for k, v in
                          self.extra_consistency(case, tracks, measurement).items()})
        return chk

    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        m = self.extract(case, tracks)
        chk = self.consistency(case, tracks, m)
        m.notes["C"] = chk.C
        m.notes["C_checks"] = chk.as_dict()
        m.notes["C_notes"] = chk.notes
        return m

    def score(self, case: Case, measurement: Measurement) -> dict[str, Score]:
        return {self.label: score_metrics(self, case, measurement, self.metrics(case, measurement))}


def consistency_of(case: Case, measurement: Measurement) -> tuple[float, str]:
    """C and where it came from: an external ``judge_C`` (measurement notes, then case) or the measurement."""
    for src in (measurement.notes, case.known):
        v = src.get("judge_C")
        if v is not None and math.isfinite(float(v)):
            return float(min(100.0, max(0.0, float(v)))), "judge"
    v = measurement.notes.get("C")
    if v is None:
        return 0.0, "missing"
    return float(v), "measured"


def score_metrics(task: WmleTask, case: Case, m: Measurement, metrics: dict[str, MetricScore]) -> Score:
    """One video's Score: P from the metrics, C (measured or judged), the gated composite S."""
    C, c_source = consistency_of(case, m)
    values = {k: v.value for k, v in metrics.items()}
    P = physical_score(values)
    S = composite(C, P)
    gated = not passes_gate(C)
    status_map = {k: v.status for k, v in metrics.items()}
    reasons = {k: v.reason for k, v in metrics.items() if v.reason}
    residuals: dict[str, float | None] = {}
    for k, v in metrics.items():
        residuals[k] = v.residual
        for ck, cv in v.components.items():
            residuals[f"{k}.{ck}"] = cv
    unresolved = bool(metrics) and all(s == "operational_zero" for s in status_map.values())
    extra = {
        "label": task.label, "level": task.level, "family": task.family,
        "S": S, "gated": gated, "C_source": c_source,
        "C_checks": m.notes.get("C_checks", {}),
        "metric_status": status_map, "metric_reasons": reasons, "unresolved": unresolved,
    }
    out_metrics: dict[str, float | None] = {"C": C, "P": P}
    out_metrics.update(values)
    if P is None:
        why = "; ".join(f"{k}: {r}" for k, r in reasons.items()) or "no metric could be evaluated"
        return Score(status="invalid", value=None, reason=why, metrics=out_metrics, residuals=residuals,
                     measurement=m, extra=extra)
    notes = [f"{k} unresolved ({reasons.get(k, '')})" for k, s in status_map.items() if s == "operational_zero"]
    if gated:
        notes.insert(0, f"C={C:.1f} < {CONSISTENCY_GATE:g}: physics not counted in S")
    return Score(status="scored", value=S, reason="; ".join(notes), metrics=out_metrics, residuals=residuals,
                 measurement=m, extra=extra)


def event(obj: str, name: str, frame: float, tracks: Tracks, value: float | None = None) -> Event:
    """An :class:`Event` at fractional sample index ``frame`` of ``tracks`` (time interpolated)."""
    n = len(tracks)
    f = float(min(max(frame, 0.0), n - 1))
    i = int(math.floor(f))
    j = min(i + 1, n - 1)
    w = f - i
    t = float(tracks.t[i] * (1 - w) + tracks.t[j] * w)
    fr = float(tracks.frames[i] * (1 - w) + tracks.frames[j] * w)
    return Event(object=obj, name=name, frame=fr, t=t, value=value)


# --- case and render helpers ------------------------------------------------------------------


def style_of(case: Case):
    """The appearance style a case was made with (``case.known['style_seed']``; None = default)."""
    from lawful.world.appearance import style_variant

    return style_variant(case.known.get("style_seed"))


def frame_times(case: Case) -> np.ndarray:
    """Physical time ``[n_frames]`` of each rendered frame: frame ``i`` shows ``i * duration / n``."""
    n = case.n_frames
    return np.arange(n) * case.duration / n


def case_rng(seed: int, label: str) -> np.random.Generator:
    """The parameter generator of one case: depends on the seed and the task label only."""
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, label_number(label), 0x3D1E])


def label_number(label: str) -> int:
    """The number in a task label (P12 → 12, R3 → 3; 0 for none)."""
    return int(re.sub(r"\D", "", label or "") or 0)


def sphere_box(x: float, y: float, r: float, pad: float = 1.0) -> tuple[float, float, float, float]:
    return (x - r - pad, y - r - pad, x + r + pad, y + r + pad)


def contrasting_colors(seed: int, k: int, min_hue_deg: float = 75.0) -> list[tuple[int, int, int]]:
    """``k`` palette colours (seed-dependent order) whose hues differ pairwise by at least ``min_hue_deg``.

    For objects that come close or touch: neighbouring palette hues (blue/purple, red/orange) can share a
    colour model and merge. Falls back to the plain seed order when the palette cannot satisfy it.
    """
    import colorsys

    from lawful.world.appearance import OBJECT_PALETTE, object_colors

    order = object_colors(seed, len(OBJECT_PALETTE))

    def hue(c):
        return 360.0 * colorsys.rgb_to_hsv(*(v / 255 for v in c))[0]

    chosen: list = []
    for c in order:
        if all(min(abs(hue(c) - hue(o)), 360 - abs(hue(c) - hue(o))) >= min_hue_deg for o in chosen):
            chosen.append(c)
        if len(chosen) == k:
            return chosen
    return order[:k]
