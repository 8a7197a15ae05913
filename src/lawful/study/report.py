"""The study's analyses in one call (``lawful study report``), on the annotators QC kept.

- **Human scores**: per model, PhyGround's aggregation (:func:`lawful.suites.phyground.scoring.model_row`)
  of the per-video mean labels: the three general dimensions, every law, domains, General,
  Physics (sample-weighted) and Overall = 0.5·General + 0.5·Physics; and per law over all videos.
- **Split-half reliability** for General, Physics and Overall separately (seed 001 §B.7): annotators
  halved at random, each half's model scores correlated (Spearman ρ, Kendall τ-b, Pearson r).
- **Inter-annotator agreement**: Krippendorff's α (interval metric) over (video, question) units,
  for all questions, the general dimensions and the laws; for pairwise items, the share of
  annotator pairs on an item who gave the same answer.
- **Pairwise preferences**: per model pair, the share of votes for each side (Wilson 95 % interval).
- **Judge vs human**, for every judge stored in the run: per-model Pearson/Spearman (General,
  Physics, Overall), per-item Pearson/Spearman, relative bias per dimension and domain
  (:func:`lawful.judges.agreement.relative_bias`), rank accuracy (WMLE Eq. 10 over the videos of each
  prompt, on per-video Overall) and pairwise accuracy (WMLE Eq. 11 against the human pair votes).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from pathlib import Path

import numpy as np

from lawful.judges.agreement import (confirmed_pairwise, pearson, rank_agreement, relative_bias, spearman)
from lawful.study.qc import label_rows, pair_votes, submissions
from lawful.study.quality import split_half_reliability
from lawful.suites.phyground.scoring import GENERAL_RUBRIC, LAW_RUBRIC, instances, model_row
from lawful.suites.phyground.taxonomy import GENERAL_DIMENSIONS, LAW_DOMAIN

VIEWS = ("general", "physics", "overall")


def video_means(rows: list[dict]) -> dict[tuple, float]:
    """(case_id, model, rollout, dimension) → mean label over annotators."""
    acc: dict[tuple, list[float]] = defaultdict(list)
    for r in rows:
        acc[(r["case_id"], r["model"], r["rollout"], r["dimension"])].append(r["score"])
    return {k: sum(v) / len(v) for k, v in acc.items()}


def model_rows(cells: dict[tuple, float]) -> dict[str, dict]:
    """PhyGround model rows from (case, model, rollout, criterion) → score (rollouts averaged first)."""
    rows = [{"case_id": c, "model": m, "rollout": k, "criterion": d, "value": v, "status": "scored"}
            for (c, m, k, d), v in cells.items()]
    return {m: model_row(cs) for m, cs in sorted(instances(rows).items())}


def video_overall(cells: dict[tuple, float]) -> dict[tuple, float]:
    """(case, model, rollout) → the video's own Overall (0.5·General + 0.5·Physics)."""
    per: dict[tuple, dict] = defaultdict(dict)
    for (c, m, k, d), v in cells.items():
        per[(c, m, k)][(c, d)] = v
    return {key: model_row(cs)["overall"] for key, cs in per.items()}


def krippendorff_alpha(units: dict, ) -> float:
    """Krippendorff's α with the interval metric; units with fewer than two values are not pairable."""
    vals = [np.asarray(v, float) for v in units.values() if len(v) >= 2]
    if not vals:
        return math.nan
    pooled = np.concatenate(vals)
    n = len(pooled)
    d_o = sum(2 * (len(v) * (v * v).sum() - v.sum() ** 2) / (len(v) - 1) for v in vals) / n
    d_e = 2 * (n * (pooled * pooled).sum() - pooled.sum() ** 2) / (n * (n - 1))
    return float(1 - d_o / d_e) if d_e > 0 else math.nan


def agreement(rows: list[dict], votes: list[dict]) -> dict:
    units: dict[str, dict[tuple, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        group = "general" if r["dimension"] in GENERAL_DIMENSIONS else "physics"
        for g in ("all", group):
            units[g][(r["video"], r["dimension"])].append(r["score"])
    out = {f"alpha_{g}": krippendorff_alpha(units[g]) for g in ("all", "general", "physics")}
    out["units"] = sum(1 for v in units["all"].values() if len(v) >= 2)
    by_item: dict[int, list[str]] = defaultdict(list)
    for v in votes:
        by_item[v["item"]].append(v["preferred"])
    pairs = [a == b for vs in by_item.values() for a, b in itertools.combinations(vs, 2)]
    out["pairwise_percent_agreement"] = sum(pairs) / len(pairs) if pairs else math.nan
    return out


def wilson(k: int, n: int, z: float = 1.96) -> list[float]:
    if not n:
        return [math.nan, math.nan]
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [c - h, c + h]


def preferences(votes: list[dict]) -> list[dict]:
    acc: dict[tuple, list[str]] = defaultdict(list)
    for v in votes:
        acc[tuple(sorted((v["model_a"], v["model_b"])))].append(v["preferred"])
    out = []
    for (a, b), vs in sorted(acc.items()):
        n = len(vs)
        out.append({"model_a": a, "model_b": b, "votes": n, "prefer_a": vs.count(a) / n,
                    "prefer_b": vs.count(b) / n, "tie": vs.count("tie") / n,
                    "prefer_a_ci95": wilson(vs.count(a), n), "prefer_b_ci95": wilson(vs.count(b), n)})
    return out


def reliability(rows: list[dict], n_splits: int = 100, seed: int = 0) -> dict:
    """Split-half reliability of the model ranking by General, Physics and Overall."""
    model_of = {r["video"]: r["model"] for r in rows}
    out = {}
    for view in VIEWS:
        def agg(half, view=view):
            return {m: row[view] for m, row in model_rows(video_means(half)).items() if math.isfinite(row[view])}
        out[view] = split_half_reliability(rows, model_of, n_splits=n_splits, seed=seed, aggregate=agg)
        if not out[view]["splits"]:
            out[view]["reason"] = "needs at least 2 annotators and 3 models scored in both halves"
    return out


def _dimension_rows(cells: dict[tuple, float]) -> list[dict]:
    """Rows for relative bias: a general dimension keeps its name, a law counts for its domain."""
    return [{"dimension": d if d in GENERAL_DIMENSIONS else LAW_DOMAIN.get(d, d), "video": (c, m, k), "score": v}
            for (c, m, k, d), v in cells.items()]


def judge_vs_human(judge_cells: dict[tuple, float], human_cells: dict[tuple, float], votes: list[dict],
                   video_key: dict[int, tuple]) -> dict:
    jm, hm = model_rows(judge_cells), model_rows(human_cells)
    models = sorted(set(jm) & set(hm))
    per_model = {}
    for view in VIEWS:
        ms = [m for m in models if math.isfinite(jm[m][view]) and math.isfinite(hm[m][view])]
        x, y = [jm[m][view] for m in ms], [hm[m][view] for m in ms]
        per_model[view] = {"models": len(ms), "pearson": pearson(x, y), "spearman": spearman(x, y) if ms else math.nan}
    both = sorted(set(judge_cells) & set(human_cells))
    x, y = [judge_cells[k] for k in both], [human_cells[k] for k in both]
    jo, ho = video_overall(judge_cells), video_overall(human_cells)
    rank_rows = [{"task": k[0], "P": jo.get(k), "H": ho.get(k)} for k in sorted(set(jo) | set(ho))]
    rank_rows = [{**r, "P": r["P"] if r["P"] is not None and math.isfinite(r["P"]) else None,
                  "H": r["H"] if r["H"] is not None and math.isfinite(r["H"]) else None} for r in rank_rows]
    out = {"per_model": per_model,
           "per_item": {"items": len(both), "pearson": pearson(x, y), "spearman": spearman(x, y) if both else math.nan},
           "relative_bias": relative_bias(_dimension_rows({k: judge_cells[k] for k in both}),
                                          _dimension_rows({k: human_cells[k] for k in both}), item="video"),
           "rank_accuracy": rank_agreement(rank_rows)}
    by_item: dict[int, dict] = {}
    for v in votes:
        row = by_item.setdefault(v["item"], {"votes": [], "P_a": jo.get(video_key[v["video_a"]]),
                                             "P_b": jo.get(video_key[v["video_b"]])})
        row["votes"].append("A" if v["preferred"] == v["model_a"] else "B" if v["preferred"] == v["model_b"] else "tie")
    out["pairwise_accuracy"] = (confirmed_pairwise(list(by_item.values())) if by_item else
                                {"A_pair_conf": math.nan, "reason": "the study asked no pairwise questions"})
    return out


def judge_cells(run_dir: Path, suite: str) -> dict[str, dict[tuple, float]]:
    """judge → (case, model, rollout, criterion) → scored value, from the run's results store."""
    from lawful.judges.judge import STORE_FILE
    from lawful.store import Store

    db = run_dir / STORE_FILE
    if not db.exists():
        return {}
    out: dict[str, dict[tuple, float]] = defaultdict(dict)
    with Store(db) as st:
        for r in st.judgements(suite=suite, judge="*"):
            if r["rubric"] in (GENERAL_RUBRIC, LAW_RUBRIC) and r["status"] == "scored" and r["value"] is not None:
                out[r["judge"]][(r["case_id"], r["model"], r["rollout"], r["criterion"])] = float(r["value"])
    return dict(out)


def build_report(db, n_splits: int = 100, seed: int = 0, include_removed: bool = False) -> dict:
    """Everything above from a study database; annotators QC removed are left out unless asked."""
    from sqlalchemy import select

    from lawful.study.db import Annotator, Video

    settings = db.meta("settings") or {}
    with db.read() as s:
        removed = {a.name for a in s.scalars(select(Annotator).where(Annotator.removed.is_(True)))}
        video_key = {v.id: (v.case_id, v.model, v.rollout) for v in s.scalars(select(Video))}
    if include_removed:
        removed = set()
    subs = [x for x in submissions(db) if x["annotator"] not in removed]
    rows, votes = label_rows(subs), pair_votes(subs)
    cells = video_means(rows)
    humans = model_rows(cells)
    per_law: dict[str, list[float]] = defaultdict(list)
    for (_, _, _, d), v in cells.items():
        per_law[d].append(v)
    run = Path(settings["run"]) if settings.get("run") else None
    judges = {j: judge_vs_human(jc, cells, votes, video_key)
              for j, jc in judge_cells(run, settings.get("suite", "phyground")).items()} if run and run.is_dir() else {}
    return {"qc_applied": db.meta("qc") is not None, "removed_annotators": sorted(removed),
            "annotators": len({x["annotator"] for x in subs}), "submissions": len(subs), "labels": len(rows),
            "human": {"models": humans, "per_question": {d: {"mean": sum(v) / len(v), "videos": len(v)}
                                                          for d, v in sorted(per_law.items())}},
            "reliability": reliability(rows, n_splits, seed) if rows else {},
            "agreement": agreement(rows, votes), "preferences": preferences(votes), "judges": judges}


def json_safe(obj):
    """NaN → None (JSON has no NaN), tuples → lists, recursively."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj
