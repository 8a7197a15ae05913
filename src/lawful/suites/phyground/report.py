"""PhyGround's leaderboard section and tables, from what the common runner and the judge stored.

The runner stores one row per (case, model, rollout): ``unmeasurable`` (judge required) when a video was
made, ``invalid`` when none could be (a built-in model cannot draw a text-only case). The judge's answers to
the two rubrics are the scores (:func:`lawful.suites.phyground.scoring.aggregate_judgements`); without any,
the section says a judge is required and counts the videos waiting for one.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lawful.store import Store
from lawful.suites.phyground.scoring import GENERAL_RUBRIC, JUDGE_REQUIRED, LAW_RUBRIC, aggregate_judgements
from lawful.suites.phyground.taxonomy import DOMAINS, GENERAL_DIMENSIONS, LAWS

SUITE = "phyground"


def write_cases(out_dir: str | Path, n: int | None = None) -> list[Path]:
    """Write (or reuse) the first ``n`` cases of the set (default: all) as the runner does: ``<id>.json`` and,
    when the case has a first frame (drawn, or a loaded prompt's image), ``<id>.png``."""
    from lawful.runner.run import build_cases
    from lawful.suites.base import get_suite

    return build_cases(get_suite(SUITE), Path(out_dir), n, progress=False)


def phyground_section(store: Store) -> dict:
    """The leaderboard section (scale 1-5) from the store: the judged scores, or that a judge is required."""
    rows = store.scores(SUITE)
    made = [r for r in rows if r["status"] != "invalid"]  # a video exists (a failed generation is invalid)
    videos = dict(Counter(r["model"] for r in made))
    origin = next((r["score"].get("extra", {}).get("prompt_set") for r in made), None) or "built-in"
    judged = [j for j in store.judgements(suite=SUITE) if j["rubric"] in (GENERAL_RUBRIC, LAW_RUBRIC)]
    if not judged:
        return {"scale": [1, 5], "status": "judge required", "reason": JUDGE_REQUIRED, "videos": videos,
                "cases": len({r["case_id"] for r in rows}), "prompt_set": origin, "models": {}}
    section = aggregate_judgements(judged)
    rubrics = [r for r in (GENERAL_RUBRIC, LAW_RUBRIC) if any(j["rubric"] == r for j in judged)]
    section["judge"] = {"model": judged[-1]["meta"].get("judge_model", judged[-1]["judge"]),
                        "rubrics": [next(j["meta"].get("rubric", r) for j in judged if j["rubric"] == r)
                                    for r in rubrics],
                        "statuses": {r: dict(Counter(j["status"] for j in judged if j["rubric"] == r))
                                     for r in rubrics}}
    section["videos"] = videos
    section["prompt_set"] = origin
    return section


def phyground_table(section: dict):
    """The leaderboard as rich tables: the headline columns, and per law once a judge scored (or a one-line
    note when no judge was configured)."""
    from rich.console import Group
    from rich.table import Table

    from lawful.report.html import fmt

    if section.get("status") == "judge required":
        t = Table(title=f"phyground: {section.get('reason', JUDGE_REQUIRED)}")
        t.add_column("model")
        t.add_column("videos", justify="right")
        for m, n in section.get("videos", {}).items():
            t.add_row(m, str(n))
        return t
    t = Table(title="phyground (scale 1–5; Overall = 0.5·General + 0.5·Physics, Physics sample-weighted)")
    short = {"semantic_alignment": "SA", "physical_temporal_validity": "PTV", "object_persistence": "Persist",
             "solid_body": "Solid", "fluid": "Fluid", "optical": "Optical"}
    cols = [*GENERAL_DIMENSIONS, "general", *DOMAINS, "physics"]
    t.add_column("model", style="bold")
    for c in cols:
        t.add_column(short.get(c, c.capitalize()), justify="right")
    t.add_column("Overall", justify="right", style="bold")
    t.add_column("eq-law/domain", justify="right")
    t.add_column("eq-law global", justify="right")
    for model, m in section.get("models", {}).items():
        w = m.get("weightings", {})
        t.add_row(model, *[fmt(m.get("tasks", {}).get(c)) for c in cols], fmt(m.get("overall")),
                  fmt(w.get("equal_law_within_domain", {}).get("overall")),
                  fmt(w.get("equal_law_global", {}).get("overall")))
    return Group(t, law_table(section)) if any(m.get("laws") for m in section.get("models", {}).values()) else t


def law_table(section: dict):
    """Per-law means (1-5) of every model as a rich table: the 13 columns of the taxonomy, grouped by domain,
    with each law's count of scored (case, law) instances; '–' where a law has no scored instance."""
    from rich.table import Table

    t = Table(title="phyground per law (1-5; n = scored case-law instances)")
    t.add_column("model", style="bold")
    for law in LAWS:
        t.add_column(f"{law.name.split(' (')[0]}\n[dim]{law.domain}[/dim]", justify="right")
    for model, m in section.get("models", {}).items():
        laws, n = m.get("laws", {}), m.get("instances", {}).get("laws", {})
        t.add_row(model, *[f"{laws[k.key]:.2f} ({n[k.key]})" if k.key in laws else "–" for k in LAWS])
    return t
