"""One job: generate (if its video is missing) and evaluate one (suite, case, model, rollout).

Executors (:class:`Executor` here; the local pool and Ray in :mod:`lawful.runner.executors` and
:mod:`lawful.runner.ray_exec`) run these functions wherever they run work: inline, in a
local process pool, or on a Ray cluster. None of them raises: every failure becomes an ``invalid``
outcome with a one-line reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from lawful.case import Case, load_case
from lawful.generators.base import GenerationError, Generator, get_generator
from lawful.job import Evaluation, Job
from lawful.result import Score
from lawful.runner.evaluate import _all, _crashed, evaluate_video, task_for
from lawful.suites.base import Task, get_suite


Outcome = tuple[Job, str, Evaluation]  # (job, task name, evaluation)


def _load(job: Job) -> tuple[Case, Task] | Outcome:
    """The job's case and task, or the ``invalid`` outcome saying why there is none."""
    try:
        case = load_case(job.case_path)
        return case, task_for(case)
    except Exception as e:  # malformed case or unknown task: record, do not crash the run
        reason = f"{Path(job.case_path).name}: {e.args[0] if isinstance(e, KeyError) else e}"
        task = _named_task(job.case_path, job.key.suite)
        if task is None:
            return job, "?", Evaluation("invalid", {"?": Score.invalid(reason)}, reason)
        return job, task.name, Evaluation("invalid", _all(task, "invalid", reason), reason)


def _named_task(case_path: str, suite: str):
    """The task a case file names (so a broken case counts 0 in that task's columns), None if it names none."""
    try:
        name = json.loads(Path(case_path).read_text()).get("task")
        return get_suite(suite).task(name) if isinstance(name, str) else None
    except Exception:
        return None


def _generate(job: Job, case: Case, task: Task, gen: Generator | None) -> Path | Outcome:
    """Write the job's video; the path written, or the ``invalid`` outcome of a failed generation."""
    gen = gen or get_generator(job.model)
    try:
        return Path(gen.generate(case, case.first_frame_path(job.case_path), Path(job.video), job.key.rollout,
                                 seed=job.seed))
    except GenerationError as e:
        return job, task.name, Evaluation("invalid", _all(task, "invalid", str(e)), str(e))
    except Exception as e:
        reason = f"generator {job.model} failed: {type(e).__name__}: {e}"
        return job, task.name, Evaluation("invalid", _all(task, "invalid", reason), reason)


def generate_job(job: Job, gen: Generator | None = None) -> Path | Outcome:
    """Only the generation half (a GPU worker's share): the video's path, or the failure's outcome."""
    loaded = _load(job)
    if len(loaded) == 3:
        return loaded
    video = Path(job.video)
    return video if video.exists() else _generate(job, *loaded, gen)


def run_job(job: Job, gen: Generator | None = None) -> Outcome:
    """Generate (if needed) and evaluate one video (or a suite's own answers: :attr:`Suite.answers`). Never raises."""
    loaded = _load(job)
    if len(loaded) == 3:
        return loaded
    case, task = loaded
    answers = get_suite(job.key.suite).answers
    if answers is not None:
        try:
            return job, task.name, answers.evaluate(job, case, task)
        except Exception as e:  # a bug in one case's scoring must not stop the run
            return job, task.name, _crashed("evaluation", task, e)
    video = Path(job.video)
    if not video.exists():
        made = _generate(job, case, task, gen)
        if isinstance(made, tuple):
            return made
        video = made
    return job, task.name, evaluate_video(case, video, task)


def run_batch(jobs: list[Job]) -> list[Outcome]:
    """:func:`run_job` for each of ``jobs`` in turn, in one worker (a batch shares its case's data)."""
    return [run_job(job) for job in jobs]


def batches(jobs: list[Job]) -> list[list[Job]]:
    """``jobs`` in the units a worker runs: one job alone, or every job of one :attr:`Job.batch` together
    (in first-seen order)."""
    out: list[list[Job]] = []
    where: dict[str, list[Job]] = {}
    for job in jobs:
        if not job.batch:
            out.append([job])
        elif job.batch in where:
            where[job.batch].append(job)
        else:
            where[job.batch] = [job]
            out.append(where[job.batch])
    return out


Record = Callable[[Job, str, Evaluation], None]


class ExecutorError(RuntimeError):
    """An executor cannot run (missing package, unreachable cluster, ...): one line for the user."""


class Executor:
    """Runs jobs, calling ``record`` in this process for each finished one."""

    name = ""

    def run(self, jobs: list[Job], record: Record) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
