"""A direction of camera motion is pinned only by still structure that a change of brightness cannot mimic.

Shifting a brightness ramp (a gradient backdrop) changes every pixel by the same amount: with the gain and
offset of a flicker fitted too, the ramp says nothing about a shift across it, however steep. The intensity
registration (:func:`lawful.perceive.camera_dense.covariance`) and the per-frame shake
(:class:`lawful.perceive.camera_shake.Shake`) judge a direction by its information once gain and offset are
fitted; the shake states no error along an axis it cannot pin and does not start the next frame from it.
"""

import cv2
import numpy as np

from lawful.perceive import camera
from lawful.perceive import camera_dense as dense

H, W = 360, 640


def _points(rng, n=1500, w=320, h=180):
    """Points ``[n, 2]`` (work px) and their offsets from the image centre."""
    y = np.column_stack([rng.uniform(4, w - 4, n), rng.uniform(4, h - 4, n)])
    return y, y - [(w - 1) / 2, (h - 1) / 2]


def _covariance(gx, gy, R, y, d, rng, w=320, h=180):
    J = np.column_stack([gx * d[:, 0] + gy * d[:, 1], -gx * d[:, 1] + gy * d[:, 0], gx, gy, R, np.ones(len(R))])
    wt, e = np.ones(len(R)), rng.normal(0, 1.0, len(R))
    return dense.covariance(J, wt, e, y, d, J.T @ J, w, h, grad_noise=0.05)


def test_a_linear_ramp_pins_no_shift_across_it():
    """Vertical edges (x gradient only) on a vertical ramp (the same y gradient everywhere, intensity linear in y):
    x and the turn are pinned, y is not (its column is the offset's); a textured backdrop pins it."""
    rng = np.random.default_rng(0)
    y, d = _points(rng)
    gx = np.where(rng.random(len(y)) < 0.3, rng.choice([-8.0, 8.0], len(y)), 0.0)  # the poles' edges
    R = 60.0 + 0.4 * y[:, 1]  # the ramp: 0.4 grey levels per px, eight times the gradient of noise
    sd, snr, weak, _, _ = _covariance(gx, np.full(len(y), 0.4), R, y, d, rng)
    assert not np.isfinite(sd) and snr < 1.0, (sd, snr)
    assert abs(weak[3]) == 1.0  # the weakest direction is the y shift
    textured = rng.normal(0, 3.0, len(y))  # the same points on a texture: y gradients unrelated to intensity
    sd, snr, *_ = _covariance(gx, textured, R + rng.normal(0, 20.0, len(y)), y, d, rng)
    assert np.isfinite(sd) and snr > dense.SIGMAS


def _ramp_scene(n=40, seed=0, amp=0.6):
    """A gradient backdrop (brightness linear in y), two bright poles, every frame jittered by an AR(1) sub-pixel
    shake (frame 0 unshifted), flickered by up to 2.5 % and noised; the true shifts ``[n, 2]``."""
    rng = np.random.default_rng(seed)
    base = np.repeat(60 + 0.12 * np.arange(H, dtype=np.float32)[:, None], W, 1)
    for x in (100, 540):
        base[:, x - 4:x + 4] = 140.0
    base = cv2.GaussianBlur(base, (0, 0), 0.7)
    shift, shifts, out = np.zeros(2), [], []
    for i in range(n):
        if i:
            shift = np.clip(0.7 * shift + rng.normal(0, 0.35 * amp, 2), -amp, amp)
        m = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
        img = cv2.warpAffine(base, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        img = img * (1 + 0.025 * rng.uniform(-1, 1)) + rng.normal(0, 1.5, img.shape)
        g = np.clip(np.rint(img), 0, 255).astype(np.uint8)
        out.append(np.repeat(g[:, :, None], 3, 2))
        shifts.append(shift.copy())
    return out, np.array(shifts)


def test_the_shake_undoes_only_the_axis_it_can_pin():
    """Poles pin x, the ramp pins nothing along y: no frame states an error for its y shift (before, the ramp's
    gradient counted as information), x follows the shake within 0.05 px, and only x is undone."""
    frames, shifts = _ramp_scene()
    est = camera.CameraMotion()
    for f in frames:
        est.update(f, [])
    s = est.summary()
    sh = est._shake
    d = np.array([e[0] for e in sh.est]) / sh.s
    sd = np.array([e[1] for e in sh.est]) / sh.s
    assert sh.failed is None and len(d) == len(frames)
    assert not np.any(np.isfinite(sd[1:, 1])), sd[:, 1]
    assert np.sqrt(np.mean((d[1:, 0] - shifts[1:, 0]) ** 2)) < 0.05
    assert s["shake"]["used"] and s["shake"]["axes"] == "x", s["reason"]
    got = np.array([-A[:, 2] for A in est.transforms])
    assert np.abs(got[:, 1]).max() == 0.0 and np.sqrt(np.mean((got[:, 0] - shifts[:, 0]) ** 2)) < 0.05


def _shift(dx):
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, 0.0]])


def test_a_path_that_moves_an_object_sitting_still_in_the_picture_is_not_the_cameras():
    from lawful.perceive.camera_path import STILL_PX, moves_still_object

    block = np.array([[100.0, 50.0, 140.0, 90.0]])
    boxes = [block + [3.0 * min(k, 10), 0, 3.0 * min(k, 10), 0] for k in range(20)]  # pushed 3 px a frame, then still
    u = 0.2  # the key frames' stated error
    keys = [(k, _shift(dx), "dense", {"u": u}) for k, dx in ((0, 0.0), (10, -0.3), (15, -0.4), (19, -2.5))]
    why = moves_still_object(keys, boxes, [19], (True, False), Z=3.0, floor=1.0)
    # still from frame 10 on; frames 10 and 19 put it 2.2 px apart along x: beyond 1 + max(1, 3 * 0.2 * sqrt 2)
    assert why is not None and "from frame 10 to 19" in why and "2.2 work px" in why
    assert moves_still_object(keys, boxes, [19], (False, True), Z=3.0, floor=1.0) is None  # not along y
    # within the tolerance: 1.9 px is not beyond STILL_PX + floor (2 px)
    near = keys[:3] + [(19, _shift(-0.3 - (STILL_PX + 0.9)), "dense", {"u": u})]
    assert moves_still_object(near, boxes, [19], (True, False), Z=3.0, floor=1.0) is None
    # a box that moves with the path (a camera pan) is no contradiction, nor is one still only against a hold
    panned = [b + [2.5 * (k >= 19), 0, 2.5 * (k >= 19), 0] for k, b in enumerate(boxes)]
    assert moves_still_object(keys, panned, [19], (True, False), Z=3.0, floor=1.0) is None
    held = keys[:1] + [(10, _shift(0.0), "hold", {"u": float("inf")}), (15, _shift(0.0), "hold", {}), keys[3]]
    assert moves_still_object(held, boxes, [19], (True, False), Z=3.0, floor=1.0) is None
