"""Perturbations do what they say, measured on known patterns."""

import cv2
import numpy as np

from lawful.world.perturb import camera_pan, camera_zoom, flicker, gaussian_noise, hue_shift, noise_frames, reencode


def _dots(points, w=200, h=120):
    f = np.full((h, w, 3), 60, np.uint8)
    for x, y in points:
        cv2.circle(f, (x, y), 4, (250, 250, 250), -1, cv2.LINE_AA)
    return f


def _centroid(frame, region=None):
    v = frame[..., 0].astype(float) - 60
    v[v < 0] = 0
    if region is not None:
        m = np.zeros_like(v)
        m[region] = 1
        v = v * m
    yy, xx = np.mgrid[: v.shape[0], : v.shape[1]]
    return (v * xx).sum() / v.sum(), (v * yy).sum() / v.sum()


def test_pan_shifts_dot_progressively():
    frames = [_dots([(60, 50)])] * 11
    out = list(camera_pan(frames, fraction=0.05, axis="x"))
    x0, y0 = _centroid(out[0])
    assert abs(_centroid(out[5])[0] - x0 - 5.0) < 0.1
    assert abs(_centroid(out[-1])[0] - x0 - 10.0) < 0.1 and abs(_centroid(out[-1])[1] - y0) < 0.05
    outy = list(camera_pan(iter(frames), fraction=0.05, axis="y", n_frames=11))
    assert abs(_centroid(outy[-1])[1] - y0 - 6.0) < 0.1


def test_zoom_scales_about_centre():
    f = _dots([(49, 59), (149, 59)], w=199, h=119)  # symmetric about the centre (99, 59)
    out = list(camera_zoom([f] * 5, fraction=0.05))
    left, right = (np.s_[:, :99], np.s_[:, 100:])
    d0 = _centroid(out[0], right)[0] - _centroid(out[0], left)[0]
    d1 = _centroid(out[-1], right)[0] - _centroid(out[-1], left)[0]
    assert abs(d1 / d0 - 1.05) < 0.003
    assert abs(_centroid(out[-1], left)[1] - 59) < 0.05


def test_hue_shift_moves_hue_by_degrees():
    rng = np.random.default_rng(0)
    hsv = np.stack([rng.uniform(0, 360, (20, 20)), rng.uniform(0.6, 1, (20, 20)), rng.uniform(0.6, 1, (20, 20))], -1)
    f = np.rint(cv2.cvtColor(hsv.astype(np.float32), cv2.COLOR_HSV2RGB) * 255).astype(np.uint8)

    def hue(img):
        return cv2.cvtColor(img.astype(np.float32) / 255, cv2.COLOR_RGB2HSV)[..., 0]

    d = (hue(hue_shift(f, 10)) - hue(f) + 180) % 360 - 180
    assert abs(np.median(d) - 10) < 0.5 and np.abs(d - 10).max() < 3


def test_noise_std():
    f = np.full((120, 160, 3), 128, np.uint8)
    d = gaussian_noise(f, rng=np.random.default_rng(1)).astype(float) - 128
    assert abs(d.std() - 8.0) < 0.2 and abs(d.mean()) < 0.2
    assert np.array_equal(gaussian_noise(f, rng=3), gaussian_noise(f, rng=3))
    a, b = noise_frames([f, f], seed=2)
    assert not np.array_equal(a, b) and abs((a.astype(float) - 128).std() - 8.0) < 0.2


def test_reencode_round_trip():
    yy, xx = np.mgrid[:64, :96]
    frames = [np.stack([(xx * 2 + i) % 256, yy * 3, np.full_like(xx, 100)], -1).astype(np.uint8) for i in range(6)]
    out = reencode(frames, fps=12, crf=35)
    assert len(out) == 6 and out[0].shape == (64, 96, 3) and out[0].dtype == np.uint8
    err = np.abs(out[3].astype(float) - frames[3]).mean()
    assert 0.1 < err < 12
    odd = reencode([frames[0][:63, :95]], fps=12)
    assert odd[0].shape == (63, 95, 3)


def test_flicker_scales_each_frame_by_a_bounded_drifting_gain():
    f = np.full((8, 8, 3), 100, np.uint8)
    out = [g[0, 0, 0] / 100.0 for g in flicker([f] * 80, amplitude=0.08, seed=3)]
    gains = np.array(out)
    assert np.abs(gains - 1).max() <= 0.08 * (0.75 + 0.25 * 2) + 0.005  # the swing plus the clipped jitter
    assert gains.std() > 0.03  # it does change the exposure
    slow = np.convolve(gains, np.ones(9) / 9, "valid")
    assert np.ptp(slow) > 0.08  # a slow swing, not jitter only
    again = [g[0, 0, 0] for g in flicker([f] * 80, amplitude=0.08, seed=3)]
    assert np.array_equal(np.array(again) / 100.0, gains)
