"""Load a published (or your own) PhyGround-style prompt set: JSON, JSONL or CSV rows of prompt, first-frame
image, laws and source category, checked against the 13-law taxonomy.

Fields per row (aliases in brackets; only ``prompt`` and ``laws`` are required):

- ``id`` [``prompt_id``, ``case_id``]: file-name-safe, unique; default ``<file stem>-<row number>``;
- ``prompt`` [``text``, ``caption``]: the generation prompt (PhyGround's carries its expected outcome);
- ``expected_outcome`` [``outcome``]: appended to the prompt when given separately;
- ``image`` [``first_frame``, ``image_path``]: a local image file, relative to the prompt file (no URLs:
  lawful downloads nothing); empty for text-only prompts;
- ``laws`` [``physical_laws``, ``criteria``]: a list, or one string split on ``,`` ``;`` ``|``; keys
  (``flow_dynamics``) or names (``Flow dynamics``, ``Boundary (liquid-solid) interaction``), any case;
- ``source`` [``source_category``, ``category``]: where the prompt came from.

A JSON file is a list of rows or an object holding one under ``prompts``, ``cases`` or ``items``.
``lawful run --suite phyground`` uses the set named by the environment variable ``LAWFUL_PHYGROUND_PROMPTS``
instead of the built-in cases. Any problem is one :class:`PromptSetError` line naming the row.
"""

from __future__ import annotations

import csv
import difflib
import functools
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from lawful.suites.phyground.cases import CASES, MAX_LAWS, MIN_LAWS, CaseSpec
from lawful.suites.phyground.taxonomy import LAWS

ENV = "LAWFUL_PHYGROUND_PROMPTS"
ALIASES = {"id": ("id", "prompt_id", "case_id"), "prompt": ("prompt", "text", "caption"),
           "expected_outcome": ("expected_outcome", "outcome"), "image": ("image", "first_frame", "image_path"),
           "laws": ("laws", "physical_laws", "criteria"), "source": ("source", "source_category", "category")}


class PromptSetError(ValueError):
    """A prompt file that cannot be used, with the row and the reason, in one line."""


def _norm(name: str) -> str:
    return re.sub(r"[^a-z]+", " ", name.lower()).strip()


_LOOKUP: dict[str, str] = {}
for _law in LAWS:
    _LOOKUP[_norm(_law.key)] = _law.key
    _LOOKUP[_norm(_law.name)] = _law.key
_LOOKUP[_norm("boundary interaction")] = "boundary_interaction"
_LOOKUP[_norm("liquid-solid interaction")] = "boundary_interaction"


def resolve_law(name: str) -> str:
    """The taxonomy key of a law given by key or name (any case, spaces or underscores); ValueError with the
    closest names otherwise."""
    key = _LOOKUP.get(_norm(str(name)))
    if key:
        return key
    close = difflib.get_close_matches(_norm(str(name)), list(_LOOKUP), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(_LOOKUP[c]) for c in dict.fromkeys(close))}?" if close else ""
    raise ValueError(f"unknown law {name!r}{hint} (laws: {', '.join(law.key for law in LAWS)})")


def _field(row: dict, name: str):
    for k in ALIASES[name]:
        if k in row and row[k] not in (None, ""):
            return row[k]
    return None


def _rows(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8-sig")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return [dict(r) for r in csv.DictReader(text.splitlines())]
    if suffix == ".jsonl":
        rows = []
        for i, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise PromptSetError(f"{path}: line {i} is not JSON ({e.msg})") from None
        return rows
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise PromptSetError(f"{path}: not JSON ({e.msg} at line {e.lineno})") from None
        if isinstance(data, dict):
            data = next((data[k] for k in ("prompts", "cases", "items") if isinstance(data.get(k), list)), None)
        if not isinstance(data, list):
            raise PromptSetError(f"{path}: expected a list of prompts (or an object with 'prompts')")
        return data
    raise PromptSetError(f"{path}: unknown format {suffix or '(none)'}; use .json, .jsonl or .csv")


def _laws(value) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [s for s in re.split(r"[,;|]", str(value or "")) if s.strip()]
    keys = tuple(resolve_law(str(s).strip()) for s in items)
    if not keys:
        raise ValueError("no laws given")
    return tuple(dict.fromkeys(keys))


def _image(value, base: Path) -> str | None:
    if value is None:
        return None
    value = str(value).strip()
    if "://" in value or value.startswith("data:"):
        raise ValueError(f"image {value[:60]!r} is a URL; download it and give a local file (lawful fetches nothing)")
    p = (base / value).resolve()
    if not p.is_file():
        raise ValueError(f"image {value!r} not found (looked at {p})")
    return str(p)


def load_prompts(path: str | Path) -> list[CaseSpec]:
    """The prompt set in ``path`` as case specs (``image`` an absolute path or None, ``source`` the category)."""
    path = Path(path)
    if not path.is_file():
        raise PromptSetError(f"prompt file {path} not found")
    specs, seen = [], {}
    for i, row in enumerate(_rows(path), 1):
        where = f"{path.name} row {i}"
        if not isinstance(row, dict):
            raise PromptSetError(f"{where}: expected an object with prompt and laws")
        cid = str(_field(row, "id") or f"{path.stem}-{i:04d}").strip()
        where = f"{where} ({cid})"
        prompt = str(_field(row, "prompt") or "").strip()
        try:
            if not prompt:
                raise ValueError("no prompt")
            if not cid or "/" in cid or "\\" in cid or cid.startswith(".") or "__" in cid:
                raise ValueError("id must be file-name safe (no '/', '\\', leading '.', or '__')")
            if cid in seen:
                raise ValueError(f"id repeats row {seen[cid]}")
            spec = CaseSpec(cid, prompt, str(_field(row, "expected_outcome") or "").strip(),
                            _laws(_field(row, "laws")), None, str(_field(row, "source") or "").strip(),
                            _image(_field(row, "image"), path.parent))
        except ValueError as e:
            raise PromptSetError(f"{where}: {e}") from None
        seen[cid] = i
        specs.append(spec)
    if not specs:
        raise PromptSetError(f"{path}: no prompts")
    return specs


def off_rule(specs: list[CaseSpec]) -> list[str]:
    """Ids of prompts tagged with fewer than 2 or more than 4 laws (PhyGround scores 2-4 per video)."""
    return [s.id for s in specs if not MIN_LAWS <= len(s.laws) <= MAX_LAWS]


def prompts_from_env() -> str | None:
    """The prompt file named by ``LAWFUL_PHYGROUND_PROMPTS`` (None when unset or empty)."""
    return os.environ.get(ENV) or None


def case_specs(prompts: str | Path | None = None, warn: bool = False) -> tuple[Sequence[CaseSpec], str]:
    """The cases to run and where they came from: the prompt file ``prompts`` (or ``LAWFUL_PHYGROUND_PROMPTS``),
    else the built-in set. ``warn``: name on stderr the prompts tagged outside PhyGround's 2-4 laws (kept)."""
    path = prompts or prompts_from_env()
    if path is None:
        return CASES, "built-in"
    p = Path(path)
    specs = _load(str(p), p.stat().st_mtime_ns if p.is_file() else 0)
    odd = off_rule(specs)
    if warn and odd:
        sys.stderr.write(f"warning: {len(odd)} prompt(s) not tagged with 2-4 laws as PhyGround requires: "
                         f"{', '.join(odd[:5])}{' …' if len(odd) > 5 else ''}\n")
    return specs, str(path)


@functools.lru_cache(maxsize=4)
def _load(path: str, mtime_ns: int) -> tuple[CaseSpec, ...]:
    """A prompt file read once per process while it is unchanged (every look-up of the suite asks for it)."""
    return tuple(load_prompts(path))
