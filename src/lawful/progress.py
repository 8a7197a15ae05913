"""Progress bars for long work (rich), silent when disabled or not on a terminal."""

from __future__ import annotations

from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

console = Console(stderr=True)


class _Silent:
    def add_task(self, *a, **k):
        return 0

    def advance(self, *a, **k):
        pass

    def update(self, *a, **k):
        pass


@contextmanager
def progress_bar(enabled: bool = True):
    """A rich Progress (or a do-nothing stand-in) with add_task / advance / update."""
    if not enabled:
        yield _Silent()
        return
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TimeRemainingColumn(), console=console, transient=False,
    ) as p:
        yield p
