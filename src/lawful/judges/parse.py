"""Turn a judge's reply into validated values, never guessing.

``extract_json`` finds the JSON object in a reply that may wrap it in code
fences or prose. ``parse_answer`` checks it against the rubric's schema and
scale: each expected key gets a value on the scale (``scored``), the
not-applicable value where allowed (``scored`` with ``na=True``), or status
``invalid`` with the reason. The raw text is always kept by the caller.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from lawful.judges.rubric import Criterion, Rubric
from lawful.result import finite_float

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str, want: list[str] | None = None) -> dict | None:
    """The JSON object in ``text``: the whole reply, a fenced block, or an object inside prose.

    With several candidates, the first holding any key of ``want`` wins, else the first object.
    """
    if not text:
        return None
    cands: list[dict] = []
    whole = _loads(text.strip())
    if isinstance(whole, dict):
        cands.append(whole)
    for block in _FENCE.findall(text):
        obj = _loads(block.strip())
        if isinstance(obj, dict):
            cands.append(obj)
    dec = json.JSONDecoder()
    for m in re.finditer(r"\{", text):
        try:
            obj, _ = dec.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            cands.append(obj)
    if not cands:
        return None
    if want:
        for c in cands:
            if any(k in c for k in want):
                return c
    return cands[0]


def _loads(s: str) -> Any:
    try:
        return json.loads(s)
    except (json.JSONDecodeError, ValueError):
        return None


@dataclass
class CriterionAnswer:
    """One criterion's parsed value: ``status`` is ``scored`` or ``invalid`` (``reason`` says why)."""

    value: float | None
    status: str
    reason: str = ""
    na: bool = False


@dataclass
class Answer:
    values: dict[str, CriterionAnswer]
    extra: dict[str, Any] = field(default_factory=dict)


def parse_answer(text: str, rubric: Rubric, criteria: list[Criterion]) -> Answer:
    """Validate a reply to one call over ``criteria``; keys come back as criterion keys."""
    keys = rubric.answer_keys(criteria)
    obj = extract_json(text, keys + ["score"])
    if obj is None:
        return Answer({c.key: CriterionAnswer(None, "invalid", "no JSON object in the reply") for c in criteria})
    out: dict[str, CriterionAnswer] = {}
    for c, k in zip(criteria, keys):  # with an answer_key the call has one criterion
        if k in obj:
            raw = obj[k]
        elif len(criteria) == 1 and "score" in obj:  # a lone score under the generic name is the same answer
            raw = obj["score"]
        else:
            out[c.key] = CriterionAnswer(None, "invalid", f"reply lacks key '{k}'")
            continue
        out[c.key] = check_value(raw, rubric, c)
    extra = {k: obj[k] for k in rubric.answer_extra if k in obj}
    return Answer(out, extra)


def check_value(raw: Any, rubric: Rubric, c: Criterion) -> CriterionAnswer:
    """A raw JSON value checked against the scale: labels, numbers in range, integers where required."""
    s = rubric.scale
    if s.labels:
        if isinstance(raw, str):
            for label, v in s.labels.items():
                if raw.strip().upper() == label.upper():
                    return CriterionAnswer(v, "scored")
        return CriterionAnswer(None, "invalid", f"{raw!r} is not one of {list(s.labels)}")
    v = finite_float(raw)
    if v is None:
        return CriterionAnswer(None, "invalid", f"{raw!r} is not a number")
    if c.allow_na and s.not_applicable is not None and v == s.not_applicable:
        return CriterionAnswer(v, "scored", na=True)
    if not (s.min <= v <= s.max):
        return CriterionAnswer(None, "invalid", f"{v:g} is outside [{s.min:g}, {s.max:g}]")
    if s.integer and not float(v).is_integer():
        return CriterionAnswer(None, "invalid", f"{v:g} is not a whole number on the {s.min:g}-{s.max:g} scale")
    return CriterionAnswer(float(v), "scored")
