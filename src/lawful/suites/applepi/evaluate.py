"""Score one case's outputs (five subtracks × rollouts) against its ground truth; never raises on bad input.

A missing or unreadable output is ``invalid`` (scores 0 in aggregation, E.4); an output whose
objective checks are all not applicable is ``unmeasurable``. Identical answers (same pixels or
same file) are scored once and the result reused.
"""

from __future__ import annotations

import hashlib
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lawful.suites.applepi import checks
from lawful.suites.applepi.dataset import DatasetError, GTCase
from lawful.suites.applepi.fusion import OutputScore, fuse, fuse_objective
from lawful.suites.applepi.infographic import formula_answer
from lawful.suites.applepi.predictions import (SUBTRACKS, Output, PredictionError, answer_image, deduction_frames,
                                               find_output)
from lawful.video import VideoError


@dataclass
class Options:
    use_ocr: bool = False
    motion_masks: bool = False  # also compute Physics-IQ frame-difference IoUs (video outputs)
    subtracks: tuple[str, ...] = SUBTRACKS


@dataclass
class Result:
    output: OutputScore
    groups: dict = field(default_factory=dict)
    fused: float | None = None
    fused_groups: dict = field(default_factory=dict)
    reason: str = ""
    path: str = ""


def _file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def score_output(case: GTCase, out: Output, opts: Options, memo: dict | None = None) -> tuple[dict[str, float], str]:
    """Objective checks of one present output. Raises PredictionError/VideoError/DatasetError on bad input."""
    memo = {} if memo is None else memo
    shape = case.shape
    if out.subtrack == "deduction":
        key = ("deduction", _file_hash(out.path) if out.path.is_file() else str(out.path))
        if key not in memo:
            frames = deduction_frames(out, case.deduction_timestamps, case.physics_duration, shape, window=1)
            m = checks.deduction(case, frames)
            if opts.motion_masks:
                m.update(checks.deduction_motion_masks(case, out))
            memo[key] = m
        return dict(memo[key]), ""
    digest = _file_hash(out.path) if out.path.is_file() else None
    file_key = (out.subtrack, "file", digest) if digest else None
    if file_key in memo:
        return dict(memo[file_key]), ""
    if digest is None:
        img = answer_image(out, shape)
    else:  # one file answering several subtracks (a linked clip) is decoded once
        img = memo.get(("image", digest))
        if img is None:
            img = memo[("image", digest)] = answer_image(out, shape)
    key = (out.subtrack, hashlib.sha256(img.tobytes()).hexdigest())
    if key not in memo:
        if out.subtrack == "perception_text":
            m = checks.perception_text(case, img, opts.use_ocr)
        elif out.subtrack == "perception_graphic":
            m = checks.perception_graphic(case, img)
        elif out.subtrack == "formulation_text":
            info = case.formula_info
            ref = formula_answer(info.get("correct_letter", "A"), info.get("correct_formula", ""),
                                 (case.ext or {}).get("substituted_formula") or info.get("correct_formula", ""),
                                 shape[1], shape[0])
            m = checks.formulation_text(case, img, ref, opts.use_ocr)
        elif out.subtrack == "formulation_graphic":
            m = checks.formulation_graphic(case, img, opts.use_ocr)
        else:
            raise KeyError(out.subtrack)
        memo[key] = m
    if file_key is not None:
        memo[file_key] = memo[key]
    return dict(memo[key]), ""


def evaluate_case(case: GTCase, pred_root: str | Path, num_rollouts: int, opts: Options | None = None,
                  judge: dict[tuple[str, int], dict[str, float]] | None = None, rollouts=None,
                  memo: dict | None = None) -> list[Result]:
    """All outputs of one model for one case (``rollouts``: only these). ``judge[(subtrack, rollout)]`` holds
    rubric values, if any; ``memo`` carries scored answers over calls (same pixels or file: scored once)."""
    opts = opts or Options()
    memo = {} if memo is None else memo
    source = "real" if case.is_realworld else "simulated"
    results = []
    for sub in opts.subtracks:
        for r in (range(num_rollouts) if rollouts is None else rollouts):
            out = find_output(pred_root, case.entry, sub, r)
            base = dict(case_id=case.case_id, task=case.task, pillar=case.pillar, source=source, subtrack=sub,
                        rollout=r)
            if out.missing:
                results.append(Result(OutputScore(**base, status="invalid", value=None, metrics={}),
                                      reason=f"missing output rollout_{r:02d}"))
                continue
            try:
                metrics, _ = score_output(case, out, opts, memo)
            except (PredictionError, VideoError, DatasetError) as e:
                results.append(Result(OutputScore(**base, status="invalid", value=None, metrics={}), reason=str(e),
                                      path=str(out.path)))
                continue
            except Exception as e:  # a bug must not stop the run; keep the reason
                reason = f"evaluation error: {type(e).__name__}: {e}"
                results.append(Result(OutputScore(**base, status="invalid", value=None, metrics={}),
                                      reason=reason + "\n" + traceback.format_exc(limit=4), path=str(out.path)))
                continue
            value, groups = fuse_objective(sub, metrics)
            why = ""
            if value is None:
                why = (f"objective checks cover {100 * groups.get('covered_weight', 0):.0f}% of the rubric weight "
                       f"(not {', '.join(groups.get('uncovered', []))}): needs --ocr or a judge")
            res = Result(OutputScore(**base, status="scored" if value is not None else "unmeasurable", value=value,
                                     metrics=metrics), groups=groups, path=str(out.path), reason=why)
            if judge and (sub, r) in judge:
                res.fused, res.fused_groups = fuse(sub, judge[(sub, r)], metrics)
            results.append(res)
    return results


def mean_metrics(results: list[Result]) -> dict[str, float]:
    """Mean of each ``subtrack/metric`` over scored outputs (for quick looks and benchmarks)."""
    acc: dict[str, list[float]] = {}
    for r in results:
        if r.output.status != "scored":
            continue
        for k, v in r.output.metrics.items():
            if v != -1:
                acc.setdefault(f"{r.output.subtrack}/{k}", []).append(v)
    return {k: float(np.mean(v)) for k, v in acc.items()}
