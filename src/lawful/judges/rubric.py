"""Rubrics as data: load, validate, select the calls a case needs, render prompts, fuse scores.

A rubric is one versioned JSON file in ``lawful/judges/rubrics/`` (see
``docs`` in each file's ``source``): its criteria keys, scale and anchors,
sub-questions, group weights, the JSON schema of an answer, how frames are
sampled, and a prompt template in the project's own words. Templates use
``string.Template`` placeholders (``$prompt``, ``$criterion_name`` …) so JSON
braces in them need no escaping.

``call`` says how criteria map to judge calls: ``per_criterion`` (one
criterion per call, PhyGround's rule) or ``all_criteria`` (one call answers
every criterion, Apple-π's rubrics). ``select`` says which criteria apply to a
case: ``all``; ``case_criteria`` (the case's ``criteria`` list, e.g. its 2-4
PhyGround laws); ``case_task`` (the criterion named by ``case.task``, e.g. a
Principia phenomenon).
"""

from __future__ import annotations

import json
import math
from functools import cache
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lawful.case import Case
from lawful.choices import unknown


class RubricError(ValueError):
    """A rubric file that cannot be used; the message is one line."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Scale(_Strict):
    """The answer scale. ``labels`` maps word answers to values (PASS → 1); ``not_applicable``
    is the value meaning 'does not apply' for criteria that allow it (Apple-π's −1)."""

    min: float
    max: float
    integer: bool = False
    labels: dict[str, float] | None = None
    not_applicable: float | None = None
    anchors: dict[str, str] = Field(default_factory=dict)


class Criterion(_Strict):
    key: str
    name: str
    question: str
    sub_questions: tuple[str, ...] = ()
    domain: str | None = None
    aliases: tuple[str, ...] = ()
    allow_na: bool = False
    anchors: dict[str, str] = Field(default_factory=dict)


class Group(_Strict):
    """A weighted group: the mean of its judge criteria and objective (measured) metrics."""

    name: str
    weight: float
    criteria: tuple[str, ...] = ()
    objective: tuple[str, ...] = ()


class Reference(_Strict):
    """An extra image shown before the video: ``source`` is ``first_frame`` or ``known:<field>``
    (a path in ``case.known``, relative to the case file)."""

    label: str
    source: str
    required: bool = True


class FrameSpec(_Strict):
    """What the judge sees of the video.

    ``mode``: ``video`` (frames sampled at ``fps`` over the clip, at most ``max_frames``; ``fps``
    None samples ``max_frames`` evenly; both None: every frame, the full video), ``last_frame``
    (the final decodable frame: the answer artifact), ``keyframes`` (one call per timestamp in ``case.known['deduction_timestamps']``,
    each with its ground-truth frame from ``case.known['gt_keyframes']``). ``max_side`` in pixels.
    """

    mode: Literal["video", "last_frame", "keyframes"] = "video"
    fps: float | None = 4.0
    max_frames: int | None = 24
    max_side: int | None = 640
    references: tuple[Reference, ...] = ()


class AppliesTo(_Strict):
    suite: str | None = None
    subtrack: str | None = None


class Rubric(_Strict):
    name: str
    version: str
    protocol: str
    title: str
    source: str
    notes: str = ""
    call: Literal["per_criterion", "all_criteria"]
    select: Literal["all", "case_criteria", "case_task"] = "all"
    applies_to: AppliesTo = AppliesTo()
    scale: Scale
    answer_key: str | None = None
    answer_extra: dict[str, str] = Field(default_factory=dict)
    frames: FrameSpec = FrameSpec()
    criteria: tuple[Criterion, ...]
    groups: tuple[Group, ...] = ()
    proxies: dict[str, str] = Field(default_factory=dict)
    system: str
    template: str
    output_schema: dict[str, Any]

    @model_validator(mode="after")
    def _consistent(self) -> "Rubric":
        keys = [c.key for c in self.criteria]
        if len(set(keys)) != len(keys):
            raise ValueError("criteria keys must be unique")
        for g in self.groups:
            for k in g.criteria:
                if k not in keys and k not in self.proxies:
                    raise ValueError(f"group '{g.name}' names unknown criterion '{k}'")
        if self.groups and not math.isclose(sum(g.weight for g in self.groups), 1.0, abs_tol=1e-9):
            raise ValueError("group weights must sum to 1")
        if self.answer_key and self.call != "per_criterion":
            raise ValueError("answer_key needs call = per_criterion")
        expected = build_output_schema(self, keys)
        if self.output_schema != expected:
            raise ValueError("output_schema does not match the scale and criteria; it should be "
                             + json.dumps(expected, separators=(",", ":")))
        try:
            Template(self.template).substitute(_placeholder_context())
        except (KeyError, ValueError) as e:
            raise ValueError(f"template has an unknown or malformed placeholder: {e}") from None
        return self

    # --- identity ---------------------------------------------------------------------------
    @property
    def id(self) -> str:
        """``name@version``: what the cache and the store record."""
        return f"{self.name}@{self.version}"

    def criterion(self, key: str) -> Criterion:
        for c in self.criteria:
            if c.key == key or key in c.aliases:
                return c
        raise KeyError(unknown(key, [c.key for c in self.criteria], f"criterion of rubric '{self.name}'"))

    # --- which calls a case needs --------------------------------------------------------------
    def applies(self, case: Case) -> bool:
        a = self.applies_to
        if a.suite and case.suite != a.suite:
            return False
        if a.subtrack:
            sub = case.known.get("subtrack")
            if sub is not None and _norm(str(sub)) != _norm(a.subtrack):
                return False
        return bool(self.criteria_for(case))

    def criteria_for(self, case: Case) -> list[Criterion]:
        """The criteria this rubric scores on ``case``."""
        if self.select == "all":
            return list(self.criteria)
        names = case.criteria if self.select == "case_criteria" else [case.task]
        out: list[Criterion] = []
        for n in names:
            for c in self.criteria:
                if _norm(n) in {_norm(c.key), *(_norm(a) for a in c.aliases)} and c not in out:
                    out.append(c)
        return out

    def calls_for(self, case: Case) -> list[list[Criterion]]:
        """Criteria grouped by judge call: one per criterion, or all in one."""
        crit = self.criteria_for(case)
        if not crit:
            return []
        return [[c] for c in crit] if self.call == "per_criterion" else [crit]

    def answer_keys(self, criteria: list[Criterion]) -> list[str]:
        """JSON keys the answer to a call over ``criteria`` must hold."""
        if self.answer_key:
            return [self.answer_key]
        return [c.key for c in criteria]

    # --- prompts -------------------------------------------------------------------------------
    def render(self, case: Case, criteria: list[Criterion], extra: dict[str, str] | None = None) -> str:
        """The user prompt for one call. Raises KeyError naming a case field the template needs."""
        ctx = self.context(case, criteria)
        ctx.update(extra or {})
        return Template(self.template).substitute(ctx).strip()

    def context(self, case: Case, criteria: list[Criterion]) -> dict[str, str]:
        expected = str(case.known.get("expected_outcome", "")).strip()
        one = criteria[0]
        ctx = {k: _fmt(v) for k, v in case.known.items() if isinstance(v, (str, int, float))}
        ctx.update(
            prompt=case.prompt.strip(),
            expected_outcome=expected or "(not stated)",
            criterion_key=one.key,
            criterion_name=one.name,
            criterion_question=one.question,
            checklist=_bullets(one.sub_questions) if one.sub_questions else "- (no checklist for this criterion)",
            anchors=self.anchor_text(one),
            criteria_list="\n".join(self._criterion_line(c) for c in criteria),
            answer_format=self.answer_format(criteria),
            objects=", ".join(o.id for o in case.objects) or "(not listed)",
            duration=_fmt(case.duration),
        )
        ctx.setdefault("time_point", "")
        return ctx

    def anchor_text(self, c: Criterion) -> str:
        anchors = c.anchors or self.scale.anchors
        return "\n".join(f"{k} = {v}" for k, v in anchors.items())

    def _criterion_line(self, c: Criterion) -> str:
        na = " If it does not apply, answer -1." if c.allow_na else ""
        return f"- {c.key}: {c.question}{na}"

    def answer_format(self, criteria: list[Criterion]) -> str:
        """One line telling the judge the exact JSON to return."""
        s = self.scale
        if s.labels:
            val = " or ".join(f'"{k}"' for k in s.labels)
        elif s.integer:
            val = f"an integer from {_fmt(s.min)} to {_fmt(s.max)}"
        else:
            val = f"a number from {_fmt(s.min)} to {_fmt(s.max)}"
        fields = [f'"{k}": <{val}>' for k in self.answer_keys(criteria)]
        fields += [f'"{k}": <{t}>' for k, t in self.answer_extra.items()]
        return "Reply with a single JSON object and nothing else: {" + ", ".join(fields) + "}"

    # --- fusion --------------------------------------------------------------------------------
    def fuse(self, judged: dict[str, float | None], objective: dict[str, float | None] | None = None) -> dict:
        """Group means and the weighted total (Apple-π E.1/E.3).

        ``judged``: criterion → value (``not_applicable`` or None leaves its group mean);
        ``objective``: measured metric → value in [0, 1] (None leaves the mean).
        ``proxies`` fill a group member from another key (keyframe judge: position → smoothness).
        An empty group scores 0. Returns ``{"groups": {name: mean}, "score": total}``.
        """
        if not self.groups:
            raise RubricError(f"rubric '{self.name}' has no groups to fuse")
        objective = objective or {}
        na = self.scale.not_applicable
        groups: dict[str, float] = {}
        for g in self.groups:
            vals = []
            for k in g.criteria:
                v = judged.get(k)
                if v is None and k in self.proxies:
                    v = judged.get(self.proxies[k])
                if v is not None and not (na is not None and v == na) and math.isfinite(v):
                    vals.append(float(v))
            vals += [float(objective[k]) for k in g.objective if objective.get(k) is not None]
            groups[g.name] = sum(vals) / len(vals) if vals else 0.0
        total = sum(g.weight * groups[g.name] for g in self.groups)
        return {"groups": groups, "score": total}


def _norm(s: str) -> str:
    return s.strip().lower().replace("-", "_").replace(" ", "_")


def _fmt(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _bullets(items) -> str:
    return "\n".join(f"- {q}" for q in items)


def _placeholder_context() -> dict[str, str]:
    names = ("prompt expected_outcome criterion_key criterion_name criterion_question checklist anchors "
             "criteria_list answer_format objects duration time_point")

    class _Any(dict):
        def __missing__(self, key):  # case.known fields are allowed placeholders too
            return ""

    return _Any({n: "" for n in names.split()})


def value_schema(scale: Scale, allow_na: bool) -> dict[str, Any]:
    if scale.labels:
        return {"enum": list(scale.labels)}
    base = {"type": "integer" if scale.integer else "number", "minimum": scale.min, "maximum": scale.max}
    if allow_na and scale.not_applicable is not None:
        return {"anyOf": [base, {"const": scale.not_applicable}]}
    return base


def build_output_schema(rubric: "Rubric | Any", keys: list[str]) -> dict[str, Any]:
    """The JSON Schema of an answer covering ``keys`` (all criteria for the file's schema)."""
    crit = {c.key: c for c in rubric.criteria}
    props: dict[str, Any] = {}
    if rubric.answer_key:
        props[rubric.answer_key] = value_schema(rubric.scale, False)
        required = [rubric.answer_key]
    else:
        for k in keys:
            props[k] = value_schema(rubric.scale, crit[k].allow_na)
        required = list(keys)
    for k, t in rubric.answer_extra.items():
        props[k] = {"type": t}
    return {"type": "object", "properties": props, "required": required}


# --- loading ------------------------------------------------------------------------------------
def _builtin_dir():
    return resources.files("lawful.judges") / "rubrics"


def rubric_names() -> list[str]:
    return sorted(p.name[:-5] for p in _builtin_dir().iterdir() if p.name.endswith(".json"))


def parse_rubric(data: dict, where: str = "rubric") -> Rubric:
    try:
        return Rubric.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "rubric"
        raise RubricError(f"{where}: {loc}: {first['msg']}") from None


@cache
def _load_builtin(name: str) -> Rubric:
    path = _builtin_dir() / f"{name}.json"
    return parse_rubric(json.loads(path.read_text()), f"rubric '{name}'")


def load_rubric(name_or_path: str | Path) -> Rubric:
    """A built-in rubric by name (``phyground-law``) or a rubric JSON file by path."""
    p = Path(name_or_path)
    if p.suffix == ".json" and p.exists():
        try:
            data = json.loads(p.read_text())
        except json.JSONDecodeError as e:
            raise RubricError(f"{p}: not valid JSON ({e.msg} at line {e.lineno})") from None
        return parse_rubric(data, str(p))
    name = str(name_or_path)
    if name not in rubric_names():
        raise RubricError(unknown(name, rubric_names(), "rubric"))
    return _load_builtin(name)
