"""Time Apple-π Deduction motion-mask IoUs: lawful against Physics-IQ's pipeline order, on the same videos.

Builds ``--tasks`` simulated cases (832x480, GT 24 fps) and each built-in model's Deduction video
(``--models``), then, on the same files in one run, times per (video, case) pair:

- ``lawful``: :func:`lawful.suites.applepi.checks.deduction_motion_masks`, one fresh reading of each case
  shared by its models, nothing cached in memory before the run; the GT masks are those lawful kept with
  the case when it rendered it (checked against a digest of the frame files);
- ``lawful, GT masks from the PNGs``: the same with the GT masks made from the PNG frames in the run
  (once per case) — the cost for a dataset lawful did not write;
- ``lawful, shrink first``: lawful before this change (frames resized to the GT size and shrunk to a
  quarter with INTER_AREA before the mask; ground truth re-read for every model);
- ``Physics-IQ order, in memory``: a reimplementation of Physics-IQ's published order written here (every
  video decoded whole, masks at full resolution for the GT and the prediction of every pair, then the
  bilinear shrink to a quarter and ``> 127``, IoUs) — lawful must equal it to 1e-6;
- ``Physics-IQ order, mask videos``: the same with Physics-IQ's file flow (each mask sequence written as an
  MP4V video, read back, shrunk and thresholded); its IoUs move with that codec;
- ``decode only``: decoding each prediction video to BGR frames, the floor of any method that reads it.

Prints the best of ``--repeat`` wall and CPU times per pair, the speed ratios, and the largest IoU
difference of each method from the in-memory Physics-IQ order, and the bound decoding sets: how much faster than
Physics-IQ's order a method would be that did nothing but decode the prediction. ``--crf N`` writes the predictions as
yuv420p H.264 at CRF N instead (as video models deliver them: cheaper to decode than the built-ins' lossless RGB
H.264). Run: ``python benchmarks/applepi_deduction.py``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

KEYS = ("spatial_iou_motion", "spatiotemporal_iou_motion", "weighted_spatial_iou_motion")


# --- Physics-IQ's order, reimplemented from the published definition ----------------------------
def piq_masks_full(frames_bgr):
    """Full-resolution 0/255 masks: gray, 5x5 Gaussian, running background (double, weight 0.3), difference
    to the rounded background, > 10, open then close with a 5x5 square; the first mask empty."""
    kernel = np.ones((5, 5), np.uint8)
    avg, out = None, []
    for f in frames_bgr:
        g = cv2.GaussianBlur(cv2.cvtColor(f, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        if avg is None:
            avg = g.astype("float")
            out.append(np.zeros_like(g))
            continue
        cv2.accumulateWeighted(g, avg, 0.3)
        _, b = cv2.threshold(cv2.absdiff(g, cv2.convertScaleAbs(avg)), 10, 255, cv2.THRESH_BINARY)
        out.append(cv2.morphologyEx(cv2.morphologyEx(b, cv2.MORPH_OPEN, kernel), cv2.MORPH_CLOSE, kernel))
    return out


def piq_shrink(masks, size):
    return np.stack([cv2.resize(m, size) > 127 for m in masks])


def piq_ious(a, b):
    per = []
    for x, y in zip(a, b):
        u = np.logical_or(x, y).sum()
        per.append(1.0 if u == 0 else np.logical_and(x, y).sum() / u)
    sa, sb = a.max(0), b.max(0)
    u = np.logical_or(sa, sb).sum()
    spatial = 1.0 if u == 0 else np.logical_and(sa, sb).sum() / u
    wa, wb = a.sum(0, dtype=np.uint16) / len(a), b.sum(0, dtype=np.uint16) / len(b)
    valid = np.maximum(wa, wb) > 0
    weighted = 1.0 if not valid.any() else np.minimum(wa, wb)[valid].sum() / np.maximum(wa, wb)[valid].sum()
    return {"spatial_iou_motion": float(spatial), "spatiotemporal_iou_motion": float(np.mean(per)),
            "weighted_spatial_iou_motion": float(weighted)}


def _decode_all(path):
    cap, out = cv2.VideoCapture(str(path)), []
    while True:
        ok, f = cap.read()
        if not ok:
            break
        out.append(f)
    cap.release()
    return out


def _mask_video_roundtrip(masks, path, fps, size):
    h, w = masks[0].shape
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h), isColor=False)
    for m in masks:
        wr.write(m)
    wr.release()
    back = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in _decode_all(path)]
    return piq_shrink(back, size)


def piq_pair(gt_dir: Path, meta: dict, video: Path, files: bool, tmp: Path) -> dict:
    """One (prediction, case) pair from scratch, Physics-IQ's way (no state shared between pairs)."""
    fps, dur = float(meta["gt_fps"]), float(meta["physics_duration"])
    pngs = sorted(gt_dir.glob("*.png"))
    ks = [k for k in range(1, len(pngs)) if k / fps <= 5.0 + 1e-9]
    gt = [cv2.imread(str(pngs[k])) for k in ks]
    h, w = gt[0].shape[:2]
    size = (w // 4, h // 4)
    pred = _decode_all(video)
    n = len(pred) - 1
    seq = [pred[min(round((k / fps) * n / dur), n - 1) + 1] for k in ks]  # the release's time rule
    mg, mp = piq_masks_full(gt), piq_masks_full(seq)
    if files:
        return piq_ious(_mask_video_roundtrip(mp, tmp / "gen_mask.mp4", fps, size),
                        _mask_video_roundtrip(mg, tmp / "gt_mask.mp4", fps, size))
    return piq_ious(piq_shrink(mp, size), piq_shrink(mg, size))


# --- lawful before Physics-IQ's order: shrink first ---------------------------------------------------
def shrink_first_pair(case, video: Path) -> tuple[dict, int]:
    """The old order: prediction frames resized to the GT size (Lanczos), every frame shrunk to a quarter
    (INTER_AREA) before the same mask steps; ground truth re-read for every model."""
    from lawful.score import applepi as F
    from lawful.suites.applepi.predictions import read_video_frames, video_frame_count

    ks = [k for k in range(1, case.n_gt_phys + 1) if k / case.gt_fps <= 5.0 + 1e-9]
    n_phys = video_frame_count(video) - 1
    pidx = [F.pred_physics_index(k / case.gt_fps, n_phys, case.physics_duration) + 1 for k in ks]
    frames, _ = read_video_frames(video, set(pidx), case.shape)
    gt = case.gt_frames(ks)
    h, w = case.shape
    q = (w // 4, h // 4)

    def small(rgb):
        return cv2.cvtColor(cv2.resize(rgb, q, interpolation=cv2.INTER_AREA), cv2.COLOR_RGB2BGR)

    gen_m = np.stack(piq_masks_full([small(frames[i]) for i in pidx])) > 127
    gt_m = np.stack(piq_masks_full([small(gt[k]) for k in ks])) > 127
    return piq_ious(gen_m, gt_m), int((~gt_m.any((1, 2))).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default="InelasticCollision,ProjectileMotion,FreeFall")
    ap.add_argument("--models", default="reference,counterfactual,static")
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--duration", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cores", type=int, default=1)
    ap.add_argument("--crf", type=int, default=None, help="write the predictions as yuv420p H.264 at this CRF, as "
                    "video models deliver them (default: the built-in models' own lossless RGB files)")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[: args.cores]))
    cv2.setNumThreads(args.cores)
    from lawful.suites.applepi import checks
    from lawful.suites.applepi import build as B
    from lawful.suites.applepi import dataset as D
    from lawful.suites.applepi import models as M
    from lawful.suites.applepi import motion
    from lawful.suites.applepi.predictions import Output
    from lawful.video import write_video

    tasks, models = args.tasks.split(","), args.models.split(",")
    with tempfile.TemporaryDirectory() as tmpd:
        tmp = Path(tmpd)
        root = tmp / "ds"
        entries = [B.write_case(root, t, 1, seed=i, width=args.width, height=args.height, duration=args.duration)
                   for i, t in enumerate(tasks)]
        B.write_dataset_index(root, entries)
        pairs = []  # (entry, model, video)
        for e in entries:
            case = D.GTCase(root, e)
            for m in models:
                p = tmp / "pred" / f"{e['case_id']}_{m}.mp4"
                if args.crf is None:
                    M.write_video(p, M.deduction_frames(m, case), case.gt_fps)
                else:
                    write_video(p, M.deduction_frames(m, case), case.gt_fps, crf=args.crf)
                pairs.append((e, m, p))
        D._SHARED.clear()

        def lawful_all(stored=True):
            D._SHARED.clear()
            out, cases = {}, {}
            for e, m, p in pairs:
                if e["case_id"] not in cases:
                    cases = {e["case_id"]: D.GTCase(root, e)}  # one reading per case, shared by its models
                    motion.gt_motion_masks(cases[e["case_id"]], stored=stored)
                c = cases[e["case_id"]]
                out[(e["case_id"], m)] = checks.deduction_motion_masks(c, Output(c.case_id, "deduction", 0, "video", p))
                out[(e["case_id"], m, "empty_gt")] = int((~motion.gt_motion_masks(c).any((1, 2))).sum())
            return out

        def shrink_all():
            D._SHARED.clear()
            out = {}
            for e, m, p in pairs:
                D._SHARED.clear()  # before: every model read its case afresh
                out[(e["case_id"], m)], out[(e["case_id"], m, "empty_gt")] = shrink_first_pair(D.GTCase(root, e), p)
            return out

        def piq_all(files):
            out = {}
            for e, m, p in pairs:
                c = D.GTCase(root, e)
                out[(e["case_id"], m)] = piq_pair(c.dir / "rgb", c.meta, p, files, tmp)
            return out

        def decode_only():
            return {(e["case_id"], m): None for e, m, p in pairs if _decode_all(p) is not None}

        runs = {"lawful": lawful_all, "lawful, GT masks from the PNGs": lambda: lawful_all(False), "lawful, shrink first (before)": shrink_all,
                "Physics-IQ order, in memory": lambda: piq_all(False),
                "Physics-IQ order, mask videos": lambda: piq_all(True),
                "decode the prediction only (floor)": decode_only}
        res, wall, cpu = {}, {}, {}
        for name, fn in runs.items():
            for _ in range(args.repeat):
                t0, c0 = time.perf_counter(), time.process_time()
                res[name] = fn()
                w, c = time.perf_counter() - t0, time.process_time() - c0
                wall[name], cpu[name] = min(wall.get(name, w), w), min(cpu.get(name, c), c)
        n = len(pairs)
        print(f"Deduction motion-mask IoUs, {len(tasks)} cases x {len(models)} models = {n} pairs, "
              f"{args.width}x{args.height}, {args.duration:g} s at 24 fps, "
              f"{'built-in lossless RGB' if args.crf is None else f'yuv420p CRF {args.crf}'} predictions, "
              f"{args.cores} core(s), best of {args.repeat} "
              f"(load average {os.getloadavg()[0]:.1f})")
        ref = res["Physics-IQ order, in memory"]
        for name in runs:
            if name.startswith("decode"):
                print(f"  {name:32s} {1000 * wall[name] / n:8.1f} ms/pair wall {1000 * cpu[name] / n:8.1f} ms/pair CPU"
                      f"   lawful / decode-only: {wall['lawful'] / wall[name]:.2f} (wall), {cpu['lawful'] / cpu[name]:.2f} (CPU)")
                continue
            diff = max(abs(res[name][(e["case_id"], m)][k] - ref[(e["case_id"], m)][k])
                       for e, m, _ in pairs for k in KEYS)
            print(f"  {name:32s} {1000 * wall[name] / n:8.1f} ms/pair wall {1000 * cpu[name] / n:8.1f} ms/pair CPU"
                  f"   max |IoU - Physics-IQ order| {diff:.2e}")
        for name in ("Physics-IQ order, in memory", "Physics-IQ order, mask videos", "lawful, shrink first (before)"):
            for mine in ("lawful", "lawful, GT masks from the PNGs"):
                print(f"  {mine} is {wall[name] / wall[mine]:.1f}x faster (wall), {cpu[name] / cpu[mine]:.1f}x (CPU) "
                      f"than {name}")
        floor = "decode the prediction only (floor)"
        for name in ("Physics-IQ order, in memory", "Physics-IQ order, mask videos"):  # no reader of the video beats it
            print(f"  bound: decoding alone is {wall[name] / wall[floor]:.1f}x faster (wall), "
                  f"{cpu[name] / cpu[floor]:.1f}x (CPU) than {name}")
        for e, m, _ in pairs:
            a, b = res["lawful"], res["lawful, shrink first (before)"]
            k = (e["case_id"], m)
            print(f"  {e['case_id']:28s} {m:15s} " + "  ".join(f"{x.split('_iou')[0]}={a[k][x]:.3f} (before {b[k][x]:.3f})"
                                                              for x in KEYS)
                  + f"  empty GT mask frames {a[k + ('empty_gt',)]} (before {b[k + ('empty_gt',)]})")


if __name__ == "__main__":
    main()
