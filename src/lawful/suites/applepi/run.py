"""Apple-π end to end: build or read a dataset, write the built-in models' outputs, score, aggregate.

Run folder layout (``out_dir``)::

    results.sqlite                        lawful.store.Store (suite "applepi")
    applepi/dataset/                      the generated dataset (unless ``dataset=`` points elsewhere)
    applepi/predictions/<model>/          outputs in the release's prediction layout
    applepi/leaderboard.json              the section returned by run_applepi / evaluate_predictions
    applepi/prompts/<protocol>/<subtrack>.jsonl   (export_prompts)

Store rows: one :class:`~lawful.store.VideoKey` ``(applepi, case_id, model, rollout)`` per rollout
holding every subtrack's columns: ``<subtrack>_objective`` (objective-only score, checks in
``metrics``), ``<subtrack>`` (the paper's fused score, only when judge values exist) and
``<subtrack>/<check>`` (each check; ``-1`` "not applicable" stored as unmeasurable).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from lawful.result import Score
from lawful.store import Store, VideoKey
from lawful.suites.applepi import models as M
from lawful.suites.applepi import ocr as ocr_mod
from lawful.suites.applepi import scenes
from lawful.suites.applepi.build import case_relpath, write_case, write_dataset_index
from lawful.suites.applepi.dataset import Dataset, GTCase
from lawful.suites.applepi.evaluate import Options, Result, evaluate_case
from lawful.suites.applepi.fused import judge_values_of
from lawful.suites.applepi.fusion import SUBTRACKS, OutputScore, aggregate
from lawful.suites.applepi.predictions import read_submission, validate
from lawful.suites.applepi.prompts import PROMPT_VERSION, expected_outputs, prompt

SUITE = "applepi"
DEFAULT_CASES_PER_TASK = 2
NUM_ROLLOUTS = 3  # what write_dataset_index records for a generated dataset


def _workers(workers: int | None) -> int:
    """``None``/``0``: every core."""
    return max(1, workers if workers else (os.cpu_count() or 1))


def _pmap(fn, items: list, workers: int):
    if workers <= 1 or len(items) <= 1:
        return [fn(*a) for a in items]
    from lawful.runner.pool import process_pool

    with process_pool(workers) as ex:
        return list(ex.map(fn, *zip(*items)))


def _progress(progress: bool, msg: str) -> None:
    if progress:
        from rich.console import Console

        Console(stderr=True).print(f"[dim]applepi[/dim] {msg}")


# --- dataset ----------------------------------------------------------------------------------
def build_dataset(root: str | Path, cases_per_task: int = DEFAULT_CASES_PER_TASK, seed: int = 0,
                  width: int = 832, height: int = 480, tasks: Iterable[str] | None = None, workers: int | None = None,
                  duration: float = 2.0, gt_fps: float = 24.0, dense_maps: bool = False, progress: bool = False,
                  predictions: tuple = ()) -> Dataset:
    """Write (or complete) a simulated dataset; cases already on disk are kept.

    ``predictions=(models, folder, num_rollouts, protocol)``: each new case's built-in outputs are written in
    the same job, from the frames just rendered (the GT PNGs are not read back)."""
    root = Path(root)
    tasks = list(tasks or scenes.TASKS)
    jobs, entries = [], []
    for t in tasks:
        for i in range(cases_per_task):
            number = i + 1
            case_seed = seed * 1000 + i
            entries.append({"case_id": f"{t}_{number:06d}", "path": case_relpath(t, number), "split": "test"})
            if not (root / entries[-1]["path"] / "lawful.json").exists():
                jobs.append((root, t, number, case_seed, width, height, gt_fps, duration, case_seed, dense_maps,
                             predictions))
    if jobs:
        _progress(progress, f"building {len(jobs)} cases at {width}x{height}")
        _pmap(_build_job, jobs, _workers(workers))
    write_dataset_index(root, entries, prompt_version=PROMPT_VERSION, num_rollouts=NUM_ROLLOUTS)
    return Dataset(root)


def _build_job(root, task, number, seed, width, height, gt_fps, duration, style_seed, dense_maps, predictions) -> dict:
    frames: dict | None = {} if predictions else None
    entry = write_case(root, task, number, seed, width, height, gt_fps, duration, style_seed, dense_maps, frames)
    if predictions:
        models, preds, n, protocol = predictions
        case = GTCase(root, entry)
        case.remember_frames(frames)
        for m in models:
            M.write_predictions(m, case, Path(preds) / m, n, protocol)
    return entry


# --- scoring ------------------------------------------------------------------------------------
def _score_case_job(dataset_root: str, entry: dict, todo: list[tuple], opts: Options) -> list[tuple[str, list[Result]]]:
    """One case for several models ``[(model, pred_root, n, judge)]``: the case's ground truth (frames,
    masks, motion masks, colour key) is read and derived once and shared by every model and rollout."""
    case = GTCase(dataset_root, entry)
    return [(model, evaluate_case(case, pred_root, n, opts, judge)) for model, pred_root, n, judge in todo]


def _put(store: Store, model: str, results: list[Result], ocr: str | None = None) -> None:
    """Store one model's results of a case: a row per rollout (``ocr``: the text reader used, if any)."""
    by_rollout: dict[int, list[Result]] = {}
    for r in results:
        by_rollout.setdefault(r.output.rollout, []).append(r)
    for rollout, rs in by_rollout.items():
        o0 = rs[0].output
        cols: dict[str, Score] = {}
        for r in rs:
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
        statuses = {r.output.status for r in rs}
        status = "scored" if "scored" in statuses else ("unmeasurable" if "unmeasurable" in statuses else "invalid")
        reason = "; ".join(sorted({r.reason.split("\n")[0] for r in rs if r.reason}))[:2000]
        store.put(VideoKey(SUITE, o0.case_id, model, rollout), o0.task, status, cols, reason=reason,
                  evidence={"outputs": {r.output.subtrack: r.path for r in rs}})


def _outputs_from_rows(rows: list[dict], model: str, case_ids: set[str] | None, judged: bool) -> list[OutputScore]:
    outs = []
    for row in rows:
        if row.get("suite", SUITE) != SUITE or row["model"] != model or (case_ids is not None and row["case_id"] not in case_ids):
            continue
        col = row["col"]
        sub = col[: -len("_objective")] if col.endswith("_objective") else (col if col in SUBTRACKS else None)
        if sub is None or (col in SUBTRACKS) != judged:
            continue
        s = row["score"]
        extra = s.get("extra", {})
        outs.append(OutputScore(row["case_id"], row["task"], extra.get("pillar", ""), extra.get("source", ""), sub,
                                int(row["rollout"]), row["status"], row["value"], s.get("metrics", {})))
    return outs


def aggregate_rows(rows: list[dict], models: Iterable[str] | None = None, case_ids: set[str] | None = None) -> dict:
    """The ``applepi`` section of ``leaderboard.json`` from store score rows (``Store.scores('applepi')``)."""
    models = list(models) if models is not None else sorted({r["model"] for r in rows if r.get("suite", SUITE) == SUITE})
    section = {"scale": [0, 1], "models": {}}
    for m in models:
        objective = _outputs_from_rows(rows, m, case_ids, judged=False)
        judged = _outputs_from_rows(rows, m, case_ids, judged=True)
        judgeable = [o for o in objective if o.status != "invalid"]  # outputs with metrics a judge can complete
        full = bool(judged) and len(judged) == len(judgeable)
        use = judged + [o for o in objective if o.status == "invalid"] if full else objective
        entry = aggregate(use)
        entry["scoring"] = "judged (E.1/E.3 fusion)" if full else "objective-only (no judge values; rubric criteria left out)"
        suffix = "" if full else "_objective"
        entry["subtracks"] = {f"{k}{suffix}": v for k, v in entry["subtracks"].items()}
        section["models"][m] = entry
    return section


def store_section(store: Store) -> dict:
    """The ``applepi`` section from everything the store holds (what ``lawful report`` and ``lawful judge``
    recompute): every model and case, and the text reader the stored scores used (``ocr``, None for none)."""
    rows = store.scores(SUITE)
    section = aggregate_rows(rows)
    section["ocr"] = next((r["score"].get("extra", {}).get("ocr") for r in rows
                           if r["score"].get("extra", {}).get("ocr")), None)
    return section


def leaderboard(store: Store, models: Iterable[str], case_ids: set[str]) -> dict:
    """The ``applepi`` section for ``models`` restricted to ``case_ids``, from the store."""
    return aggregate_rows(store.scores(SUITE), models, case_ids)


def score_predictions(store: Store, dataset: Dataset, pred_root: str | Path, model: str, opts: Options,
                      workers: int | None = None, progress: bool = False, num_rollouts: int | None = None) -> None:
    """Score every not-yet-scored case of ``model`` and record it in ``store``."""
    score_models(store, dataset, {model: pred_root}, opts, workers, progress, num_rollouts)


def score_models(store: Store, dataset: Dataset, roots: dict[str, str | Path], opts: Options,
                 workers: int | None = None, progress: bool = False, num_rollouts: int | None = None) -> None:
    """Score every not-yet-scored case of each ``model -> predictions folder``, case by case, so each case's
    ground truth is prepared once for all models (one job per case)."""
    ns = {m: int(num_rollouts or read_submission(r).get("num_rollouts") or dataset.num_rollouts) for m, r in roots.items()}
    jobs, count = [], 0
    for entry in dataset.entries:
        todo = []
        for m, r in roots.items():
            if all(store.done(VideoKey(SUITE, entry["case_id"], m, k)) for k in range(ns[m])):
                continue
            todo.append((m, str(r), ns[m], judge_values_of(store, entry["case_id"], m)))
        if todo:
            jobs.append((str(dataset.root), entry, todo, opts))
            count += len(todo)
    if not jobs:
        return
    _progress(progress, f"scoring {', '.join(roots)}: {count} case outputs × {len(opts.subtracks)} subtracks")
    ocr = ocr_mod.version() if opts.use_ocr else None
    for per_model in _pmap(_score_case_job, jobs, _workers(workers)):
        for m, results in per_model:
            _put(store, m, results, ocr)


def _case_ids(dataset: Dataset) -> set[str]:
    return {e["case_id"] for e in dataset.entries}


def _judge(out: Path, store: Store, ds: Dataset, models: list[str], judge_config, redo: bool,
           progress: bool) -> dict:
    """Judge the stored outputs of ``models`` with their subtracks' rubrics and fuse them
    (:func:`lawful.suites.applepi.judging.judge_applepi`; replies cached under ``<out>/judge_cache``);
    returns the counts and the judge's public configuration."""
    from lawful.judges.cache import JudgeCache
    from lawful.judges.client import JudgeClient
    from lawful.suites.applepi.judging import judge_applepi

    _progress(progress, f"judging with {judge_config.model}")
    client = JudgeClient(judge_config, JudgeCache(out / "judge_cache"))
    judged = judge_applepi(out, client, models, redo=redo, dataset=ds.root, store=store)
    return {**judged, "config": judge_config.public()}


def run_applepi(out_dir: str | Path, models: Iterable[str] = M.MODELS, cases_per_task: int | None = None,
                seed: int = 0, dataset: str | Path | None = None, workers: int | None = None, progress: bool = True,
                width: int = 832, height: int = 480, tasks: Iterable[str] | None = None, ocr: bool = False,
                motion_masks: bool = False, protocol: str = "video", store: Store | None = None,
                duration: float = 2.0, gt_fps: float = 24.0, dense_maps: bool = False, judge_config=None,
                redo_judge: bool = False) -> dict:
    """Build (or read) the dataset, write the built-in models' outputs, score them, return the leaderboard section.

    With a :class:`~lawful.judges.client.JudgeConfig` the judge scores every output with its subtrack's
    rubric after the objective checks (:func:`lawful.suites.applepi.judging.judge_applepi`; replies cached
    under ``<out>/judge_cache``) and the section holds the fused E.1/E.3 scores (``section["judge"]``:
    the counts).

    ``ocr=True`` adds the text-reading checks when Tesseract is installed (slow: ~1 s per image);
    ``dense_maps=True`` also writes the large ``velocity/`` and ``depth/`` arrays of generated cases (not
    needed for scoring: ``lawful.json`` carries the per-object truth). ``motion_masks=True`` adds Physics-IQ's
    motion-mask IoUs to Deduction (:mod:`lawful.suites.applepi.motion`). Finished work is never redone.
    """
    out = Path(out_dir)
    base = out / SUITE
    cases_per_task = DEFAULT_CASES_PER_TASK if cases_per_task is None else int(cases_per_task)
    builtin, folders, skipped = [], {}, {}
    for m in models:
        if m in M.MODELS:
            builtin.append(m)
        elif m.startswith("folder:"):
            folders[m] = Path(m.split(":", 1)[1])
        else:
            from lawful.choices import unknown

            skipped[m] = (unknown(m, M.MODELS, "built-in Apple-π model") + "; Apple-π needs five outputs per case: "
                          "export the prompts (lawful suite export --suite applepi) and score a predictions folder "
                          "(folder:DIR, or lawful evaluate --suite applepi --predictions DIR)")
            _progress(progress, f"[yellow]skipping {m}[/yellow]: {skipped[m]}")
    if dataset is None:  # new cases get the built-in outputs while their frames are in memory
        for m in builtin:
            M.write_submission(base / "predictions" / m, m, protocol, NUM_ROLLOUTS, PROMPT_VERSION)
        ds = build_dataset(base / "dataset", cases_per_task, seed, width, height, tasks, workers, duration, gt_fps,
                           dense_maps, progress=progress,
                           predictions=(tuple(builtin), str(base / "predictions"), NUM_ROLLOUTS, protocol) if builtin else ())
    else:
        ds = Dataset(dataset)
    opts = Options(use_ocr=bool(ocr and ocr_mod.available()), motion_masks=motion_masks)
    own = store is None
    store = store or Store(out / "results.sqlite")
    try:
        roots: dict[str, Path] = {}
        if builtin:
            _progress(progress, f"writing {', '.join(builtin)} outputs for {len(ds)} cases")
        for m in builtin:
            roots[m] = base / "predictions" / m
            M.write_submission(roots[m], m, protocol, ds.num_rollouts, PROMPT_VERSION)
        _pmap(_write_job, [(tuple(builtin), str(ds.root), c.entry, str(base / "predictions"), ds.num_rollouts, protocol)
                           for c in ds] if builtin else [], _workers(workers))
        validation = {}
        for m, pred_root in folders.items():
            validation[m] = validate(pred_root, ds).to_dict()
            roots[m] = pred_root
        score_models(store, ds, roots, opts, workers, progress)
        judged = None
        if judge_config is not None:
            judged = _judge(out, store, ds, builtin + list(folders), judge_config, redo_judge, progress)
        section = leaderboard(store, builtin + list(folders), _case_ids(ds))
        if judged is not None:
            section["judge"] = judged
        section["ocr"] = ocr_mod.version() if opts.use_ocr else None
        if validation:
            section["validation"] = validation
        if skipped:
            section["skipped"] = skipped
    finally:
        if own:
            store.close()
    base.mkdir(parents=True, exist_ok=True)
    (base / "leaderboard.json").write_text(json.dumps(section, indent=2))
    return section


def flow(config, store: Store, tasks: list[str] | None) -> dict:
    """``lawful run`` for Apple-π (:attr:`lawful.suites.base.Suite.flow`): :func:`run_applepi` with the run's
    settings (``config.options``: ocr, motion_masks, judge_config) into the run's store. Returns the section's
    keys only this run knows: folder models' ``validation``, ``skipped`` models and the ``judge`` counts."""
    o = config.options
    section = run_applepi(config.out, models=tuple(config.models), cases_per_task=config.cases_per_task,
                          seed=config.seed, workers=config.workers, progress=config.progress, tasks=tasks,
                          ocr=o.get("ocr", False), motion_masks=o.get("motion_masks", False),
                          judge_config=o.get("judge_config"), store=store)
    return {k: section[k] for k in ("judge", "validation", "skipped") if k in section}


def _write_job(models: tuple[str, ...], root: str, entry: dict, preds: str, n: int, protocol: str) -> None:
    case = GTCase(root, entry)  # one reading of the case for every model
    for m in models:
        M.write_predictions(m, case, Path(preds) / m, n, protocol)


def evaluate_predictions(dataset_dir: str | Path | None, predictions_dir: str | Path, out_dir: str | Path,
                         model: str | None = None, workers: int | None = None, progress: bool = True,
                         ocr: bool = False, motion_masks: bool = False, store: Store | None = None,
                         judge_config=None, redo_judge: bool = False) -> dict:
    """Validate and score predictions in the release layout against a dataset in the release layout
    (``dataset_dir=None``: lawful's default generated dataset, built under ``out_dir`` if absent).

    Missing and unreadable outputs are listed under ``validation`` and score 0 (invalid); nothing raises
    for a bad prediction file. ``model`` defaults to ``submission.json``'s model, else the folder name.
    With a ``judge_config`` the outputs are judged and fused as in :func:`run_applepi`.
    """
    out = Path(out_dir)
    ds = (Dataset(dataset_dir) if dataset_dir is not None else
          build_dataset(out / SUITE / "dataset", DEFAULT_CASES_PER_TASK, 0, workers=workers, progress=progress))
    pred = Path(predictions_dir)
    report = validate(pred, ds)
    model = model or report.submission.get("model") or pred.name
    opts = Options(use_ocr=bool(ocr and ocr_mod.available()), motion_masks=motion_masks)
    own = store is None
    store = store or Store(out / "results.sqlite")
    try:
        score_predictions(store, ds, pred, model, opts, workers, progress)
        judged = _judge(out, store, ds, [model], judge_config, redo_judge, progress) if judge_config else None
        section = leaderboard(store, [model], _case_ids(ds))
        if judged is not None:
            section["judge"] = judged
    finally:
        if own:
            store.close()
    section["validation"] = {model: report.to_dict()}
    section["ocr"] = ocr_mod.version() if opts.use_ocr else None
    (out / SUITE).mkdir(parents=True, exist_ok=True)
    (out / SUITE / "leaderboard.json").write_text(json.dumps(section, indent=2))
    return section


def export_prompts(out_dir: str | Path, dataset: str | Path | None = None, cases_per_task: int | None = None,
                   seed: int = 0, protocols: Iterable[str] = ("video", "image"), width: int = 832, height: int = 480,
                   tasks: Iterable[str] | None = None, workers: int | None = None, progress: bool = True) -> dict:
    """Write one JSONL per protocol and subtrack: ``{case_id, path, input_image, prompt, outputs, …}``."""
    out = Path(out_dir) / SUITE
    cases_per_task = DEFAULT_CASES_PER_TASK if cases_per_task is None else int(cases_per_task)
    ds = Dataset(dataset) if dataset else build_dataset(out / "dataset", cases_per_task, seed, width, height, tasks,
                                                        workers, progress=progress)
    summary: dict = {"dataset": str(ds.root), "prompt_version": PROMPT_VERSION, "cases": len(ds), "files": {}}
    for proto in protocols:
        if proto not in ("video", "image"):
            raise ValueError(f"unknown protocol '{proto}' (video or image)")
        d = out / "prompts" / proto
        d.mkdir(parents=True, exist_ok=True)
        for sub in SUBTRACKS:
            lines = []
            for c in ds:
                lines.append(json.dumps({
                    "case_id": c.case_id, "path": c.entry["path"], "subtrack": sub, "protocol": proto,
                    "input_image": str((c.dir / c.meta["input_image"]).resolve()),
                    "prompt": prompt(sub, proto, c),
                    "physics_duration": c.physics_duration, "fps": c.gt_fps,
                    "deduction_timestamps": c.deduction_timestamps if sub == "deduction" else None,
                    "outputs": [f"{sub}/{c.entry['path']}/{o}" for o in expected_outputs(sub, proto, c, ds.num_rollouts)],
                }, ensure_ascii=False))
            p = d / f"{sub}.jsonl"
            p.write_text("\n".join(lines) + "\n")
            summary["files"][f"{proto}/{sub}"] = str(p)
    return summary


def table(section: dict):
    """Rich table of the section: one row per model; overall, subtracks (mean ± std over cases) and pillars (0-1)."""
    from rich.table import Table

    models = section.get("models", {})
    first = next(iter(models.values()), {})
    subs = list(first.get("subtracks", {}))
    pillars = list(first.get("pillars", {}))
    t = Table(title=f"Apple-π ({first.get('scoring', '')})", show_lines=False)
    t.add_column("model")
    t.add_column("overall", justify="right")
    for s in subs:
        t.add_column(s.replace("_objective", "").replace("_", "-"), justify="right")
    for p in pillars:
        t.add_column(p, justify="right")
    t.add_column("scored/unmeas/invalid", justify="right")

    def f(v, sd=None):
        return "—" if v is None else f"{v:.3f}" + ("" if sd is None else f" ± {sd:.3f}")

    for m, e in models.items():
        sds = e.get("subtracks_std", {})
        t.add_row(m, f(e.get("overall")), *[f(e["subtracks"].get(s), sds.get(s)) for s in subs],
                  *[f(e["pillars"].get(p)) for p in pillars],
                  f"{e.get('scored', 0)}/{e.get('unmeasurable', 0)}/{e.get('invalid', 0)}")
    return t


def tables(section: dict):
    """What ``lawful run`` prints for Apple-π: :func:`table`, then :func:`task_table`."""
    from rich.console import Group

    return Group(table(section), task_table(section))


def task_table(section: dict):
    """Rich table: one row per task, one column per model (case-level means over all subtracks)."""
    from rich.table import Table

    models = section.get("models", {})
    tasks = sorted({t for e in models.values() for t in e.get("tasks", {})},
                   key=lambda t: scenes.TASKS.index(t) if t in scenes.TASKS else 99)
    t = Table(title="Apple-π per task")
    t.add_column("task")
    for m in models:
        t.add_column(m, justify="right")
    for task in tasks:
        vals = [models[m]["tasks"].get(task) for m in models]
        t.add_row(task, *["—" if v is None else f"{v:.3f}" for v in vals])
    return t
