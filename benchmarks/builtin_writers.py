"""CPU of the built-in models' writers, old way vs now, measured side by side in one run.

Usage: ``python benchmarks/builtin_writers.py [--tasks a,b] [--applepi Task] [--out DIR]``.

- WMLE clips (reference render and the static repeat): x264 ``veryfast`` at CRF 18 (the built-in models' writer
  first), ``ultrafast`` (:data:`lawful.generators.builtin.PRESET`) at CRF 18 (then) and at the constant quantizer
  :data:`lawful.generators.builtin.QP` (now): encoding and decoding CPU and the mean error against the render.
- Apple-π (one case of ``--applepi``): the reference's Deduction frames read from the GT PNGs (before) vs
  rendered again (:func:`lawful.suites.applepi.models._rendered_gt`), and a non-Deduction answer clip of 8 frames
  (before) vs :data:`lawful.suites.applepi.models.CLIP_FRAMES`, written and its last frame read.

CPU is the process's user+sys (x264's threads included), so ratios hold under shared load."""

from __future__ import annotations

import argparse
import itertools
import resource
import tempfile
from pathlib import Path

import numpy as np

from lawful.generators.builtin import PRESET, QP  # the built-in models' x264 preset and quantizer


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed(fn, *a):
    c0 = cpu()
    out = fn(*a)
    return out, cpu() - c0


def wmle(names: list[str], out: Path) -> None:
    from lawful.case import case_seed
    from lawful.suites.base import get_suite
    from lawful.video import read_frames, write_video

    suite = get_suite("wmle")
    ways = (("veryfast", None), (PRESET, None), (PRESET, QP))  # (preset, constant quantizer or CRF 18)
    tot: dict[tuple, list[float]] = {w: [0.0, 0.0, 0.0] for w in ways}
    print(f"{'wmle task':28s} {'clip':6s} {'preset':9s} {'rate':6s} {'encode':>7s} {'decode':>7s} {'err':>5s}")
    for name in names:
        task = suite.task(name)
        case, _ = task.make_case(0, case_seed(0, "wmle", name, 0))
        true = list(task.render(case, "true"))
        for clip, frames in (("render", lambda: true), ("static", lambda: itertools.repeat(true[0], len(true)))):
            for preset, qp in ways:
                rate = "crf 18" if qp is None else f"qp {qp}"
                p, enc = timed(write_video, out / f"{name}-{clip}-{preset}-{qp}.mp4", frames(), case.fps, 18,
                               "yuv420p", preset, qp)
                dec_frames, dec = timed(read_frames, p)
                ref = np.stack(true) if clip == "render" else true[0][None]
                err = float(np.abs(dec_frames.astype(np.int16) - ref).mean())
                tot[preset, qp] = [x + y for x, y in zip(tot[preset, qp], (enc, dec, err))]
                print(f"{name:28s} {clip:6s} {preset:9s} {rate:6s} {enc:7.3f} {dec:7.3f} {err:5.2f}", flush=True)
    (e0, d0, r0), (e1, d1, r1), (e2, d2, r2) = (tot[w] for w in ways)
    print(f"WMLE encode CPU-s: veryfast {e0:.2f} -> {PRESET} {e1:.2f} ({e1 / e0:.2f}x) -> {PRESET} QP {QP} {e2:.2f} "
          f"({e2 / e1:.2f}x of CRF); decode {d0:.2f} -> {d1:.2f} -> {d2:.2f}; summed mean error {r0:.2f} -> {r1:.2f} "
          f"-> {r2:.2f}")


def applepi(task: str, out: Path) -> None:
    from lawful.suites.applepi import build, dataset, models
    from lawful.suites.applepi.predictions import last_frame

    case = dataset.GTCase(out / "ds", build.write_case(out / "ds", task, 1, seed=0))
    n = case.n_gt_phys
    files = sorted((case.dir / "rgb").glob("*.png"))[:n]
    read, t_read = timed(lambda: [dataset.imread(f) for f in files])
    rendered, t_render = timed(models._rendered_gt, case, n)
    assert rendered is not None and all(np.array_equal(a, b) for a, b in zip(read, rendered))
    print(f"Apple-π {task}: reference Deduction frames ({n}) read {t_read:.3f} -> rendered {t_render:.3f} CPU-s "
          f"({t_render / t_read:.2f}x, identical)")
    inp, ans = case.image("input_image"), case.image("objects_only_reference")
    t = {}
    for k in (8, models.CLIP_FRAMES):
        p = out / f"clip{k}.mp4"
        _, enc = timed(models.write_video, p, models._fade(inp, ans, k), case.gt_fps)
        last, dec = timed(last_frame, p)
        assert np.array_equal(last, ans)
        t[k] = enc + dec
    print(f"Apple-π answer clip: 8 frames {t[8]:.3f} -> {models.CLIP_FRAMES} frames {t[models.CLIP_FRAMES]:.3f} "
          f"CPU-s to write and read its answer ({t[models.CLIP_FRAMES] / t[8]:.2f}x, same last frame)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default="free_fall,pendulum_length,funnel_discharge,total_internal_reflection")
    ap.add_argument("--applepi", default="FreeFall")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    out = Path(a.out or tempfile.mkdtemp(prefix="builtin_writers_"))
    wmle(a.tasks.split(","), out)
    applepi(a.applepi, out)


if __name__ == "__main__":
    main()
