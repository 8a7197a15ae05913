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

from lawful.store import Store
from lawful.suites.applepi import models as M
from lawful.suites.applepi import scenes
from lawful.suites.applepi.answers import NUM_ROLLOUTS, ReleaseAnswers
from lawful.suites.applepi.build import case_relpath, write_case, write_dataset_index
from lawful.suites.applepi.dataset import Dataset
from lawful.suites.applepi.fusion import SUBTRACKS, OutputScore, aggregate
from lawful.suites.applepi.judging import judge_models
from lawful.suites.applepi.predictions import validate
from lawful.suites.applepi.prompts import PROMPT_VERSION, expected_outputs, prompt
from lawful.suites.applepi.tasks import case_files

SUITE = "applepi"
DEFAULT_CASES_PER_TASK = 2


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
                  duration: float = 2.0, gt_fps: float = 24.0, dense_maps: bool = False,
                  progress: bool = False) -> Dataset:
    """Write (or complete) a simulated dataset at ``root`` without a run (``lawful suite export``); cases
    already on disk are kept. The same cases as a run's (:meth:`ApplePiTask.write_case`)."""
    root = Path(root)
    tasks = list(tasks or scenes.TASKS)
    jobs, entries = [], []
    for t in tasks:
        for i in range(cases_per_task):
            number = i + 1
            case_seed = seed * 1000 + i
            entries.append({"case_id": f"{t}_{number:06d}", "path": case_relpath(t, number), "split": "test"})
            if not (root / entries[-1]["path"] / "lawful.json").exists():
                jobs.append((root, t, number, case_seed, width, height, gt_fps, duration, case_seed, dense_maps))
    if jobs:
        _progress(progress, f"building {len(jobs)} cases at {width}x{height}")
        _pmap(write_case, jobs, _workers(workers))
    write_dataset_index(root, entries, prompt_version=PROMPT_VERSION, num_rollouts=NUM_ROLLOUTS)
    return Dataset(root)


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


def _score(out: Path, case_paths: list[Path], models: list[str], options: dict, workers: int | None,
           progress: bool, store: Store) -> dict:
    """Plan, run and finish Apple-π's jobs for ``case_paths`` on the common runner (what ``lawful run`` does
    after building cases); returns the run's notes (skipped models, validation, judge counts)."""
    from lawful.runner.run import execute

    answers = ReleaseAnswers()
    jobs, _, notes = answers.plan(store, SUITE, case_paths, models, out, 1, 0, {**options, "progress": progress})
    if jobs:
        _progress(progress, f"scoring {', '.join(notes['_models'])}: {len(jobs)} rollouts × {len(SUBTRACKS)} subtracks")
    execute(jobs, store, _workers(workers), progress, label=SUITE)
    cfg = options.get("judge_config")
    judged = (judge_models(out, store, notes["_dataset"], notes["_models"], cfg, bool(options.get("redo_judge")),
                           progress) if cfg is not None and notes["_dataset"] else None)
    notes = answers.finish(store, out, notes, options, progress)
    return notes if judged is None else {**notes, "judge": judged}


def _section(out: Path, store: Store, models: list[str], case_paths: list[Path], notes: dict) -> dict:
    """The section for this run's models and cases, with its notes; also written to ``out/applepi/leaderboard.json``."""
    section = leaderboard(store, [m for m in models if m not in notes.get("skipped", {})],
                          {Path(p).stem for p in case_paths})
    section.update({k: notes[k] for k in ("judge", "validation", "skipped") if k in notes})
    section["ocr"] = next((r["score"].get("extra", {}).get("ocr") for r in store.scores(SUITE)
                           if r["score"].get("extra", {}).get("ocr")), None)
    (out / SUITE).mkdir(parents=True, exist_ok=True)
    (out / SUITE / "leaderboard.json").write_text(json.dumps(section, indent=2))
    return section


def run_applepi(out_dir: str | Path, models: Iterable[str] = M.MODELS, cases_per_task: int | None = None,
                seed: int = 0, dataset: str | Path | None = None, workers: int | None = None, progress: bool = True,
                width: int = 832, height: int = 480, tasks: Iterable[str] | None = None, ocr: bool = False,
                motion_masks: bool = False, protocol: str = "video", store: Store | None = None,
                duration: float = 2.0, gt_fps: float = 24.0, dense_maps: bool = False, judge_config=None,
                redo_judge: bool = False) -> dict:
    """Build (or read) the dataset, write the built-in models' outputs, score them, return the leaderboard section:
    ``lawful run --suite applepi`` as a function, on the common runner (cases under ``out/cases/applepi``).

    With a :class:`~lawful.judges.client.JudgeConfig` the judge scores every output with its subtrack's
    rubric after the objective checks (:func:`judge_models`) and the section holds the fused E.1/E.3 scores
    (``section["judge"]``: the counts). ``ocr=True`` adds the text-reading checks when Tesseract is installed
    (slow: ~1 s per image); ``dense_maps=True`` also writes the large ``velocity/`` and ``depth/`` arrays of
    generated cases; ``motion_masks=True`` adds Physics-IQ's motion-mask IoUs to Deduction
    (:mod:`lawful.suites.applepi.motion`). Finished work is never redone.
    """
    from lawful.runner.run import build_cases
    from lawful.suites.base import get_suite

    out = Path(out_dir)
    models = list(models)
    options = {"ocr": ocr, "motion_masks": motion_masks, "protocol": protocol, "judge_config": judge_config,
               "redo_judge": redo_judge, "width": width, "height": height, "duration": duration, "gt_fps": gt_fps,
               "dense_maps": dense_maps}
    folder = out / "cases" / SUITE
    if dataset is None:
        n = DEFAULT_CASES_PER_TASK if cases_per_task is None else int(cases_per_task)
        case_paths = build_cases(get_suite(SUITE), folder, n, seed, tasks, progress, _workers(workers), options)
    else:
        case_paths = case_files(Dataset(dataset), folder)
    own = store is None
    store = store or Store(out / "results.sqlite")
    try:
        notes = _score(out, case_paths, models, options, workers, progress, store)
        return _section(out, store, models, case_paths, notes)
    finally:
        if own:
            store.close()


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
    folder = out / "cases" / SUITE
    ds = (Dataset(dataset_dir) if dataset_dir is not None else
          build_dataset(out / SUITE / "dataset", DEFAULT_CASES_PER_TASK, 0, workers=workers, progress=progress))
    case_paths = case_files(ds, folder)
    pred = Path(predictions_dir)
    report = validate(pred, ds)
    model = model or report.submission.get("model") or pred.name
    options = {"ocr": ocr, "motion_masks": motion_masks, "judge_config": judge_config, "redo_judge": redo_judge,
               "predictions": {model: str(pred)}}
    own = store is None
    store = store or Store(out / "results.sqlite")
    try:
        notes = _score(out, case_paths, [model], options, workers, progress, store)
        notes["validation"] = {model: report.to_dict()}
        return _section(out, store, [model], case_paths, notes)
    finally:
        if own:
            store.close()


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
