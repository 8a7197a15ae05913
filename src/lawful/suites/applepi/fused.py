"""Judge rubric values in a run's store fused with the stored objective metrics into Apple-π's subtrack scores.

Shared by the judging pass (:mod:`lawful.suites.applepi.judging`) and the run (:mod:`lawful.suites.applepi.run`);
the fusion formulas themselves (E.1/E.3) are :func:`lawful.suites.applepi.fusion.fuse`.
"""

from __future__ import annotations

from lawful.result import Score
from lawful.store import Store, VideoKey
from lawful.suites.applepi.fusion import SUBTRACKS, fuse, judge_criteria, rubric_name

SUITE = "applepi"


def judge_values_of(store: Store, case_id: str, model: str) -> dict[tuple[str, int], dict[str, float]]:
    """Rubric values recorded by a judge (rubric :func:`~lawful.suites.applepi.fusion.rubric_name`) for one case
    and model."""
    out: dict[tuple[str, int], dict[str, float]] = {}
    for sub in SUBTRACKS:
        for row in store.judgements(suite=SUITE, rubric=rubric_name(sub)):
            if row["case_id"] == case_id and row["model"] == model and row["value"] is not None:
                out.setdefault((sub, int(row["rollout"])), {})[row["criterion"]] = float(row["value"])
    return {k: v for k, v in out.items() if all(c in v for c in judge_criteria(k[0]))}


def apply_judge(store: Store, values: dict[tuple[str, str, int, str], dict[str, float]] | None = None,
                judge_meta: dict | None = None,
                details: dict[tuple[str, str, int, str], dict[str, tuple[str, dict]]] | None = None) -> int:
    """Fuse judge rubric values with the stored objective metrics into the paper's subtrack scores.

    ``values[(case_id, model, rollout, subtrack)] = {criterion: value}`` (``-1`` = not applicable) are
    first recorded as judgements (rubric ``applepi-<subtrack>``); then every stored output whose rubric
    is complete gets a ``<subtrack>`` column (E.1/E.3 fusion). For image-protocol Deduction, average the
    per-keyframe judge values with :func:`lawful.suites.applepi.fusion.keyframe_judge_values` first.
    ``details`` (same keys) may give each criterion's ``(raw reply, meta)`` to keep with its value.
    Returns the number of outputs fused. Nothing is filled in for a missing criterion.
    """
    for k, crit in (values or {}).items():
        case_id, model, rollout, sub = k
        for name, v in crit.items():
            raw, meta = (details or {}).get(k, {}).get(name, ("", {}))
            store.put_judgement(VideoKey(SUITE, case_id, model, int(rollout)), rubric_name(sub), name, float(v),
                                "scored", raw, {**(judge_meta or {}), **meta})
    rows = store.scores(SUITE)
    by_key: dict[tuple, list[dict]] = {}
    for r in rows:
        by_key.setdefault((r["case_id"], r["model"], int(r["rollout"])), []).append(r)
    judged_cache: dict[tuple[str, str], dict] = {}
    fused_n = 0
    for (case_id, model, rollout), rs in by_key.items():
        if (case_id, model) not in judged_cache:
            judged_cache[(case_id, model)] = judge_values_of(store, case_id, model)
        judge = judged_cache[(case_id, model)]
        cols = {r["col"]: Score.model_validate(r["score"]) for r in rs}
        changed = False
        for sub in SUBTRACKS:
            obj = cols.get(f"{sub}_objective")
            # an objective-only score too thin to stand alone (unmeasurable) still has its metrics to fuse
            if obj is None or obj.status not in ("scored", "unmeasurable") or (sub, rollout) not in judge:
                continue
            value, groups = fuse(sub, judge[(sub, rollout)], obj.metrics)
            if value is None:
                continue
            cols[sub] = Score(status="scored", value=value, metrics=dict(obj.metrics),
                              extra={**obj.extra, "groups": groups, "judge": judge[(sub, rollout)]})
            changed = True
            fused_n += 1
        if changed:
            v = next(x for x in store.videos(SUITE) if (x["case_id"], x["model"], x["rollout"]) == (case_id, model, rollout))
            store.put(VideoKey(SUITE, case_id, model, rollout), rs[0]["task"], v["status"], cols, reason=v["reason"],
                      path=v["path"], evidence=store.evidence(VideoKey(SUITE, case_id, model, rollout)))
    return fused_n
