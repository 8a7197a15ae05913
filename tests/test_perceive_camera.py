"""Camera-motion compensation: a progressive pan or zoom is undone; a static camera stays identity."""

import cv2
import numpy as np

from lawful.case import Case, ObjectSpec
from lawful.perceive import camera
from lawful.perceive.track import track
from lawful.suites.base import TrackingPlan
from lawful.video import write_video

W, H, N = 320, 240, 48
RED = (220, 40, 40)


def scene(n=N, seed=3):
    """Frames and truth [n, 2] of a red ball moving on a textured backdrop (static camera)."""
    rng = np.random.default_rng(seed)
    bg = np.full((H, W, 3), (198, 202, 206), np.uint8)
    for _ in range(90):
        x, y, v = int(rng.integers(0, W)), int(rng.integers(0, H)), int(rng.integers(110, 235))
        cv2.rectangle(bg, (x, y), (x + int(rng.integers(3, 16)), y + int(rng.integers(3, 16))), (v, v - 5, v - 9), -1)
    t = np.linspace(0, 1, n)
    truth = np.stack([90 + 120 * t, 60 + 100 * t * t], 1)
    frames = []
    for x, y in truth:
        img = bg.copy()
        cv2.circle(img, (round(x * 16), round(y * 16)), 11 * 16, RED, -1, cv2.LINE_AA, shift=4)
        frames.append(img)
    return frames, truth


def warped(frames, kind, fraction=0.05):
    """Progressive pan (content moves right by ``fraction * W`` at the end) or zoom about the centre."""
    out, n = [], len(frames)
    for i, f in enumerate(frames):
        p = i / (n - 1)
        if kind == "pan":
            m = np.float32([[1, 0, fraction * W * p], [0, 1, 0]])
        else:
            s = 1 + fraction * p
            cx, cy = (W - 1) / 2, (H - 1) / 2
            m = np.float32([[s, 0, (1 - s) * cx], [0, s, (1 - s) * cy]])
        out.append(cv2.warpAffine(f, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    return out


def case_for(truth):
    x, y = truth[0]
    return Case(id="cam", suite="test", task="camera", width=W, height=H, duration=2.0, fps=24,
                objects=[ObjectSpec(id="ball", shape="sphere", color=RED, box=(x - 14, y - 14, x + 14, y + 14))])


def _run(tmp_path, kind):
    frames, truth = scene()
    if kind != "static":
        frames = warped(frames, kind)
    path = write_video(tmp_path / f"{kind}.mp4", frames, fps=24)
    return track(path, case_for(truth), TrackingPlan()), truth


def test_static_camera_is_identity(tmp_path):
    tr, truth = _run(tmp_path, "static")
    assert tr.meta["camera"]["static"] is True and tr.meta["camera"]["max_shift_px"] < 0.3
    assert np.abs(tr.xy[:, 0] - truth).max() < 1.0


def test_pan_is_compensated(tmp_path):
    tr, truth = _run(tmp_path, "pan")
    cam = tr.meta["camera"]
    assert cam["compensated"] and abs(cam["max_shift_px"] - 0.05 * W) < 1.0
    assert np.abs(tr.xy[:, 0] - truth).max() < 1.5


def test_zoom_is_compensated(tmp_path):
    tr, truth = _run(tmp_path, "zoom")
    cam = tr.meta["camera"]
    assert cam["compensated"] and abs(cam["max_scale_change"] - 0.05) < 0.004
    assert np.abs(tr.xy[:, 0] - truth).max() < 1.5
    # the ball's area is expressed at first-frame scale too
    assert np.abs(tr.area[:, 0] / tr.area[0, 0] - 1).max() < 0.08


def test_camera_motion_recovers_known_similarity_directly():
    frames, _ = scene(n=12)
    est = camera.CameraMotion(max_side=320)
    for i, f in enumerate(frames):
        s, a = 1 + 0.004 * i, 0.002 * i  # frame-0 -> frame-i similarity (scale, rotation, shift)
        c, sn = s * np.cos(a), s * np.sin(a)
        fwd = np.array([[c, -sn, 1.5 * i], [sn, c, -0.7 * i]])
        g = cv2.warpAffine(f, fwd, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        est.update(g, boxes=[(60, 40, 240, 180)])
    expected = camera.invert(fwd)
    pts = np.array([[20, 20], [300, 30], [160, 120], [40, 220]], float)
    assert np.abs(camera.apply(est.transforms[-1], pts) - camera.apply(expected, pts)).max() < 0.3


def camera_path(kind, n):
    """Frame-0 -> frame-i similarities ``[n, 2, 3]``: a steady pan + zoom + roll, or a hand-held shake."""
    i = np.arange(n)
    if kind == "steady":
        t = i / (n - 1)
        s, a, tx, ty = 1 + 0.04 * t, 0.01 * t, 14 * t, -6 * t
    else:
        s, a = 1 + 0.003 * np.sin(2 * np.pi * i / 6), np.zeros(n)
        tx, ty = 1.5 * np.sin(2 * np.pi * i / 5), 1.2 * np.sin(2 * np.pi * i / 7)
    c, sn = s * np.cos(a), s * np.sin(a)
    cx, cy = (W - 1) / 2, (H - 1) / 2  # about the centre
    return np.stack([np.stack([c, -sn, cx - c * cx + sn * cy + tx], 1),
                     np.stack([sn, c, cy - sn * cx - c * cy + ty], 1)], 1)


def filmed(kind, n=24, **kw):
    """Worst corner error (px) of the transforms recovered from ``scene`` filmed along ``camera_path``, and
    the estimator."""
    frames, truth = scene(n)
    est = camera.CameraMotion(max_side=320, **kw)
    path = camera_path(kind, n)
    for f, (x, y), fwd in zip(frames, truth, path):
        box = np.r_[camera.apply(fwd, [x - 14, y - 14]), camera.apply(fwd, [x + 14, y + 14])]
        g = cv2.warpAffine(f, fwd, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        est.update(g, [tuple(box)])
    corners = np.array([[0, 0], [W - 1, 0], [0, H - 1], [W - 1, H - 1]], float)
    err = max(np.abs(camera.apply(A, corners) - camera.apply(camera.invert(fwd), corners)).max()
              for A, fwd in zip(est.transforms, path))
    return err, est


def test_known_camera_path_is_recovered_at_every_frame():
    err, est = filmed("steady")
    assert err < 0.25
    assert est.summary()["methods"].get("interpolated", 0) >= 8  # a third of the frames or more cost nothing


def test_a_shaking_camera_is_estimated_at_every_frame():
    err, est = filmed("shake")
    assert err < 0.25
    assert "interpolated" not in est.summary()["methods"]


def test_one_transform_per_update_whatever_the_stride():
    frames, _ = scene(n=8)
    for stride in (1, 2, 3, 5):
        for n in range(1, 9):
            est = camera.CameraMotion(stride=stride)
            for f in frames[:n]:
                est.update(f)
            assert len(est.transforms) == n and est.summary()["frames"] == n
            assert sum(est.summary()["methods"].values()) == n
    est = camera.CameraMotion(stride=3)  # reading mid-stream, then going on
    for k, f in enumerate(frames):
        est.update(f)
        assert len(est.transforms) == k + 1
    assert max(camera.corner_shift(A, W, H) for A in est.transforms) < 0.05
