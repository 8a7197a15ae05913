"""Synthetic-reference validation of the WMLE evaluators (the paper's §3.2 check, with anti-physics twins).

For every task and ``n_variants`` seeds: make a case (parameters and appearance drawn from the seed),
render its law-correct reference and its anti-physics twin, write both as H.264 and score them with
:func:`lawful.runner.evaluate.evaluate_video`. The gate is bypassed: the physics score P is what is
reported (a video the extractor could not score at all counts as P = 0). Per task: mean reference P,
mean twin P, whether the twin scored lower on every variant, and the ROC AUC of reference vs twin
over per-video P (Mann–Whitney: P(ref > twin) + ½ P(tie)).

With ``robustness=True`` every reference is also scored after Gaussian noise (σ = 8/255), an
H.264 round trip at CRF 35 and a 10° hue shift; the report gives each task's mean drop of P.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Sequence
from concurrent.futures import as_completed
from pathlib import Path

import numpy as np

from lawful.progress import progress_bar
from lawful.runner.pool import process_pool
from lawful.score.stats import roc_auc

PERTURBATIONS = ("noise", "crf35", "hue10")
SEED_BASE = 1000


def _physics_P(task, case, path) -> tuple[float, str, float | None]:
    """(P with unscorable → 0, status, C) of one video."""
    from lawful.runner.evaluate import evaluate_video

    ev = evaluate_video(case, path, task)
    sc = ev.scores.get(task.label)
    if sc is None:
        return 0.0, ev.status, None
    P = (sc.metrics or {}).get("P")
    C = (sc.metrics or {}).get("C")
    return (0.0 if P is None else float(P)), sc.status, C


def _perturbed(frames: list[np.ndarray], kind: str, fps: float, seed: int) -> list[np.ndarray]:
    from lawful.world import perturb

    if kind == "noise":
        return list(perturb.noise_frames(frames, sigma=8 / 255, seed=seed))
    if kind == "crf35":
        return perturb.reencode(frames, fps=fps, crf=35)
    if kind == "hue10":
        return [perturb.hue_shift(f, 10.0) for f in frames]
    raise ValueError(f"unknown perturbation '{kind}'")


def validate_variant(task_name: str, index: int, seed: int, robustness: bool = False) -> dict:
    """Score one variant's reference and twin (and perturbed references); returns a flat result dict."""
    from lawful.suites.base import get_suite
    from lawful.video import write_video

    task = get_suite("wmle").task(task_name)
    case, _ = task.make_case(index, seed)
    out: dict = {"task": task_name, "label": task.label, "index": index, "seed": seed, "case_id": case.id}
    with tempfile.TemporaryDirectory(prefix="lawful-wmle-validate-") as tmp:
        ref_frames = list(task.render(case, "true"))
        p = write_video(Path(tmp) / f"{case.id}-true.mp4", ref_frames, fps=case.fps)
        out["ref_P"], out["ref_status"], out["ref_C"] = _physics_P(task, case, p)
        p = write_video(Path(tmp) / f"{case.id}-anti.mp4", task.render(case, "anti"), fps=case.fps)
        out["anti_P"], out["anti_status"], out["anti_C"] = _physics_P(task, case, p)
        if robustness:
            for kind in PERTURBATIONS:
                frames = _perturbed(ref_frames, kind, case.fps, seed)
                p = write_video(Path(tmp) / f"{case.id}-{kind}.mp4", frames, fps=case.fps)
                out[f"{kind}_P"] = _physics_P(task, case, p)[0]
    return out


def _summarise(results: list[dict], robustness: bool) -> dict:
    by_task: dict[str, list[dict]] = {}
    for r in results:
        by_task.setdefault(r["label"], []).append(r)
    tasks = {}
    for label in sorted(by_task, key=lambda s: int(s.lstrip("P"))):
        rs = sorted(by_task[label], key=lambda r: r["index"])
        ref = [r["ref_P"] for r in rs]
        anti = [r["anti_P"] for r in rs]
        entry = {
            "name": rs[0]["task"],
            "n": len(rs),
            "reference_P": float(np.mean(ref)),
            "reference_P_min": float(np.min(ref)),
            "anti_P": float(np.mean(anti)),
            "anti_P_max": float(np.max(anti)),
            "anti_lower_every_variant": all(a < b for a, b in zip(anti, ref)),
            "auc": roc_auc(ref, anti),
            "reference_C": float(np.mean([r["ref_C"] or 0.0 for r in rs])),
            "per_variant": [{k: r[k] for k in r if k not in ("task", "label")} for r in rs],
        }
        if robustness:
            entry["robustness_drop"] = {k: float(np.mean([r["ref_P"] - r[f"{k}_P"] for r in rs]))
                                        for k in PERTURBATIONS}
        tasks[label] = entry
    return {
        "tasks": tasks,
        "overall_reference_P": float(np.mean([t["reference_P"] for t in tasks.values()])) if tasks else math.nan,
        "overall_anti_P": float(np.mean([t["anti_P"] for t in tasks.values()])) if tasks else math.nan,
    }


def validate(n_variants: int = 12, tasks: Sequence[str] | None = None, workers: int | None = None,
             progress: bool = True, robustness: bool = False) -> dict:
    """Reference/twin validation of the WMLE tasks (all, or those named by label or name in ``tasks``).

    Returns ``{"n_variants", "tasks": {label: {reference_P, anti_P, auc, anti_lower_every_variant,
    [robustness_drop], per_variant}}, "overall_reference_P", "overall_anti_P"}``.
    """
    from lawful.suites.base import get_suite

    suite = get_suite("wmle")
    chosen = list(suite.tasks.values())
    if tasks:
        want = {t.lower() for t in tasks}
        chosen = [t for t in chosen if t.label.lower() in want or t.name.lower() in want]
        if not chosen:
            raise KeyError(f"no WMLE task matches {sorted(want)}")
    jobs = [(t.name, i, SEED_BASE + i) for t in chosen for i in range(n_variants)]
    workers = workers or min(len(jobs), max(1, (os.cpu_count() or 2)))
    results: list[dict] = []
    with progress_bar(progress) as bar:
        tid = bar.add_task("wmle validate", total=len(jobs))
        if workers <= 1:
            for name, i, seed in jobs:
                results.append(validate_variant(name, i, seed, robustness))
                bar.advance(tid)
        else:
            with process_pool(workers) as ex:
                futs = [ex.submit(validate_variant, name, i, seed, robustness) for name, i, seed in jobs]
                for f in as_completed(futs):
                    results.append(f.result())
                    bar.advance(tid)
    out = _summarise(results, robustness)
    out["n_variants"] = n_variants
    return out


def validation_table(result: dict):
    """A rich Table of :func:`validate`'s result: per task reference P, twin P, AUC, robustness drops."""
    from rich.table import Table

    rob = any("robustness_drop" in e for e in result["tasks"].values())
    t = Table(title=f"WMLE synthetic validation ({result.get('n_variants', '?')} variants per task, gate bypassed)")
    for col in ("Task", "Name", "ref P", "ref P min", "twin P", "twin P max", "twin lower", "AUC"):
        t.add_column(col, justify="left" if col in ("Task", "Name") else "right")
    if rob:
        for k in PERTURBATIONS:
            t.add_column(f"Δ {k}", justify="right")
    for label, e in result["tasks"].items():
        row = [label, e["name"], f"{e['reference_P']:.2f}", f"{e['reference_P_min']:.2f}", f"{e['anti_P']:.2f}",
               f"{e['anti_P_max']:.2f}", "yes" if e["anti_lower_every_variant"] else "[red]no[/red]", f"{e['auc']:.3f}"]
        if rob:
            row += [f"{e.get('robustness_drop', {}).get(k, math.nan):+.2f}" for k in PERTURBATIONS]
        t.add_row(*row)
    t.add_row("", "[bold]overall[/bold]", f"[bold]{result['overall_reference_P']:.2f}[/bold]", "",
              f"[bold]{result['overall_anti_P']:.2f}[/bold]", "", "", "", *([""] * (len(PERTURBATIONS) if rob else 0)))
    return t
