"""Two judges' answers from one run, side by side (``lawful judge compare``).

Pairs rows of the store's ``judgements`` table by (suite, case, model, rollout, criterion) for
judge A and judge B of one rubric. Statistics use only pairs both judges scored (a pair where
either gave no usable answer is counted, never guessed): exact agreement, mean absolute
difference, and Pearson r / Spearman ρ of the values (NaN with fewer than 2 pairs or no spread).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from lawful.judges.agreement import pearson, spearman

KEY = ("suite", "case_id", "model", "rollout", "criterion")


def paired_rows(store, rubric: str, judge_a: str, judge_b: str) -> list[dict]:
    """One row per item either judge answered: the key, each judge's value and status."""
    rows: dict[tuple, dict] = {}
    for side, judge in (("a", judge_a), ("b", judge_b)):
        for r in store.judgements(rubric=rubric, judge=judge):
            k = tuple(r[c] for c in KEY)
            row = rows.setdefault(k, {**dict(zip(KEY, k)), "value_a": None, "status_a": "missing",
                                      "value_b": None, "status_b": "missing"})
            row[f"value_{side}"] = r["value"] if r["status"] == "scored" else None
            row[f"status_{side}"] = r["status"]
    return [rows[k] for k in sorted(rows, key=lambda k: tuple(str(x) for x in k))]


def compare(rows: list[dict]) -> dict:
    """Agreement statistics over pairs both judges scored."""
    both = [(r["value_a"], r["value_b"]) for r in rows if r["value_a"] is not None and r["value_b"] is not None]
    a, b = [x for x, _ in both], [y for _, y in both]
    return {
        "items": len(rows), "both_scored": len(both),
        "only_a": sum(1 for r in rows if r["value_a"] is not None and r["value_b"] is None),
        "only_b": sum(1 for r in rows if r["value_b"] is not None and r["value_a"] is None),
        "neither": sum(1 for r in rows if r["value_a"] is None and r["value_b"] is None),
        "exact_agreement": sum(x == y for x, y in both) / len(both) if both else math.nan,
        "mean_abs_diff": sum(abs(x - y) for x, y in both) / len(both) if both else math.nan,
        "pearson": pearson(a, b), "spearman": spearman(a, b) if both else math.nan,
    }


def write_csv(rows: list[dict], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    cols = [*KEY, "value_a", "status_a", "value_b", "status_b"]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    return path
