"""Throughput and memory of evaluation, as ratios measured in one run (issue 16's goals).

    python benchmarks/throughput.py [--styles flat,studio] [--tasks wmle:P1,principia:pendulum] [--old-decode]
        [--camera-off] [--sizes 640x360,1280x720,1920x1080] [--repeat N] [--clips DIR] [--pool N]
        [--no-rss]

For each render style (``flat``: lawful's 2-D renderer, 640×360; ``studio``: MuJoCo scenes, 1920×1080; see
:mod:`lawful.world.styles`) the law-correct clip of each task is written at 640×360, 1280×720 and
1920×1080 (INTER_AREA down, INTER_LINEAR up; the case keeps its own pixel frame), and per size it prints:
- decode-only time: every frame decoded to a full-size RGB array (``lawful.video.iter_frames``, OpenCV;
  what any reader of the video pays), wall and CPU;
- full evaluation time (probe + track + measure + score), wall and CPU, and the ratios
  evaluation / decode (goal ≤ 1.2, must ≤ 1.3), the least wall ratio its CPU time allows on this machine's cores
  (``CPU bound``: however its threads overlap), where the time goes (per video: opening the file, the first
  frame's colour models, building the tracks; per frame: finding the objects, against decoding alone: from the
  tracks' ``timing_s``, of the last run), camera-estimator time per tracked frame, and for
  tasks that read regions (WMLE P16–P40, e.g. ``--tasks wmle:P17,wmle:P21``) the region channel's time
  per sampled frame and its share of evaluation;
- the decoder alone: the same frames read as tracking reads them (its working size, decoded ahead on a thread of
  their own with the decoder threads tracking gives them) and nothing else done: evaluation's floor with that decoder
  (at 640x360 one decoder thread, so a costly stream's floor is above decoding on FFmpeg's threads);
- with ``--old-decode`` also the evaluation through the previous decode path (OpenCV converts every
  full-size frame, then INTER_AREA), measured beside the new one in the same run;
- with ``--camera-off`` also the evaluation of the same clips with the case's camera declared ``fixed`` (no
  camera-motion estimation), alternated with the others: what the rest of the pipeline costs;
- the same clips scored as ``lawful evaluate`` scores a folder (``--pool N`` worker processes, default every core;
  the pool is started and stopped within the time, as in every run), alternated with the others, with its ratio to
  decoding the same clips one after another (a decoder that itself uses every core) and the largest score change
  against scoring them one at a time. One video at a time, tracking runs on one core beside its decoding thread; a
  folder keeps every core busy with whole videos. Use more clips than workers (``--tasks``): with as many clips
  as workers the slowest clip and the pool's start decide the time.
Then the peak RSS of a fresh interpreter evaluating one 1280×720, 240-frame clip, read from its own
``/proc/self/status`` VmHWM at its end (goal ≤ 512 MB): Linux's ``ru_maxrss`` survives ``exec``, so a child
of a large parent reports the parent's peak.

One video is evaluated untimed first (imports and first-call set-up are paid once per process). With
``--repeat N`` decoding and evaluation alternate N times and the least wall and CPU times of each are kept:
on a shared machine single runs of these short clips scatter by ±25 % (each run's own ratio is printed too: its
median and range over the runs).
Evaluation overlaps decoding with tracking (a decode thread; frames shrunk from 720p or 1080p are decoded on
FFmpeg's frame threads, ahead of a second thread that shrinks them), so its wall time can be below its CPU time;
the CPU ratio says what it costs a busy machine. Note the machine's load (``uptime``) with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import closing, contextmanager
from pathlib import Path

SIZES = {"640x360": (640, 360), "1280x720": (1280, 720), "1920x1080": (1920, 1080)}
GOAL_RATIO, MUST_RATIO, GOAL_RSS_MB = 1.2, 1.3, 512
_CAM = {"cpu": 0.0, "frames": 0}


def peak_rss_mb(code: str, timeout: float = 600) -> tuple[float, str]:
    """Run ``code`` in a fresh interpreter; its own peak RSS (MB, VmHWM read at its end) and its stdout.

    VmHWM belongs to the process image, which ``exec`` replaces, so nothing of the parent is counted."""
    tail = "\nimport sys as _s\n_s.stdout.flush()\nprint('VmHWM_kB', [l.split()[1] for l in open('/proc/self/status')" \
           " if l.startswith('VmHWM:')][0])\n"
    out = subprocess.run([sys.executable, "-c", code + tail], capture_output=True, text=True, check=True,
                         timeout=timeout).stdout
    lines = out.strip().splitlines()
    return int(lines[-1].split()[1]) / 1024, "\n".join(lines[:-1])


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


@contextmanager
def _old_decode():
    """The previous decode path: OpenCV converts every full-size frame, then INTER_AREA."""
    import lawful.video as V

    real = V._yuv420_container
    V._yuv420_container = lambda *a, **k: None
    try:
        yield
    finally:
        V._yuv420_container = real


def _timed(fn) -> tuple[float, float, object]:
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def _values(ev) -> dict:
    return {c: sc.value for c, sc in ev.scores.items()}


def _differ(a, b) -> float:
    """Largest difference between two evaluations' column values (inf when one is missing)."""
    va, vb = _values(a), _values(b)
    return max((0.0 if va[c] == vb.get(c) else abs(va[c] - vb[c]) if None not in (va[c], vb.get(c)) else float("inf"))
               for c in va) if va else 0.0


def _decoded_as_tracked(videos) -> int:
    """Every frame of ``videos`` read as tracking reads it (its working size, decoded ahead on its own thread with
    the decoder's threads as tracking sets them), nothing else done: the least time evaluation can take with that
    decoder."""
    from lawful.perceive.plan import TrackingPlan
    from lawful.perceive.track import PREFETCH, _working_side
    from lawful.video import open_frames

    n = 0
    for case, path in videos:
        _, frames = open_frames(path, max_side=_working_side(case, TrackingPlan()), prefetch=PREFETCH)
        with closing(frames):
            n += sum(1 for _ in frames)
    return n


def _evaluate(videos):
    from lawful.runner.evaluate import evaluate_video, task_for

    return [evaluate_video(c, v, task_for(c)) for c, v in videos]


def _jobs(videos: list[tuple], root: Path) -> list:
    """One scoring job per ``(case, path)``, its case written under ``root`` (as a run's jobs are)."""
    from lawful.job import Job
    from lawful.store import VideoKey

    return [Job(VideoKey(c.suite, c.id, "clip", 0), str(c.save(root / "cases")), "clip", str(v)) for c, v in videos]


def _pooled(jobs: list, workers: int) -> list:
    """Score ``jobs`` through lawful's local executor with ``workers`` processes (its pool started and stopped
    here, as in every run), the evaluations in job order."""
    from lawful.runner.executors import LocalExecutor

    got: dict = {}
    LocalExecutor(workers).run(jobs, lambda job, task, ev: got.__setitem__(job.key, ev))
    return [got[j.key] for j in jobs]


def _measure(label: str, videos: list[tuple], old: bool, repeat: int = 1, camera_off: bool = False,
             pool: int = 0, root: Path | None = None) -> dict:
    """Decode-only and full evaluation of ``videos`` [(case, path)], wall and CPU; prints one block.

    ``repeat`` > 1: both are run that many times, alternately, and each time is the least seen (a busy
    machine only ever adds time; the ratio of the least times is the one a quiet machine would show).
    ``pool`` > 1: the same videos are also scored as a folder is, by that many worker processes."""
    from lawful.video import iter_frames

    best, pairs, pooled = [float("inf")] * 8, [], []
    fixed = [(c.model_copy(update={"camera": "fixed"}), v) for c, v in videos] if camera_off else []
    jobs = _jobs(videos, root / label.replace(", ", "_")) if pool > 1 else []
    for _ in range(max(1, repeat)):
        t_dec, c_dec, n_frames = _timed(lambda: sum(1 for _, v in videos for _ in iter_frames(v)))
        _CAM.update(cpu=0.0, frames=0)
        t_ev, c_ev, evs = _timed(lambda: _evaluate(videos))
        t_fx, c_fx, _ = _timed(lambda: _evaluate(fixed)) if fixed else (0.0, 0.0, None)
        t_da, c_da, _ = _timed(lambda: _decoded_as_tracked(videos))
        if jobs:
            t_po, _, evs_po = _timed(lambda: _pooled(jobs, pool))
            pooled.append((t_dec, t_po))
        best = [min(a, b) for a, b in zip(best, (t_dec, c_dec, t_ev, c_ev, t_fx, c_fx, t_da, c_da))]
        pairs.append((t_dec, t_ev))
    t_dec, c_dec, t_ev, c_ev, t_fx, c_fx, t_da, c_da = best
    statuses = [e.status for e in evs]
    metas = [(e.evidence or {}).get("tracks_meta", {}) for e in evs]
    n_cam = sum(m.get("camera", {}).get("frames", 0) for m in metas)
    t_cam = sum(m.get("timing_s", {}).get("camera", 0.0) for m in metas)
    with_regions = [m for m in metas if m.get("timing_s", {}).get("regions")]
    t_reg = sum(m["timing_s"]["regions"] for m in with_regions)
    n_reg = sum(m.get("samples", 0) for m in with_regions)
    r, rc = t_ev / t_dec, c_ev / c_dec
    phases = {k: sum(m.get("timing_s", {}).get(k, 0.0) for m in metas) for k in ("open", "setup", "finish", "objects")}
    spread = paired_ratios(pairs)
    row = {"label": label, "frames": n_frames, "decode_s": t_dec, "decode_cpu_s": c_dec, "eval_s": t_ev,
           "eval_cpu_s": c_ev, "ratio": r, "ratio_cpu": rc, "paired_ratios": spread, "phases_s": phases,
           "values": [_values(e) for e in evs]}
    ok = "✓" if max(r, rc) <= GOAL_RATIO else ("≤ 1.3" if max(r, rc) <= MUST_RATIO else "✗")
    runs = f", least of {repeat} runs" if repeat > 1 else ""
    print(f"{label}: {len(videos)} videos, {n_frames} frames, statuses "
          f"{ {s: statuses.count(s) for s in sorted(set(statuses))} }{runs}")
    print(f"  decode only      {t_dec:7.2f} s wall ({n_frames / t_dec:6.0f} frames/s), {c_dec:6.2f} s CPU")
    print(f"  full evaluation  {t_ev:7.2f} s wall ({n_frames / t_ev:6.0f} frames/s), {c_ev:6.2f} s CPU")
    print(f"  ratio evaluation/decode = {r:.2f} wall, {rc:.2f} CPU (goal ≤ {GOAL_RATIO}) {ok}")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    row["cpu_bound"] = c_ev / cores / t_dec
    print(f"  CPU bound        evaluation's CPU over {cores} cores = {row['cpu_bound']:.2f} x decoding's wall: no "
          f"overlap of its threads gets the wall ratio below this without less work")
    row.update(decoder_alone_s=t_da, decoder_alone_cpu_s=c_da, decoder_floor=t_da / t_dec)
    print(f"  decoder alone    {t_da:7.2f} s wall, {c_da:6.2f} s CPU = {t_da / t_dec:.2f} x decoding: the frames read "
          f"as tracking reads them (working size, decoded ahead with its decoder threads) and nothing else done")
    if len(pairs) > 1:
        print(f"  each run's own wall ratio: median {spread['median']:.2f}, {spread['min']:.2f} to {spread['max']:.2f} "
              f"over {len(pairs)} runs (how far a single run may stray)")
    if pooled:
        t_po = min(t for _, t in pooled)
        diff = max(_differ(a, b) for a, b in zip(evs, evs_po))
        rp = t_po / t_dec
        okp = "✓" if rp <= GOAL_RATIO else ("≤ 1.3" if rp <= MUST_RATIO else "✗")
        row.update(pool_workers=pool, pool_eval_s=t_po, pool_ratio=rp, pool_paired_ratios=paired_ratios(pooled),
                   pool_max_value_change=diff)
        print(f"  as a folder      {t_po:7.2f} s wall ({n_frames / t_po:6.0f} frames/s) by {pool} worker processes "
              f"(lawful's pool, started and stopped in the time): ratio {rp:.2f} wall {okp}; largest score change "
              f"against one at a time {diff:.4g}")
    if fixed:
        row.update(fixed_eval_s=t_fx, fixed_eval_cpu_s=c_fx, fixed_ratio=t_fx / t_dec, fixed_ratio_cpu=c_fx / c_dec)
        print(f"  camera fixed     {t_fx:7.2f} s wall, {c_fx:6.2f} s CPU: ratio {t_fx / t_dec:.2f} wall, "
              f"{c_fx / c_dec:.2f} CPU (no camera-motion estimation)")
    per_video = 1000 * (phases["open"] + phases["setup"] + phases["finish"]) / len(videos)
    print(f"  where it goes    per video {per_video:.1f} ms wall (open {1000 * phases['open'] / len(videos):.1f}, first-frame "
          f"set-up {1000 * phases['setup'] / len(videos):.1f}, tracks built {1000 * phases['finish'] / len(videos):.1f}) "
          f"= {per_video / (1000 * t_dec / n_frames):.0f} frames' decoding; per frame: objects "
          f"{1000 * phases['objects'] / n_frames:.3f} ms, decode only {1000 * t_dec / n_frames:.3f} ms")
    if n_cam:
        print(f"  camera estimation {1000 * t_cam / n_cam:.3f} ms/frame wall, "
              f"{1000 * _CAM['cpu'] / max(1, _CAM['frames']):.3f} ms/frame CPU over {n_cam} tracked frames")
    if n_reg:
        print(f"  region readings  {1000 * t_reg / n_reg:.3f} ms/frame wall over {n_reg} sampled frames of "
              f"{len(with_regions)} videos ({100 * t_reg / t_ev:.1f} % of evaluation)")
    if old:
        with _old_decode():
            t_o, c_o, evs_o = _timed(lambda: _evaluate(videos))
        diff = max(_differ(a, b) for a, b in zip(evs, evs_o))
        row.update(old_eval_s=t_o, old_eval_cpu_s=c_o, old_ratio=t_o / t_dec, old_ratio_cpu=c_o / c_dec,
                   old_values=[_values(e) for e in evs_o], max_value_change=diff)
        print(f"  previous decode  {t_o:7.2f} s wall, {c_o:6.2f} s CPU: ratio {t_o / t_dec:.2f} wall, "
              f"{c_o / c_dec:.2f} CPU; largest score change new vs previous {diff:.4g}")
    return row


def paired_ratios(pairs: list[tuple[float, float]]) -> dict:
    """Median, least and greatest of each run's own ``evaluation / decode`` wall ratio (``pairs``: (decode,
    evaluation) seconds of one alternation): the scatter a single run of this benchmark shows on this machine."""
    r = [e / d for d, e in pairs]
    return {"median": statistics.median(r), "min": min(r), "max": max(r), "runs": len(r)}


def _resized(frames, size):
    import cv2

    for f in frames:
        h, w = f.shape[:2]
        yield f if (w, h) == size else cv2.resize(
            f, size, interpolation=cv2.INTER_AREA if size[0] < w else cv2.INTER_LINEAR)


def _clips(style: str, tasks: list[tuple[str, str]], out: Path) -> dict[str, list[tuple]]:
    """Per size, the law-correct clip of each task drawn in ``style``: {size: [(case, path)]} (clips
    already in ``out`` are reused)."""
    from lawful.video import write_video
    from lawful.world.styles import get_style

    st, by_size = get_style(style), {k: [] for k in SIZES}
    for suite, task in tasks:
        if not st.supports(suite, task):
            print(f"({style} cannot draw {suite} {task}: skipped)")
            continue
        made, frames = st.make(suite, task, 0, 1000), None
        for name, size in SIZES.items():
            path = out / style / name / f"{made.case.id}.mp4"
            if not path.exists():
                frames = frames or list(made.render("true"))
                write_video(path, _resized(frames, size), made.case.fps)
            by_size[name].append((made.case, path))
    return by_size


def _resolve(spec: str) -> list[tuple[str, str]]:
    """``suite:task`` pairs (a task by name or label) to ``(suite, task name)``."""
    from lawful.suites.base import get_suite

    out = []
    for item in spec.split(","):
        suite, want = item.split(":")
        tasks = get_suite(suite).tasks.values()
        out += [(suite, t.name) for t in tasks if want.lower() in (t.name.lower(), (t.label or "").lower())][:1] \
            or [(suite, get_suite(suite).task(want).name)]  # the suite's own error for an unknown task
    return out


def _rss(tmp: Path, case) -> None:
    """Peak RSS of a fresh interpreter evaluating ``case`` re-timed to 240 frames and drawn at 1280x720."""
    from lawful.runner.evaluate import task_for
    from lawful.video import write_video

    big = case.model_copy(update={"duration": 240 / case.fps})
    big_path = big.save(tmp / "big")
    frames = _resized(task_for(big).render(big, "true"), SIZES["1280x720"])
    clip = write_video(tmp / "big" / "big.mp4", frames, big.fps)
    code = ("import json\nfrom lawful.case import load_case\nfrom lawful.runner.evaluate import evaluate_video\n"
            f"ev = evaluate_video(load_case({str(big_path)!r}), {str(clip)!r})\nprint(json.dumps(ev.status))\n")
    rss, out = peak_rss_mb(code)
    print(f"peak RSS of a fresh interpreter evaluating one 1280x720 240-frame video: {rss:.0f} MB "
          f"(goal ≤ {GOAL_RSS_MB} MB {'✓' if rss <= GOAL_RSS_MB else '✗'}; status {json.loads(out)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--styles", default="flat,studio", help="comma-separated render styles")
    ap.add_argument("--tasks", default="wmle:P1,principia:pendulum", help="suite:task pairs (names or labels)")
    ap.add_argument("--old-decode", action="store_true", help="also evaluate through the previous decode path")
    ap.add_argument("--camera-off", action="store_true", help="also evaluate with the cases' camera declared fixed")
    ap.add_argument("--repeat", type=int, default=1, help="run decode and evaluation this many times, alternately, "
                    "and keep the least times (steadier ratios on a busy machine)")
    ap.add_argument("--sizes", default=",".join(SIZES), help="comma-separated frame sizes, of " + ", ".join(SIZES))
    ap.add_argument("--no-rss", action="store_true", help="skip the peak-RSS measurement")
    ap.add_argument("--pool", type=int, default=os.cpu_count() or 1,
                    help="also score each size's clips as a folder is scored, by this many worker processes "
                         "(default: every core, as `lawful evaluate`; 0 or 1: not)")
    ap.add_argument("--json", type=Path, help="write the measured rows here")
    ap.add_argument("--clips", type=Path, help="keep the rendered clips here and reuse them (default: a temporary folder)")
    args = ap.parse_args()
    _time_camera()
    tasks, rows = _resolve(args.tasks), []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        warm = True
        for style in args.styles.split(","):
            for name, videos in _clips(style, tasks, args.clips or tmp).items():
                if not videos or name not in args.sizes.split(","):
                    continue
                if warm:  # imports and first-call set-up are paid once per process, not per video
                    _evaluate(videos[:1])
                    warm = False
                row = _measure(f"{style}, {name}", videos, args.old_decode, args.repeat, args.camera_off,
                               args.pool, tmp)
                rows.append(dict(row, style=style, size=name, repeat=args.repeat))
        from lawful.world.styles import get_style

        if not args.no_rss:
            _rss(tmp, get_style("flat").make(*tasks[0], 0, 1000).case)  # the first task's flat case
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))


if __name__ == "__main__":
    main()
