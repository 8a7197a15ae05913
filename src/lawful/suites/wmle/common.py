"""Shared machinery of the WMLE tasks: the task base class, per-metric results, the measured consistency C.

A WMLE task subclasses :class:`WmleTask`, sets ``name``, ``label`` ("P1" …), ``family``, ``level``,
``required_objects`` and ``required_events``, and implements ``make_case``, ``render``, ``extract``
(tracks → :class:`~lawful.result.Measurement`) and ``metrics`` (measurement → ``{"M1": MetricScore, …}``).
The base class adds the consistency score C to every measurement and turns metrics into one
:class:`~lawful.result.Score` under the task's label.

Consistency C (no VLM): :mod:`lawful.suites.wmle.consistency`.

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
from lawful.result import Event, Measurement, Score, finite_float
from lawful.score.wmle import CONSISTENCY_GATE, composite, passes_gate, physical_score
from lawful.suites.base import Task, TrackingPlan
from lawful.tracks import Tracks

from lawful.suites.wmle.consistency import (  # noqa: F401 (re-exported: tasks and recordings import them here)
    AREA_RATIO, GAP_TOLERANCE, JUMP_PENALTY, ConsistencyChecks, count_jumps, count_zigzags, measure_consistency,
)
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
