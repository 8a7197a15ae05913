"""WMLE leaderboard: per model and task C, P and the gated composite S (± its std over videos), family and overall means.

Aggregation follows the paper: each video's S = 0.15·C + 0.85·P̃ is computed with the gate first,
then C and S are averaged over the model–task pair's videos and P over the videos with a recorded
physics score (gated videos included, invalid ones excluded). Task means are averaged equally into
family and overall scores.

Per-row treatment (``status`` of the row):

- ``scored``: C, P and S as recorded (P may contain operational zeros; a row whose metrics are all
  operational zeros counts as ``unmeasurable`` in the counts but keeps P = 0);
- ``unmeasurable`` without a score (the required object was not found): a completed extraction that
  resolved nothing — P = 0 (operational zero), C as recorded or 0, S by Eq. 7;
- ``invalid``: no physics score. If a C was recorded the video still contributes S = 0.15·C and C;
  otherwise (unreadable or broken input) it is left out of every mean and only counted.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any

from lawful.score.wmle import composite, passes_gate
from lawful.suites.wmle.common import FAMILIES


def _mean(v: list[float]) -> float | None:
    v = [x for x in v if x is not None and math.isfinite(x)]
    return sum(v) / len(v) if v else None


def _row_scores(row: dict) -> tuple[float | None, float | None, float | None, str]:
    """(C, P, S, kind) of one score row; kind is scored / unmeasurable / invalid."""
    sc = row.get("score") or {}
    metrics = sc.get("metrics") or {}
    extra = sc.get("extra") or {}
    status = row.get("status") or sc.get("status") or "invalid"
    C = metrics.get("C")
    if status == "scored":
        P = metrics.get("P")
        C = 0.0 if C is None else float(C)
        S = row.get("value")
        if S is None:
            S = composite(C, P)
        kind = "unmeasurable" if extra.get("unresolved") else "scored"
        return C, (None if P is None else float(P)), float(S), kind
    if status == "unmeasurable":
        C = 0.0 if C is None else float(C)
        P = metrics.get("P")
        P = 0.0 if P is None else float(P)
        return C, P, composite(C, P), "unmeasurable"
    if C is None:
        return None, None, None, "invalid"
    C = float(C)
    return C, None, composite(C, None), "invalid"


def _info() -> dict[str, dict]:
    try:  # through the suite registry: this module is below the package that composes the suite
        from lawful.suites.base import get_suite

        tasks = get_suite("wmle").tasks.values()
        return {t.label: {"name": t.name, "level": t.level, "family": t.family} for t in tasks}
    except Exception:  # a broken task module must not hide the leaderboard
        return {}


def _label_key(label: str) -> tuple[int, str]:
    digits = "".join(ch for ch in label if ch.isdigit())
    return (int(digits) if digits else 10**6, label)


def aggregate(score_rows: list[dict], suite: str = "wmle", info: dict[str, dict] | None = None) -> dict:
    """The ``suite`` section of leaderboard.json from score rows (see the module docstring); ``info``: its tasks'
    ``{label: {"name", "level", "family"}}`` (default: WMLE's). The recordings suite shares it."""
    info = _info() if info is None else info
    per: dict[str, dict[str, list[tuple]]] = defaultdict(lambda: defaultdict(list))
    judged: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # videos whose C is the judge's
    meta: dict[str, dict] = {}
    for row in score_rows:
        if row.get("suite", suite) != suite:
            continue
        label = row.get("col") or row.get("task")
        sc = row.get("score") or {}
        extra = sc.get("extra") or {}
        m = meta.setdefault(label, dict(info.get(label, {})))
        m.setdefault("name", row.get("task"))
        for k in ("level", "family"):
            if extra.get(k) and not m.get(k):
                m[k] = extra[k]
        per[row.get("model", "?")][label].append(_row_scores(row))
        if extra.get("C_source") == "judge":
            judged[row.get("model", "?")][label] += 1
    models: dict[str, Any] = {}
    for model, by_task in sorted(per.items()):
        tasks, cs, ps, gate, names, levels, std = {}, {}, {}, {}, {}, {}, {}
        counts = {"videos": 0, "scored": 0, "unmeasurable": 0, "invalid": 0}
        for label in sorted(by_task, key=_label_key):
            rows = by_task[label]
            counts["videos"] += len(rows)
            for r in rows:
                counts[r[3]] += 1
            counted = [r for r in rows if r[0] is not None]
            s = _mean([r[2] for r in counted])
            tasks[label] = None if s is None else round(s, 4)
            if len(counted) > 1:
                std[label] = round(statistics.pstdev([r[2] for r in counted]), 4)
            c = _mean([r[0] for r in counted])
            cs[label] = None if c is None else round(c, 4)
            p = _mean([r[1] for r in rows if r[1] is not None])
            ps[label] = None if p is None else round(p, 4)
            gate[label] = bool(counted) and all(passes_gate(r[0]) for r in counted)
            names[label] = meta[label].get("name")
            levels[label] = meta[label].get("level")
        fam: dict[str, list[float]] = defaultdict(list)
        lev: dict[str, list[float]] = defaultdict(list)
        for label, s in tasks.items():
            if s is None:
                continue
            fam[meta[label].get("family") or "other"].append(s)
            lev[levels[label] or "?"].append(s)
        fam_order = [f for f in FAMILIES if f in fam] + sorted(f for f in fam if f not in FAMILIES)
        overall = _mean([s for s in tasks.values() if s is not None])
        models[model] = {
            "overall": None if overall is None else round(overall, 4),
            "overall_C": _round(_mean([c for c in cs.values() if c is not None])),
            "overall_P": _round(_mean([p for p in ps.values() if p is not None])),
            "tasks": tasks, "std": std, "C": cs, "P": ps, "gate_passed": gate, "names": names, "levels": levels,
            "C_judged": {lab: judged[model][lab] for lab in tasks if judged[model][lab]},
            "families": {f: _round(_mean(fam[f])) for f in fam_order},
            "by_level": {k: _round(_mean(lev[k])) for k in ("E", "M", "H") if k in lev},
            **counts,
        }
    return {"scale": [0, 100], "models": models}


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def table(section: dict, title: str = "WMLE", info: dict[str, dict] | None = None):
    """A rich Table in the shape of the paper's Tables 4–5: per task C / P / S for each model (``info`` as for
    :func:`aggregate`)."""
    from rich.table import Table

    models = section.get("models", {})
    names = list(models)
    t = Table(title=f"{title} — consistency C, physics P, composite S (0–100)", show_lines=False)
    t.add_column("Task")
    t.add_column("Phenomenon")
    t.add_column("Level", justify="center")
    for mname in names:
        for k in ("C", "P", "S"):
            t.add_column(f"{mname}\n{k}" if k == "C" else k, justify="right")
    labels = sorted({lab for m in models.values() for lab in m["tasks"]}, key=_label_key)
    info = _info() if info is None else info

    def family_of(label: str) -> str:
        return info.get(label, {}).get("family") or "other"

    by_family: dict[str, list[str]] = defaultdict(list)
    for lab in labels:
        by_family[family_of(lab)].append(lab)
    fam_order = [f for f in FAMILIES if f in by_family] + sorted(f for f in by_family if f not in FAMILIES)
    for fam in fam_order:
        for lab in by_family[fam]:
            cells = []
            name = level = ""
            for mname in names:
                m = models[mname]
                name = name or (m.get("names", {}).get(lab) or "")
                level = level or (m.get("levels", {}).get(lab) or "")
                s = _fmt(m["tasks"].get(lab))
                if m.get("std", {}).get(lab) is not None:
                    s += f" ± {m['std'][lab]:.1f}"
                if lab in m["tasks"] and m["tasks"][lab] is not None:
                    s += " ✓" if m.get("gate_passed", {}).get(lab) else " ✗"
                cj = m.get("C_judged", {}).get(lab)
                cells += [_fmt(m["C"].get(lab)) + (f" J{cj}" if cj else ""), _fmt(m["P"].get(lab)), s]
            t.add_row(lab, name.replace("_", " "), level, *cells)
        fam_cells = []
        for mname in names:
            m = models[mname]
            labs = [lab for lab in by_family[fam] if lab in m["tasks"]]
            fam_cells += [_fmt(_mean([m["C"][lab] for lab in labs])), _fmt(_mean([m["P"][lab] for lab in labs])),
                          _fmt(m["families"].get(fam))]
        t.add_row("", f"[bold]{fam}[/bold]", "", *[f"[bold]{c}[/bold]" for c in fam_cells], end_section=True)
    tot = []
    for mname in names:
        m = models[mname]
        tot += [_fmt(m.get("overall_C")), _fmt(m.get("overall_P")), _fmt(m.get("overall"))]
    t.add_row("", "[bold]Average[/bold]", "", *[f"[bold]{c}[/bold]" for c in tot])
    if any(m.get("C_judged") for m in models.values()):
        t.caption = "C Jn: n of the task's videos have the judge's C; the others' C is measured"
    return t
