"""Score fusion (appendices E.1, E.3) and hierarchical aggregation (E.4).

Each subtrack is a weighted sum of group means. A group mean leaves out values of ``-1``
("not applicable"); a group with nothing left scores 0.

Two scores per output:

- ``<subtrack>`` — the paper's fused score: the judge's rubric criteria plus the programmatic
  metrics the paper names, with the paper's groups and weights. It exists only when judge values
  are supplied (:func:`fuse`); nothing is ever invented for a missing criterion.
- ``<subtrack>_objective`` — the objective-only score (:func:`fuse_objective`): each group's mean
  over the objective checks mapped to it (``OBJECTIVE_GROUPS``); groups without any objective
  check that applies to the case are dropped and the remaining weights renormalised, as long as
  the rest carries at least half of the subtrack's weight (else ``unmeasurable``: it needs OCR or a judge).

Aggregation (:func:`aggregate`): rollouts are averaged first (an invalid output scores 0), then
the track score is the mean over cases (Eq. 13), the overall score the mean over cases and
subtracks (Eq. 14), and pillar / task / source cuts are case-level means over their subsets.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

SUBTRACKS = ("perception_text", "perception_graphic", "formulation_text", "formulation_graphic", "deduction")


def rubric_name(subtrack: str) -> str:
    """The judge rubric (``lawful/judges/rubrics/<name>.json``) of a subtrack, e.g. ``applepi-perception-text``."""
    return "applepi-" + subtrack.replace("_", "-")


def _groups(subtrack: str):
    """The subtrack's E.1/E.3 groups (name, weight, judge criteria, objective metrics) from its rubric file."""
    from lawful.judges.rubric import load_rubric

    return load_rubric(rubric_name(subtrack)).groups


# One source for the groups and weights: the rubric data files in lawful/judges/rubrics/.
RUBRICS = {sub: _groups(sub) for sub in SUBTRACKS}

# Objective checks (lawful's, measured in pixels) per group, for the objective-only score.
OBJECTIVE_GROUPS: dict[str, dict[str, tuple[str, ...]]] = {
    "perception_text": {
        "content": ("objects_removed_px", "label_values_ocr"),
        "layout": ("annotation_layout_f1",),
        "style": ("white_background",),
    },
    "perception_graphic": {
        "background": ("white_background",),
        "annotation_removal": ("annotations_removed_px",),
        "object_preservation": ("object_appearance_psnr",),
        "spatial": ("segmentation_iou", "object_position_accuracy"),
    },
    "formulation_text": {
        "option": ("option_letter_ocr",),
        "formula": ("formula_text_ocr",),
        "substitution": ("substitution_text_ocr",),
        "presentation": ("three_text_lines", "white_background"),
    },
    "formulation_graphic": {
        "annotation_removal": ("annotations_removed_px",),
        "object_match": ("segmentation_iou", "object_position_accuracy"),
        "velocity_arrow": ("orange_arrow_present", "arrow_origin", "arrow_direction"),
        "velocity_text": ("velocity_values_ocr",),
    },
    "deduction": {
        "integrity": ("annotations_removed_px", "object_presence"),
        "fidelity": ("psnr", "masked_psnr"),
        "physics": ("spatial_iou", "spatiotemporal_iou", "weighted_spatial_iou", "velocity_accuracy"),
    },
}


def group_mean(values: list[float | None]) -> float:
    """Mean of the applicable values (``-1`` and None left out); 0 when none is left."""
    ok = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v)) and v != -1]
    return float(np.mean(ok)) if ok else 0.0


def judge_criteria(subtrack: str) -> list[str]:
    return [c for g in RUBRICS[subtrack] for c in g.criteria]


def fuse(subtrack: str, judge: dict[str, float], objective: dict[str, float]) -> tuple[float | None, dict]:
    """The paper's fused score from judge criterion values and the programmatic metrics.

    Returns ``(score, groups)``; score is None (with ``groups['missing']``) if any judge criterion
    or programmatic metric is absent. Values of -1 are "not applicable".
    """
    missing = [c for c in judge_criteria(subtrack) if c not in judge]
    missing += [m for g in RUBRICS[subtrack] for m in g.objective if m not in objective]
    if missing:
        return None, {"missing": missing}
    groups, total = {}, 0.0
    for g in RUBRICS[subtrack]:
        vals = [judge[c] for c in g.criteria] + [objective[m] for m in g.objective]
        groups[g.name] = group_mean(vals)
        total += g.weight * groups[g.name]
    return total, groups


MIN_COVERAGE = 0.5  # share of a subtrack's weight its objective checks must cover for an objective-only score


def fuse_objective(subtrack: str, objective: dict[str, float]) -> tuple[float | None, dict]:
    """Objective-only score: weighted mean over the groups with at least one applicable objective check.

    None (with ``groups['uncovered']``) when those groups carry less than :data:`MIN_COVERAGE` of the
    subtrack's weight: e.g. Formulation-Text without OCR could only judge presentation (weight 0.1), and
    a wrong option letter and formula would score as if right.
    """
    groups, num, den, uncovered = {}, 0.0, 0.0, []
    for g in RUBRICS[subtrack]:
        names = [m for m in OBJECTIVE_GROUPS[subtrack].get(g.name, ()) if objective.get(m, -1) != -1]
        if not names:
            uncovered.append(g.name)
            continue
        groups[g.name] = group_mean([objective[m] for m in names])
        num += g.weight * groups[g.name]
        den += g.weight
    total = sum(g.weight for g in RUBRICS[subtrack])
    if den < MIN_COVERAGE * total:
        return None, {**groups, "uncovered": uncovered, "covered_weight": round(den / total, 4) if total else 0.0}
    return num / den, groups


def keyframe_judge_values(per_timestamp: list[dict[str, float]]) -> dict[str, float]:
    """Deduction judge values for keyframe outputs: average over timestamps, then use
    ``object_position_match`` as the stand-in for ``motion_smoothness`` (E.1)."""
    keys = {k for d in per_timestamp for k in d}
    avg = {k: group_mean([d.get(k) for d in per_timestamp]) for k in keys}
    if "object_position_match" in avg:
        avg["motion_smoothness"] = avg["object_position_match"]
    return avg


# --- aggregation (E.4) -----------------------------------------------------------------------
@dataclass
class OutputScore:
    """One rollout's score for one subtrack: ``status`` scored / unmeasurable / invalid."""

    case_id: str
    task: str
    pillar: str
    source: str  # "simulated" or "real"
    subtrack: str
    rollout: int
    status: str
    value: float | None
    metrics: dict[str, float]


def case_scores(outputs: list[OutputScore]) -> dict[tuple[str, str], float]:
    """S_{c,k}: rollouts averaged (invalid = 0; unmeasurable left out; all unmeasurable → no score)."""
    by = defaultdict(list)
    for o in outputs:
        if o.status == "invalid":
            by[(o.case_id, o.subtrack)].append(0.0)
        elif o.status == "scored" and o.value is not None:
            by[(o.case_id, o.subtrack)].append(float(o.value))
        else:
            by.setdefault((o.case_id, o.subtrack), [])
    return {k: float(np.mean(v)) for k, v in by.items() if v}


def aggregate(outputs: list[OutputScore]) -> dict:
    """One model's leaderboard entry from its per-rollout subtrack scores."""
    cs = case_scores(outputs)
    info = {o.case_id: (o.task, o.pillar, o.source) for o in outputs}

    def mean_over(pred) -> float | None:
        vals = [v for (c, k), v in cs.items() if pred(c, k)]
        return float(np.mean(vals)) if vals else None

    def std_over(pred) -> float | None:
        vals = [v for (c, k), v in cs.items() if pred(c, k)]
        return float(np.std(vals)) if len(vals) > 1 else None

    subtracks = sorted({o.subtrack for o in outputs}, key=lambda s: SUBTRACKS.index(s) if s in SUBTRACKS else 99)
    metrics = defaultdict(lambda: defaultdict(list))  # (subtrack/metric) -> case -> rollout values
    for o in outputs:
        if o.status == "scored":
            for m, v in o.metrics.items():
                if v is not None and v != -1:
                    metrics[f"{o.subtrack}/{m}"][o.case_id].append(float(v))
    task_metrics = defaultdict(dict)
    flat_metrics = {}
    for name, per_case in metrics.items():
        case_means = {c: float(np.mean(v)) for c, v in per_case.items()}
        flat_metrics[name] = float(np.mean(list(case_means.values())))
        by_task = defaultdict(list)
        for c, v in case_means.items():
            by_task[info[c][0]].append(v)
        for t, vs in by_task.items():
            task_metrics[t][name] = float(np.mean(vs))
    statuses = [o.status for o in outputs]
    return {
        "overall": mean_over(lambda c, k: True),
        "subtracks": {k: mean_over(lambda c, kk, k=k: kk == k) for k in subtracks},
        "subtracks_std": {k: std_over(lambda c, kk, k=k: kk == k) for k in subtracks},  # over cases
        "pillars": {p: mean_over(lambda c, k, p=p: info[c][1] == p) for p in sorted({i[1] for i in info.values()})},
        "tasks": {t: mean_over(lambda c, k, t=t: info[c][0] == t) for t in sorted({i[0] for i in info.values()})},
        "task_subtracks": {t: {k: mean_over(lambda c, kk, t=t, k=k: info[c][0] == t and kk == k) for k in subtracks}
                           for t in sorted({i[0] for i in info.values()})},
        "sources": {s: mean_over(lambda c, k, s=s: info[c][2] == s) for s in sorted({i[2] for i in info.values()})},
        "metrics": dict(sorted(flat_metrics.items())),
        "task_metrics": {t: dict(sorted(v.items())) for t, v in sorted(task_metrics.items())},
        "cases": len({o.case_id for o in outputs}),
        "videos": len(outputs),
        "scored": statuses.count("scored"),
        "unmeasurable": statuses.count("unmeasurable"),
        "invalid": statuses.count("invalid"),
    }
