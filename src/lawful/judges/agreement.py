"""Meta-evaluation: how far a judge can be trusted, from score tables.

Inputs are rows (dicts) read from CSV or JSON, so ratings from anywhere can be compared.

- :func:`cross_check` — Pearson r and Spearman ρ between two judges' per-model mean scores,
  overall (mean over all of a model's rows, i.e. over cases and subtracks, Apple-π Eq. 14)
  and per subtrack: the layout of Apple-π Table 14.
- :func:`relative_bias` — PhyGround's judge bias against human means per dimension or domain:
  signed relative bias ``(J − H) / H`` and the aggregate, the mean of its absolute values.
  (The seed names these measures without printing the formula; this is the reading used here.)
- :func:`principia_agreement` — Principia's A_φ: the fraction of scenes of phenomenon φ whose
  PASS/FAIL verdict matches the truth; "Overall" is the mean of A_φ over phenomena (Table 4).
- :func:`rank_agreement` — WMLE Eq. 10: over within-task pairs with both videos assessable,
  the fraction where sign(P_i − P_j) = sign(H_i − H_j), sign(0) = 0, so matching ties agree.
- :func:`confirmed_pairwise` — WMLE Eq. 11: N_agree / N over all predefined pairs; the human
  preference is a strict majority of assessable votes (``insufficient`` abstains); a pair with no
  majority stays in the denominator and never agrees. :func:`pairwise_human_human` is the
  reference: exact agreement of two annotators' assessable answers, averaged over pairings.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lawful.result import finite_float

Row = dict[str, Any]


# --- tables ------------------------------------------------------------------------------------
def load_table(path: str | Path) -> list[Row]:
    """Rows of a CSV (header line) or JSON file (a list of objects, or ``{"rows": [...]}``).

    CSV cells that look like numbers become floats; empty cells become None.
    """
    path = Path(path)
    if path.suffix.lower() == ".json":
        data = json.loads(path.read_text())
        rows = data["rows"] if isinstance(data, dict) else data
        return [dict(r) for r in rows]
    with path.open(newline="") as f:
        return [{k: _cell(v) for k, v in r.items()} for r in csv.DictReader(f)]


def _cell(v: str | None) -> Any:
    if v is None or v.strip() == "":
        return None
    try:
        return float(v)
    except ValueError:
        return v.strip()


# --- correlations ------------------------------------------------------------------------------
def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r; NaN when fewer than 2 points or a side has no spread."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2:
        return math.nan
    dx, dy = x - x.mean(), y - y.mean()
    den = math.sqrt(float((dx * dx).sum() * (dy * dy).sum()))
    return float((dx * dy).sum() / den) if den > 0 else math.nan


def ranks(x: Sequence[float]) -> np.ndarray:
    """Ranks 1..n with ties given their average rank."""
    x = np.asarray(x, float)
    order = np.argsort(x, kind="mergesort")
    r = np.empty(len(x))
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
            j += 1
        r[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's ρ: Pearson's r of average ranks."""
    return pearson(ranks(x), ranks(y))


def model_means(rows: Iterable[Row], *, model: str = "model", score: str = "score",
                by: str | None = None) -> dict[str | None, dict[str, float]]:
    """Per-model mean of ``score`` over rows; with ``by``, also per value of that column.

    Key ``None`` holds the overall means; rows whose score is missing are left out.
    """
    acc: dict[str | None, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        v = finite_float(r.get(score))
        if v is None:
            continue
        acc[None][str(r[model])].append(v)
        if by and r.get(by) is not None:
            acc[str(r[by])][str(r[model])].append(v)
    return {g: {m: sum(v) / len(v) for m, v in ms.items()} for g, ms in acc.items()}


def cross_check(a: Iterable[Row], b: Iterable[Row], *, model: str = "model", score: str = "score",
                subtrack: str | None = "subtrack") -> list[Row]:
    """Apple-π Table 14: r and ρ between two judges' per-model means, overall then per subtrack."""
    ma = model_means(a, model=model, score=score, by=subtrack)
    mb = model_means(b, model=model, score=score, by=subtrack)
    out = []
    groups = [None] + sorted(g for g in ma if g is not None and g in mb)
    for g in groups:
        models = sorted(set(ma.get(g, {})) & set(mb.get(g, {})))
        xa = [ma[g][m] for m in models]
        xb = [mb[g][m] for m in models]
        out.append({"comparison": "overall" if g is None else g, "n_models": len(models),
                    "pearson": pearson(xa, xb), "spearman": spearman(xa, xb)})
    return out


# --- PhyGround relative bias -----------------------------------------------------------------------
def relative_bias(judge: Iterable[Row], human: Iterable[Row], *, dimension: str = "dimension",
                  score: str = "score", item: str | None = None) -> Row:
    """Signed relative bias per dimension ``(mean_J − mean_H) / mean_H`` and the aggregate
    ``mean_d |signed_d|`` (fractions; ×100 for percent). With ``item`` (e.g. a video or model id),
    both means use only the items scored by both sides on that dimension."""

    def collect(rows):
        d: dict[str, dict[Any, list[float]]] = defaultdict(lambda: defaultdict(list))
        for r in rows:
            v = finite_float(r.get(score))
            if v is not None:
                d[str(r[dimension])][r.get(item) if item else len(d[str(r[dimension])])].append(v)
        return d

    J, H = collect(judge), collect(human)
    per: dict[str, Row] = {}
    for dim in sorted(set(J) & set(H)):
        if item:
            keys = set(J[dim]) & set(H[dim])
            jv = [v for k in keys for v in J[dim][k]]
            hv = [v for k in keys for v in H[dim][k]]
        else:
            jv = [v for vs in J[dim].values() for v in vs]
            hv = [v for vs in H[dim].values() for v in vs]
        if not jv or not hv:
            continue
        mj, mh = sum(jv) / len(jv), sum(hv) / len(hv)
        per[dim] = {"judge_mean": mj, "human_mean": mh, "signed": (mj - mh) / mh if mh else math.nan}
    signed = [p["signed"] for p in per.values() if math.isfinite(p["signed"])]
    return {"per_dimension": per, "aggregate": sum(abs(s) for s in signed) / len(signed) if signed else math.nan}


# --- Principia A_phi -------------------------------------------------------------------------------
def verdict_value(v: Any) -> bool | None:
    """PASS/FAIL, 1/0, true/false → True/False; anything else → None."""
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)) and v in (0, 1):
        return bool(v)
    if isinstance(v, str):
        s = v.strip().upper()
        if s in ("PASS", "TRUE", "1", "1.0", "YES"):
            return True
        if s in ("FAIL", "FALSE", "0", "0.0", "NO"):
            return False
    return None


def principia_agreement(rows: Iterable[Row], *, phenomenon: str = "phenomenon", verdict: str = "verdict",
                        truth: str = "truth") -> Row:
    """A_φ per phenomenon and their mean (Table 4's Overall). A missing or unusable verdict stays
    in the denominator and earns no credit; ``n_unanswered`` counts them. A phenomenon with no
    usable verdict at all has no A_φ (NaN, shown as N/A), never 0."""
    agree: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # agree, total, unanswered
    for r in rows:
        t = verdict_value(r.get(truth))
        if t is None:
            continue
        v = verdict_value(r.get(verdict))
        a = agree[str(r[phenomenon])]
        a[1] += 1
        if v is None:
            a[2] += 1
        elif v == t:
            a[0] += 1
    per = {p: a / n if n > u else math.nan for p, (a, n, u) in sorted(agree.items())}
    return {"per_phenomenon": per, "overall": mean_over(per.values()),
            "n": {p: n for p, (_, n, _) in sorted(agree.items())},
            "n_unanswered": {p: u for p, (_, _, u) in sorted(agree.items())}}


def mean_over(values: Iterable[float]) -> float:
    v = [x for x in values if x is not None and math.isfinite(x)]
    return sum(v) / len(v) if v else math.nan


# --- WMLE human agreement --------------------------------------------------------------------------
def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def rank_agreement(rows: Iterable[Row], *, task: str = "task", auto: str = "P", human: str = "H") -> Row:
    """Eq. 10 over all within-task pairs whose two videos both have a human rating (an empty
    ``human`` cell means 'insufficient evidence' and drops every pair with that video).
    Ties count as agreement only when both sides tie."""
    by_task: dict[Any, list[tuple[float, float]]] = defaultdict(list)
    excluded = 0
    for r in rows:
        by_task[r[task]].append((finite_float(r.get(auto)), finite_float(r.get(human))))
    n = agree = 0
    for vids in by_task.values():
        for (pi, hi), (pj, hj) in itertools.combinations(vids, 2):
            if None in (pi, hi, pj, hj):
                excluded += 1
                continue
            n += 1
            agree += _sign(pi - pj) == _sign(hi - hj)
    return {"A_rank": agree / n if n else math.nan, "agree": agree, "pairs": n, "excluded_pairs": excluded}


VOTES = {"A": "A", "B": "B", "TIE": "tie", "T": "tie", "=": "tie"}


def parse_votes(v: Any) -> list[str | None]:
    """``"A;B;insufficient"`` or a list → ['A', 'B', None] (None: abstention)."""
    if v is None:
        return []
    items = v if isinstance(v, (list, tuple)) else str(v).replace(",", ";").split(";")
    return [VOTES.get(str(x).strip().upper()) if x is not None else None for x in items]


def human_majority(votes: Sequence[str | None]) -> str | None:
    """The strict majority of assessable votes ('A', 'B' or 'tie'), or None when there is none."""
    cast = [v for v in votes if v is not None]
    if not cast:
        return None
    best = max(set(cast), key=cast.count)
    return best if cast.count(best) * 2 > len(cast) else None


def auto_preference(pa: float, pb: float) -> str:
    return "A" if pa > pb else "B" if pb > pa else "tie"


def confirmed_pairwise(rows: Iterable[Row], *, votes: str = "votes", auto_a: str = "P_a",
                       auto_b: str = "P_b") -> Row:
    """Eq. 11: matching A/B/tie judgments over all pairs; pairs without a human majority (or
    without both automatic scores) remain in the denominator and do not agree."""
    n = agree = no_majority = 0
    for r in rows:
        n += 1
        h = human_majority(parse_votes(r.get(votes)))
        pa, pb = finite_float(r.get(auto_a)), finite_float(r.get(auto_b))
        if h is None:
            no_majority += 1
            continue
        if pa is not None and pb is not None and auto_preference(pa, pb) == h:
            agree += 1
    return {"A_pair_conf": agree / n if n else math.nan, "agree": agree, "pairs": n, "no_majority": no_majority}


def pairwise_human_human(rows: Iterable[Row], *, votes: str = "votes") -> Row:
    """The Human–Human reference for Eq. 11: for each annotator pairing, matching assessable
    answers over all pairs; the mean over pairings."""
    table = [parse_votes(r.get(votes)) for r in rows]
    k = max((len(v) for v in table), default=0)
    per = {}
    for a, b in itertools.combinations(range(k), 2):
        hits = sum(1 for v in table if len(v) > b and v[a] is not None and v[a] == v[b])
        per[f"{a + 1}-{b + 1}"] = hits / len(table) if table else math.nan
    return {"per_pairing": per, "mean": mean_over(per.values())}


# --- Principia detection from a run ------------------------------------------------------------
TRUTH_BY_MODEL = {"reference": True, "counterfactual": False}


def principia_detection_rows(store, pass_threshold: float = 0.9) -> tuple[list[Row], list[Row]]:
    """Rows for :func:`principia_agreement` from a run's store: the judge's verdicts
    (``principia-detect``) and lawful's measurement verdicts (PASS when the scored S_φ ≥
    ``pass_threshold``; an unscored video gives no verdict). Truth: the ``reference`` render obeys
    the invariant, the ``counterfactual`` twin breaks it; other models have no known truth."""
    judge = [{"phenomenon": r["criterion"], "verdict": r["value"] if r["status"] == "scored" else None,
              "truth": TRUTH_BY_MODEL[r["model"]]}
             for r in store.judgements(suite="principia", rubric="principia-detect") if r["model"] in TRUTH_BY_MODEL]
    meas = [{"phenomenon": r["col"],
             "verdict": (r["value"] >= pass_threshold) if r["status"] == "scored" and r["value"] is not None else None,
             "truth": TRUTH_BY_MODEL[r["model"]]}
            for r in store.scores("principia") if r["model"] in TRUTH_BY_MODEL]
    return judge, meas
