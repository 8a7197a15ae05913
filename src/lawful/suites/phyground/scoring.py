"""PhyGround's scoring protocol: from per-criterion judge scores (1-5) to a model's leaderboard row.

Per video, each general dimension and each applicable law is one score on 1-5 (one judge call
each). Rollouts of a case are averaged first. An instance is one (case, law) or (case, dimension)
with a scored value; unscored answers (invalid, error) are left out and counted.

For a model:

- ``general`` = mean of the three dimension means (each a mean over the model's cases);
- ``physics`` (sample-weighted, the headline) = mean over all scored (case, law) instances, i.e. the
  domain means weighted by their instance counts;
- ``equal_law_within_domain``: each domain is the mean of its per-law means, and domains keep their
  instance-count weights;
- ``equal_law_global``: the mean of the per-law means, every scored law weighted equally;
- ``overall`` = 0.5 · general + 0.5 · physics, under each scheme.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

from lawful.suites.phyground.taxonomy import DOMAINS, GENERAL_DIMENSIONS, LAW_DOMAIN, LAWS

GENERAL_RUBRIC = "phyground-general"
LAW_RUBRIC = "phyground-law"
JUDGE_REQUIRED = "PhyGround is scored by a VLM judge: run with a judge (--judge URL --judge-model NAME)"


def _mean(v: Iterable[float]) -> float:
    v = list(v)
    return sum(v) / len(v) if v else math.nan


def overall(general: float, physics: float) -> float:
    """Overall = 0.5 · General + 0.5 · Physics."""
    return 0.5 * general + 0.5 * physics


def instances(rows: Iterable[dict]) -> dict[str, dict[tuple[str, str], float]]:
    """model → (case_id, criterion) → rollout-mean score, from judgement rows of the two rubrics.

    Rows: ``model``, ``case_id``, ``rollout``, ``criterion``, ``value``, ``status`` (store layout).
    """
    acc: dict = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["status"] == "scored" and r["value"] is not None:
            acc[r["model"]][(r["case_id"], r["criterion"])].append(float(r["value"]))
    return {m: {k: _mean(v) for k, v in cells.items()} for m, cells in acc.items()}


def model_row(cells: dict[tuple[str, str], float]) -> dict:
    """One model's leaderboard entry from its (case, criterion) → score cells."""
    dims = {d: [v for (c, k), v in cells.items() if k == d] for d in GENERAL_DIMENSIONS}
    laws = {law.key: [v for (c, k), v in cells.items() if k == law.key] for law in LAWS}
    dim_means = {d: _mean(v) for d, v in dims.items() if v}
    law_means = {k: _mean(v) for k, v in laws.items() if v}
    law_n = {k: len(v) for k, v in laws.items() if v}
    general = _mean(dim_means.values())

    dom_vals = {d: [v for k, vs in laws.items() if LAW_DOMAIN[k] == d for v in vs] for d in DOMAINS}
    dom_n = {d: len(v) for d, v in dom_vals.items() if v}
    dom_sample = {d: _mean(dom_vals[d]) for d in dom_n}
    dom_equal = {d: _mean(m for k, m in law_means.items() if LAW_DOMAIN[k] == d) for d in dom_n}
    n_total = sum(dom_n.values())

    physics = _mean(v for vs in dom_vals.values() for v in vs)
    physics_eq_domain = sum(dom_n[d] * dom_equal[d] for d in dom_n) / n_total if n_total else math.nan
    physics_eq_global = _mean(law_means.values())
    schemes = {
        "sample_weighted": {"physics": physics, "overall": overall(general, physics)},
        "equal_law_within_domain": {"physics": physics_eq_domain, "overall": overall(general, physics_eq_domain),
                                    "domains": dom_equal},
        "equal_law_global": {"physics": physics_eq_global, "overall": overall(general, physics_eq_global)},
    }
    tasks = {**dim_means, "general": general, **dom_sample, "physics": physics}
    return {"overall": schemes["sample_weighted"]["overall"], "tasks": tasks, "general": general,
            "physics": physics, "dimensions": dim_means, "domains": dom_sample, "laws": law_means,
            "instances": {"laws": law_n, "domains": dom_n}, "weightings": schemes}


COLUMNS = (*GENERAL_DIMENSIONS, "general", *DOMAINS, "physics")


def aggregate_judgements(rows: Iterable[dict]) -> dict:
    """The ``phyground`` leaderboard section from judgement rows of both rubrics (scale 1-5)."""
    rows = [r for r in rows if r.get("rubric") in (GENERAL_RUBRIC, LAW_RUBRIC)]
    unscored: dict = defaultdict(lambda: defaultdict(int))
    for r in rows:
        if r["status"] != "scored":
            unscored[r["model"]][r["status"]] += 1
    models = {m: model_row(cells) for m, cells in sorted(instances(rows).items())}
    for m, row in models.items():
        row["unscored"] = dict(unscored.get(m, {}))
    return {"scale": [1, 5], "columns": list(COLUMNS), "models": models}
