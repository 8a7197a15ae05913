"""CPU seconds and exact outputs of the probe-region reading (:class:`lawful.perceive.regions.Reader`).

``capture``: renders case 0 of each WMLE task (law, anti and, with ``--perturb pan10``, a panned law clip),
tracks it and saves what the Reader was given (its arguments, the tracking frames, the camera transforms).
``replay``: feeds the saved frames to the Reader of the ``lawful`` on ``PYTHONPATH`` (``add`` and ``read``,
the region stage of :func:`lawful.perceive.track.track`), keeps the least CPU of ``--repeat`` runs per clip
and pickles the outputs. ``compare``: byte-compares two replays' outputs. Alternate replays of two trees::

    python benchmarks/regions_read.py capture --tasks refraction,floating_ice --out /tmp/rr
    PYTHONPATH=old/src python benchmarks/regions_read.py replay /tmp/rr --save /tmp/old.pkl
    PYTHONPATH=new/src python benchmarks/regions_read.py replay /tmp/rr --save /tmp/new.pkl
    python benchmarks/regions_read.py compare /tmp/old.pkl /tmp/new.pkl
"""

from __future__ import annotations

import argparse
import pickle
import tempfile
import time
from pathlib import Path

import numpy as np


def capture(tasks: list[str], out: Path, perturb: str) -> None:
    from lawful.perceive import regions
    from lawful.runner.evaluate import evaluate_video
    from lawful.runner.validate import _perturbations
    from lawful.suites.base import get_suite
    from lawful.video import iter_frames, write_video
    from lawful.world.styles import get_style

    out.mkdir(parents=True, exist_ok=True)
    suite = get_suite("wmle")
    real_init, real_add, real_read = regions.Reader.__init__, regions.Reader.add, regions.Reader.read
    got: dict = {}

    def init(self, probes, frame_size, sx, sy, margin):
        got.update(args=(list(probes), frame_size, sx, sy, margin), frames=[])
        real_init(self, probes, frame_size, sx, sy, margin)

    def add(self, frame):
        got["frames"].append(frame.copy())
        real_add(self, frame)

    def read(self, transforms):
        got["transforms"] = None if transforms is None else [np.array(a) for a in transforms]
        return real_read(self, transforms)

    regions.Reader.__init__, regions.Reader.add, regions.Reader.read = init, add, read
    for name in tasks:
        task = suite.task(name)
        made = get_style("flat").make("wmle", name, 0, 1000)
        case = made.case
        with tempfile.TemporaryDirectory() as tmp:
            law, anti = Path(tmp) / "law.mp4", Path(tmp) / "anti.mp4"
            write_video(law, made.render("true"), fps=case.fps)
            write_video(anti, made.render("anti"), fps=case.fps)
            clips = {"law": law, "anti": anti}
            if perturb:
                frames = [f for _, f in iter_frames(law)]
                clips[perturb] = write_video(Path(tmp) / "p.mp4", _perturbations()[perturb](frames, case.fps, 1000),
                                             fps=case.fps)
            for key, path in clips.items():
                got.clear()
                evaluate_video(case, path, task)
                if got:
                    with open(out / f"{name}-{key}.pkl", "wb") as f:
                        pickle.dump(got, f, protocol=pickle.HIGHEST_PROTOCOL)
                    print(name, key, len(got["frames"]), "frames, transforms",
                          "none" if got["transforms"] is None else "given", flush=True)


def replay(folder: Path, save: str, repeat: int) -> None:
    from lawful.perceive.regions import Reader

    res, total = {}, 0.0
    for p in sorted(folder.glob("*.pkl")):
        with open(p, "rb") as f:
            got = pickle.load(f)
        best = float("inf")
        for _ in range(repeat):
            c0 = time.process_time()
            r = Reader(*got["args"])
            for fr in got["frames"]:
                r.add(fr)
            out = r.read(got["transforms"])
            best = min(best, time.process_time() - c0)
        total += best
        res[p.stem] = {k: (s.kind, s.ok, s.sigma, s.values, s.columns, s.meta) for k, s in out.items()}
        print(f"{p.stem:40s} {best:7.3f}", flush=True)
    print(f"{'total':40s} {total:7.3f}")
    if save:
        with open(save, "wb") as f:
            pickle.dump(res, f)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and a.tobytes() == b.tobytes())
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    return a == b or (a != a and b != b)


def compare(a: str, b: str) -> None:
    A, B = (pickle.load(open(x, "rb")) for x in (a, b))
    bad = [f"{clip}/{k}" for clip in sorted(set(A) | set(B)) for k in sorted(set(A.get(clip, {})) | set(B.get(clip, {})))
           if not _same(A.get(clip, {}).get(k), B.get(clip, {}).get(k))]
    n = sum(len(v) for v in A.values())
    print(f"{len(A)} clips, {n} series: {len(bad)} differ", *bad, sep="\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("capture", "replay", "compare"))
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--tasks", default="")
    ap.add_argument("--out", default="")
    ap.add_argument("--perturb", default="")
    ap.add_argument("--save", default="")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if a.mode == "capture":
        capture(a.tasks.split(","), Path(a.out), a.perturb)
    elif a.mode == "replay":
        replay(Path(a.paths[0]), a.save, a.repeat)
    else:
        compare(*a.paths)


if __name__ == "__main__":
    main()
