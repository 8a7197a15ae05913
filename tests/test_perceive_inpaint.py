"""The background a blur streak is measured against: TELEA inpainting of the object's old box, worked out on the box
and the pixels the fill can reach only (lawful.perceive.contrast._inpainted), equals inpainting the whole window."""

import cv2
import numpy as np

from lawful.perceive.contrast import _inpainted


def test_inpainting_near_the_box_only_is_inpainting_the_whole_window():
    rng = np.random.default_rng(0)
    for _ in range(150):
        h, w = rng.integers(8, 160, 2)
        img = cv2.GaussianBlur((rng.random((h, w, 3)) * 255).astype(np.uint8), (0, 0), float(rng.uniform(0.5, 4)))
        r0, c0 = rng.integers(0, h), rng.integers(0, w)
        r1, c1 = rng.integers(r0, h + 4), rng.integers(c0, w + 4)  # (a box may run past the window)
        hole = np.zeros((h, w), np.uint8)
        hole[r0:r1, c0:c1] = 1
        want = cv2.inpaint(img, hole, 3, cv2.INPAINT_TELEA).astype(np.float32)
        assert np.array_equal(_inpainted(img, (r0, c0), (r1, c1)), want)
