"""An object that leaves the frame must not hide the background from the camera estimate.

Truth by construction: a ball slides left and stops by the frame's left edge, a 20 % pan then carries
it out of the picture while a second ball stands still in the world. The camera is handed the lost
ball's predicted box (twice its size), not its search window, which grows every sample it stays
lost and covered the whole frame before (studio Principia momentum_height under a 10 % pan: the
last key frames were left with a plain wall, the path was 'unreliable', the collision timed from
the pan and the clip scored a confident 0)."""

import cv2
import numpy as np
import pytest

from lawful.case import Case, ObjectSpec
from lawful.perceive import camera
from lawful.perceive.track import track
from lawful.suites.base import TrackingPlan
from lawful.video import write_video

W, H, N, PAN = 320, 240, 40, 0.20
RED, BLUE = (220, 40, 40), (40, 60, 220)
R_GONE, STILL = 14, np.array([240.0, 160.0])


def backdrop(kind, seed=3):
    """Grey rectangles over the whole frame (``textured``) or over its left 55 % only (``half``)."""
    rng = np.random.default_rng(seed)
    bg = np.full((H, W, 3), (198, 202, 206), np.uint8)
    for _ in range(90):
        x, y, v = int(rng.integers(0, W)), int(rng.integers(0, H)), int(rng.integers(110, 235))
        cv2.rectangle(bg, (x, y), (x + int(rng.integers(3, 16)), y + int(rng.integers(3, 16))), (v, v - 5, v - 9), -1)
    if kind == "half":
        bg[:, int(0.55 * W):] = 150
    return bg


def film(kind, noise=3.0, seed=0):
    """Frames with the camera panning right (content moves left by ``PAN * W``), the sliding ball's
    world positions ``[N, 2]`` (it stops at x = 16 by frame 12)."""
    rng = np.random.default_rng(seed)
    back = backdrop(kind)
    t = np.minimum(np.arange(N), 12) / 12
    gone = np.stack([70 - 54 * (2 * t - t * t), np.full(N, 120.0)], 1)
    frames = []
    for i in range(N):
        img = back.copy()
        for (x, y), r, c in (((gone[i]), R_GONE, RED), (STILL, 12, BLUE)):
            cv2.circle(img, (round(x * 16), round(y * 16)), r * 16, c, -1, cv2.LINE_AA, shift=4)
        m = np.float32([[1, 0, -PAN * W * i / (N - 1)], [0, 1, 0]])
        f = cv2.warpAffine(img, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(float)
        frames.append(np.clip(f + rng.normal(0, noise, f.shape), 0, 255).astype(np.uint8))
    return frames, gone


@pytest.mark.parametrize("kind", ["textured", "half"])
def test_a_ball_panned_out_of_the_frame_leaves_the_background_to_the_camera(tmp_path, kind, monkeypatch):
    frames, gone = film(kind)
    path = write_video(tmp_path / "gone.mp4", frames, fps=24)
    shares = []
    update = camera.CameraMotion.update

    def spy(self, rgb, boxes=None):
        m = np.zeros(rgb.shape[:2], bool)
        for x0, y0, x1, y1 in (b[:4] for b in boxes or []):  # (an object's box may carry its rim: 0 here)
            m[max(0, int(y0)):max(0, int(y1)), max(0, int(x0)):max(0, int(x1))] = True
        shares.append(m.mean())
        return update(self, rgb, boxes)

    monkeypatch.setattr(camera.CameraMotion, "update", spy)
    box = lambda p, r: (p[0] - r, p[1] - r, p[0] + r, p[1] + r)  # noqa: E731
    case = Case(id="gone", suite="test", task="camera", width=W, height=H, duration=N / 24, fps=24, camera="moving",
                objects=[ObjectSpec(id="gone", shape="sphere", color=RED, box=box(gone[0], R_GONE + 2)),
                         ObjectSpec(id="still", shape="sphere", color=BLUE, box=box(STILL, 14))])
    tr = track(path, case, TrackingPlan())
    lost = np.isnan(tr.xy[:, 0, 0])
    assert lost[-10:].all()  # the ball is out of the picture for the clip's last quarter at least
    # the ball and its twice-size box: (2 x 29 px)^2, the still ball's (25 px)^2 (both without the
    # camera's own 4 px margin); the search window reached the whole frame here
    bound = ((2 * (2 * R_GONE + 1)) ** 2 + 25 ** 2) / (W * H)
    assert max(shares) <= bound
    cam = tr.meta["camera"]
    assert cam["compensated"] and cam["reliable"]
    assert abs(cam["max_shift_px"] - PAN * W) < 1.0
    assert np.abs(tr.xy[:, 1] - STILL).max() < 1.0  # the still ball stays put in frame-0 pixels
