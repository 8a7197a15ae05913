"""Commands about suites themselves: ``lawful suite list|export``, ``lawful validate`` and ``lawful schema``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from lawful.cli_common import PROMPTS_HELP, fail, out, use_prompts
from lawful.cli_common import check_suites as _check_suites
from lawful.cli_common import split_list as _split

suite_app = typer.Typer(no_args_is_help=True, help="List suites and export their cases.")


@suite_app.command("list")
def suite_list() -> None:
    """List suites and their tasks."""
    from lawful.suites.base import get_suite, suite_names

    for name in suite_names():
        s = get_suite(name)
        names = s.task_names()
        out.print(f"[bold]{name}[/bold] ({len(names)} task{'s' if len(names) != 1 else ''}): {', '.join(names)}")


@suite_app.command("export")
def suite_export(
    ctx: typer.Context,
    suite: str = typer.Option("principia", "--suite", "-s"),
    out_dir: Path = typer.Option(..., "--out", "-o", help="Folder to write cases into."),
    cases_per_task: Optional[int] = typer.Option(None, "--cases-per-task", "-n", min=1),
    seed: int = typer.Option(0),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
    prompts: Optional[Path] = typer.Option(None, "--prompts", help=PROMPTS_HELP),
) -> None:
    """Write each case's first frame (PNG), prompt (TXT) and case file (JSON) for generation elsewhere."""
    from lawful.case import load_case
    from lawful.runner.run import build_cases
    from lawful.suites.base import get_suite

    _check_suites([suite])
    if suite == "phyground":
        use_prompts(prompts, ctx)
    s = get_suite(suite)
    if s.export is not None:  # the suite's own layout (Apple-π: the release's prompt files)
        res = s.export(out_dir, cases_per_task=cases_per_task, seed=seed)
        out.print(f"wrote {res['cases']} {suite} cases to {out_dir} ({len(res['files'])} prompt files)")
        return
    paths = build_cases(s, out_dir, cases_per_task, seed, progress=not quiet)
    for p in paths:
        p.with_suffix(".txt").write_text(load_case(p).prompt + "\n")
    out.print(f"wrote {len(paths)} {suite} cases to {out_dir} (<case_id>.png, .txt, .json); "
              f"name videos <case_id>.mp4 or <case_id>__<k>.mp4")


def validate(
    suite: str = typer.Option("wmle", "--suite", "-s", help="principia, wmle or recordings."),
    style: str = typer.Option("flat", "--style", help="Render style: flat (lawful's own 2-D renderer) or studio "
                              "(MuJoCo 3-D scenes; needs the studio extra)."),
    variants: int = typer.Option(12, help="Scenes per task (seeds FIRST_SEED, FIRST_SEED + 1, ...).", min=1),
    first_seed: int = typer.Option(1000, "--first-seed", help="Seed of the first scene of each task; lawful's own "
                                   "figures use 1000 on, so other seeds are scenes nobody tuned the evaluator on.",
                                   min=0),
    tasks: Optional[str] = typer.Option(None, help="Comma-separated subset of tasks (names or labels such as P3)."),
    perturb: Optional[str] = typer.Option(None, help="Comma-separated perturbations of the law-correct clips: "
                                          "pan10, pan5, zoom10, noise, crf35, blur (defocus), hue10, flicker8 (exposure "
                                          "drifting and flickering by up to 8 %), ghost3, reencode (the "
                                          "control: the clip's frames as they are, written losslessly as every "
                                          "perturbed copy is); time broken, to be caught: freeze50 (second half "
                                          "frozen), swap2 (neighbouring frames swapped), shuffle. Join "
                                          "non-temporal ones with + to apply them in turn (noise+crf35)."),
    robustness: bool = typer.Option(False, help="Apply pan10, zoom10, noise, crf35, blur and reencode."),
    workers: int = typer.Option(0),
    cache: Optional[Path] = typer.Option(None, help="Keep rendered clips here and reuse them while the drawing "
                                         "code is unchanged (re-scoring after a perception change then skips rendering)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Render law-correct clips and their anti-physics twins, score them, print law/anti means, AUC, unmeasurable share."""
    from lawful.runner.validate import ROBUSTNESS, check_perturbation, validation_table
    from lawful.runner.validate import validate as run_validation
    from lawful.choices import unknown
    from lawful.world.styles import STYLES

    _check_suites([suite])
    if suite not in ("principia", "wmle", "recordings"):
        fail("validate is defined for --suite principia, wmle and recordings")
    if style not in STYLES:
        fail(unknown(style, STYLES, "render style"))
    kinds = list(ROBUSTNESS) if robustness else []
    for k in _split(perturb or ""):
        try:
            check_perturbation(k)
        except KeyError as e:
            fail(str(e.args[0]))
        if k not in kinds:
            kinds.append(k)
    try:
        result = run_validation(suite, style, n_variants=variants, tasks=_split(tasks) if tasks else None,
                                perturbations=kinds, workers=workers or None, cache=cache, first_seed=first_seed)
    except (KeyError, RuntimeError) as e:
        fail(str(e.args[0]) if e.args else str(e))
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        out.print(validation_table(result))


def schema(suite: Optional[str] = typer.Option(None, "--suite", "-s", help="Instead: what each task of this "
                                               "suite needs in a case (object ids, known keys, events), as JSON.")) -> None:
    """Print the JSON Schema of case files (or, with --suite, each task's required objects and parameters)."""
    from lawful.case import case_schema

    if suite is not None:
        from lawful.suites.base import get_suite
        from lawful.suites.requirements import task_requirements

        _check_suites([suite])
        if get_suite(suite).answers is not None:
            fail(f"suite '{suite}' reads its cases from a dataset in its release layout; see docs/case-format.md")
        sys.stdout.write(json.dumps(task_requirements(suite), indent=2) + "\n")
        return
    sys.stdout.write(json.dumps(case_schema(), indent=2) + "\n")


def register(app: typer.Typer) -> None:
    """Add ``suite`` (list, export), ``validate`` and ``schema`` to ``app``."""
    app.add_typer(suite_app, name="suite")
    app.command()(validate)
    app.command()(schema)
