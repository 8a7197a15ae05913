"""The tracker's quicker colour features are the same numbers as the direct computation (#16).

:func:`lawful.perceive.segment.to_features` looks its brightness factors up in float32 tables and takes
``V = max(R, G, B)`` with numpy instead of OpenCV's HSV conversion; the tracks must not move by a bit.
"""

import cv2
import numpy as np

from lawful.perceive.segment import (
    _OPPONENT_AND_ONE,
    CHROMA_SCALE,
    DARK_OFFSET,
    L_WEIGHT,
    brightness,
    to_features,
)


def _direct(rgb: np.ndarray, blur: bool = True) -> np.ndarray:
    """The features as computed before the tables: HSV's V, then float32 arithmetic per pixel."""
    rgb = cv2.blur(rgb, (3, 3)) if blur and min(rgb.shape[:2]) >= 3 else np.ascontiguousarray(rgb)
    v = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)[..., 2].astype(np.float32)
    out = cv2.transform(rgb.astype(np.float32), _OPPONENT_AND_ONE)
    k = np.add(v, DARK_OFFSET)
    np.divide(CHROMA_SCALE, k, out=k)
    v *= L_WEIGHT
    return cv2.multiply(out, cv2.merge((v, k, k)), dst=out)


def test_features_equal_the_direct_computation_bit_for_bit():
    rng = np.random.default_rng(16)
    # every brightness level, with every channel as the maximum, and random colours
    levels = np.arange(256, dtype=np.uint8)
    ramp = np.stack([np.stack([levels, levels // 2, levels // 3], 1),
                     np.stack([levels // 3, levels, levels // 2], 1),
                     np.stack([levels // 2, levels // 3, levels], 1)])  # [3, 256, 3]
    images = [ramp, rng.integers(0, 256, (97, 131, 3), np.uint8), rng.integers(0, 256, (1, 1, 3), np.uint8),
              rng.integers(0, 256, (2, 5, 3), np.uint8)]
    big = rng.integers(0, 256, (60, 80, 3), np.uint8)
    images += [big[3:50, 7:70], big[::2, ::3]]  # not contiguous, as frame crops are
    for img in images:
        for blur in (True, False):
            got, want = to_features(img, blur), _direct(img, blur)
            assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
            assert got.tobytes() == want.tobytes()


def test_brightness_is_hsv_value():
    img = np.random.default_rng(1).integers(0, 256, (40, 50, 3), np.uint8)
    assert np.array_equal(brightness(img), cv2.cvtColor(img, cv2.COLOR_RGB2HSV)[..., 2])
    assert np.array_equal(brightness(img[5:30, 3:41]), cv2.cvtColor(np.ascontiguousarray(img[5:30, 3:41]),
                                                                   cv2.COLOR_RGB2HSV)[..., 2])
