"""Scoring throughput of the executors, as ratios measured in one run.

    python benchmarks/scaling.py [--suite principia] [--cases-per-task 2] [--workers 1,2]

Renders the suite's reference videos once, then scores the same videos with
- the local process pool (``--executor local``) with 1 and 2 worker processes, and
- a local Ray instance (``--executor ray``) with 1 and 2 CPUs,
each through :func:`lawful.runner.run.execute` (so each result is written to a store, as in a run),
and prints videos/s and the ratios to the local pool with one worker. Each configuration first
scores one video per worker untimed (worker start-up and imports are paid once per worker); Ray's
start-up is timed on its own. On a machine with fewer free cores than workers the ratios say so.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from lawful.generators.base import get_generator
from lawful.runner.executors import Executor, LocalExecutor
from lawful.runner.jobs import Job
from lawful.runner.run import build_cases, execute
from lawful.store import Store, VideoKey
from lawful.suites.base import get_suite


def _videos(suite: str, n: int, root: Path) -> list[Job]:
    """Render the reference video of every case (once); one scoring job per video."""
    cases = build_cases(get_suite(suite), root / "cases", n, progress=False)
    gen, jobs = get_generator("reference"), []
    from lawful.case import load_case

    for cp in cases:
        video = root / "videos" / f"{cp.stem}.mp4"
        case = load_case(cp)
        gen.generate(case, case.first_frame_path(cp), video)
        jobs.append(Job(VideoKey(suite, cp.stem, "reference", 0), str(cp), "reference", str(video)))
    return jobs


def _throughput(ex: Executor, jobs: list[Job], workers: int, root: Path, label: str) -> tuple[float, dict]:
    """Videos per second scoring ``jobs`` on ``ex`` (after one untimed video per worker), and the scores."""
    with Store(root / f"{label}.sqlite") as store:
        execute(jobs[:workers], store, workers, progress=False, executor=ex)  # warm-up
        t0 = time.perf_counter()
        execute(jobs, store, workers, progress=False, executor=ex)
        dt = time.perf_counter() - t0
        scores = {(r["case_id"], r["col"]): (r["status"], r["value"]) for r in store.scores()}
    return len(jobs) / dt, scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="principia")
    ap.add_argument("--cases-per-task", type=int, default=2)
    ap.add_argument("--workers", default="1,2", help="comma-separated worker / CPU counts")
    ap.add_argument("--json", action="store_true", help="also print the numbers as JSON")
    args = ap.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    from lawful.runner.ray_exec import RayExecutor

    res: dict[str, float] = {}
    scores: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        jobs = _videos(args.suite, args.cases_per_task, root)
        print(f"{len(jobs)} {args.suite} reference videos rendered in {time.perf_counter() - t0:.1f} s; "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        for w in counts:
            res[f"local×{w}"], scores[f"local×{w}"] = _throughput(LocalExecutor(w), jobs, w, root, f"local{w}")
            print(f"local pool, {w} worker(s): {res[f'local×{w}']:.3f} videos/s", flush=True)
        for w in counts:
            with RayExecutor(None, w, progress=False) as ex:
                t0 = time.perf_counter()
                ex.connect()
                start = time.perf_counter() - t0
                res[f"ray×{w}"], scores[f"ray×{w}"] = _throughput(ex, jobs, w, root, f"ray{w}")
            print(f"ray, {w} CPU(s): {res[f'ray×{w}']:.3f} videos/s (ray start-up {start:.1f} s, not counted)",
                  flush=True)
    first = next(iter(scores.values()))
    same = all(v == first for v in scores.values())
    n_ok = sum(st == "scored" for st, _ in first.values())
    print(f"same scores in every configuration: {same} ({n_ok}/{len(first)} columns scored)")
    base = res[f"local×{counts[0]}"]
    print(f"\nratios to local×{counts[0]} (videos/s ÷ {base:.3f}):")
    for k, v in res.items():
        print(f"  {k:9s} {v / base:5.2f}")
    for w in counts:
        print(f"  ray×{w} / local×{w}: {res[f'ray×{w}'] / res[f'local×{w}']:.2f}")
    if args.json:
        print(json.dumps({"videos": len(jobs), "videos_per_s": res}))


if __name__ == "__main__":
    main()
