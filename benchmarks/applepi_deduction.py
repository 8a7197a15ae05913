"""Time Apple-π Deduction scoring of one case: GT at 24 fps, three rollouts, 832x480, one core.

Builds a simulated case and three different Deduction clips (the true video, the anti-physics
video, a frozen first frame) in a temporary folder, then scores the three rollouts from a fresh
read of the case (GT loading, colour key and all metrics included) and prints the best of
``--repeat`` timings (wall and CPU time of this process). Run: ``python benchmarks/applepi_deduction.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="InelasticCollision")
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cores", type=int, default=1)
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[: args.cores]))
    import cv2

    cv2.setNumThreads(args.cores)
    from lawful.suites.applepi import dataset as D
    from lawful.suites.applepi import models as M
    from lawful.suites.applepi.evaluate import Options, score_output
    from lawful.suites.applepi.predictions import Output

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ds"
        entry = D.write_case(root, args.task, 1, seed=0, width=args.width, height=args.height, dense_maps=False)
        D.write_dataset_index(root, [entry])
        case = D.GTCase(root, entry)
        outs = []
        for r, model in enumerate(M.MODELS):
            p = Path(tmp) / f"rollout_{r:02d}.mp4"
            M.write_video(p, M.deduction_frames(model, case), case.gt_fps)
            outs.append(Output(case.case_id, "deduction", r, "video", p))
        times, cpu = [], []
        for _ in range(args.repeat):
            fresh = D.GTCase(root, entry)
            t0, c0 = time.perf_counter(), time.process_time()
            scores = [score_output(fresh, o, Options())[0] for o in outs]
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        print(f"Deduction scoring, {args.task}, {args.width}x{args.height}, GT {case.gt_fps:g} fps "
              f"({case.n_frames} frames), 3 rollouts, {args.cores} core(s): best {min(times):.3f} s, "
              f"median {statistics.median(times):.3f} s over {args.repeat} runs; CPU time best {min(cpu):.3f} s "
              f"(wall time grows with the machine's load average, now {os.getloadavg()[0]:.1f})")
        for model, s in zip(M.MODELS, scores):
            print(f"  {model:15s}", "  ".join(f"{k}={v:.3f}" for k, v in s.items()))


if __name__ == "__main__":
    main()
