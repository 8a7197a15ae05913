"""One-line messages for a name that is not among its choices (a suite, task, model, style, rubric…)."""

from __future__ import annotations

import difflib


def unknown(name: str, choices, what: str) -> str:
    """One-line 'unknown X' message with a did-you-mean."""
    close = difflib.get_close_matches(name, list(choices), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"unknown {what} '{name}'{hint} (choices: {', '.join(sorted(choices))})"
