"""Orchestration: build cases, generate videos, evaluate them in parallel, store, resume.

A run folder holds::

    cases/<suite>/<case_id>.json + <case_id>.png   the cases (written once, reused on resume)
    videos/<model>/<case_id>__<k>.mp4               generated videos
    results.sqlite                                  the store (lawful.store)
    leaderboard.json, report.html                   written by lawful.report

Every (suite, case, model, rollout) is one job. Finished jobs are in the store and are
never redone, so interrupting a run and starting the same command again resumes it. A stored
result is reused only while the file it scored is unchanged (same resolved path and bytes:
:func:`lawful.store.fingerprint`); a failed generation (no file) is tried again.

Jobs run on an executor (:mod:`lawful.runner.executors`): a local process pool by default, or a Ray
cluster (``executor="ray"``); either way this process alone writes the store, as each job finishes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lawful.case import case_seed  # noqa: F401  (API: runner.run.case_seed)
from lawful.generators.base import get_generator
from lawful.generators.external import Folder
from lawful.generators.hosted.jobs import pregenerate
from lawful.progress import console, progress_bar
from lawful.runner.evaluate import Evaluation
from lawful.runner.executors import Executor, LocalExecutor, make_executor
from lawful.runner.jobs import Job, run_job as _run_job  # noqa: F401  (Job, _run_job: this module's API before)
from lawful.store import Store, VideoKey, fingerprint, model_dir_name, same_file
from lawful.suites.base import Suite, get_suite


@dataclass
class RunConfig:
    suites: list[str] = field(default_factory=lambda: ["principia"])
    models: list[str] = field(default_factory=lambda: ["reference", "counterfactual", "static"])
    out: Path = Path("runs/default")
    cases_per_task: int | None = None
    seed: int = 0
    workers: int = 0  # 0: all cores
    rollouts: int = 1
    tasks: list[str] | None = None
    progress: bool = True
    seed_base: int = 0  # rollout k is generated with seed seed_base + k (WMLE's paper: 42)
    executor: str = "local"  # or "ray" (lawful.runner.ray_exec)
    address: str | None = None  # ray: the cluster ("auto": the one this machine belongs to); None: a local instance
    gpus_per_generation: float | None = None  # ray: GPUs per generation (default: what the generator declares)
    report: bool = True  # False: write no leaderboard/report (a caller adding sections writes them once, after)
    options: dict = field(default_factory=dict)  # suite-specific options (Apple-π: ocr, motion_masks, judge_config)

    @property
    def n_workers(self) -> int:
        return self.workers or os.cpu_count() or 1


def build_cases(suite: Suite, out: Path, n: int | None = None, seed: int = 0,
                tasks: Iterable[str] | None = None, progress: bool = True, workers: int = 1,
                options: dict | None = None) -> list[Path]:
    """Write (or reuse) ``n`` cases per task of ``suite`` under ``out``; return the case files.

    ``workers > 1``: missing cases are made in a process pool (each case is a function of its seed alone,
    so the files are the same). ``options``: the run's suite options (:meth:`Task.write_case`)."""
    out.mkdir(parents=True, exist_ok=True)
    n = n or suite.default_cases_per_task
    names = list(tasks) if tasks else list(suite.tasks)
    paths, todo = [], []
    for name in names:
        for i, case_id in enumerate(suite.task(name).case_ids(n)):
            paths.append(out / f"{case_id}.json")
            if not paths[-1].exists():
                todo.append((name, i, case_id))
    with progress_bar(progress) as bar:
        tid = bar.add_task(f"cases  {suite.name}", total=len(paths))
        bar.advance(tid, len(paths) - len(todo))
        if workers > 1 and len(todo) > 1:
            from lawful.runner.pool import process_pool

            global _BUILDING
            _BUILDING = suite  # forked workers inherit it (a suite need not be picklable)
            try:
                with process_pool(min(workers, len(todo))) as pool:
                    for _ in pool.map(_write_case, *zip(*[(None, *t, seed, out, options) for t in todo])):
                        bar.advance(tid)
            finally:
                _BUILDING = None
        else:
            for name, i, case_id in todo:
                _write_case(suite, name, i, case_id, seed, out, options)
                bar.advance(tid)
    return paths


_BUILDING: Suite | None = None  # the suite a case-building pool works for


def _write_case(suite: Suite | None, name: str, i: int, case_id: str, seed: int, out: Path,
                options: dict | None = None) -> None:
    """Make case ``i`` of task ``name`` and write it as ``case_id`` under ``out`` (:meth:`Task.write_case`)."""
    (suite or _BUILDING).task(name).write_case(i, seed, case_id, out, options)


def plan_jobs(store: Store, suite_name: str, case_paths: list[Path], models: list[str], out: Path,
              rollouts: int, seed_base: int = 0) -> tuple[list[Job], int]:
    """Jobs whose result is not in the store or is stale, and how many stored results are reused.

    A folder model contributes the rollouts it has (a missing one is a job too). A stored result is
    stale when its file changed or moved, or when it was stored without a file (a failed generation).
    """
    jobs, reused = [], 0
    for model in models:
        gen = get_generator(model)
        label = gen.name or model
        for cp in case_paths:
            case_id = cp.stem
            if isinstance(gen, Folder):
                found = gen.rollouts(case_id)
                ks = sorted(found) or [0]
                paths = {k: str(found.get(k, gen.folder / f"{case_id}.mp4")) for k in ks}
            else:
                ks = [0] if gen.deterministic else list(range(rollouts))
                vdir = out / "videos" / model_dir_name(label)
                paths = {k: str(vdir / f"{case_id}__{k}.mp4") for k in ks}
            for k in ks:
                key = VideoKey(suite_name, case_id, label, k)
                stored, fp = store.stored_fingerprint(key)
                if stored and same_file(fp, fingerprint(paths[k], known=fp)):
                    reused += 1
                else:
                    jobs.append(Job(key, str(cp), model, paths[k], seed_base + k))
    return jobs, reused


def _say_reused(reused: int, todo: int, label: str, progress: bool) -> None:
    if progress and reused:
        console.print(f"{label}: {reused} stored result{'s' if reused != 1 else ''} reused "
                      f"(same files), {todo} to score")


def execute(jobs: list[Job], store: Store, workers: int, progress: bool = True, label: str = "videos",
            executor: Executor | None = None) -> None:
    """Run jobs on ``executor`` (default: a local pool of ``workers``), storing each result as it finishes."""
    if not jobs:
        return
    with progress_bar(progress) as bar:
        tid = bar.add_task(f"{label:6s}", total=len(jobs))

        def record(job: Job, task: str, ev: Evaluation) -> None:
            store.put(job.key, task, ev.status, ev.scores, ev.reason, job.video if ev.path is None else ev.path,
                      ev.evidence, ev.fingerprint or fingerprint(job.video))
            bar.advance(tid)

        (executor or LocalExecutor(workers)).run(jobs, record)


def run(config: RunConfig) -> dict:
    """Build, generate, evaluate and aggregate; return the leaderboard dict (also written to the run folder).

    With ``config.report=False`` nothing is written and the sections of suites answering with their own outputs
    (:attr:`~lawful.suites.base.Suite.answers`) are returned, for the caller's one ``write_reports(..., extra)``."""
    from lawful.report.leaderboard import suite_section, write_reports

    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    executor = make_executor(config.executor, config.n_workers, config.address, config.gpus_per_generation,
                             config.progress)
    own: dict[str, dict] = {}  # suites answering with their own outputs: run-specific keys of their section
    with Store(out / "results.sqlite") as store, executor:
        for name in config.suites:
            suite = get_suite(name)
            tasks = suite.match_tasks(config.tasks) if config.tasks else None  # names or labels, this suite's only
            if config.tasks and not tasks:
                continue
            cases = build_cases(suite, out / "cases" / name, config.cases_per_task, config.seed, tasks,
                                config.progress, config.n_workers, config.options)
            if suite.answers is not None:
                jobs, reused, own[name] = suite.answers.plan(store, name, cases, config.models, out, config.rollouts,
                                                             config.seed_base, config.options)
            else:
                jobs, reused = plan_jobs(store, name, cases, config.models, out, config.rollouts, config.seed_base)
                pregenerate(jobs, out, config.progress)  # hosted APIs: submit / poll / download first (else no-op)
            _say_reused(reused, len(jobs), name, config.progress)
            execute(jobs, store, config.n_workers, config.progress, label=name, executor=executor)
            if suite.answers is not None:
                own[name] = suite.answers.finish(store, out, own[name], config.options, config.progress)
        sections = {name: {**suite_section(store, name), **notes} for name, notes in own.items()}
        if not config.report:
            return sections
        return write_reports(store, out, [s for s in config.suites if s not in sections], sections)


def evaluate_folder(suite_name: str, videos: Path, out: Path, cases_dir: Path | None = None,
                    cases_per_task: int | None = None, seed: int = 0, workers: int = 0,
                    progress: bool = True) -> dict:
    """Score a folder of ``<case_id>[__k].mp4`` against exported cases (or the default suite's)."""
    from lawful.report.leaderboard import write_reports

    if not videos.is_dir():
        raise FileNotFoundError(f"{videos}: not a folder of videos")
    out.mkdir(parents=True, exist_ok=True)
    if cases_dir is not None:
        case_paths = sorted(p for p in Path(cases_dir).rglob("*.json") if _is_case_file(p, suite_name))
        if not case_paths:
            raise FileNotFoundError(f"{cases_dir}: no {suite_name} case files")
        from lawful.judges.judge import CASES_POINTER

        (out / "cases").mkdir(exist_ok=True)  # so that a judge of this run folder finds them
        (out / "cases" / f"{suite_name}{CASES_POINTER}").write_text(str(Path(cases_dir).resolve()))
    else:
        case_paths = build_cases(get_suite(suite_name), out / "cases" / suite_name, cases_per_task, seed,
                                 progress=progress)
    with Store(out / "results.sqlite") as store:
        jobs, reused = plan_jobs(store, suite_name, case_paths, [f"folder:{videos}"], out, 1)
        _say_reused(reused, len(jobs), suite_name, progress)
        execute(jobs, store, workers or os.cpu_count() or 1, progress, label=suite_name)
        return write_reports(store, out, [suite_name])


def _is_case_file(p: Path, suite: str) -> bool:
    """Case files of ``suite``; an unreadable JSON file is kept so its job records why it is invalid."""
    import json

    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError):
        return True
    return not isinstance(data, dict) or data.get("suite", suite) == suite
