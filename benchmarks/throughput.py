"""Throughput and memory of evaluation, as ratios measured in one run.

    python benchmarks/throughput.py [--suite principia] [--cases-per-task 1]

Prints, for the same set of reference videos:
- decode-only time (every frame decoded, nothing else) and full evaluation time
  (probe + track + measure + score), and their ratio (target ≤ 2), for the suite's own
  640×360 renders and for one 1280×720, 240-frame clip (the generators' usual size);
- peak RSS of a fresh process evaluating one 1280×720, 240-frame video (target ≤ 1 GB).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2

from lawful.case import load_case
from lawful.generators.base import get_generator
from lawful.runner.evaluate import evaluate_video, task_for
from lawful.runner.run import build_cases
from lawful.suites.base import get_suite
from lawful.video import iter_frames, write_video


def _decode_all(path: Path) -> int:
    return sum(1 for _ in iter_frames(path))


def _rss_child(case_path: Path, video: Path) -> float:
    """Peak RSS (MB) of a fresh interpreter that evaluates ``video``."""
    code = (
        "import resource, sys, json\n"
        "from lawful.case import load_case\n"
        "from lawful.runner.evaluate import evaluate_video\n"
        f"ev = evaluate_video(load_case({str(case_path)!r}), {str(video)!r})\n"
        "print(json.dumps({'status': ev.status, 'rss_kb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    return res["rss_kb"] / 1024, res["status"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="principia")
    ap.add_argument("--cases-per-task", type=int, default=1)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        suite = get_suite(args.suite)
        cases = build_cases(suite, tmp / "cases", args.cases_per_task, seed=7, progress=False)
        ref = get_generator("reference")
        videos = []
        for cp in cases:
            c = load_case(cp)
            videos.append((c, ref.generate(c, None, tmp / "v" / f"{c.id}.mp4")))

        t0 = time.perf_counter()
        n_frames = sum(_decode_all(v) for _, v in videos)
        t_decode = time.perf_counter() - t0

        t0 = time.perf_counter()
        statuses = [evaluate_video(c, v, task_for(c)).status for c, v in videos]
        t_eval = time.perf_counter() - t0

        print(f"suite {args.suite}: {len(videos)} videos, {n_frames} frames")
        print(f"decode only      {t_decode:8.2f} s  ({n_frames / t_decode:7.1f} frames/s)")
        print(f"full evaluation  {t_eval:8.2f} s  ({n_frames / t_eval:7.1f} frames/s)")
        print(f"ratio evaluation/decode = {t_eval / t_decode:.2f}  (target ≤ 2.0); "
              f"statuses: { {s: statuses.count(s) for s in set(statuses)} }")

        # one 1280x720, 240-frame video: the first case re-timed to 10 s and upscaled 2x
        c0, _ = videos[0]
        big = c0.model_copy(update={"duration": 240 / c0.fps})
        big_path = big.save(tmp / "big")
        task = task_for(big)
        frames = (cv2.resize(f, (1280, 720), interpolation=cv2.INTER_LINEAR) for f in task.render(big, "true"))
        big_video = write_video(tmp / "big" / "big.mp4", frames, big.fps)
        t0 = time.perf_counter()
        n_big = _decode_all(big_video)
        t_big_decode = time.perf_counter() - t0
        t0 = time.perf_counter()
        evaluate_video(big, big_video, task)
        t_big_eval = time.perf_counter() - t0
        print(f"1280x720, {n_big} frames: decode {t_big_decode:.2f} s, evaluation {t_big_eval:.2f} s, "
              f"ratio {t_big_eval / t_big_decode:.2f}")
        rss, status = _rss_child(big_path, big_video)
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS evaluating one 1280x720 240-frame video: {rss:.0f} MB (target ≤ 1024 MB; status {status};"
              f" this parent process peaked at {base:.0f} MB)")


if __name__ == "__main__":
    main()
