"""``lawful run --executor ray`` on a local Ray instance: same leaderboard as the local pool, resume, GPU actors."""

import importlib.util
import json
import logging
import os
import sqlite3
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lawful.cli import app
from lawful.generators.base import register_generator
from lawful.generators.builtin import Render
from lawful.runner.executors import ExecutorError
from lawful.runner.jobs import Job
from lawful.runner.ray_exec import RayExecutor, _score
from lawful.runner.run import RunConfig, run
from lawful.store import Store, VideoKey

TASKS = ["drop", "pendulum"]  # 1 case each × reference, counterfactual, static: 6 videos
RUN = dict(cases_per_task=1, tasks=TASKS, progress=False)


@pytest.fixture(scope="module")
def ray():
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def local_board(tmp_path_factory):
    return run(RunConfig(["principia"], out=tmp_path_factory.mktemp("local"), workers=1, **RUN))["principia"]


def _scores(out: Path) -> dict:
    with sqlite3.connect(out / "results.sqlite") as db:
        return {r[:3]: r[3:] for r in db.execute("SELECT case_id, model, col, status, value FROM scores")}


def test_ray_run_gives_the_local_leaderboard(ray, local_board, tmp_path):
    out = tmp_path / "ray"
    res = CliRunner().invoke(app, ["run", "--executor", "ray", "-n", "1", "--tasks", ",".join(TASKS),
                                   "-o", str(out), "-q"])
    assert res.exit_code == 0, res.output
    board = json.loads((out / "leaderboard.json").read_text())["principia"]
    assert board == local_board  # every number: per-task means, stds, counts, overall
    assert set(board["models"]) == {"reference", "counterfactual", "static"}
    assert board["models"]["reference"]["scored"] == 2
    assert board["models"]["reference"]["overall"] >= 0.95 and board["models"]["static"]["overall"] == 0
    assert len(_scores(out)) >= 6 and len(list((out / "videos").rglob("*.mp4"))) == 6


def test_interrupted_driver_resumes_without_redoing_work(ray, local_board, tmp_path, monkeypatch):
    out = tmp_path / "ray"
    puts = []
    put = Store.put

    def interrupt_after_two(self, *a, **k):
        if len(puts) == 2:
            raise KeyboardInterrupt  # the driver stops with jobs still in flight on Ray
        puts.append(a[0])
        return put(self, *a, **k)

    monkeypatch.setattr(Store, "put", interrupt_after_two)
    with pytest.raises(KeyboardInterrupt):
        run(RunConfig(["principia"], out=out, executor="ray", **RUN))
    with sqlite3.connect(out / "results.sqlite") as db:
        first = set(db.execute("SELECT case_id, model, created FROM videos"))
    assert len(first) == 2
    kept = {p: p.stat().st_mtime_ns for p in (out / "videos").rglob("*.mp4")}

    puts.clear()
    monkeypatch.setattr(Store, "put", lambda self, *a, **k: puts.append(a[0]) or put(self, *a, **k))
    board = run(RunConfig(["principia"], out=out, executor="ray", **RUN))["principia"]
    assert len(puts) == 4 and not {(k.case_id, k.model) for k in puts} & {r[:2] for r in first}  # none redone
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = set(db.execute("SELECT case_id, model, created FROM videos"))
    assert first <= rows and len(rows) == 6  # finished work kept as it was
    stored_first = {(r[0], r[1]) for r in first}
    for p, mtime in kept.items():  # a video whose result was stored was not made again
        if (p.name.split("__")[0], p.parent.name) in stored_first:
            assert p.stat().st_mtime_ns == mtime
    assert board == local_board


class _GpuReference(Render):
    """The reference render, declared as needing a GPU; notes which process made each video, and its call count."""

    resources = {"GPU": 1}
    deterministic = False

    def __init__(self):
        super().__init__("gpuref", "true")
        self.calls = 0

    def generate(self, case, first_frame, out, rollout=0, seed=None):
        self.calls += 1
        written = super().generate(case, first_frame, out, rollout, seed)
        Path(f"{out}.who").write_text(f"{os.getpid()} {self.calls}")
        return written


def test_gpu_generator_runs_in_one_kept_actor(ray, tmp_path):
    register_generator("gpuref")(lambda arg="": _GpuReference())
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the actor gets this test's class
    cfg = dict(cases_per_task=1, tasks=["drop"], rollouts=3, progress=False)
    with pytest.raises(ExecutorError, match="needs 1 GPU per generation; the Ray cluster has 0"):
        run(RunConfig(["principia"], ["gpuref"], tmp_path, executor="ray", **cfg))
    board = run(RunConfig(["principia"], ["gpuref"], tmp_path, executor="ray", gpus_per_generation=0, **cfg))
    who = [(tmp_path / "videos" / "gpuref" / f"drop-000__{k}.mp4.who").read_text().split() for k in range(3)]
    assert len({pid for pid, _ in who}) == 1 and int(who[0][0]) != os.getpid()  # one actor, not the driver
    assert sorted(int(n) for _, n in who) == [1, 2, 3]  # the same generator object made all three
    ref = board["principia"]["models"]["gpuref"]
    assert ref["videos"] == 3 and ref["scored"] == 3 and ref["tasks"]["restitution"] >= 0.95


def test_executor_options_fail_in_one_line(tmp_path, monkeypatch):
    runner = CliRunner()
    res = runner.invoke(app, ["run", "--address", "auto", "-o", str(tmp_path), "-q"])
    assert res.exit_code == 2 and "need --executor ray" in res.output
    res = runner.invoke(app, ["run", "--executor", "dask", "-o", str(tmp_path), "-q"])
    assert res.exit_code == 2 and "unknown executor 'dask'" in res.output
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    res = runner.invoke(app, ["run", "--executor", "ray", "-o", str(tmp_path), "-q"])
    assert res.exit_code == 2 and "pip install 'lawful[ray]'" in res.output
    assert not (tmp_path / "results.sqlite").exists()  # failed before any work


def test_an_unreachable_cluster_fails_at_once():
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ExecutorError, match=f"cannot reach the Ray cluster at 127.0.0.1:{port}: Connection refused"):
        RayExecutor(f"127.0.0.1:{port}").connect()


class _Crashing(_GpuReference):
    """Kills the process it runs in (a lost worker, as an out-of-memory kill would)."""

    def generate(self, case, first_frame, out, rollout=0, seed=None):
        os._exit(1)


def test_a_job_lost_on_ray_is_counted_not_stored(ray, tmp_path, capsys):
    register_generator("crashing")(lambda arg="": _Crashing())
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    run(RunConfig(["principia"], ["crashing"], tmp_path, executor="ray", gpus_per_generation=0,
                  cases_per_task=1, tasks=["drop"], progress=False))
    assert "1 job(s) failed on Ray and were not stored" in capsys.readouterr().err
    with Store(tmp_path / "results.sqlite") as store:
        assert store.videos() == []  # not a result: the next run tries again


def test_a_worker_that_cannot_see_the_run_folder_says_so(tmp_path):
    job = Job(VideoKey("principia", "drop-000", "reference", 0), str(tmp_path / "elsewhere" / "drop-000.json"),
              "reference", str(tmp_path / "v.mp4"))
    why = _score(job)
    assert isinstance(why, str) and "run folder is not visible on Ray node" in why and "elsewhere" in why


def test_local_pool_makes_gpu_videos_in_one_process(tmp_path):
    """With the local pool, a GPU-declaring generator's videos are made in this process (one loaded model),
    not by each pool worker; their scoring is unchanged."""
    register_generator("gpuref")(lambda arg="": _GpuReference())
    board = run(RunConfig(["principia"], ["gpuref", "static"], tmp_path, cases_per_task=1, tasks=["drop"], rollouts=3,
                          workers=2, progress=False))
    who = [(tmp_path / "videos" / "gpuref" / f"drop-000__{k}.mp4.who").read_text().split() for k in range(3)]
    assert {int(pid) for pid, _ in who} == {os.getpid()}
    ref = board["principia"]["models"]["gpuref"]
    assert ref["videos"] == 3 and ref["scored"] == 3 and ref["tasks"]["restitution"] >= 0.95


def test_apple_pi_runs_on_ray_like_on_the_local_pool(ray, tmp_path):
    """Apple-π's tasks are jobs of the common runner, so Ray runs them too (one task per rollout) and stores
    the same rows as the local pool (which batches a case's jobs in one worker)."""
    small = {"width": 320, "height": 192, "duration": 1.5}
    kw = dict(cases_per_task=1, tasks=["FreeFall", "AtRest"], progress=False, report=False, options=small)
    boards = {ex: run(RunConfig(["applepi"], ["reference", "static"], tmp_path / ex, workers=2, executor=ex, **kw))
              for ex in ("local", "ray")}
    assert boards["ray"] == boards["local"]
    assert boards["ray"]["applepi"]["models"]["reference"]["videos"] == 2 * 3 * 5  # cases x rollouts x subtracks
    local, remote = _scores(tmp_path / "local"), _scores(tmp_path / "ray")
    assert len(remote) > 100 and remote == local
