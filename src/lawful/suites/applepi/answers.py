"""What a model answers an Apple-π case with, and how the common runner plans, makes and scores it
(:attr:`lawful.suites.base.Suite.answers`).

A job is one (case, model, rollout): the rollout's five outputs in the release's prediction layout under the
model's predictions folder (``<run>/applepi/predictions/<model>`` for the built-in models, which write them
when missing; ``folder:DIR`` for a submission). Every job of a case runs in one worker (``Job.batch``), so the
case's ground truth is read and derived once for all models and rollouts, and identical answers (the built-in
models' rollouts are hard links of one file) are scored once. A job's store row holds every subtrack's columns
(:func:`row`); its fingerprint covers the rollout's five output files, so a changed answer is scored again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lawful.job import Evaluation, Job
from lawful.result import Score
from lawful.store import VideoKey
from lawful.suites.applepi import models as M
from lawful.suites.applepi import ocr as ocr_mod
from lawful.suites.applepi.evaluate import Options, Result, evaluate_case
from lawful.suites.applepi.fusion import SUBTRACKS, OutputScore
from lawful.suites.applepi.predictions import find_output, read_submission, validate
from lawful.suites.applepi.prompts import PROMPT_VERSION
from lawful.suites.applepi.tasks import SUITE, gt_case, load

NUM_ROLLOUTS = 3  # what write_dataset_index records for a generated dataset


def predictions_dir(out: Path, model: str) -> Path:
    return Path(out) / SUITE / "predictions" / model


def answers_fingerprint(pred_root: str | Path, entry: dict, rollout: int) -> str:
    """Identity of one rollout's outputs (every file's name and bytes), in the store's fingerprint form."""
    h, size = hashlib.sha256(), 0
    for sub in SUBTRACKS:
        out = find_output(pred_root, entry, sub, rollout)
        files = [] if out.missing else ([out.path] if out.path.is_file() else
                                        sorted(p for p in out.path.rglob("*") if p.is_file()))
        h.update(f"{sub}:{len(files)};".encode())
        for f in files:
            data = f.read_bytes()
            size += len(data)
            h.update(f.name.encode() + hashlib.sha256(data).digest())
    return json.dumps({"path": f"{Path(pred_root).resolve()}::{entry['path']}::{rollout}", "size": size,
                       "sha256": h.hexdigest(), "mtime_ns": 0})


def row(results: list[Result], ocr: str | None = None) -> tuple[str, dict[str, Score], str, dict]:
    """One rollout's store row from its subtracks' results: ``(status, columns, reason, evidence)``.

    Columns: ``<subtrack>_objective`` (objective-only score, checks in ``metrics``), ``<subtrack>`` (the fused
    score, when judge values were given) and ``<subtrack>/<check>`` (``-1`` "not applicable": unmeasurable)."""
    cols: dict[str, Score] = {}
    for r in results:
        o = r.output
        extra = {"pillar": o.pillar, "source": o.source, "groups": r.groups, **({"ocr": ocr} if ocr else {})}
        cols[f"{o.subtrack}_objective"] = Score(status=o.status, value=o.value, reason=r.reason.split("\n")[0],
                                                metrics=dict(o.metrics), extra=extra)
        if r.fused is not None:
            cols[o.subtrack] = Score(status="scored", value=r.fused, metrics=dict(o.metrics),
                                     extra={**extra, "groups": r.fused_groups})
        for m, v in o.metrics.items():
            cols[f"{o.subtrack}/{m}"] = (Score(status="scored", value=v) if v != -1 else
                                         Score(status="unmeasurable", reason="not applicable"))
    statuses = {r.output.status for r in results}
    status = "scored" if "scored" in statuses else ("unmeasurable" if "unmeasurable" in statuses else "invalid")
    reason = "; ".join(sorted({r.reason.split("\n")[0] for r in results if r.reason}))[:2000]
    return status, cols, reason, {"outputs": {r.output.subtrack: r.path for r in results}}


class ReleaseAnswers:
    """Apple-π's :attr:`~lawful.suites.base.Suite.answers`: plan, evaluate and finish jobs in the release layout."""

    def plan(self, store, suite: str, case_paths: list[Path], models: list[str], out: Path, rollouts: int,
             seed_base: int, options: dict) -> tuple[list[Job], int, dict]:
        """Jobs not stored (or whose outputs changed), how many stored rows are reused, and the run's notes
        (``skipped`` models that cannot answer, ``validation`` of submitted folders). Indexes a dataset the run
        generated (``dataset.json``) and writes the built-in models' ``submission.json``."""
        from lawful.suites.applepi.build import write_dataset_index
        from lawful.suites.applepi.dataset import Dataset

        protocol = options.get("protocol") or "video"
        cases, roots = [], {}
        for cp in case_paths:
            try:
                case, gt = load(cp)
                cases.append((cp, gt.entry))
                roots.setdefault(str(gt.root), []).append(gt.entry)
            except Exception:  # an unreadable case: its jobs record why (lawful.runner.jobs)
                cases.append((cp, {"case_id": Path(cp).stem, "path": Path(cp).stem}))
        generated = Path(out) / SUITE / "dataset"
        for root, entries in roots.items():
            if Path(root).resolve() == generated.resolve():
                write_dataset_index(root, entries, prompt_version=PROMPT_VERSION, num_rollouts=NUM_ROLLOUTS)
        ds = Dataset(next(iter(roots))) if len(roots) == 1 and (Path(next(iter(roots))) / "dataset.json").exists() else None
        n_default = ds.num_rollouts if ds is not None else NUM_ROLLOUTS
        notes: dict = {"_dataset": str(ds.root) if ds is not None else None, "_models": []}
        preds: dict[str, tuple[Path, int]] = {}
        given = options.get("predictions") or {}  # model label -> its submitted folder (lawful evaluate)
        for m in models:
            if m in given:
                preds[m] = (Path(given[m]), int(_submitted_rollouts(Path(given[m])) or n_default))
            elif m in M.MODELS:
                preds[m] = (predictions_dir(out, m), n_default)
                M.write_submission(preds[m][0], m, protocol, n_default, PROMPT_VERSION)
            elif m.startswith("folder:"):
                root = Path(m.split(":", 1)[1])
                preds[m] = (root, int(_submitted_rollouts(root) or n_default))
                if ds is not None:
                    notes.setdefault("validation", {})[m] = validate(root, ds).to_dict()
            else:
                from lawful.choices import unknown

                notes.setdefault("skipped", {})[m] = (
                    unknown(m, M.MODELS, "built-in Apple-π model") + "; Apple-π needs five outputs per case: export "
                    "the prompts (lawful suite export --suite applepi) and score a predictions folder (folder:DIR, "
                    "or lawful evaluate --suite applepi --predictions DIR)")
                if options.get("progress", True):
                    from lawful.progress import console

                    console.print(f"[yellow]applepi: skipping {m}[/yellow]: {notes['skipped'][m]}")
        notes["_models"] = list(preds)
        opts = (("ocr", bool(options.get("ocr") and ocr_mod.available())),
                ("motion_masks", bool(options.get("motion_masks"))), ("protocol", protocol))
        jobs, reused = [], 0
        for cp, entry in cases:
            for m, (root, n) in preds.items():
                for k in range(n):
                    key = VideoKey(suite, entry["case_id"], m, k)
                    stored, fp = store.stored_fingerprint(key)
                    if stored and fp and fp == _current(root, entry, k):
                        reused += 1
                    else:
                        jobs.append(Job(key, str(cp), m, str(root), seed_base + k, batch=str(cp),
                                        options=opts + (("num_rollouts", n), ("builtin", m in M.MODELS
                                                                              and m not in given))))
        return jobs, reused, notes

    def evaluate(self, job: Job, case, task) -> Evaluation:
        """Write a built-in model's outputs for the case if missing, then score the job's rollout. An unreadable
        case folder or a failing writer makes the rollout's five outputs ``invalid`` with the reason (counted as
        0 in the section like any invalid output), never a crash or a row the section would not count."""
        try:
            return self._evaluate(job, case)
        except Exception as e:
            import traceback

            reason = f"{type(e).__name__}: {e}".splitlines()[0]
            results = [Result(OutputScore(case.id, task.name, task.pillar, "unknown", sub, job.key.rollout, "invalid",
                                          None, {}), reason=reason) for sub in SUBTRACKS]
            status, cols, why, evidence = row(results)
            # no fingerprint: a rollout that failed is planned again by the next run
            return Evaluation(status, cols, why, {**evidence, "traceback": traceback.format_exc(limit=8)}, path="")

    def _evaluate(self, job: Job, case) -> Evaluation:
        o = dict(job.options)
        gt = gt_case(case)
        pred_root = Path(job.video)
        if o["builtin"]:
            M.write_predictions(job.model, gt, pred_root, o["num_rollouts"], o["protocol"])
        opts = Options(use_ocr=o["ocr"], motion_masks=o["motion_masks"])
        memo = gt._cache.setdefault(("answers memo", opts.use_ocr, opts.motion_masks), {})
        results = evaluate_case(gt, pred_root, o["num_rollouts"], opts, rollouts=[job.key.rollout], memo=memo)
        status, cols, reason, evidence = row(results, ocr_mod.version() if opts.use_ocr else None)
        # no one file: the row's outputs are in its evidence (what the report and Apple-π's judging read)
        return Evaluation(status, cols, reason, evidence, answers_fingerprint(pred_root, gt.entry, job.key.rollout),
                          path="")

    def finish(self, store, out: Path, notes: dict, options: dict, progress: bool) -> dict:
        """After the jobs: fuse stored judge values into re-scored rows (judging itself is the common judge
        step, :attr:`Suite.judge`) and return the notes without their private keys."""
        from lawful.suites.applepi.fused import apply_judge

        if store.judgements(suite=SUITE):
            apply_judge(store)
        return {k: v for k, v in notes.items() if not k.startswith("_")}


def _submitted_rollouts(root: Path) -> int | None:
    try:
        return read_submission(root).get("num_rollouts")
    except Exception:  # an unreadable submission.json is reported by validation
        return None


def _current(root: Path, entry: dict, rollout: int) -> str | None:
    try:
        return answers_fingerprint(root, entry, rollout)
    except OSError:
        return None
