"""Jobs on a Ray cluster (``lawful run --executor ray``).

- Scoring is a CPU task per video (``run_job``: it also renders the video when the model's
  generator needs no GPU, as the local pool does), or per batch of jobs that share one (Apple-π: the
  jobs of one case, so its ground truth is read once), as on the local pool.
- A generator that declares ``resources`` (e.g. ``{"GPU": 1}``) generates in actors that keep it,
  and the pipeline it loads, for all of that model's videos; each video written is then scored by a
  CPU task. One actor per ``GPU / gpus-per-generation`` of the cluster; a model's actors are
  stopped once its videos are written, which frees the GPUs for the next model.
- At most twice the cluster's CPUs scoring tasks are in flight (``ray.wait``); results stream back
  to the driver, which alone writes the run folder's store. A killed driver loses only the jobs in
  flight, which the next run does (finished work is never redone).
- Workers read cases and write videos at the driver's absolute paths: on several machines the run
  folder must be on a file system every node mounts at the same path.

A job whose Ray task dies (a worker crash, out of memory, after Ray's retries) is not stored: it is
counted, named in a warning and done again by the next run.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import replace
from pathlib import Path

from lawful.generators.base import Generator, get_generator
from lawful.progress import console
from lawful.runner.jobs import (Executor, ExecutorError, Job, Outcome, Record, batches, generate_job, run_batch,
                                run_job)

_worker_ready = False


def _in_worker(job: Job) -> str | None:
    """Per-worker set-up (OpenCV on one thread: Ray gives a task one CPU); why the job cannot run here."""
    global _worker_ready
    if not _worker_ready:
        import cv2

        cv2.setNumThreads(1)
        _worker_ready = True
    folder = Path(job.case_path).parent
    if folder.is_dir():
        return None
    import socket

    return (f"the run folder is not visible on Ray node {socket.gethostname()} ({folder} is missing): "
            "put it on a file system that every node mounts at the same path")


def _score(job: Job) -> Outcome | str:
    """CPU task: generate if needed and evaluate one video (a str: the run folder is not visible here)."""
    return _in_worker(job) or run_job(job)


def _score_batch(jobs: list[Job]) -> list[Outcome] | str:
    """CPU task: :func:`_score` for jobs that share a batch (Apple-π: one case), in one worker."""
    return _in_worker(jobs[0]) or run_batch(jobs)


class _Generation:
    """Actor: one generator kept loaded for many videos of one model."""

    def __init__(self, gen: Generator):
        self.gen = gen

    def generate(self, job: Job) -> Path | Outcome | str:
        return _in_worker(job) or generate_job(job, self.gen)


def _absolute(job: Job, video: str | None = None) -> Job:
    return replace(job, case_path=str(Path(job.case_path).absolute()), video=str(Path(video or job.video).absolute()))


def _one_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[-1][:200]


def _check_reachable(address: str | None) -> None:
    """A ``HOST:PORT`` that refuses connections fails at once (Ray itself retries for minutes)."""
    import socket

    host, _, port = (address or "").removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # None, "auto", "local": Ray finds (or starts) the instance itself
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as e:
        raise ExecutorError(f"cannot reach the Ray cluster at {address}: {e.strerror or e} "
                            "(is `ray start --head` running there?)") from None


class RayExecutor(Executor):
    """Runs jobs on the Ray cluster at ``address`` (None: a local instance with ``workers`` CPUs)."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int = 1, gpus_per_generation: float | None = None,
                 progress: bool = True):
        self.address, self.workers, self.gpus = address, workers, gpus_per_generation
        self.progress = progress
        self._started = False

    def connect(self):
        """The ray module, connected (a local instance is started on first use, stopped by close())."""
        _check_reachable(self.address)
        import ray

        if ray.is_initialized():
            return ray
        kw = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}
        try:
            if self.address:
                ray.init(address=self.address, **kw)
            else:
                ray.init(num_cpus=max(1, self.workers), **kw)
        except Exception as e:
            where = f"the Ray cluster at {self.address}" if self.address else "a local Ray instance"
            raise ExecutorError(f"cannot start or reach {where}: {_one_line(e)}") from None
        self._started = True
        if self.progress:
            res = ray.cluster_resources()
            console.print(f"[dim]ray: {len(ray.nodes())} node(s), {res.get('CPU', 0):g} CPUs, "
                          f"{res.get('GPU', 0):g} GPUs[/dim]")
        return ray

    def close(self) -> None:
        if self._started:
            import ray

            ray.shutdown()
            self._started = False

    def _actors(self, ray, model: str, gen: Generator, n_jobs: int) -> list:
        """Actors for ``model``'s generator, as many as the cluster's GPUs allow (at most one per job)."""
        need = dict(gen.resources)
        gpus = need.pop("GPU", 0) if self.gpus is None else self.gpus
        need.pop("GPU", None)
        cpus = need.pop("CPU", 1)
        have = ray.cluster_resources()
        for res, amount in [("GPU", gpus), ("CPU", cpus), *need.items()]:
            if amount and have.get(res, 0) < amount:
                hint = " (--gpus-per-generation 0 generates on CPU)" if res == "GPU" else ""
                raise ExecutorError(f"model {model} needs {amount:g} {res} per generation; the Ray cluster has "
                                    f"{have.get(res, 0):g}{hint}")
        n = max(1, int(have.get("GPU", 0) // gpus)) if gpus else 1
        actor = ray.remote(_Generation).options(num_cpus=cpus, num_gpus=gpus, resources=need or None,
                                                max_restarts=1, max_task_retries=1)
        return [actor.remote(gen) for _ in range(min(n, n_jobs))]

    def run(self, jobs: list[Job], record: Record) -> None:
        if not jobs:
            return
        ray = self.connect()
        score = ray.remote(num_cpus=1, max_retries=2)(_score_batch)
        limit = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
        gens: dict[str, Generator] = {}
        ready: list[Job] = []
        to_make: dict[str, deque[Job]] = {}
        for job in jobs:
            if job.model not in gens:
                gens[job.model] = get_generator(job.model)
            gen = gens[job.model]
            if gen.resources and not Path(job.video).exists():
                to_make.setdefault(job.model, deque()).append(job)
            else:
                ready.append(job)
        # units a CPU task scores: one job, or the jobs of one batch; (jobs as sent, jobs as planned)
        to_score: deque[tuple[list[Job], list[Job]]] = deque(([_absolute(j) for j in u], u) for u in batches(ready))
        pending: dict = {}  # ref -> (job, actor or None)
        idle: dict[str, list] = {}
        busy: dict[str, int] = {}
        lost: list[str] = []
        scoring = 0
        try:
            while True:
                while to_score and scoring < limit:
                    sent, unit = to_score.popleft()
                    pending[score.remote(sent)] = (unit, None)
                    scoring += 1
                for model, queue in to_make.items():
                    if queue and model not in idle:
                        idle[model], busy[model] = self._actors(ray, model, gens[model], len(queue)), 0
                    while queue and idle.get(model):
                        actor, job = idle[model].pop(), queue.popleft()
                        pending[actor.generate.remote(_absolute(job))] = (job, actor)
                        busy[model] += 1
                if not pending:
                    break
                done, _ = ray.wait(list(pending), num_returns=1)
                ref = done[0]
                got, actor = pending.pop(ref)
                unit = got if actor is None else [got]
                try:
                    res = ray.get(ref)
                except ray.exceptions.RayError as e:
                    res = None
                    lost.extend(f"{j.key.case_id} {j.key.model} #{j.key.rollout}: {_one_line(e)}" for j in unit)
                if isinstance(res, str):
                    raise ExecutorError(res)
                if actor is None:
                    scoring -= 1
                    for job, outcome in zip(unit, res or []):
                        record(job, outcome[1], outcome[2])
                    continue
                job = got
                idle[job.model].append(actor)
                busy[job.model] -= 1
                if isinstance(res, tuple):
                    record(job, res[1], res[2])
                elif res is not None:  # written: score it next (videos stream out as they are made)
                    to_score.appendleft(([_absolute(job, str(res))], [job]))
                if not to_make[job.model] and not busy[job.model]:
                    for a in idle[job.model]:  # this model is done: free its GPUs for the next one
                        ray.kill(a)
                    idle[job.model] = []
        finally:
            for ref, (_, actor) in pending.items():
                if actor is None:
                    ray.cancel(ref)  # a driver that exits takes its tasks with it
            for actors in idle.values():
                for a in actors:
                    ray.kill(a)
            for _, actor in pending.values():
                if actor is not None:
                    ray.kill(actor)
        if lost:
            console.print(f"[yellow]warning:[/yellow] {len(lost)} job(s) failed on Ray and were not stored "
                          f"(first: {lost[0]}); run the same command again to retry them")
