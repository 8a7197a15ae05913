"""Physics-IQ motion masks and IoUs against a slow reference written here from the published definitions.

The reference follows the paper's formulas with plain integer/float NumPy (no OpenCV): luma
0.299 R + 0.587 G + 0.114 B, the binomial 5x5 Gaussian [1 4 6 4 1]²/256 (mirrored borders), a running
background ``0.7 bg + 0.3 gray`` in double precision, difference to the rounded background above 10,
open then close with a 5x5 square, then the bilinear shrink to a quarter of the GT size (pixel centres
``(x + 0.5)·s − 0.5``) and ``> 127``. With integer frames the background often lands exactly on a
half (0.7·90 + 0.3·115 = 97.5), so the roundings are part of the definition: Physics-IQ's numbers come
from OpenCV, whose running average is one fused multiply-add, ``bg·0.7 + (0.3·gray)``, rounded once (the
reference computes it exactly with fractions), and whose background is rounded from single precision,
ties to even. Frame widths are multiples of 4 (as the quarter size needs). Clips use a palette whose
luma is never within 0.02 of a rounding tie and are stored losslessly (PNG, FFV1), so masks must agree
exactly and IoUs to 1e-6.
"""

import json
import os
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from lawful.suites.applepi import checks
from lawful.suites.applepi import build as B
from lawful.suites.applepi import dataset as D
from lawful.suites.applepi import motion
from lawful.suites.applepi.predictions import Output

PALETTE = np.array([[30, 30, 30], [200, 60, 40], [40, 160, 220], [250, 250, 250], [120, 200, 80], [90, 90, 140],
                    [180, 180, 175], [60, 120, 60]], np.uint8)


# --- the reference, from the formulas ---------------------------------------------------------
def ref_gray(rgb):
    y = rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114
    return np.floor(y + 0.5).astype(np.int64)


def ref_blur(g):
    k = np.array([1, 4, 6, 4, 1], np.int64)
    p = np.pad(g, 2, mode="reflect")  # mirror without repeating the edge pixel
    h, w = g.shape
    rows = sum(k[i] * p[i:i + h, :] for i in range(5))
    s = sum(k[j] * rows[:, j:j + w] for j in range(5))
    return (s + 128) // 256


def ref_morph(m, op):
    h, w = m.shape
    fill = 1 if op == "erode" else 0  # outside pixels never decide
    p = np.pad(m, 2, constant_values=fill)
    win = np.stack([p[i:i + h, j:j + w] for i in range(5) for j in range(5)])
    return win.min(0) if op == "erode" else win.max(0)


def ref_shrink(m255, w4, h4):
    h, w = m255.shape

    def axis(n, n4):
        s = (np.arange(n4) + 0.5) * n / n4 - 0.5
        i0 = np.clip(np.floor(s).astype(int), 0, n - 1)
        f = s - np.floor(s)
        return i0, np.clip(i0 + 1, 0, n - 1), f

    y0, y1, fy = axis(h, h4)
    x0, x1, fx = axis(w, w4)
    m = m255.astype(float)
    top = m[y0][:, x0] * (1 - fx) + m[y0][:, x1] * fx
    bot = m[y1][:, x0] * (1 - fx) + m[y1][:, x1] * fx
    v = top * (1 - fy)[:, None] + bot * fy[:, None]
    return np.floor(v + 0.5) > 127


def ref_background(bg, g):
    """``bg·0.7 + g·0.3`` with one rounding (a fused multiply-add), exactly."""
    pairs, where = np.unique(np.stack([bg.ravel(), (g * 0.3).ravel()], 1), axis=0, return_inverse=True)
    exact = np.array([float(Fraction(b) * Fraction(0.7) + Fraction(x)) for b, x in pairs.tolist()])
    return exact[where.ravel()].reshape(bg.shape)


def ref_round(bg):
    return np.rint(bg.astype(np.float32)).astype(np.int64)  # to single precision, then to nearest, ties to even


def ref_masks(frames, w4, h4):
    out, bg = [], None
    for f in frames:
        g = ref_blur(ref_gray(f.astype(np.float64)))
        if bg is None:
            bg = g.astype(np.float64)
            out.append(np.zeros((h4, w4), bool))
            continue
        bg = ref_background(bg, g.astype(np.float64))
        m = (np.abs(g - ref_round(bg)) > 10).astype(np.int64)
        m = ref_morph(ref_morph(m, "erode"), "dilate")  # open
        m = ref_morph(ref_morph(m, "dilate"), "erode")  # close
        out.append(ref_shrink(m * 255, w4, h4))
    return np.stack(out)


def ref_ious(a, b):
    a, b = a.astype(bool), b.astype(bool)
    per = [1.0 if not (x | y).any() else (x & y).sum() / (x | y).sum() for x, y in zip(a, b)]
    sa, sb = a.any(0), b.any(0)
    spatial = 1.0 if not (sa | sb).any() else (sa & sb).sum() / (sa | sb).sum()
    wa, wb = a.mean(0), b.mean(0)
    weighted = 1.0 if np.maximum(wa, wb).sum() == 0 else np.minimum(wa, wb).sum() / np.maximum(wa, wb).sum()
    return {"spatial_iou_motion": spatial, "spatiotemporal_iou_motion": float(np.mean(per)),
            "weighted_spatial_iou_motion": weighted}


# --- synthetic clips -------------------------------------------------------------------------
def _clip(seed, n, h, w, speed=(3.0, 1.5), size=9, fade=False):
    """Palette texture background, a palette disc moving with sub-pixel steps (edges land anywhere on the
    4x4 grid), a second shape appearing half way, optionally a slow colour change of one region."""
    rng = np.random.default_rng(seed)
    bg = PALETTE[rng.integers(0, len(PALETTE), (h // 3 + 1, w // 3 + 1))].repeat(3, 0).repeat(3, 1)[:h, :w]
    yy, xx = np.mgrid[:h, :w]
    out = []
    for k in range(n):
        f = bg.copy()
        cx, cy = 10 + speed[0] * k + 0.37, 12 + speed[1] * k + 0.61
        f[(xx - cx) ** 2 + (yy - cy) ** 2 <= size ** 2] = PALETTE[1]
        if k >= n // 2:
            f[h - 20:h - 8, w - 30 + k: w - 14 + k] = PALETTE[3]
        if fade:
            f[:8, :16] = PALETTE[k % len(PALETTE)]
        out.append(f)
    return out


def test_palette_is_far_from_rounding_ties():
    y = PALETTE.astype(float) @ np.array([0.299, 0.587, 0.114])
    assert np.all(np.abs(y - np.floor(y) - 0.5) > 0.02)


@pytest.mark.parametrize("seed,h,w,fade", [(0, 64, 96, False), (1, 80, 120, True), (2, 44, 68, False)])
def test_masks_equal_reference(seed, h, w, fade):
    frames = _clip(seed, 14, h, w, fade=fade)
    ref = ref_masks(frames, w // 4, h // 4)
    got = motion.motion_masks(frames, motion.eval_size((h, w)))
    assert got.shape == ref.shape and got.dtype == bool
    assert ref[1:].any(), "the clip must move"
    assert np.array_equal(got, ref)
    bgr = motion.motion_masks([f[..., ::-1] for f in frames], motion.eval_size((h, w)), order="bgr")
    assert np.array_equal(bgr, ref)


def test_mask_first_differs_from_shrink_first():
    # the order matters: thin or low-contrast motion survives at full resolution, not after INTER_AREA
    frames = _clip(3, 12, 64, 96, speed=(1.0, 0.0), size=3)
    full_first = ref_masks(frames, 24, 16)
    shrink_first = ref_masks([cv2.resize(f, (24, 16), interpolation=cv2.INTER_AREA) for f in frames], 24, 16)
    assert not np.array_equal(full_first, shrink_first)
    assert np.array_equal(motion.motion_masks(frames, (24, 16)), full_first)


def _write_ffv1(path: Path, frames, fps=24):
    with av.open(str(path), "w") as c:
        s = c.add_stream("ffv1", rate=fps)
        s.width, s.height, s.pix_fmt = frames[0].shape[1], frames[0].shape[0], "bgr0"
        for f in frames:
            for pkt in s.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(f), format="rgb24")):
                c.mux(pkt)
        for pkt in s.encode():
            c.mux(pkt)


def _case(root: Path, frames, fps=24.0) -> D.GTCase:
    d = root / "cases/UniversalGravitation/FreeFall/000001"
    for k, f in enumerate(frames):
        D.imwrite(d / "rgb" / f"{k:04d}.png", f)
    D.imwrite(d / "initial_state/rgb_0000.png", frames[0])
    n = len(frames)
    (d / "metadata.json").write_text(json.dumps({
        "case_id": "FreeFall_000001", "physics_type": "FreeFall", "is_realworld": False,
        "input_image": "initial_state/rgb_0000.png", "clean_first_frame": "rgb/0000.png", "gt_frames_dir": "rgb",
        "gt_fps": fps, "physics_duration": (n - 1) / fps, "gt_total_frames": n, "deduction_timestamps": [0.25]}))
    return D.GTCase(root, {"case_id": "FreeFall_000001", "path": "cases/UniversalGravitation/FreeFall/000001"})


@pytest.mark.parametrize("n_pred", [17, 33, 9])
def test_deduction_ious_equal_reference_through_lossless_files(tmp_path, n_pred):
    """GT as PNG frames, the prediction as an FFV1 video with its own frame count (time rule resampling)."""
    gt = _clip(4, 17, 64, 96)
    pred = _clip(5, n_pred, 64, 96, speed=(2.0, 2.5))
    case = _case(tmp_path / "ds", gt)
    video = tmp_path / "rollout_00.mkv"
    _write_ffv1(video, pred)
    got = checks.deduction_motion_masks(case, Output(case.case_id, "deduction", 0, "video", video))
    n_gt = len(gt) - 1
    pidx = [min(round((k / 24.0) * (n_pred - 1) / case.physics_duration), n_pred - 2) + 1 for k in range(1, n_gt + 1)]
    want = ref_ious(ref_masks([pred[i] for i in pidx], 24, 16), ref_masks(gt[1:], 24, 16))
    for k, v in want.items():
        assert abs(got[k] - v) <= 1e-6, (k, got[k], v)
    assert 0 < want["spatiotemporal_iou_motion"] < 1


def test_ground_truth_computed_once_per_case_and_files(tmp_path, monkeypatch):
    gt = _clip(6, 13, 64, 96)
    case = _case(tmp_path / "ds", gt)
    first = motion.gt_motion_masks(case)
    reads = []
    monkeypatch.setattr(D, "imread", lambda p: reads.append(p) or cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2RGB))
    again = D.GTCase(case.root, case.entry)  # another model's or rollout's reading of the same case
    assert motion.gt_motion_masks(again) is first and not reads
    f = case.dir / "rgb/0005.png"  # a changed file is a different case
    D.imwrite(f, np.ascontiguousarray(gt[5][:, ::-1]))
    changed = D.GTCase(case.root, case.entry)
    m = motion.gt_motion_masks(changed)
    assert reads and m is not first and not np.array_equal(m, first)


def test_masks_kept_with_a_lawful_case_are_the_frames_masks_until_a_frame_changes(tmp_path):
    root = tmp_path / "ds"
    entry = B.write_case(root, "FreeFall", 1, seed=2, width=160, height=96, duration=0.75)
    case = D.GTCase(root, entry)
    assert (case.dir / motion.STORE).exists()
    kept = motion.gt_motion_masks(case)
    D._SHARED.clear()
    fresh = motion.gt_motion_masks(D.GTCase(root, entry), stored=False)  # from the PNG frames
    assert kept.any() and np.array_equal(kept, fresh)
    f = case.dir / "rgb/0003.png"
    D.imwrite(f, np.ascontiguousarray(D.imread(f)[::-1]))  # a changed frame: the kept masks no longer apply
    D._SHARED.clear()
    changed = D.GTCase(root, entry)
    assert motion._stored(changed, motion.gt_indices(changed), motion.MAX_SECONDS) is None
    now = motion.gt_motion_masks(changed)
    D._SHARED.clear()
    assert not np.array_equal(now, kept)
    assert np.array_equal(now, motion.gt_motion_masks(D.GTCase(root, entry), stored=False))


def test_kept_masks_of_untouched_frames_are_used_without_reading_the_frames(tmp_path, monkeypatch):
    """Frames whose sizes and modification times are those stored skip the digest; a frame touched but not
    changed is read and digested, and still matches."""
    root = tmp_path / "ds"
    entry = B.write_case(root, "FreeFall", 1, seed=3, width=160, height=96, duration=0.5)
    digested = []
    real = motion._digest
    monkeypatch.setattr(motion, "_digest", lambda files: digested.append(1) or real(files))
    monkeypatch.setattr(D, "imread", lambda p: pytest.fail(f"read {p}"))
    case = D.GTCase(root, entry)
    assert case.shape == (96, 160)  # from the input image's header
    kept = motion._stored(case, motion.gt_indices(case), motion.MAX_SECONDS)
    assert kept is not None and kept.any() and not digested
    f = case.dir / "rgb/0002.png"
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    again = motion._stored(case, motion.gt_indices(case), motion.MAX_SECONDS)
    assert digested and np.array_equal(again, kept)


@pytest.mark.parametrize("seed", [0, 10])  # seeds where a crop without margin goes wrong
def test_masks_of_scattered_specks_and_edge_blobs_equal_reference(seed):
    """Specks that opening removes, gaps that closing fills, blobs at the frame's edges and far apart: the
    morphology (done on a crop around the moving pixels) must equal the whole-frame definition."""
    rng = np.random.default_rng(seed)
    h, w = 60, 88
    frames = [np.full((h, w, 3), PALETTE[0], np.uint8)]
    for k in range(4):
        f = frames[0].copy()
        for _ in range(6):
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            f[y:y + int(rng.integers(1, 9)), x:x + int(rng.integers(1, 9))] = PALETTE[3]
        f[:3, w - 5 - k:] = PALETTE[1]  # touching two edges
        f[h - 7:h - 2, :4 + k] = PALETTE[2]
        frames.append(f)
    ref = ref_masks(frames, w // 4, h // 4)
    assert ref[1:].any()
    assert np.array_equal(motion.motion_masks(frames, motion.eval_size((h, w))), ref)
