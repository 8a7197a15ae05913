"""The still-camera test (lawful.perceive.camera_still): a fixed camera with noise, flicker and small moving
things is proven still without tracking a corner; any real motion (a 1.5 px drift, a pan, a zoom) falls
back to the full estimation, which recovers it; a backdrop that cannot pin a motion is never 'still'."""

import cv2
import numpy as np
import pytest
from test_perceive_camera import H, W, backdrop, corner_error, estimate, shoot

from lawful.perceive import camera
from lawful.perceive import camera_dense as dense
from lawful.perceive.camera_still import StillTest


def _flickered(frames, seed=5, amp=0.03):
    rng = np.random.default_rng(seed)
    return [np.clip(f * (1 + rng.uniform(-amp, amp)), 0, 255).astype(np.uint8) for f in frames]


def _with_mover(frames):
    """A small dark square crossing the frame, not boxed (nobody tracks it)."""
    out = []
    for i, f in enumerate(frames):
        g = f.copy()
        x = 30 + 6 * i
        g[100:116, x:x + 16] = 30
        out.append(g)
    return out


def test_fixed_camera_with_noise_flicker_and_a_small_mover_is_still_without_corners():
    frames = _with_mover(_flickered(shoot(backdrop("textured"), None, "fixed", n=33, noise=4.0)[0]))
    est = estimate(frames)
    s = est.summary()
    assert s["still"]["path"] == "still" and s["still"]["tested"] == 2, s["still"]
    assert s["methods"] == {"first": 1, "still": 2, "interpolated": 30}
    assert s["static"] is True and s["used"] is False and s["max_shift_px"] < 0.2
    assert len(est._pts) == 0  # no corner was ever detected or tracked


def _drift(frames, px):
    n = len(frames)
    return [cv2.warpAffine(f, np.float32([[1, 0, px * i / (n - 1)], [0, 1, 0]]), (W, H), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE) for i, f in enumerate(frames)]


def test_a_slow_drift_of_1_5_px_is_not_still_and_is_compensated():
    frames = _drift(shoot(backdrop("textured"), None, "fixed", n=33, noise=4.0)[0], 1.5)
    s = estimate(frames).summary()
    assert s["still"]["path"] == "full" and "moved" in s["still"]["reason"], s["still"]
    assert s["used"] is True and abs(s["max_shift_px"] - 1.5) < 0.2


@pytest.mark.parametrize("motion", ["pan", "zoom"])
def test_a_pan_or_zoom_falls_back_to_full_estimation(motion):
    frames, truth = shoot(backdrop("textured"), None, motion, n=33, fraction=0.05 if motion == "pan" else 0.10)
    est = estimate(frames)
    s = est.summary()
    assert s["still"]["path"] == "full" and s["still"]["tested"] == 1, s["still"]
    assert s["used"] is True and corner_error(est.transforms, truth) < 1.0


def test_a_bare_wall_is_never_proven_still():
    frames = shoot(np.full((H, W, 3), 128, np.uint8), None, "fixed", n=17, noise=2.0)[0]
    s = estimate(frames).summary()
    assert s["still"]["path"] == "full" and "still" not in s["methods"], s["still"]


def test_a_camera_declared_moving_skips_the_still_test():
    est = estimate(shoot(backdrop("textured"), None, "fixed", n=17)[0], min_shift=0.0)
    assert "still" not in est.summary() and len(est._pts) > 0


def test_the_linear_fit_measures_a_known_subpixel_shift_and_its_bound():
    rng = np.random.default_rng(0)
    g0 = cv2.cvtColor(backdrop("textured"), cv2.COLOR_RGB2GRAY).astype(np.float32)
    shot = [g0 + rng.normal(0, 2.0, g0.shape).astype(np.float32) for _ in range(2)]
    moved = cv2.warpAffine(g0, np.float32([[1, 0, 0.15], [0, 1, -0.1]]), (W, H), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE) + rng.normal(0, 2.0, g0.shape).astype(np.float32)
    D0, near, D = (dense.smooth(x) for x in (shot[0], shot[1], moved))
    keep = np.ones(D0.shape, bool)
    got = StillTest(D0, keep, bound=0.5, Z=3.0).test(16, D, keep)
    assert got is not None
    A, info = got
    # frame-k pixel x shows world x - 0.15: it maps back to frame 0 at x - 0.15 (and y + 0.1)
    assert A[0, 2] == pytest.approx(-0.15, abs=0.03) and A[1, 2] == pytest.approx(0.1, abs=0.03)
    assert 0 < info["u"] < 0.03 and info["misfit"] < 0.1
    tight = StillTest(D0, keep, bound=0.1, Z=3.0)
    assert tight.test(16, D, keep) is None and "moved" in tight.failed
