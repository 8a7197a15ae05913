"""One unit of a run and what it gives: a :class:`Job` (suite, case, model, rollout) and its :class:`Evaluation`.

Below the runner and the suites, so a suite that makes and scores its own kind of output (Apple-π's five
answers per case, :attr:`lawful.suites.base.Suite.answers`) plans and evaluates jobs without importing the runner.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lawful.result import Score
from lawful.store import VideoKey


@dataclass(frozen=True)
class Job:
    key: VideoKey
    case_path: str
    model: str
    video: str  # where the model's output is (or will be written): a video, or a suite's answers folder
    seed: int = 0  # the generator's seed for this rollout
    batch: str = ""  # jobs with the same non-empty batch run together in one worker (they share a case's data)
    options: tuple = ()  # (name, value) pairs of the run's suite options the job needs (Apple-π: ocr, motion masks)


@dataclass
class Evaluation:
    """The outcome for one video: overall status, per-column scores and the evidence behind them."""

    status: str
    scores: dict[str, Score]
    reason: str = ""
    evidence: dict = field(default_factory=dict)
    fingerprint: str | None = None  # identity of what was scored, when it is not the job's one file
    path: str | None = None  # the stored row's file, when it is not the job's video ('': none, e.g. Apple-π's five)


def overall(scores: dict[str, Score]) -> tuple[str, str]:
    """A video's status (best of its columns') and the reasons of its unscored columns."""
    statuses = {s.status for s in scores.values()}
    status = "scored" if "scored" in statuses else ("unmeasurable" if "unmeasurable" in statuses else "invalid")
    return status, "; ".join(sorted({s.reason for s in scores.values() if s.reason and s.status != "scored"}))
