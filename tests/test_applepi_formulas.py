"""Apple-π formulas (E.2) and the release's time rule on inputs whose answers are known by hand."""

import math

import numpy as np
import pytest

from lawful.score import applepi as F
from lawful.suites.applepi.motion import motion_masks


# --- PSNR -----------------------------------------------------------------------------------
def test_psnr_hand_computed():
    a = np.zeros((4, 4, 3), np.uint8)
    b = np.full((4, 4, 3), 10, np.uint8)  # MSE = 100
    assert F.psnr(a, b) == pytest.approx(10 * math.log10(255**2 / 100))  # 28.1308 dB
    assert F.psnr_score(F.psnr(a, b)) == pytest.approx(28.130803608679102 / 40)
    assert F.psnr(a, a) == math.inf and F.psnr_score(math.inf) == 1.0
    assert F.psnr_score(45.0) == 1.0  # clipped at 40 dB


def test_masked_psnr_uses_only_mask_pixels():
    a = np.zeros((2, 2, 3), np.uint8)
    b = a.copy()
    b[0, 0] = 20  # only this pixel differs: MSE on it = 400
    b[1, 1] = 200
    m = np.array([[True, False], [False, False]])
    assert F.psnr(a, b, m) == pytest.approx(10 * math.log10(255**2 / 400))
    assert math.isnan(F.psnr(a, b, np.zeros((2, 2), bool)))


# --- IoUs --------------------------------------------------------------------------------------
def _masks():
    gen = np.zeros((2, 3, 3), bool)
    gt = np.zeros((2, 3, 3), bool)
    gen[0, 0, 0:2] = True  # frame 0: gen {(0,0),(0,1)}, gt {(0,1)}
    gt[0, 0, 1] = True
    gen[1, 2, 2] = True  # frame 1: gen {(2,2)}, gt {(2,2),(2,1)}
    gt[1, 2, 1:3] = True
    return gen, gt


def test_ious_hand_computed():
    gen, gt = _masks()
    # spatial: gen ever = {00,01,22}, gt ever = {01,21,22}: inter 2, union 4
    assert F.spatial_iou(gen, gt) == pytest.approx(0.5)
    # per frame 1/2 and 1/2
    assert F.spatiotemporal_iou(gen, gt) == pytest.approx(0.5)
    # W_gen = 0.5 at 00,01,22; W_gt = 0.5 at 01,21,22 -> sum min = 1.0, sum max = 2.0
    assert F.weighted_spatial_iou(gen, gt) == pytest.approx(0.5)
    # weighted IoU distinguishes how often a pixel moves
    gen2 = np.zeros((4, 1, 2), bool)
    gt2 = np.zeros((4, 1, 2), bool)
    gen2[:, 0, 0] = True  # every frame
    gt2[0, 0, 0] = True  # once
    assert F.spatial_iou(gen2, gt2) == 1.0
    assert F.weighted_spatial_iou(gen2, gt2) == pytest.approx(0.25)
    # clips of different lengths compare per-pixel means: W_gen = 1 (4 of 4), W_gt = 1/2 (1 of 2) -> 0.5
    assert F.weighted_spatial_iou(gen2, gt2[:2]) == pytest.approx(0.5)


def test_empty_unions_follow_the_seeds_epsilon_or_physics_iq_when_asked():
    z = np.zeros((3, 4, 4), bool)
    for f in (F.spatial_iou, F.spatiotemporal_iou, F.weighted_spatial_iou):
        assert f(z, z) == 0.0  # Apple-π E.2: |A ∧ B| / (|A ∨ B| + ε)
        assert f(z, z, empty=1.0) == 1.0  # Physics-IQ
    # an object that leaves the view in both clips: the empty frames earn nothing (they earned 1.0 before)
    gen = np.zeros((4, 2, 2), bool)
    gen[:2, 0, 0] = True
    assert F.spatiotemporal_iou(gen, gen.copy()) == pytest.approx(0.5)
    assert F.spatiotemporal_iou(gen, gen.copy(), empty=1.0) == 1.0


def _physics_iq_reference(gen, gt):
    """Physics-IQ's three definitions written out with plain loops (independent of lawful's code)."""
    T, H, W = gen.shape
    per = []
    for t in range(T):
        inter = union = 0
        for y in range(H):
            for x in range(W):
                inter += gen[t, y, x] and gt[t, y, x]
                union += gen[t, y, x] or gt[t, y, x]
        per.append(1.0 if union == 0 else inter / union)
    st = sum(per) / T
    inter = union = 0
    num = den = 0.0
    for y in range(H):
        for x in range(W):
            a = any(gen[:, y, x])
            b = any(gt[:, y, x])
            inter += a and b
            union += a or b
            wa = sum(gen[:, y, x]) / T
            wb = sum(gt[:, y, x]) / T
            if wa or wb:
                num += min(wa, wb)
                den += max(wa, wb)
    sp = 1.0 if union == 0 else inter / union
    ws = 1.0 if den == 0 else num / den
    return sp, st, ws


@pytest.mark.parametrize("seed", range(6))
def test_ious_equal_physics_iq_definitions(seed):
    rng = np.random.default_rng(seed)
    gen = rng.random((5, 6, 7)) < 0.3
    gt = rng.random((5, 6, 7)) < 0.3
    gen[2] = False  # an empty frame in one sequence
    gt[2] = False  # and in both: per-frame IoU 1.0
    sp, st, ws = _physics_iq_reference(gen, gt)
    assert F.spatial_iou(gen, gt, empty=1.0) == pytest.approx(sp)
    assert F.spatiotemporal_iou(gen, gt, empty=1.0) == pytest.approx(st)
    assert F.weighted_spatial_iou(gen, gt, empty=1.0) == pytest.approx(ws)


# --- velocity -------------------------------------------------------------------------------------
def test_velocity_accuracy_and_lost_object():
    gt = [np.array([1.0, 0.0]), np.array([0.0, -2.0])]
    assert F.velocity_error([np.array([1.0, 0.0]), np.array([0.0, -2.0])], gt) == 0.0
    e = F.velocity_error([np.array([4.0, 4.0]), None], gt)  # |(3,4)| = 5, lost = 100
    assert e == pytest.approx(52.5)
    assert F.velocity_accuracy(e) == pytest.approx(1 / 53.5)
    assert F.velocity_accuracy(1.0) == 0.5


# --- time rule --------------------------------------------------------------------------------
def _release_pred(t, n, d):
    return min(round(t * n / d), n - 1)


def _release_gt(t, fps, n):
    return min(round(t * fps) - 1, n - 1)


def test_time_rule_edges_and_clip_lengths():
    D, fps, n_gt = 2.0, 24.0, 48
    # t = 0: the prediction's first physics frame; the release's GT formula gives -1 (clamped to 0 here)
    assert F.pred_physics_index(0.0, 48, D) == 0
    assert _release_gt(0.0, fps, n_gt) == -1 and F.gt_physics_index(0.0, fps, n_gt) == 0
    # t = duration: the last physics frame on both sides
    assert F.pred_physics_index(D, 48, D) == 47 == _release_pred(D, 48, D)
    assert F.gt_physics_index(D, fps, n_gt) == 47 == _release_gt(D, fps, n_gt)
    for t in np.arange(0.05, D + 1e-9, 0.05):
        assert F.gt_physics_index(t, fps, n_gt) == _release_gt(t, fps, n_gt)
        for n in (12, 48, 97):  # shorter, equal, longer clips than the GT
            assert F.pred_physics_index(t, n, D) == _release_pred(t, n, D)
    # a clip twice as long as the GT samples twice as densely; a short one coarsely
    assert F.pred_physics_index(1.0, 96, D) == 48
    assert F.pred_physics_index(1.0, 12, D) == 6
    # Python's round (half to even), as the release: 0.5 s * 5 frames / 1 s = 2.5 -> 2
    assert F.pred_physics_index(0.5, 5, 1.0) == 2
    assert F.gt_physics_index(12.5 / 24, fps, n_gt) == 11


def test_motion_masks_follow_frame_differences():
    frames = np.full((6, 40, 40, 3), 120, np.uint8)
    for i in range(6):
        frames[i, 10:20, 5 + 4 * i: 15 + 4 * i] = 250  # a bright square moving right
    m = motion_masks(frames, (40, 40))  # Physics-IQ's masks (lawful.suites.applepi.motion), kept at full size
    assert m.shape == (6, 40, 40)
    assert not m[0].any()  # the first mask is all zeros
    assert m[3, 15, 5 + 4 * 3 + 5]  # inside the moved square
    assert not m[3, 35, 35]  # static background
    still = motion_masks(np.repeat(frames[:1], 5, 0), (40, 40))
    assert not still.any()
