"""A moving camera that also shakes (perceive.camera_refine): every frame is registered to frame 0 where the
path departs between its key frames by more than the registrations' errors; a smooth pan keeps its path."""

import cv2
import numpy as np

from lawful.perceive import camera
from test_perceive_camera import H, W, scene


def _panned(amp: float, seed: int = 7, noise: float = 2.0):
    """The ball scene under a 10 % pan (content moving right) with an AR(1) sub-pixel shake on top (frame 0 as
    drawn) and sensor noise; the true frame -> frame 0 translations [n, 2] and the ball's frame positions."""
    frames, truth = scene()
    rng = np.random.default_rng(seed)
    shift, moves, out, n = np.zeros(2), [], [], len(frames)
    for i, f in enumerate(frames):
        if i:
            shift = np.clip(0.7 * shift + rng.normal(0, 0.35 * amp, 2), -amp, amp)
        move = np.array([0.10 * W * i / (n - 1), 0.0]) + shift
        m = np.float32([[1, 0, move[0]], [0, 1, move[1]]])
        img = cv2.warpAffine(f.astype(np.float32), m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out.append(np.clip(np.rint(img + rng.normal(0, noise, img.shape)), 0, 255).astype(np.uint8))
        moves.append(move)
    moves = np.array(moves)
    return out, -moves, truth + moves


def _run(frames, where):
    est = camera.CameraMotion()
    for f, (x, y) in zip(frames, where):
        est.update(f, [(x - 14, y - 14, x + 14, y + 14)])
    return est


def _error(transforms, truth) -> np.ndarray:
    """Per frame, the largest error (px) at the frame's corners of a frame -> frame 0 transform."""
    pts = np.array([[0, 0], [W - 1, 0], [0, H - 1], [W - 1, H - 1]], float)
    return np.array([np.abs(camera.apply(np.asarray(A), pts) - (pts + t)).max() for A, t in zip(transforms, truth)])


def test_a_shaking_pan_is_registered_frame_by_frame():
    frames, truth, where = _panned(0.6)
    est = _run(frames, where)
    s = est.summary()
    assert s["used"] and not s["shake"]["used"], s["reason"]  # the still camera's shake cannot follow a pan
    assert s["refine"]["used"], s["reason"]
    path, got = _error(est.estimated(), truth), _error(est.transforms, truth)
    assert np.sqrt(np.mean(path ** 2)) > 0.25  # between its key frames the path misses the shake (0.31 px rms)
    assert np.sqrt(np.mean(got ** 2)) < 0.05, got  # every frame registered: the shake is followed (0.021 px)
    assert s["refine"]["sd_px"] < 0.05 and s["refine"]["chi2_max"] > s["refine"]["bar"]


def test_a_smooth_pan_is_no_worse_registered():
    """Without shake the path's key frames still carry their own errors (0.06 px rms between them here): the
    registrations depart by more than theirs and are used, and are closer to the truth."""
    frames, truth, where = _panned(0.0)
    est = _run(frames, where)
    s = est.summary()
    path, got = _error(est.estimated(), truth), _error(est.transforms, truth)
    assert s["refine"]["used"], s["reason"]
    assert np.sqrt(np.mean(got ** 2)) < min(0.05, np.sqrt(np.mean(path ** 2))), (got, path)


def test_a_pan_beyond_half_the_frame_keeps_its_path():
    frames, truth = scene()
    n, moves, out = len(frames), [], []
    for i, f in enumerate(frames):
        moves.append([0.6 * W * i / (n - 1), 0.0])
        m = np.float32([[1, 0, moves[-1][0]], [0, 1, 0]])
        out.append(cv2.warpAffine(f, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    est = _run(out, truth + np.array(moves))
    s = est.summary()
    assert s["used"] and not s["refine"]["used"], s["reason"]
    assert "shows less than half of frame 0" in s["refine"]["reason"]
    assert all(np.array_equal(a, b) for a, b in zip(est.transforms, est.estimated()))
