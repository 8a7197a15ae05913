"""The loop check of intensity registrations (perceive.camera_estimate.KeyFrames._loop): a frame registered to
frame 0 and the same frame registered to the last estimated key frame, carried to frame 0 by that frame's estimate,
must land in the same place; where they do not, by more than their errors and ``max_uncertainty``, the registration
followed something that moved on its own, and the key frame is held.

Studio WMLE P7, seed 7100: a chain falls from its first shape and settles in front of a faint striped wall and two
posts. Registered to frame 0, whose chain is a straight line, the settled chain carried the wall's y: key frames one
frame apart landed up to 4 work px apart, each stated to 0.1 px, and the path, used, moved the chain by 8 px after
it had come to rest; its "settled" event was not found and the lawful clip scored 7.5 (C = 50)."""

import cv2
import numpy as np

from lawful.perceive import camera_dense as dense
from lawful.perceive.camera import CameraMotion

H, W = 180, 320


def _backdrop(seed: int = 5) -> np.ndarray:
    """A smooth random texture (uint8 grey), wider than the frame for panning."""
    rng = np.random.default_rng(seed)
    img = cv2.GaussianBlur(rng.uniform(0, 255, (H + 40, W + 80)).astype(np.float32), (0, 0), 3.0)
    img = (img - img.mean()) / img.std() * 30 + 128
    return np.clip(img, 0, 255).astype(np.uint8)


def _frame(bg: np.ndarray, x: float) -> np.ndarray:
    """RGB frame of the backdrop seen ``x`` px further right (the camera panned right: content moves left)."""
    M = np.float32([[1, 0, 20 + x], [0, 1, 20]])
    g = cv2.warpAffine(bg, M, (W, H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    return cv2.cvtColor(g, cv2.COLOR_GRAY2RGB)


def _panned(n: int = 33, speed: float = 0.25) -> tuple[CameraMotion, np.ndarray]:
    bg = _backdrop()
    m = CameraMotion(min_shift=0.0)
    for k in range(n):
        m.update(_frame(bg, speed * k), [])
    m.transforms  # (estimates every held frame)
    return m, bg


def test_a_registration_that_lands_elsewhere_through_the_last_key_frame_is_caught():
    m, bg = _panned()
    assert m._keys[-1][2] != "hold" and m._keys[-1][0] == 32
    x = 0.25 * 40  # a frame 8 frames after the last key frame
    D = dense.smooth(m._plain(_frame(bg, x)))
    keep = ~m._excluded(m._boxes([]), D.shape)
    truth = np.array([[1.0, 0.0, x], [0.0, 1.0, 0.0]])  # work -> frame 0 (scale 1 at 320 x 180)
    assert m._loop(D, keep, truth, 0.05) is None  # where the camera is: both registrations agree
    # max_uncertainty (2 px, here 2 work px) plus Z errors is the tolerance
    for dy in (3.0, 5.0):  # where something moving on its own would put it: caught, by about the offset
        wrong = truth + [[0, 0, 0], [0, 0, dy]]
        gap = m._loop(D, keep, wrong, 0.05)
        assert gap is not None and abs(gap - dy) < 0.2, (dy, gap)
    assert m._loop(D, keep, truth + [[0, 0, 0], [0, 0, 1.0]], 0.05) is None  # within max_uncertainty: no evidence


def test_a_pan_is_not_held_by_the_loop_check():
    m, _ = _panned()
    assert not [k for k in m._keys if k[3].get("loop_px") is not None]
    d = m.decision()
    assert d["used"], d["reason"]
    A = m.transforms[-1]
    assert abs(A[0, 2] - 0.25 * 32) < 0.2 and abs(A[1, 2]) < 0.2
