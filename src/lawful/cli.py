"""The ``lawful`` command."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from lawful.cli_common import PROMPTS_HELP, err, fail, out, use_prompts  # noqa: F401  (err)
from lawful.cli_common import check_suites as _check_suites
from lawful.cli_common import split_list as _split

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Test whether video generators obey physical laws (Principia, WMLE, Apple-pi, PhyGround).")


def _print_board(board: dict, suites: list[str], run_dir: Path) -> None:
    from lawful.report.leaderboard import table

    for s in suites:
        if s in board and "models" in board[s]:
            out.print(table(s, board[s]))
    out.print(f"run folder: {run_dir}  (leaderboard.json, report.html, results.sqlite)")


@app.command()
def run(
    ctx: typer.Context,
    suite: str = typer.Option("principia", "--suite", "-s", help="Comma-separated suites."),
    models: str = typer.Option("reference,counterfactual,static", "--models", "-m",
                               help="Comma-separated models: reference, counterfactual, static, folder:DIR, "
                                    "command:'TEMPLATE', diffusers:ID[?opts], veo:/replicate:/fal:/api: (hosted), or "
                                    "a preset (lawful models); NAME=SPEC names one (e.g. mine=command:'gen {out}'). "
                                    "docs/models.md, docs/hosted-apis.md."),
    out_dir: Path = typer.Option(Path("runs/default"), "--out", "-o", help="Run folder."),
    cases_per_task: Optional[int] = typer.Option(None, "--cases-per-task", "-n", min=1,
                                                 help="Cases per task (default: the suite's)."),
    seed: int = typer.Option(0, help="Seed for case parameters."),
    workers: int = typer.Option(0, help="Worker processes (0: all cores)."),
    rollouts: Optional[int] = typer.Option(None, help="Rollouts (seeds) per case for stochastic models "
                                           "(default 1, or the preset's).", min=1),
    tasks: Optional[str] = typer.Option(None, help="Comma-separated subset of tasks."),
    preset: Optional[str] = typer.Option(None, "--preset", help="'paper': each suite's paper settings (cases per "
                                         "task, rollouts, seeds); -n and --rollouts still override."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars."),
    judge: Optional[str] = typer.Option(None, "--judge", help="OpenAI-compatible endpoint, e.g. "
                                        "http://127.0.0.1:8000/v1 (optional; measurement needs none)."),
    judge_model: Optional[str] = typer.Option(None, "--judge-model", help="Model name the endpoint serves."),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env",
                                              help="NAME of the environment variable holding the API key."),
    judge_timeout: float = typer.Option(60.0, "--judge-timeout", min=0.1, help="Seconds per judge HTTP attempt."),
    judge_retries: int = typer.Option(2, "--judge-retries", min=0,
                                      help="Judge retries per call on HTTP 429/5xx, timeouts and resets."),
    strict: bool = typer.Option(False, "--strict", help="Exit non-zero when any judge call failed or was unusable "
                                                        "(it always does when every call did)."),
    ocr: bool = typer.Option(False, "--ocr", help="Apple-pi: read text with Tesseract (apt-get install "
                                                  "tesseract-ocr) for the text checks."),
    motion_masks: bool = typer.Option(False, "--motion-masks", help="Apple-pi: add Physics-IQ's motion-mask IoUs "
                                      "to Deduction (masks at full resolution, then shrunk to a quarter)."),
    executor: str = typer.Option("local", "--executor", help="Where generation and scoring run: 'local' (a process "
                                 "pool) or 'ray' (a Ray cluster; pip install 'lawful[ray]'); docs/ray.md."),
    address: Optional[str] = typer.Option(None, "--address", help="Ray: the cluster to join ('auto': the one this "
                                          "machine belongs to; default: start a local instance with --workers CPUs)."),
    gpus_per_generation: Optional[float] = typer.Option(None, "--gpus-per-generation", min=0,
                                                        help="Ray: GPUs per generation for models that need a GPU "
                                                             "(default: what the model declares; 0: on CPU)."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help=PROMPTS_HELP),
) -> None:
    """Build the suite(s), generate videos with the models, score them and print the leaderboard."""
    from lawful.generators.base import get_generator
    from lawful.report.leaderboard import write_reports
    from rich.markup import escape

    from lawful.runner.executors import ExecutorError, make_executor
    from lawful.runner.run import RunConfig
    from lawful.runner.run import run as run_suites
    from lawful.store import Store

    from lawful.generators.base import split_models

    suites = _split(suite)
    _check_suites(suites)
    if "phyground" in suites:
        use_prompts(prompts, ctx)
    model_list = split_models(models)
    for m in model_list:
        try:
            get_generator(m)
        except KeyError as e:
            fail(str(e.args[0]))
    try:  # a missing package or a bad option fails here, before any work
        make_executor(executor, 1, address, gpus_per_generation)
    except ExecutorError as e:
        fail(escape(str(e)))
    per_suite = _tasks_per_suite(suites, _split(tasks)) if tasks else {}
    if tasks:  # a suite none of whose tasks was named is not run
        suites = [s for s in suites if per_suite[s]]
    settings = _preset_settings(preset, suites, cases_per_task, rollouts)
    task_list = sorted({t for s in suites for t in per_suite[s]}) if tasks else None
    judge_cfg = _judge_config(judge, judge_model, api_key_env, judge_timeout, judge_retries)
    from lawful.judges.outcome import julian_now

    judge_t0 = julian_now()
    groups: dict[tuple, list[str]] = {}  # suites that share settings run together
    for s in suites:
        groups.setdefault(tuple(sorted(settings[s].items())), []).append(s)
    own: dict[str, dict] = {}  # sections of suites answering with their own outputs (Apple-π): what only this run knows
    options = {"ocr": ocr, "motion_masks": motion_masks, "judge_config": judge_cfg}
    for key, group in groups.items():
        st = dict(key)
        try:
            own.update(run_suites(RunConfig(group, model_list, out_dir, st["cases_per_task"], seed, workers,
                                            st["rollouts"], task_list, not quiet, seed_base=st["seed_base"],
                                            executor=executor, address=address,
                                            gpus_per_generation=gpus_per_generation, report=False, options=options)))
        except ExecutorError as e:
            fail(escape(str(e)))
    if judge_cfg is not None:
        _judge_suites(out_dir, suites, judge_cfg, not quiet)
    with Store(out_dir / "results.sqlite") as store:  # once, with every suite of this run
        board = write_reports(store, out_dir, [s for s in suites if s not in own], own)
    _print_board(board, suites, out_dir)
    if judge_cfg is not None:
        _judge_finish(out_dir, judge_t0, strict)


def _preset_settings(preset: str | None, suites: list[str], cases_per_task: int | None,
                     rollouts: int | None) -> dict[str, dict]:
    """Per suite: cases_per_task, rollouts, seed_base from ``--preset`` (the suite's ``paper`` settings), with
    -n and --rollouts taking precedence; says on stderr what a preset set."""
    from lawful.suites.base import get_suite, unknown

    if preset not in (None, "paper"):
        fail(unknown(preset, ["paper"], "preset"))
    out = {}
    for s in suites:
        paper = get_suite(s).paper if preset == "paper" else {}
        out[s] = {"cases_per_task": cases_per_task or paper.get("cases_per_task"),
                  "rollouts": rollouts or paper.get("rollouts", 1), "seed_base": paper.get("seed_base", 0)}
        if preset:
            st = out[s]
            err.print(f"[dim]{s}: paper settings: {st['cases_per_task'] or 'default'} cases per task, "
                      f"{st['rollouts']} rollout(s), seeds from {st['seed_base']}"
                      + (f" ({paper['note']})" if paper.get("note") else "") + "[/dim]")
    return out


def _tasks_per_suite(suites: list[str], names: list[str]) -> dict[str, list[str]]:
    """Each suite's tasks among ``names`` (names or labels); an unknown name fails with a did-you-mean."""
    from lawful.suites.base import get_suite, unknown

    objs = {s: get_suite(s) for s in suites}
    per = {s: o.match_tasks(names) for s, o in objs.items()}
    matched = {n.lower() for o in objs.values() for n in names if o.match_tasks([n])}
    for n in names:
        if n.lower() not in matched:
            choices = [t for o in objs.values() for t in o.task_names()]
            fail(unknown(n, choices, f"task of {', '.join(suites)}"))
    return per


def _judge_config(url: str | None, model: str | None, api_key_env: str | None, timeout: float = 60.0,
                  retries: int = 2):
    """A JudgeConfig when --judge is given (with --judge-model), else None: measurement only."""
    if url is None and model is None:
        return None
    if not url or not model:
        fail("--judge and --judge-model go together")
    from lawful.judges.outcome import make_config

    return make_config(url, model, api_key_env, timeout, retries)


def _judge_suites(run_dir: Path, suites: list[str], cfg, progress: bool = True) -> None:
    """Ask the judge every rubric whose values feed a suite's scores; results land in the run's store."""
    from lawful.judges.judge import judge_run
    from lawful.progress import progress_bar
    from lawful.suites.base import get_suite

    for name in suites:
        for rubric in get_suite(name).judged:
            with progress_bar(progress) as bar:
                tid = bar.add_task(f"judge {rubric}", total=None)
                rep = judge_run(run_dir, rubric, cfg, suite=name,
                                progress=lambda i, n: bar.update(tid, completed=i, total=n))
            err.print(f"judge {rubric}: {rep.line()}")


def _judge_finish(run_dir: Path, since: float, strict: bool) -> None:
    """Print the judge's call counts and where judged scores came from; exit non-zero when no call
    gave a usable answer (or, with --strict, when any failed)."""
    from lawful.judges.outcome import finish
    from lawful.suites.wmle.judged import wmle_provenance

    code, msg = finish(run_dir, since, strict, err.print, wmle_provenance)
    if code:
        fail(msg, code)


@app.command()
def evaluate(
    ctx: typer.Context,
    suite: Optional[str] = typer.Option(None, "--suite", "-s", help="Suite of the videos."),
    videos: Optional[Path] = typer.Option(None, help="Folder of <case_id>.mp4 / <case_id>__<k>.mp4."),
    cases: Optional[Path] = typer.Option(None, help="Folder of case files (from `lawful suite export`); "
                                                    "default: the suite's built-in cases."),
    case: Optional[Path] = typer.Option(None, help="One case file (JSON)."),
    video: Optional[Path] = typer.Option(None, help="One video to score against --case."),
    predictions: Optional[Path] = typer.Option(None, help="Apple-pi predictions folder (release layout)."),
    dataset: Optional[Path] = typer.Option(None, help="Apple-pi dataset folder (release layout)."),
    ocr: bool = typer.Option(False, "--ocr", help="Apple-pi: read text with Tesseract (apt-get install "
                                                  "tesseract-ocr) for the text checks."),
    motion_masks: bool = typer.Option(False, "--motion-masks", help="Apple-pi: add Physics-IQ's motion-mask IoUs "
                                      "to Deduction (masks at full resolution, then shrunk to a quarter)."),
    out_dir: Path = typer.Option(Path("runs/evaluate"), "--out", "-o", help="Run folder."),
    as_json: bool = typer.Option(False, "--json", help="Print machine-readable JSON."),
    workers: int = typer.Option(0, help="Worker processes (0: all cores)."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
    judge: Optional[str] = typer.Option(None, "--judge", help="OpenAI-compatible endpoint (optional)."),
    judge_model: Optional[str] = typer.Option(None, "--judge-model", help="Model name the endpoint serves."),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env", help="NAME of the API-key variable."),
    judge_timeout: float = typer.Option(60.0, "--judge-timeout", min=0.1, help="Seconds per judge HTTP attempt."),
    judge_retries: int = typer.Option(2, "--judge-retries", min=0,
                                      help="Judge retries per call on HTTP 429/5xx, timeouts and resets."),
    strict: bool = typer.Option(False, "--strict", help="Exit non-zero when any judge call failed or was unusable "
                                                        "(it always does when every call did)."),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help=PROMPTS_HELP),
) -> None:
    """Score videos made elsewhere: a folder against a suite, or one video against one case file."""
    if case is not None or video is not None:
        if case is None or video is None:
            fail("--case and --video go together")
        _evaluate_one(case, video, as_json, _judge_config(judge, judge_model, api_key_env, judge_timeout,
                                                          judge_retries), out_dir, strict)
        return
    if suite is None:
        fail("give --suite with --videos/--predictions, or --case with --video")
    _check_suites([suite])
    if suite == "applepi":
        from lawful.suites.applepi.run import evaluate_predictions

        if predictions is None:
            fail("--suite applepi needs --predictions DIR (and --dataset PATH for the official data)")
        section = evaluate_predictions(dataset, predictions, out_dir, ocr=ocr, motion_masks=motion_masks,
                                       judge_config=_judge_config(judge, judge_model, api_key_env, judge_timeout,
                                                                  judge_retries))
        from lawful.report.leaderboard import write_reports
        from lawful.store import Store

        with Store(out_dir / "results.sqlite") as store:
            board = write_reports(store, out_dir, [], {"applepi": section})
        _finish(board, [suite], out_dir, as_json)
        return
    if videos is None:
        fail("--videos DIR is required")
    if suite == "phyground":
        use_prompts(prompts, ctx)
    from lawful.runner.run import evaluate_folder

    judge_cfg = _judge_config(judge, judge_model, api_key_env, judge_timeout, judge_retries)
    from lawful.judges.outcome import julian_now

    judge_t0 = julian_now()
    try:
        board = evaluate_folder(suite, videos, out_dir, cases, workers=workers, progress=not quiet)
    except FileNotFoundError as e:
        fail(str(e))
    if judge_cfg is not None:
        from lawful.report.leaderboard import write_reports
        from lawful.store import Store

        _judge_suites(out_dir, [suite], judge_cfg, not quiet)
        with Store(out_dir / "results.sqlite") as store:
            board = write_reports(store, out_dir, [suite])
    _finish(board, [suite], out_dir, as_json)
    if judge_cfg is not None:
        _judge_finish(out_dir, judge_t0, strict)


def _finish(board: dict, suites: list[str], run_dir: Path, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps({s: board.get(s) for s in suites}, indent=2) + "\n")
    else:
        _print_board(board, suites, run_dir)


def _evaluate_one(case_path: Path, video_path: Path, as_json: bool, judge_cfg=None, out_dir: Path | None = None,
                  strict: bool = False) -> None:
    from lawful.case import CaseError, load_case
    from lawful.runner.evaluate import evaluate_video, task_for

    try:
        c = load_case(case_path)
        task = task_for(c)
    except CaseError as e:
        fail(str(e))
    except KeyError as e:
        fail(f"{case_path}: {e.args[0]}")
    if judge_cfg is not None and c.suite == "wmle":  # the judge's C replaces the measured one (the seam)
        from lawful.judges.cache import JudgeCache
        from lawful.judges.client import JudgeClient
        from lawful.judges.judge import CACHE_DIR, judge_consistency

        from lawful.judges.outcome import exit_code

        # the reply cache lives in the run folder (--out), never beside the user's case file
        client = JudgeClient(judge_cfg, JudgeCache(Path(out_dir or "runs/evaluate") / CACHE_DIR))
        judged_C = judge_consistency(video_path, c, client)
        err.print(f"judge C = {judged_C if judged_C is not None else 'no usable answer (C is measured)'}; "
                  f"{client.usage.summary()}")
        judge_exit = exit_code(client.usage.snapshot(), strict)
        if judged_C is not None:
            c = c.model_copy(update={"known": {**c.known, "judge_C": judged_C}})
    ev = evaluate_video(c, video_path, task)
    result = {
        "case": c.id, "suite": c.suite, "task": c.task, "video": str(video_path), "status": ev.status,
        "reason": ev.reason,
        "scores": {k: s.model_dump(exclude={"measurement"}) for k, s in ev.scores.items()},
        "events": ev.evidence.get("events", []),
        "quantities": ev.evidence.get("quantities", {}),
        "missing": ev.evidence.get("missing", {}),
    }
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2, default=str) + "\n")
    else:
        from lawful.report.console import print_evaluation

        print_evaluation(out, c, video_path, ev, result)
    if judge_cfg is not None and c.suite == "wmle" and judge_exit[0]:
        fail(judge_exit[1], judge_exit[0])
    if ev.status == "invalid":
        raise typer.Exit(1)


@app.command()
def report(run_dir: Path = typer.Option(..., "--run", help="Run folder."),
           embed: bool = typer.Option(False, "--embed", help="Copy the videos beside the pages (a folder to share) "
                                                             "instead of linking them in place.")) -> None:
    """Recompute leaderboard.json, report.html and the case pages of a run from its store (no video work)."""
    from lawful.report.leaderboard import write_reports
    from lawful.store import Store

    db = run_dir / "results.sqlite"
    if not db.exists():
        fail(f"{run_dir}: no results.sqlite (not a run folder)")
    with Store(db) as store:
        suites = sorted({v["suite"] for v in store.videos()})
        board = write_reports(store, run_dir, suites, embed=embed)
    _print_board(board, suites, run_dir)


def _mount_judges() -> None:
    try:
        from lawful.judges.cli import judge_agreement, judge_app
    except ImportError:
        return
    app.add_typer(judge_app, name="judge")
    app.command("judge-agreement")(judge_agreement)


_mount_judges()

# Command groups that live beside the code they drive: each module defines ``register(app)``.
_COMMAND_MODULES = ("lawful.suites.cli", "lawful.generators.cli", "lawful.study.cli", "lawful.report.cli")


def _mount_commands() -> None:
    import importlib

    for name in _COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:  # not written yet
                continue
            raise
        mod.register(app)


_mount_commands()

if __name__ == "__main__":
    app()
