"""CPU seconds of each stage of a WMLE run, per task: render (true, anti), encode, evaluate (static included).

Usage: ``python benchmarks/wmle_stages.py [--tasks a,b] [--case 0] [--out DIR]``. CPU is the process's
user+sys (threads included: x264 and decoding threads count), so it can be compared under shared load."""

from __future__ import annotations

import argparse
import itertools
import resource
import tempfile
import time
from pathlib import Path


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Clock:
    def __init__(self):
        self.t: dict[str, float] = {}

    def __call__(self, key: str, fn, *a):
        c0 = cpu()
        out = fn(*a)
        self.t[key] = self.t.get(key, 0.0) + cpu() - c0
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default="")
    ap.add_argument("--case", type=int, default=0)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    from lawful.runner.evaluate import evaluate_video
    from lawful.runner.run import case_seed
    from lawful.suites.base import get_suite
    from lawful.video import write_video

    suite = get_suite("wmle")
    out = Path(a.out or tempfile.mkdtemp(prefix="wmle_stages_"))
    names = a.tasks.split(",") if a.tasks else list(suite.tasks)
    total, w0 = Clock(), time.time()
    print(f"{'task':32s} {'case':>6s} {'r.true':>7s} {'r.anti':>7s} {'enc':>7s} {'eval':>7s}")
    for name in names:
        task, clk = suite.task(name), Clock()
        case, frame = clk("case", task.make_case, a.case, case_seed(0, "wmle", name, a.case))
        true = clk("r.true", lambda: list(task.render(case, "true")))
        anti = clk("r.anti", lambda: list(task.render(case, "anti")))
        vids = {}
        for model, frames in (("reference", true), ("counterfactual", anti),
                              ("static", itertools.repeat(true[0], case.n_frames))):
            vids[model] = clk("enc", write_video, out / f"{name}-{model}.mp4", frames, case.fps)
        for v in vids.values():
            clk("eval", evaluate_video, case, v, task)
        print(f"{name:32s} " + " ".join(f"{clk.t.get(k, 0):7.2f}" for k in ("case", "r.true", "r.anti", "enc", "eval")),
              flush=True)
        for k, v in clk.t.items():
            total.t[k] = total.t.get(k, 0.0) + v
    print(f"{'TOTAL':32s} " + " ".join(f"{total.t.get(k, 0):7.2f}" for k in ("case", "r.true", "r.anti", "enc", "eval"))
          + f"   wall {time.time() - w0:.1f} s")


if __name__ == "__main__":
    main()
