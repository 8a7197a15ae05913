"""Per-frame camera shake about a still camera (perceive.camera_shake): measured and undone when its scatter
exceeds its own errors; left alone when only noise is there."""

import cv2
import numpy as np
import pytest

from lawful.perceive import camera
from test_perceive_camera import H, W, scene


def _shaken(amp: float, noise: float, seed: int = 5):
    """The ball scene with every frame shifted by an AR(1) sub-pixel shake (frame 0 unshifted, as a renderer's
    jitter: the whole picture moves) and sensor noise; the true shifts [n, 2]."""
    frames, truth = scene(n=40)
    rng = np.random.default_rng(seed)
    shift, shifts, out = np.zeros(2), [], []
    for i, f in enumerate(frames):
        if i:
            shift = np.clip(0.7 * shift + rng.normal(0, 0.35 * amp, 2), -amp, amp)
        m = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
        img = cv2.warpAffine(f.astype(np.float32), m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out.append(np.clip(np.rint(img + rng.normal(0, noise, img.shape)), 0, 255).astype(np.uint8))
        shifts.append(shift.copy())
    return out, truth + np.array(shifts), np.array(shifts)


def _run(frames, truth):
    est = camera.CameraMotion()
    for f, (x, y) in zip(frames, truth):
        est.update(f, [(x - 14, y - 14, x + 14, y + 14)])
    return est


def test_sub_pixel_shake_is_measured_and_undone():
    frames, truth, shifts = _shaken(0.6, 2.0)
    est = _run(frames, truth)
    s = est.summary()
    assert s["used"] and s["shake"]["used"] and s["shake"]["axes"] == "xy", s["reason"]
    got = -np.array([A[:, 2] for A in est.transforms])  # frame -> frame 0: minus the shake
    err = got - shifts
    assert shifts[1:].std(0).min() > 0.15  # the shake is well above what is asked of its measurement
    assert np.sqrt(np.mean(err ** 2, 0)).max() < 0.05, err
    assert np.all(np.array(s["shake"]["sd_px"]) < 0.05)


def test_noise_alone_is_not_taken_for_shake():
    frames, truth, _ = _shaken(0.0, 3.0)
    s = _run(frames, truth).summary()
    assert not s["used"] and not s["shake"]["used"] and s["shake"]["axes"] == "", s["reason"]
    assert all(c < s["shake"]["bar"] for c in s["shake"]["chi2"])
    # once the first PROBE (4) frames showed none, no later frame is registered (the cost of a still camera)
    from lawful.perceive.camera_shake import PROBE

    assert PROBE == 4 and s["shake"]["frames"] == PROBE, s["shake"]


def test_a_shake_is_compensated_only_where_it_exceeds_its_own_error():
    """Subtracting an estimate leaves its error (sd) in place of the shake: an axis is compensated where the
    estimates' scatter var > 2 sd^2 (with Z sd of margin), here x at 3 sd of scatter, not y at 1.2 sd."""
    from lawful.perceive.camera_shake import Shake

    rng = np.random.default_rng(3)
    sh = Shake(np.zeros((60, 80), np.float32), np.ones((60, 80), bool), stride=1)
    sh.failed = None  # (a blank frame 0 pins nothing; only the verdict on given estimates is tested)
    sd = np.array([0.01, 0.01])
    for _ in range(99):
        sh.est.append((rng.normal(0, 1, 2) * np.array([3.0, 1.2]) * sd, sd, 500))
    v = sh.verdict(100, 3.0)
    assert v["used"] and v["axes"] == "x", v
    assert v["chi2"][1] > 99 + 3 * np.sqrt(2 * 98)  # y's shake is real, yet no larger than its error



def test_a_frame_left_without_an_estimate_takes_its_neighbours_line():
    """A dropped frame (an unpinned axis drifted there) is left out of the verdict's statistic and compensated on
    the line between its neighbours; a key frame checked along no axis departs by nothing."""
    from lawful.perceive.camera_shake import Shake

    rng = np.random.default_rng(4)
    sh = Shake(np.zeros((60, 80), np.float32), np.ones((60, 80), bool), scale=0.5, stride=1)
    sh.failed = None  # (a blank frame 0 pins nothing; only the estimates given here are judged)
    sd = np.array([0.01, 0.01])
    for k in range(1, 40):
        if k == 17:
            sh.est.append((np.full(2, np.nan), np.full(2, np.inf), 0))
            sh.dropped.append(k)
            continue
        sh.est.append((rng.normal(0, 0.2, 2), sd, 500))
    v = sh.verdict(40, 3.0)
    assert v["used"] and v["axes"] == "xy" and v["frames"] == 38 and v["dropped"] == [17], v
    T = sh.transforms()
    want = 0.5 * (sh.est[16][0] + sh.est[18][0]) / 0.5  # frame px: the shift's work px over the scale
    assert np.allclose(-T[17][:, 2], want) and np.all(np.isfinite(np.array(T)))
    corners = np.array([[0.0, 0.0], [79.0, 59.0]])
    assert sh.agrees([(0, np.eye(2, 3), "first", {}), (5, np.eye(2, 3) + 9.0, "lk", {"u": 0.01})], corners, 3.0, 0.5,
                     along=(False, False))


def test_a_frame_identical_to_frame_0_has_the_error_rounding_alone_leaves():
    """A noise-free render leaves zero residuals where the codec copied the background: the cluster-robust error
    alone would be 0 (a shift 'known' exactly, so any 0.0005-px codec wobble is significant). Each frame's error
    is at least what the two images' rounding leaves, _QUANT^2 (J'J)^-1 with J = [gradient, intensity, 1]."""
    from lawful.perceive import camera_dense as dense
    from lawful.perceive.camera_shake import Shake

    frames, truth = scene(n=2)
    D0 = dense.smooth(cv2.cvtColor(frames[0], cv2.COLOR_RGB2GRAY))
    keep = np.ones(D0.shape, bool)
    sh = Shake(D0, keep)
    sh.add(D0, keep)
    d, sd, n = sh.est[-1]
    J = np.column_stack([sh.g0, sh.R - sh.R.mean(), np.ones(len(sh.R))])
    want = dense._QUANT * np.sqrt(np.diag(np.linalg.inv(J.T @ J))[:2])
    assert np.all(d == 0) and n == len(sh.R)
    assert sd == pytest.approx(want, rel=1e-6) and np.all(want > 0)


@pytest.mark.parametrize("seen_at, stops_at", [((), 4), ((4,), 8), ((4, 8), 16), ((4, 8, 16), None)])
def test_the_probe_rules_at_4_frames_and_again_at_8_and_16_while_it_saw_shake(monkeypatch, seen_at, stops_at):
    """Where the first 4 frames' scatter crosses the bar, the test is made again at 8, and where 8 cross it too, at 16
    (what moves on its own below the moving mask passes for shake more often with few degrees of freedom); where one
    of them shows no shake, no later frame is registered; where all three do, every frame is."""
    from lawful.perceive.camera_shake import PROBE, Shake

    real = Shake.chi

    def chi(est, Z):
        c, fin, bar = real(est, Z)
        return (np.full(2, bar + 1.0) if len(est) in seen_at else np.zeros(2)), np.ones(2, bool), bar

    monkeypatch.setattr(Shake, "chi", staticmethod(chi))
    frames, truth, _ = _shaken(0.0, 3.0)
    s = _run(frames, truth).summary()
    assert PROBE == 4
    if stops_at is None:
        assert s["shake"]["frames"] == len(frames) - 1
    else:
        assert s["shake"]["frames"] == stops_at and f"the first {stops_at} frames showed no shake" in s["shake"]["reason"]
