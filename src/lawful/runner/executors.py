"""Where jobs run: this machine's process pool (the default) or a Ray cluster.

An executor runs a list of :class:`~lawful.runner.jobs.Job` and calls ``record(job, task, evaluation)``
in the calling process as each finishes, so the run folder's store has one writer whatever runs
the work. It is a context manager: what it starts (a Ray instance, actors) it stops on exit.
"""

from __future__ import annotations

import importlib.util
from concurrent.futures import FIRST_COMPLETED, Future, wait

from lawful.runner.jobs import (Executor, ExecutorError, Job, Record, batches, run_batch,  # noqa: F401  (Executor*: API)
                                run_job)
from lawful.runner.pool import process_pool

EXECUTORS = ("local", "ray")


class LocalExecutor(Executor):
    """A bounded process pool on this machine (inline for one worker or one job)."""

    name = "local"

    def __init__(self, workers: int):
        self.workers = workers

    def run(self, jobs: list[Job], record: Record) -> None:
        gpu, jobs = _split_gpu(jobs)
        for job in gpu:  # one process holds the GPU model: pool workers would each load their own copy
            record(*run_job(job))
        units = batches(jobs)
        if self.workers <= 1 or len(units) <= 1:
            for unit in units:
                for outcome in run_batch(unit):
                    record(*outcome)
            return
        with process_pool(self.workers) as pool:
            pending: set[Future] = set()
            it = iter(units)
            for unit in it:  # keep a bounded number of batches in flight
                pending.add(pool.submit(run_batch, unit))
                if len(pending) >= 2 * self.workers:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    for outcome in f.result():
                        record(*outcome)
                    nxt = next(it, None)
                    if nxt is not None:
                        pending.add(pool.submit(run_batch, nxt))


def _split_gpu(jobs: list[Job]) -> tuple[list[Job], list[Job]]:
    """``(jobs whose video a GPU-declaring generator must still make, the others)``."""
    from pathlib import Path

    from lawful.generators.base import get_generator

    needs: dict[str, bool] = {}
    gpu, rest = [], []
    for job in jobs:
        if job.model not in needs:
            try:
                needs[job.model] = "GPU" in get_generator(job.model).resources
            except Exception:  # an unknown model fails in its own job, with its reason
                needs[job.model] = False
        (gpu if needs[job.model] and not Path(job.video).exists() else rest).append(job)
    return gpu, rest


RAY_MISSING = "--executor ray needs Ray: pip install 'lawful[ray]'"


def make_executor(name: str = "local", workers: int = 1, address: str | None = None,
                  gpus_per_generation: float | None = None, progress: bool = True) -> Executor:
    """``local``: a pool of ``workers`` processes. ``ray``: a Ray cluster at ``address`` (``auto``: the one
    this machine belongs to; None: a local instance with ``workers`` CPUs, started on first use)."""
    if name == "local":
        if address is not None or gpus_per_generation is not None:
            raise ExecutorError("--address and --gpus-per-generation need --executor ray")
        return LocalExecutor(workers)
    if name == "ray":
        if importlib.util.find_spec("ray") is None:
            raise ExecutorError(RAY_MISSING)
        if gpus_per_generation is not None and gpus_per_generation < 0:
            raise ExecutorError(f"--gpus-per-generation must be ≥ 0 (got {gpus_per_generation})")
        from lawful.runner.ray_exec import RayExecutor

        return RayExecutor(address, workers, gpus_per_generation, progress)
    raise ExecutorError(f"unknown executor {name!r}: choose one of {', '.join(EXECUTORS)}")
