"""Which motion model a key frame's corners are given: a camera that only pans is a shift (the corners'
noise is not turned into a rotation or a scale); one that zooms keeps its similarity."""

import numpy as np
import pytest

from lawful.perceive import camera
from test_perceive_camera import backdrop, corner_error, estimate, shoot


def _lk_keys(est):
    return [info for _, _, method, info in est._keys if method == "lk"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_pan_is_fitted_as_a_shift(seed):
    frames, truth = shoot(backdrop("textured"), None, "pan", seed=seed)
    est = estimate(frames, min_shift=0.0)
    keys = _lk_keys(est)
    assert keys and all(k.get("model") == "shift" for k in keys)
    for _, A, method, _ in est.keys():
        if method == "lk":
            assert np.array_equal(A[:, :2], np.eye(2))  # no rotation, no scale
    assert corner_error(est.transforms, truth) < 0.5


@pytest.mark.parametrize("seed", [0, 1])
def test_a_zoom_keeps_its_scale(seed):
    frames, truth = shoot(backdrop("textured"), None, "zoom", seed=seed)
    est = estimate(frames, min_shift=0.0)
    late = [k for k in est._keys if k[2] == "lk" and k[0] >= len(frames) // 2]
    assert late and all(info.get("model") != "shift" for *_, info in late)
    scale = np.hypot(*est.transforms[-1][:, 0])
    assert scale == pytest.approx(1 / 1.10, abs=2e-3)  # frame -> frame 0 undoes a 10 % zoom
    assert corner_error(est.transforms, truth) < 1.0
