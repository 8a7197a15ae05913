"""Throughput and memory of evaluation, as ratios measured in one run.

    python benchmarks/throughput.py [--suite principia,wmle] [--cases-per-task 1]

Prints, per suite, for the same set of reference videos:
- decode-only time (every frame decoded, nothing else) and full evaluation time
  (probe + track + measure + score), wall and CPU, and the wall ratio (target ≤ 2.5), the camera
  estimator's wall time per tracked frame and the region readings' (:mod:`lawful.perceive.regions`)
  wall time per probe and frame;
  once for the suite's own 640×360 renders (flat colours: they decode at ~2,000 frames/s)
  and once for the same renders with a light sensor grain (σ = 4/255, CRF 20), whose
  decode cost is closer to a generated video's;
- the same for one 1280×720, 240-frame clip (the generators' usual size);
- peak RSS of a fresh process evaluating that clip (target ≤ 1 GB).

One video is evaluated untimed first (imports and first-call set-up are paid once per
process). Evaluation overlaps decoding with tracking (a decode thread), so on a multi-core
machine its wall time can be below its CPU time; the CPU ratio says what it costs a busy machine.
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
from lawful.world.perturb import noise_frames


_CAM = {"cpu": 0.0, "frames": 0}


def _time_camera() -> None:
    """Count the CPU time of the calling thread inside ``CameraMotion.update`` (decoding runs in another
    thread, so this is the camera's own cost, whatever else the machine does)."""
    from lawful.perceive.camera import CameraMotion

    update = CameraMotion.update

    def timed(self, *a, **k):
        t0 = time.thread_time()
        update(self, *a, **k)
        _CAM["cpu"] += time.thread_time() - t0
        _CAM["frames"] += 1

    CameraMotion.update = timed


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


def _measure(label: str, videos: list[tuple]) -> None:
    """Decode-only and full evaluation of ``videos`` [(case, path)], wall and CPU, one line each."""
    w0, c0 = time.perf_counter(), time.process_time()
    n_frames = sum(_decode_all(v) for _, v in videos)
    t_decode, c_decode = time.perf_counter() - w0, time.process_time() - c0
    w0, c0 = time.perf_counter(), time.process_time()
    _CAM.update(cpu=0.0, frames=0)
    evs = [evaluate_video(c, v, task_for(c)) for c, v in videos]
    t_eval, c_eval = time.perf_counter() - w0, time.process_time() - c0
    statuses = [e.status for e in evs]
    metas = [(e.evidence or {}).get("tracks_meta", {}) for e in evs]
    t_cam = sum(m.get("timing_s", {}).get("camera", 0.0) for m in metas)
    n_cam = sum(m.get("camera", {}).get("frames", 0) for m in metas)
    with_regions = [(m, e) for m, e in zip(metas, evs) if (e.evidence or {}).get("tracks", {}).get("regions")]
    t_reg = sum(m.get("timing_s", {}).get("regions", 0.0) for m, _ in with_regions)
    n_reg = sum(m.get("samples", 0) * len(e.evidence["tracks"]["regions"]) for m, e in with_regions)
    counts = {s: statuses.count(s) for s in sorted(set(statuses))}
    print(f"{label}: {len(videos)} videos, {n_frames} frames, statuses {counts}")
    print(f"  decode only      {t_decode:7.2f} s wall ({n_frames / t_decode:6.0f} frames/s), {c_decode:6.2f} s CPU")
    print(f"  full evaluation  {t_eval:7.2f} s wall ({n_frames / t_eval:6.0f} frames/s), {c_eval:6.2f} s CPU")
    print(f"  ratio evaluation/decode = {t_eval / t_decode:.2f} wall (target ≤ 2.5), {c_eval / c_decode:.2f} CPU")
    if n_cam:
        print(f"  camera estimation {1000 * t_cam / n_cam:.3f} ms/frame wall, "
              f"{1000 * _CAM['cpu'] / max(1, _CAM['frames']):.3f} ms/frame CPU over {n_cam} tracked frames"
              f" ({100 * t_cam / t_eval:.1f} % of evaluation wall)")
    if n_reg:
        print(f"  region readings   {1000 * t_reg / n_reg:.3f} ms per probe per frame wall over {len(with_regions)}"
              f" videos ({100 * t_reg / t_eval:.1f} % of evaluation wall)")


def _grained(videos: list[tuple], out: Path) -> list[tuple]:
    """The same videos with light sensor grain, re-encoded at CRF 20."""
    return [(c, write_video(out / v.name, noise_frames((f for _, f in iter_frames(v)), 4 / 255, seed=i),
                            c.fps, crf=20)) for i, (c, v) in enumerate(videos)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="principia,wmle", help="comma-separated suites")
    ap.add_argument("--cases-per-task", type=int, default=1)
    args = ap.parse_args()
    _time_camera()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ref = get_generator("reference")
        first = None
        warm = True
        for name in args.suite.split(","):
            cases = build_cases(get_suite(name), tmp / name / "cases", args.cases_per_task, seed=7, progress=False)
            videos = []
            for cp in cases:
                c = load_case(cp)
                videos.append((c, ref.generate(c, None, tmp / name / "v" / f"{c.id}.mp4")))
            first = first or videos[0]
            if warm:  # imports and first-call set-up are paid once per process, not per video
                evaluate_video(*videos[0])
                warm = False
            _measure(f"{name}, own renders", videos)
            _measure(f"{name}, with grain", _grained(videos, tmp / name / "grain"))

        # one 1280x720, 240-frame video: the first case re-timed to 10 s and upscaled 2x
        c0, _ = first
        big = c0.model_copy(update={"duration": 240 / c0.fps})
        big_path = big.save(tmp / "big")
        task = task_for(big)
        frames = (cv2.resize(f, (1280, 720), interpolation=cv2.INTER_LINEAR) for f in task.render(big, "true"))
        big_video = write_video(tmp / "big" / "big.mp4", frames, big.fps)
        _measure("1280x720, 240 frames", [(big, big_video)])
        rss, status = _rss_child(big_path, big_video)
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS evaluating one 1280x720 240-frame video: {rss:.0f} MB (target ≤ 1024 MB; status {status};"
              f" this parent process peaked at {base:.0f} MB)")


if __name__ == "__main__":
    main()
