"""Leaderboards: aggregate stored scores per suite, write leaderboard.json and the HTML report, print tables.

Generic aggregation (Principia and any suite without its own ``aggregate``):
rollouts of a case are averaged first; a video that is ``unmeasurable`` or
``invalid`` counts 0 (a clip that does not show the law earns no credit; the
counts are reported beside the score); a column's score is the mean (± std)
over its cases; ``overall`` is the mean over columns.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import numpy as np
from rich.table import Table

from lawful.report.html import fmt
from lawful.store import Store
from lawful.suites.base import get_suite


def column_counts(rows: list[dict]) -> dict[str, dict[str, dict[str, int]]]:
    """model → column → ``{"scored", "unmeasurable", "invalid"}`` counts of stored column scores."""
    counts: dict = defaultdict(lambda: defaultdict(lambda: {"scored": 0, "unmeasurable": 0, "invalid": 0}))
    for r in rows:
        c = counts[r["model"]][r["col"]]
        c[r["status"] if r["status"] in c else "invalid"] += 1
    return {m: dict(cols) for m, cols in counts.items()}


def video_counts(store: Store, suite: str) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"videos": 0, "scored": 0, "unmeasurable": 0,
                                                             "invalid": 0})
    for v in store.videos(suite):
        c = counts[v["model"]]
        c["videos"] += 1
        c[v["status"] if v["status"] in c else "invalid"] += 1
    return counts


def case_means(rows: list[dict]) -> dict[str, dict[str, dict[str, float]]]:
    """model → column → case_id → mean over rollouts (non-scored counts 0)."""
    acc: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in rows:
        v = r["value"] if r["status"] == "scored" and r["value"] is not None else 0.0
        acc[r["model"]][r["col"]][r["case_id"]].append(float(v))
    return {m: {c: {k: float(np.mean(v)) for k, v in cases.items()} for c, cases in cols.items()}
            for m, cols in acc.items()}


def aggregate_generic(rows: list[dict], columns: list[str], scale=(0.0, 1.0)) -> dict:
    models: dict = {}
    for model, cols in case_means(rows).items():
        tasks, std, n = {}, {}, {}
        for c in columns:
            vals = list(cols.get(c, {}).values())
            if vals:
                tasks[c], std[c], n[c] = float(np.mean(vals)), float(np.std(vals)), len(vals)
        overall = float(np.mean(list(tasks.values()))) if tasks else math.nan
        models[model] = {"overall": overall, "tasks": tasks, "std": std, "cases": n}
    return {"scale": list(scale), "models": models}


def suite_section(store: Store, suite_name: str) -> dict:
    suite = get_suite(suite_name)
    if suite.section is not None:
        return suite.section(store)
    rows = store.scores(suite_name)
    if suite.judged:
        from lawful.judges.judge import stored_values

        for rubric, apply in suite.judged.items():
            values = stored_values(store, rubric, suite_name)
            if values:
                rows = apply(rows, values)
    if suite.aggregate is not None:
        section = suite.aggregate(rows)
    else:
        section = aggregate_generic(rows, suite.columns(), suite.scale)
    for model, c in video_counts(store, suite_name).items():
        section.setdefault("models", {}).setdefault(model, {"overall": math.nan, "tasks": {}}).update(c)
    known = set(suite.columns())
    for model, cols in column_counts(rows).items():
        m = section.setdefault("models", {}).setdefault(model, {"overall": math.nan, "tasks": {}})
        m["column_counts"] = {c: n for c, n in cols.items() if c in known}
        m["unattributed"] = sum(sum(n.values()) for c, n in cols.items() if c not in known)  # case names no task
    return section


def _clean(x):
    """NaN → None so the JSON is standard."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    return x


def write_reports(store: Store, out: Path, suites: list[str], extra: dict | None = None, embed: bool = False) -> dict:
    """Recompute the named suites' sections, merge with sections already in leaderboard.json, write it and the
    HTML report (report.html, and under report/ the case pages of the suites recomputed now; ``embed``: copy
    the videos beside the pages instead of referencing them in place)."""
    from lawful.report.pages import write_report

    path = out / "leaderboard.json"
    board = json.loads(path.read_text()) if path.exists() else {}
    for s in suites:
        board[s] = _clean(suite_section(store, s))
    board.update(_clean(extra or {}))
    path.write_text(json.dumps(board, indent=2))
    write_report(board, store, out, [*suites, *(extra or {})], embed)
    return board


def table(suite_name: str, section: dict) -> Table:
    """The leaderboard as a rich table: one row per model, one column per task (mean ± std over cases), plus overall."""
    suite = get_suite(suite_name)
    if suite.table is not None:
        return suite.table(section)
    cols = [c for c in suite.columns() if any(c in m.get("tasks", {}) for m in section["models"].values())]
    t = Table(title=f"{suite_name} (scale {section['scale'][0]:g}–{section['scale'][1]:g})")
    t.add_column("model", style="bold")
    for c in cols:
        t.add_column(c, justify="right")
    t.add_column("overall", justify="right", style="bold")
    t.add_column("scores: ok/unmeas/invalid", justify="right")
    for model, m in section["models"].items():
        counts = m.get("column_counts") or {}
        cells = [fmt(m["tasks"].get(c)) + _pm(m, c) + _marker(counts.get(c)) for c in cols]
        total = {k: sum(n.get(k, 0) for n in counts.values()) for k in ("scored", "unmeasurable", "invalid")}
        total["invalid"] += m.get("unattributed", 0)
        t.add_row(model, *cells, fmt(m.get("overall")),
                  f"{total['scored']}/{total['unmeasurable']}/{total['invalid']}")
    if any((m.get("column_counts") and any(_marker(n) for n in m["column_counts"].values()))
           for m in section["models"].values()):
        t.caption = "* some of this column's videos were unmeasurable or invalid and count 0"
    return t


def _pm(m: dict, col: str) -> str:
    """' ± std' over the column's cases (when there are several)."""
    sd, n = m.get("std", {}).get(col), m.get("cases", {}).get(col, 0)
    return f" ± {fmt(sd)}" if sd is not None and n > 1 and math.isfinite(sd) else ""


def _marker(n: dict | None) -> str:
    return "*" if n and (n.get("unmeasurable", 0) or n.get("invalid", 0)) else ""

