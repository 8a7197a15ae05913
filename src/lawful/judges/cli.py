"""``lawful judge …`` and ``lawful judge-agreement``.

Mounted by the main CLI as ``app.add_typer(judge_app, name="judge")`` and
``app.command("judge-agreement")(judge_agreement)``:

- ``lawful judge --run DIR --rubric NAME --judge URL --judge-model NAME [--api-key-env VAR]``
  (``lawful judge run …`` is the same command);
- ``lawful judge export-sft --run DIR --out DIR [--labels TABLE]``;
- ``lawful judge compare --run DIR --rubric NAME [--judges A,B] [--csv FILE]``: two judges of one run;
- ``lawful judge rubrics`` lists the shipped rubrics; ``lawful judge plan`` estimates calls,
  images and tokens before anything is sent;
- ``lawful judge-agreement STAT TABLE [TABLE]`` computes the meta-evaluation statistics.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

out = Console()
err = Console(stderr=True)

judge_app = typer.Typer(invoke_without_command=True, add_completion=False,
                        help="Score a run's videos with a VLM judge (any OpenAI-compatible endpoint).")


def _fail(msg: str, code: int = 2) -> None:
    err.print(f"[red]error:[/red] {msg}")
    raise typer.Exit(code)


def _fmt(v) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "N/A"
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def _judge(run_dir: Path, rubric: str, judge: str, judge_model: str, api_key_env: Optional[str],
           suite: Optional[str], models: Optional[str], videos: Optional[Path], concurrency: int, timeout: float,
           deadline: float, retries: int, max_tokens: int, redo: bool, cache: Optional[Path],
           pass_threshold: float, strict: bool = False) -> None:
    from lawful.judges.cache import JudgeCache
    from lawful.judges.client import JudgeClient, JudgeConfig
    from lawful.judges.judge import CACHE_DIR, STORE_FILE, judge_run
    from lawful.judges.outcome import exit_code, lines, summary_section
    from lawful.judges.rubric import RubricError, load_rubric
    from lawful.progress import progress_bar
    from lawful.store import Store

    if not run_dir.is_dir():
        _fail(f"{run_dir}: no such run folder")
    names = [r.strip() for r in rubric.split(",") if r.strip()]
    try:
        rubs = [load_rubric(r) for r in names]
    except RubricError as e:
        _fail(str(e))
    cfg = JudgeConfig(url=judge, model=judge_model, api_key_env=api_key_env, concurrency=concurrency,
                      timeout_s=timeout, deadline_s=deadline, max_retries=retries, max_tokens=max_tokens)
    client = JudgeClient(cfg, JudgeCache(cache or run_dir / CACHE_DIR))
    model_list = [m.strip() for m in models.split(",")] if models else None
    with Store(run_dir / STORE_FILE) as store:
        t0 = store.now()
    for rub in rubs:
        with progress_bar(sys.stderr.isatty()) as bar:
            tid = bar.add_task(f"judge {rub.name}", total=None)
            rep = judge_run(run_dir, rub, cfg, suite=suite, models=model_list, videos_dir=videos, redo=redo,
                            client=client, progress=lambda i, n: bar.update(tid, completed=i, total=n))
        out.print(f"{rub.id}: {rep.line()}")
    out.print(client.usage.summary())
    with Store(run_dir / STORE_FILE) as store:
        prov = _after_judging(store, run_dir, rubs, pass_threshold)
        section = summary_section(store.judge_runs(since=t0), prov)
    for line in lines(section):
        out.print(line)
    code, msg = exit_code(section["calls"], strict)
    if code:
        _fail(msg, code)


def _after_judging(store, run_dir: Path, rubs, pass_threshold: float) -> dict | None:
    """Per protocol judged (alphabetical): the judges' own report of its rubrics, then its suite's
    :meth:`~lawful.suites.base.Suite.after_judging` (found through the registry: judges import no suite).
    Returns the provenance a suite gave for the judge summary."""
    from lawful.report.leaderboard import write_reports
    from lawful.suite_registry import get_suite

    def publish(suites: list[str], extra: dict) -> dict:
        return write_reports(store, run_dir, suites, extra)

    prov = None
    for protocol in sorted({r.protocol for r in rubs}):
        names = {r.name for r in rubs if r.protocol == protocol}
        for n in sorted(names & _RUBRIC_REPORTS.keys()):
            _RUBRIC_REPORTS[n](store, pass_threshold)
        try:
            suite = get_suite(protocol)
        except KeyError:  # a rubric file of a protocol no suite registers
            continue
        got = suite.after_judging(store, names, publish, out.print)
        prov = got if got is not None else prov
    return prov


def _print_detection(store, pass_threshold: float) -> None:
    from lawful.judges.agreement import principia_agreement, principia_detection_rows

    judge_rows, meas_rows = principia_detection_rows(store, pass_threshold)
    j, m = principia_agreement(judge_rows), principia_agreement(meas_rows)
    t = Table(title=f"Principia detection agreement A_φ (truth: reference = PASS, counterfactual = FAIL; "
                    f"measurement PASS when S ≥ {pass_threshold:g})")
    t.add_column("phenomenon")
    t.add_column("judge A_φ", justify="right")
    t.add_column("measurement A_φ", justify="right")
    t.add_column("scenes", justify="right")
    t.add_column("judge unanswered", justify="right")
    for p in sorted(set(j["per_phenomenon"]) | set(m["per_phenomenon"])):
        t.add_row(p, _fmt(j["per_phenomenon"].get(p)), _fmt(m["per_phenomenon"].get(p)), str(j["n"].get(p, 0)),
                  str(j["n_unanswered"].get(p, 0)))
    t.add_row("Overall", _fmt(j["overall"]), _fmt(m["overall"]), "", str(sum(j["n_unanswered"].values())))
    out.print(t)


# Rubric name → what the judges print after judging with it (store, pass_threshold).
_RUBRIC_REPORTS = {"principia-detect": _print_detection}

_RUN_OPTS = dict(
    run_dir=typer.Option(None, "--run", help="Run folder (cases/, videos/, results.sqlite)."),
    rubric=typer.Option(None, "--rubric", "-r", help="Rubric name(s), comma-separated, or a rubric JSON file."),
    judge=typer.Option(None, "--judge", help="Endpoint base URL, e.g. http://127.0.0.1:8000/v1."),
    judge_model=typer.Option(None, "--judge-model", help="Model name the endpoint serves."),
    api_key_env=typer.Option(None, "--api-key-env", help="NAME of the environment variable holding the API key."),
    suite=typer.Option(None, "--suite", "-s", help="Only this suite's videos."),
    models=typer.Option(None, "--models", "-m", help="Only these models (comma-separated)."),
    videos=typer.Option(None, "--videos", help="Videos folder (default <run>/videos)."),
    concurrency=typer.Option(4, help="Requests in flight.", min=1),
    timeout=typer.Option(120.0, help="Seconds per HTTP attempt."),
    deadline=typer.Option(600.0, help="Seconds per call, all retries included."),
    retries=typer.Option(5, help="Retries on 429/5xx/timeouts.", min=0),
    max_tokens=typer.Option(512, help="Reply token limit."),
    redo=typer.Option(False, "--redo", help="Ask again even where the store has an answer (cache still used)."),
    cache=typer.Option(None, "--cache", help="Reply cache folder (default <run>/judge_cache)."),
    pass_threshold=typer.Option(0.9, help="Principia: a measured S at or above this counts as PASS."),
    strict=typer.Option(False, "--strict", help="Exit non-zero when any judge call failed or was unusable "
                                                "(always when every call did)."),
)


def _run_command(run_dir: Optional[Path] = _RUN_OPTS["run_dir"], rubric: Optional[str] = _RUN_OPTS["rubric"],
                 judge: Optional[str] = _RUN_OPTS["judge"], judge_model: Optional[str] = _RUN_OPTS["judge_model"],
                 api_key_env: Optional[str] = _RUN_OPTS["api_key_env"], suite: Optional[str] = _RUN_OPTS["suite"],
                 models: Optional[str] = _RUN_OPTS["models"], videos: Optional[Path] = _RUN_OPTS["videos"],
                 concurrency: int = _RUN_OPTS["concurrency"], timeout: float = _RUN_OPTS["timeout"],
                 deadline: float = _RUN_OPTS["deadline"], retries: int = _RUN_OPTS["retries"],
                 max_tokens: int = _RUN_OPTS["max_tokens"], redo: bool = _RUN_OPTS["redo"],
                 cache: Optional[Path] = _RUN_OPTS["cache"], pass_threshold: float = _RUN_OPTS["pass_threshold"],
                 strict: bool = _RUN_OPTS["strict"]) -> bool:
    """Judge a run folder's videos with one or more rubrics; results land in its store."""
    if run_dir is None and rubric is None and judge is None:
        return False
    missing = [n for n, v in (("--run", run_dir), ("--rubric", rubric), ("--judge", judge),
                              ("--judge-model", judge_model)) if v is None]
    if missing:
        _fail(f"missing {', '.join(missing)}")
    _judge(run_dir, rubric, judge, judge_model, api_key_env, suite, models, videos, concurrency, timeout,
           deadline, retries, max_tokens, redo, cache, pass_threshold, strict)
    return True


@judge_app.callback()
def judge_main(ctx: typer.Context, run_dir: Optional[Path] = _RUN_OPTS["run_dir"],
               rubric: Optional[str] = _RUN_OPTS["rubric"], judge: Optional[str] = _RUN_OPTS["judge"],
               judge_model: Optional[str] = _RUN_OPTS["judge_model"],
               api_key_env: Optional[str] = _RUN_OPTS["api_key_env"], suite: Optional[str] = _RUN_OPTS["suite"],
               models: Optional[str] = _RUN_OPTS["models"], videos: Optional[Path] = _RUN_OPTS["videos"],
               concurrency: int = _RUN_OPTS["concurrency"], timeout: float = _RUN_OPTS["timeout"],
               deadline: float = _RUN_OPTS["deadline"], retries: int = _RUN_OPTS["retries"],
               max_tokens: int = _RUN_OPTS["max_tokens"], redo: bool = _RUN_OPTS["redo"],
               cache: Optional[Path] = _RUN_OPTS["cache"],
               pass_threshold: float = _RUN_OPTS["pass_threshold"], strict: bool = _RUN_OPTS["strict"]) -> None:
    """Judge a run's videos: lawful judge --run DIR --rubric NAME --judge URL --judge-model NAME."""
    if ctx.invoked_subcommand is not None:
        return
    if not _run_command(run_dir, rubric, judge, judge_model, api_key_env, suite, models, videos, concurrency,
                        timeout, deadline, retries, max_tokens, redo, cache, pass_threshold, strict):
        out.print(ctx.get_help())


judge_app.command("run")(_run_command)


@judge_app.command("compare")
def compare_cmd(run_dir: Path = typer.Option(..., "--run", help="Run folder."),
                rubric: str = typer.Option(..., "--rubric", "-r", help="Rubric name."),
                judges: Optional[str] = typer.Option(None, "--judges", help="Two judges (model@endpoint), comma-"
                                                     "separated; default: the two that answered last."),
                csv_out: Optional[Path] = typer.Option(None, "--csv", help="Also write the paired answers here."),
                as_json: bool = typer.Option(False, "--json")) -> None:
    """Two judges of one run side by side: agreement, mean |difference|, Pearson r, Spearman ρ."""
    from lawful.judges.compare import compare, paired_rows, write_csv
    from lawful.judges.judge import STORE_FILE
    from lawful.store import Store

    if not (run_dir / STORE_FILE).exists():
        _fail(f"{run_dir}: no {STORE_FILE}")
    name = Path(rubric).stem if rubric.endswith(".json") else rubric
    with Store(run_dir / STORE_FILE) as store:
        known = store.judges(name)
        pick = [j.strip() for j in judges.split(",")] if judges else known[:2]
        if len(pick) != 2 or any(j not in known for j in pick):
            _fail(f"need two judges of rubric '{name}'; this run has: {', '.join(known) or 'none'}")
        rows = paired_rows(store, name, *pick)
    res = compare(rows)
    if csv_out:
        write_csv(rows, csv_out)
    if as_json:
        sys.stdout.write(json.dumps(_clean({"judge_a": pick[0], "judge_b": pick[1], **res}), indent=2) + "\n")
        return
    t = Table(title=f"{name}: A = {pick[0]}  vs  B = {pick[1]}")
    t.add_column("field")
    t.add_column("value", justify="right")
    for k, v in res.items():
        t.add_row(k, _fmt(v))
    out.print(t)


@judge_app.command("rubrics")
def rubrics() -> None:
    """List the shipped rubrics: name, version, protocol, criteria, call shape."""
    from lawful.judges.rubric import load_rubric, rubric_names

    t = Table(title="rubrics")
    for c in ("name", "version", "protocol", "criteria", "calls", "frames"):
        t.add_column(c)
    for n in rubric_names():
        r = load_rubric(n)
        fr = r.frames
        frames = f"{fr.mode}" + (f" {fr.fps:g} fps" if fr.mode == "video" and fr.fps else "") + \
            (f" ≤{fr.max_frames}" if fr.mode == "video" and fr.max_frames else
             " every frame" if fr.mode == "video" and not fr.fps else "") + \
            (f" +{len(fr.references)} ref" if fr.references else "")
        t.add_row(n, r.version, r.protocol, str(len(r.criteria)),
                  "1 per criterion" if r.call == "per_criterion" else "1 per video", frames)
    out.print(t)


@judge_app.command("plan")
def plan(run_dir: Optional[Path] = typer.Option(None, "--run", help="Estimate for this run folder's videos."),
         rubric: Optional[str] = typer.Option(None, "--rubric", "-r", help="Rubrics (default: all that apply)."),
         suites: str = typer.Option("principia,wmle,applepi,phyground", help="Without --run: default suites."),
         models: int = typer.Option(1, help="Without --run: videos per case (models × rollouts)."),
         as_json: bool = typer.Option(False, "--json")) -> None:
    """What judging would send: calls, images, approximate tokens (nothing is sent)."""
    from lawful.judges.judge import discover
    from lawful.judges.plan import Estimate, estimate_case
    from lawful.judges.rubric import RubricError, load_rubric, rubric_names

    try:
        rubs = [load_rubric(r.strip()) for r in (rubric.split(",") if rubric else rubric_names())]
    except RubricError as e:
        _fail(str(e))
    est = Estimate()
    if run_dir is not None:
        for it in discover(run_dir):
            for r in rubs:
                estimate_case(est, r, it.case)
    else:
        for case, count in default_cases(suites.split(",")):
            for r in rubs:
                estimate_case(est, r, case, videos=count * models)
    data = {"calls": est.calls, "images": est.images, "prompt_tokens": est.prompt_tokens,
            "completion_tokens": est.completion_tokens, "by_rubric": est.by_rubric}
    if as_json:
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return
    t = Table(title="judge plan (approximate tokens)")
    for c in ("rubric", "calls", "images", "prompt tokens", "completion tokens"):
        t.add_column(c, justify="right" if c != "rubric" else "left")
    for n, r in est.by_rubric.items():
        t.add_row(n, str(r["calls"]), str(r["images"]), str(r["prompt_tokens"]), str(r["completion_tokens"]))
    t.add_row("total", str(est.calls), str(est.images), str(est.prompt_tokens), str(est.completion_tokens))
    out.print(t)


def default_cases(suites: list[str]):
    """(case, how many like it) for each default suite's :meth:`~lawful.suites.base.Suite.judge_cases`: one
    built case stands for the suite's ``default_cases_per_task`` cases (PhyGround: every case of its set)."""
    from lawful.suite_registry import get_suite

    for name in (s.strip() for s in suites if s.strip()):
        try:
            suite = get_suite(name)
        except KeyError as e:
            err.print(f"[yellow]skipped:[/yellow] {e.args[0]}")
            continue
        yield from suite.judge_cases()


@judge_app.command("export-sft")
def export_sft_cmd(run_dir: Path = typer.Option(..., "--run", help="Run folder with the videos."),
                   out_dir: Path = typer.Option(..., "--out", "-o", help="Where train.jsonl and images/ go."),
                   labels: Optional[Path] = typer.Option(None, help="Human score table (CSV/JSON: case_id, model, "
                                                                    "criterion, score[, rollout]); default: the "
                                                                    "run's scored judgements."),
                   rubric: str = typer.Option("phyground-general,phyground-law", "--rubric", "-r")) -> None:
    """PhyGround-style fine-tuning records: frames at 4 fps (≤ 12), the evaluation prompt, a JSON target."""
    from lawful.judges.sft import export_sft

    res = export_sft(run_dir, out_dir, labels=labels, rubrics=tuple(r.strip() for r in rubric.split(",")))
    skipped = ", ".join(f"{n} {why}" for why, n in res["skipped"].items()) or "none"
    out.print(f"wrote {res['records']} records from {res['videos']} videos to {res['path']} (skipped: {skipped})")


# ----------------------------------------------------------------------------- judge-agreement
STATS = ("correlation", "bias", "principia", "rank", "pairwise", "pairwise-human")


def judge_agreement(
    stat: str = typer.Argument(..., help=f"One of: {', '.join(STATS)}."),
    table: Path = typer.Argument(..., help="Score table (CSV or JSON). correlation/bias: judge A / the judge."),
    other: Optional[Path] = typer.Argument(None, help="correlation: judge B; bias: the human table."),
    model_col: str = typer.Option("model", help="Model column (correlation)."),
    score_col: str = typer.Option("score", help="Score column (correlation, bias)."),
    subtrack_col: str = typer.Option("subtrack", help="Subtrack column (correlation); '' for none."),
    dimension_col: str = typer.Option("dimension", help="Dimension or domain column (bias)."),
    item_col: Optional[str] = typer.Option(None, help="Pair judge and human rows by this column (bias)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Judge meta-evaluation from score tables.

    \b
    correlation  TABLE_A TABLE_B  Pearson r / Spearman ρ of per-model means, overall and per subtrack
                                   (columns: model, score, subtrack)
    bias         JUDGE HUMAN      PhyGround signed relative bias per dimension and the aggregate
                                   (columns: dimension, score[, item])
    principia    TABLE            A_φ per phenomenon and overall (columns: phenomenon, verdict, truth)
    rank         TABLE            WMLE A_rank, Eq. 10 (columns: task, P, H; empty H = insufficient)
    pairwise     TABLE            WMLE confirmed pairwise agreement, Eq. 11 (columns: votes "A;B;tie;
                                   insufficient", P_a, P_b)
    pairwise-human TABLE          the Human–Human reference for Eq. 11 (column: votes)
    """
    from lawful.judges import agreement as ag

    if stat not in STATS:
        from lawful.choices import unknown

        _fail(unknown(stat, STATS, "statistic"))
    try:
        a = ag.load_table(table)
        b = ag.load_table(other) if other else None
    except (OSError, ValueError, KeyError) as e:
        _fail(f"cannot read table: {e}")
    if stat in ("correlation", "bias") and b is None:
        _fail(f"{stat} needs two tables")
    try:
        if stat == "correlation":
            res = ag.cross_check(a, b, model=model_col, score=score_col, subtrack=subtrack_col or None)
        elif stat == "bias":
            res = ag.relative_bias(a, b, dimension=dimension_col, score=score_col, item=item_col)
        elif stat == "principia":
            res = ag.principia_agreement(a)
        elif stat == "rank":
            res = ag.rank_agreement(a)
        elif stat == "pairwise":
            res = ag.confirmed_pairwise(a)
        else:
            res = ag.pairwise_human_human(a)
    except KeyError as e:
        _fail(f"table lacks column {e}")
    if as_json:
        sys.stdout.write(json.dumps(_clean(res), indent=2) + "\n")
        return
    _print_stat(stat, res)


def _clean(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def _print_stat(stat: str, res) -> None:
    if stat == "correlation":
        t = Table(title="judge cross-check on per-model means")
        for c in ("comparison", "models", "Pearson r", "Spearman ρ"):
            t.add_column(c)
        for r in res:
            t.add_row(r["comparison"], str(r["n_models"]), _fmt(r["pearson"]), _fmt(r["spearman"]))
    elif stat == "bias":
        t = Table(title=f"relative bias vs humans (aggregate {_fmt(res['aggregate'] * 100)} %)")
        for c in ("dimension", "judge mean", "human mean", "signed %"):
            t.add_column(c)
        for d, r in res["per_dimension"].items():
            t.add_row(d, _fmt(r["judge_mean"]), _fmt(r["human_mean"]), _fmt(r["signed"] * 100))
    elif stat == "principia":
        t = Table(title=f"A_φ (overall {_fmt(res['overall'])})")
        for c in ("phenomenon", "A_φ", "scenes", "unanswered"):
            t.add_column(c)
        for p, v in res["per_phenomenon"].items():
            t.add_row(p, _fmt(v), str(res["n"][p]), str(res["n_unanswered"][p]))
    else:
        t = Table(title=stat)
        t.add_column("field")
        t.add_column("value")
        for k, v in res.items():
            t.add_row(k, json.dumps(_clean(v)) if isinstance(v, dict) else _fmt(v))
    out.print(t)
