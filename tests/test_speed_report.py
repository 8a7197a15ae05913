"""The report's key frames decode without converting the frames it does not draw: the same frames as a full read."""

import numpy as np
import pytest

from lawful.report.overlay import video_frames
from lawful.video import Span, open_frames, write_video


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    rng = np.random.default_rng(2)
    frames = [rng.integers(0, 255, (48, 80, 3), dtype=np.uint8) for _ in range(12)]
    return write_video(tmp_path_factory.mktemp("v") / "c.mp4", frames, 12.0)


@pytest.mark.parametrize("max_side", [None, 40])  # OpenCV's reader, and PyAV's shrinking one
@pytest.mark.parametrize("span", [Span(), Span(first=2, last=9)])
def test_only_the_wanted_frames_as_a_full_read_gives_them(clip, span, max_side):
    _, frames = open_frames(clip, span=span, max_side=max_side)
    full = dict(frames)
    only = {0, 3, 7}
    _, frames = open_frames(clip, span=Span(span.first, span.last, only=frozenset(only)), max_side=max_side, threads=1)
    got = dict(frames)
    assert sorted(got) == sorted(only) and all(np.array_equal(got[i], full[i]) for i in only)
    assert Span(2, 9, only=frozenset({1, 4})).end == 6 and Span(2, 4, only=frozenset({5})).end == 4


def test_key_frames_of_the_report(clip):
    full = dict(open_frames(clip)[1])
    got = dict(video_frames(clip, None, {1, 10}))
    assert sorted(got) == [1, 10] and all(np.array_equal(got[i], full[i]) for i in (1, 10))
