"""Human-study statistics that need no UI: PhyGround's annotator quality control and split-half
reliability (seed 001 §4.3, §B.4-B.5, §B.7).

Input rows, one per label: ``annotator``, ``video``, ``dimension`` (a general dimension or a law),
``score`` (1-5); optional per-submission behaviour ``stay_s`` (seconds on the page) and ``plays``
(video plays), repeated on every label of the submission (annotator, video).

Signals per annotator:

- **constancy** — standard deviation of all their scores below 0.3 (zero variation included);
- **copy-paste rate** — share of their videos (with ≥ 2 labels) where every label is identical;
- **peer MAE** — mean |score − mean of the other annotators| over the (video, dimension) cells they
  share with peers; above 1.8 is extreme;
- **behaviour** — median page stay under 30 s, median stay under 10 s, or no video plays at all.

Removal (the seed's rules; peer MAE alone never removes, honest annotators may disagree):
constant scoring; the per-video copy-paste pattern (every video copy-pasted while scores vary
across videos); copy-paste rate ≥ 0.75 together with a behaviour flag; extreme peer MAE together
with a behaviour flag or a copy-paste rate ≥ 0.75; extremely low volume (fewer than ``min_videos``
submissions, when given).

Options the study app adds (off by default): ``min_watch_s`` — a median watch time (``watch_s``)
below it is one more behaviour flag (``short_watch``); ``attention`` — annotator → (checks, failed)
instructed-response checks; failing half or more of them removes (lawful's rule, not the seed's).
Rows with ``score`` None carry behaviour only (e.g. a pairwise answer).
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Iterable

import numpy as np

from lawful.judges.agreement import pearson

CONSTANT_STD = 0.3
PEER_MAE_EXTREME = 1.8
COPY_PASTE_HIGH = 0.75
MEDIAN_STAY_SHORT_S = 30.0
STAY_VERY_SHORT_S = 10.0


def annotator_quality(rows: Iterable[dict], *, min_videos: int = 0, min_watch_s: float | None = None,
                      attention: dict[str, tuple[int, int]] | None = None,
                      volume: dict[str, int] | None = None) -> dict[str, dict]:
    """Per annotator: the signals above, ``flags`` and the ``remove`` decision with ``reasons``.
    ``volume``: submissions per annotator (default: their distinct videos)."""
    rows = list(rows)
    by_ann: dict[str, list[dict]] = defaultdict(list)
    cells: dict[tuple, dict[str, float]] = defaultdict(dict)
    for r in rows:
        by_ann[str(r["annotator"])].append(r)
        if r.get("score") is not None:
            cells[(r["video"], r["dimension"])][str(r["annotator"])] = float(r["score"])
    attention = attention or {}
    out = {}
    for a, all_rs in sorted(by_ann.items()):
        rs = [r for r in all_rs if r.get("score") is not None]
        scores = np.array([float(r["score"]) for r in rs])
        std = float(scores.std()) if len(scores) else math.nan
        per_video: dict = defaultdict(list)
        behaviour: dict = {}
        for r in rs:
            per_video[r["video"]].append(float(r["score"]))
        for r in all_rs:
            behaviour[r["video"]] = (r.get("stay_s"), r.get("plays"), r.get("watch_s"))
        multi = [v for v in per_video.values() if len(v) >= 2]
        copied = [v for v in multi if len(set(v)) == 1]
        cp_rate = len(copied) / len(multi) if multi else 0.0
        varies_across = len({v[0] for v in copied}) > 1
        errs = []
        for (vid, dim), by in cells.items():
            if a in by and len(by) > 1:
                peers = [s for b, s in by.items() if b != a]
                errs.append(abs(by[a] - sum(peers) / len(peers)))
        peer_mae = float(np.mean(errs)) if errs else math.nan
        stays = [float(s) for s, _, _ in behaviour.values() if s is not None]
        plays = [float(p) for _, p, _ in behaviour.values() if p is not None]
        watches = [float(w) for _, _, w in behaviour.values() if w is not None]
        med_stay = float(np.median(stays)) if stays else math.nan
        med_watch = float(np.median(watches)) if watches else math.nan
        n_videos = (volume or {}).get(a, len(behaviour))
        checks, failed = attention.get(a, (0, 0))
        flags = []
        if std < CONSTANT_STD:
            flags.append("constant")
        if cp_rate >= COPY_PASTE_HIGH:
            flags.append("copy_paste")
        if peer_mae > PEER_MAE_EXTREME:
            flags.append("peer_mae_extreme")
        behaviour_flags = []
        if stays and med_stay < MEDIAN_STAY_SHORT_S:
            behaviour_flags.append("short_stay")
        if stays and med_stay < STAY_VERY_SHORT_S:
            behaviour_flags.append("very_short_stay")
        if plays and sum(plays) == 0:
            behaviour_flags.append("no_plays")
        if min_watch_s is not None and watches and med_watch < min_watch_s:
            behaviour_flags.append("short_watch")
        flags += behaviour_flags
        if n_videos < min_videos:
            flags.append("low_volume")
        if failed:
            flags.append("attention_failed")
        reasons = []
        if std < CONSTANT_STD:
            reasons.append("constant or near-constant scoring")
        if multi and len(multi) >= 2 and cp_rate == 1.0 and varies_across:
            reasons.append("per-video copy-paste pattern")
        if cp_rate >= COPY_PASTE_HIGH and behaviour_flags:
            reasons.append("copy-paste with a behavioural anomaly")
        if peer_mae > PEER_MAE_EXTREME and (behaviour_flags or cp_rate >= COPY_PASTE_HIGH):
            reasons.append("extreme peer disagreement with another anomaly")
        if n_videos < min_videos:
            reasons.append("extremely low annotation volume")
        if checks and failed * 2 >= checks:
            reasons.append("failed attention checks")
        out[a] = {"labels": len(rs), "videos": len(per_video), "std": std, "copy_paste_rate": cp_rate,
                  "peer_mae": peer_mae, "median_stay_s": med_stay, "plays": sum(plays) if plays else None,
                  "median_watch_s": med_watch, "submissions": n_videos, "attention": [checks, failed],
                  "flags": flags, "remove": bool(reasons), "reasons": reasons}
    return out


def retained(rows: Iterable[dict]) -> list[dict]:
    """Rows of annotators that quality control keeps."""
    rows = list(rows)
    q = annotator_quality(rows)
    return [r for r in rows if not q.get(str(r["annotator"]), {}).get("remove", False)]


def _model_means(rows: list[dict], model_of: dict, annotators: set) -> dict[str, float]:
    acc: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if str(r["annotator"]) in annotators and r.get("score") is not None and r["video"] in model_of:
            acc[model_of[r["video"]]].append(float(r["score"]))
    return {m: sum(v) / len(v) for m, v in acc.items()}


def split_half_reliability(rows: Iterable[dict], model_of: dict, n_splits: int = 100, seed: int = 0,
                           aggregate: Callable[[list[dict]], dict[str, float]] | None = None) -> dict:
    """Randomly halve the annotators ``n_splits`` times; per split, rank models by their mean score
    in each half and correlate the two rankings (Spearman ρ and Kendall τ-b). Returns the means and
    the 2.5 %-97.5 % empirical intervals. ``model_of`` maps video → model. ``aggregate`` (rows of one
    half → model → score) replaces the plain mean, e.g. PhyGround's General / Physics / Overall."""
    from scipy import stats

    rows = list(rows)
    anns = sorted({str(r["annotator"]) for r in rows})
    rng = random.Random(seed)
    rho, tau, r_pearson = [], [], []

    def score(half: set) -> dict[str, float]:
        if aggregate is None:
            return _model_means(rows, model_of, half)
        return aggregate([r for r in rows if str(r["annotator"]) in half])

    for _ in range(n_splits):
        shuffled = anns[:]
        rng.shuffle(shuffled)
        half = set(shuffled[: len(shuffled) // 2])
        a = score(half)
        b = score(set(anns) - half)
        models = sorted(set(a) & set(b))
        if len(models) < 3:
            continue
        x, y = [a[m] for m in models], [b[m] for m in models]
        rho.append(stats.spearmanr(x, y)[0])
        tau.append(stats.kendalltau(x, y)[0])  # tau-b
        r_pearson.append(pearson(x, y))
    rho = [v for v in rho if math.isfinite(v)]
    tau = [v for v in tau if math.isfinite(v)]
    r_pearson = [v for v in r_pearson if math.isfinite(v)]

    def summary(v):
        return {"mean": float(np.mean(v)) if v else math.nan,
                "interval": [float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))] if v else None}

    return {"spearman": summary(rho), "kendall_tau_b": summary(tau), "pearson": summary(r_pearson),
            "splits": len(rho)}
