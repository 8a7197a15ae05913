"""Lossless images (lawful.images): PNG bytes that decode to the very pixels written, cases' first frames
included, and a one-line error where an image cannot be encoded."""

import numpy as np
import pytest
from PIL import Image

from lawful import images


def test_png_round_trip_is_exact(tmp_path):
    rng = np.random.default_rng(2)
    rgb = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    data = images.write(tmp_path / "sub" / "a.png", rgb)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and (tmp_path / "sub" / "a.png").read_bytes() == data
    assert np.array_equal(np.asarray(Image.open(tmp_path / "sub" / "a.png").convert("RGB")), rgb)


def test_a_case_first_frame_is_the_rendered_frame(tmp_path):
    from lawful.case import case_seed, load_case
    from lawful.suites.base import get_suite

    task = get_suite("wmle").task("free_fall")
    path = task.write_case(0, 0, "ff-000", tmp_path)
    _, frame = task.make_case(0, case_seed(0, "wmle", "free_fall", 0))
    case = load_case(path)
    assert np.array_equal(np.asarray(Image.open(tmp_path / case.first_frame).convert("RGB")), frame)


def test_an_image_that_cannot_be_encoded_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="cannot encode"):
        images.write(tmp_path / "a.png", np.zeros((0, 4, 3), np.uint8))
