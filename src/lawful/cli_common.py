"""What every ``lawful`` command module shares: the consoles, the one-line failure, list and suite checks."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

out = Console(width=None if sys.stdout.isatty() else 200)  # full tables when piped to a file
err = Console(stderr=True, soft_wrap=True)


def fail(msg: str, code: int = 2) -> None:
    """Print ``error: msg`` on stderr and exit with ``code``."""
    err.print(f"[red]error:[/red] {msg}")
    raise typer.Exit(code)


def split_list(s: str) -> list[str]:
    """A comma-separated option as a list (blanks dropped)."""
    return [x.strip() for x in s.split(",") if x.strip()]


def check_suites(names: list[str]) -> None:
    """Fail with a did-you-mean for any name that is not a suite."""
    from lawful.suites.base import suite_names, unknown

    known = suite_names()
    for n in names:
        if n not in known:
            fail(unknown(n, known, "suite"))


PROMPTS_HELP = ("PhyGround: a published prompt set (JSON, JSONL or CSV; docs/phyground.md) instead of the built-in "
                "cases (default: the file named by $LAWFUL_PHYGROUND_PROMPTS, else the built-in cases).")


def use_prompts(prompts, ctx) -> None:
    """PhyGround's prompt set for this command: ``--prompts`` (else $LAWFUL_PHYGROUND_PROMPTS, else the built-in
    cases), checked now so that a bad file is one line, not a traceback. The suite reads it from the environment
    (worker processes inherit it); the variable is restored when the command's context ``ctx`` (the
    ``typer.Context`` it was called with: typer keeps its own context stack, which ``click`` does not see) closes."""
    import os

    from lawful.suites.phyground.prompts import ENV, PromptSetError, case_specs

    if prompts is not None:
        before = os.environ.get(ENV)
        os.environ[ENV] = str(prompts)
        ctx.call_on_close(lambda: os.environ.pop(ENV) if before is None else os.environ.update({ENV: before}))
    try:
        case_specs(warn=True)
    except PromptSetError as e:
        fail(str(e))
