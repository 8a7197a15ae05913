"""Camera estimation on cached validation clips under a perturbation: evidence, cost and scores, one line each.

    python benchmarks/camera_probe.py --cache DIR --style studio wmle:hanging_chain:1000 ... [--perturb pan10,zoom10]

For each ``suite:task:seed`` the law clip rendered by ``lawful validate --cache DIR`` (the same folder
layout) is decoded, perturbed, re-encoded and evaluated; it prints the camera summary from the tracks'
meta (used / reliable / reason, methods, inliers, uncertainty), the camera's wall time per frame, and
each column's value next to the unperturbed clip's. Nothing is rendered: a clip absent from the cache
is reported and skipped.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from lawful.runner.evaluate import evaluate_video
from lawful.runner.validate import _perturbations, renderer_fingerprint, video_values
from lawful.suites.base import get_suite
from lawful.video import iter_frames, write_video
from lawful.world.styles import get_style


def _one(suite: str, task_name: str, seed: int, style: str, cache: Path, kinds: list[str], tmp: Path) -> None:
    task = get_suite(suite).task(task_name)
    made = get_style(style).make(suite, task_name, seed - 1000, seed)
    case = made.case
    law = cache / renderer_fingerprint(suite, style, task_name) / style / suite / f"{task_name}-{seed}" / f"{case.id}-true.mp4"
    if not law.exists():
        print(f"{suite}:{task_name}:{seed}: no cached clip at {law}")
        return
    frames = [f for _, f in iter_frames(law)]
    base = None
    for kind in ["none", *kinds]:
        path = law if kind == "none" else write_video(tmp / f"{case.id}-{kind}.mp4",
                                                      _perturbations()[kind](frames, case.fps, seed), fps=case.fps)
        ev = evaluate_video(case, path, task)
        vals = {c: round(v["value"], 3) for c, v in video_values(suite, ev).items()}
        base = base or vals
        meta = (ev.evidence or {}).get("tracks_meta", {})
        cam, t = meta.get("camera", {}), meta.get("timing_s", {})
        n = max(1, int(meta.get("n_frames", 0) or cam.get("frames", 0) or 1))
        ms = 1000 * t.get("camera", float("nan")) / n
        keys = ("used", "reliable", "max_shift_px", "max_scale_change", "uncertainty_px", "inliers", "methods", "reason")
        print(f"{task_name}:{seed} {kind:6s} cam {ms:5.2f} ms/frame  "
              + "  ".join(f"{k}={cam.get(k)}" for k in keys))
        print(f"    values {vals}" + ("" if kind == "none" else
                                      f"  shift {({c: round(v - base.get(c, 0), 3) for c, v in vals.items()})}"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clips", nargs="+", help="suite:task:seed")
    ap.add_argument("--cache", required=True, type=Path)
    ap.add_argument("--style", default="studio")
    ap.add_argument("--perturb", default="pan10,zoom10")
    args = ap.parse_args()
    kinds = [k for k in args.perturb.split(",") if k]
    with tempfile.TemporaryDirectory() as tmp:
        for spec in args.clips:
            suite, task, seed = spec.split(":")
            _one(suite, task, int(seed), args.style, args.cache, kinds, Path(tmp))


if __name__ == "__main__":
    main()
