"""What moves on its own in front of a still or shaking camera (perceive.camera_moving): a swinging string is
marked where it was and where it went; a sub-pixel shake, flicker and noise mark (almost) nothing; a camera that
moved beyond shake leaves most of the background to the callers (they see that motion themselves)."""

import cv2
import numpy as np

from lawful.perceive.camera_dense import smooth
from lawful.perceive.camera_moving import RADIUS, Movers

H, W = 180, 320


def _backdrop(seed: int = 3) -> np.ndarray:
    """A tiled backdrop (faint tile edges, as the flat renderer's) in float grey levels."""
    rng = np.random.default_rng(seed)
    tiles = rng.uniform(150, 190, (H // 20 + 1, W // 20 + 1))
    img = np.kron(tiles, np.ones((20, 20)))[:H, :W]
    img[::20], img[:, ::20] = img[::20] - 15, img[:, ::20] - 15
    return cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.7)


def _frame(bg, shift=(0.0, 0.0), string_x=None, gain=1.0, noise=1.0, seed=0):
    img = cv2.warpAffine(bg, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]), (W, H), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
    if string_x is not None:  # a dark string from a pivot at the top, its lower end at x = string_x
        cv2.line(img, (160, 5), (int(string_x), 150), 40.0, 1, cv2.LINE_AA)
    img = img * gain + np.random.default_rng(seed).normal(0, noise, img.shape)
    return smooth(np.clip(np.rint(img), 0, 255).astype(np.uint8))


def test_a_swinging_string_is_marked_where_it_was_and_where_it_went():
    bg, keep = _backdrop(), np.ones((H, W), bool)
    mv = Movers(_frame(bg, string_x=120), keep)
    m = mv.mask(_frame(bg, (0.5, -0.4), string_x=140, gain=1.03, seed=1), keep)  # shake, flicker, noise too
    rows = np.arange(100, 150)
    old = np.round(160 + (120 - 160) * (rows - 5) / 145).astype(int)
    new = np.round(160 + (140 - 160) * (rows - 5) / 145).astype(int)
    assert m[rows, old].all() and m[rows, new].all()
    away = np.ones((H, W), bool)
    away[:, 100:175] = False
    assert m[away].mean() < 0.01  # the shaken, flickering backdrop is not marked


def test_shake_within_the_envelope_and_noise_mark_nothing():
    bg, keep = _backdrop(), np.ones((H, W), bool)
    mv = Movers(_frame(bg), keep)
    for k, s in enumerate([(RADIUS * 0.9, 0.0), (0.0, -RADIUS * 0.9), (0.6, 0.6)]):
        assert mv.mask(_frame(bg, s, gain=0.98, seed=k + 1), keep).mean() < 0.01


def test_a_camera_that_moved_beyond_shake_keeps_most_of_the_background():
    """A camera that moved is not a mover: most of frame 0's edge pixels stay for the callers' fits, which
    then see the motion (the difference's noise level grows with it, or nothing is masked at all)."""
    bg, keep = _backdrop(), np.ones((H, W), bool)
    mv = Movers(_frame(bg, string_x=120), keep)
    for s in [(2.0, 0.0), (4.0, 3.0), (8.0, 6.0)]:
        m = mv.mask(_frame(bg, s, string_x=140, seed=1), keep)
        assert (m & mv._edges).sum() < 0.5 * mv._edges.sum()
