"""First-frame blobs: an object found by contrast (its colour model holds too little of its own blob) is
measured in the first sample; an object its own cut splits in two (a split ring) is both pieces."""

import cv2
import numpy as np

from lawful.case import Case, ObjectSpec
from lawful.perceive.plan import TrackingPlan
from lawful.perceive.segment import FrameFeatures
from lawful.perceive.track import _init_objects, track
from lawful.video import open_frames, write_video

W, H = 320, 240
KHAKI, COPPER = (176, 170, 122), (190, 110, 70)
GREEN, DARK, WHITE = (50, 205, 41), (10, 85, 10), (225, 228, 232)
BOX = (109, 111, 134, 131)
BLUE, GREY, BACK = (50, 85, 190), (150, 152, 150), (200, 198, 210)


def bar_magnet(x: float) -> np.ndarray:
    """A white pole, a green body and a dark green end (centre of the body and end at ``x + 1.5``), resting
    on the edge between a khaki backdrop and a copper floor: no single colour fits the body and its dark end,
    and the ring around it holds two backgrounds, so its first frame has no one background to contrast with."""
    img = np.empty((H, W, 3), np.uint8)
    img[:] = KHAKI
    img[131:] = COPPER
    xi = int(round(x))
    cv2.rectangle(img, (xi - 24, 112), (xi - 11, 130), WHITE, -1)
    cv2.rectangle(img, (xi - 10, 112), (xi + 6, 130), GREEN, -1)
    cv2.rectangle(img, (xi + 7, 112), (xi + 13, 130), DARK, -1)
    return img


def test_an_object_found_by_contrast_is_measured_in_the_first_sample(tmp_path):
    """At rest for five samples, then sliding 1.5 px per sample: the first sample is seen and measured
    like the next ones (its own frame, the learned blob inpainted, is the contrast search's background)."""
    n = 14
    xs = 120 + np.r_[np.zeros(5), 1.5 * np.arange(1, n - 4)]
    frames = [bar_magnet(x) for x in xs]
    video = write_video(tmp_path / "magnet.mp4", frames, fps=25, crf=18)
    case = Case(id="s", suite="test", task="track", width=W, height=H, duration=n / 25, fps=25,
                objects=[ObjectSpec(id="m", shape="block", box=BOX, color=GREEN)])
    _, decoded = open_frames(video)
    first = next(decoded)[1]
    decoded.close()
    assert _init_objects(FrameFeatures(first), first, case, 1.0, 1.0)[0].weak  # the case this test is about
    o = track(video, case, TrackingPlan(compensate_camera=False))["m"]
    assert o.visible.all()
    rest = o.x[:5] - xs[:5]
    assert np.ptp(rest) < 0.3 and np.ptp(o.y[:5]) < 0.3  # the first sample agrees with the next four
    moving = o.x[5:] - xs[5:]
    assert abs(np.median(moving) - np.median(rest)) < 0.6  # one measurement, at rest and sliding
    assert np.abs(o.y - 121).max() < 1.0


def split_ring(x: float) -> np.ndarray:
    """A blue band 41 px long (left edge at ``x``, sub-pixel) cut 10 px from its left end by a 3.5-px grey gap."""
    img = np.empty((H, W, 3), np.uint8)
    img[:] = BACK
    for a, b, col in ((x, x + 41, BLUE), (x + 10, x + 13.5, GREY)):
        cv2.rectangle(img, (round(a * 16), 120 * 16), (round(b * 16), 132 * 16), col, -1, cv2.LINE_AA, shift=4)
    return img


def test_a_split_ring_is_both_of_its_pieces(tmp_path):
    """The cut splits the ring's colour in two pieces, both inside its box: the object is their union from
    the first frame on (not the long piece, with the short one left over as a look-alike), so when
    compression bridges the gap the ring neither jumps by the short piece's weight nor is lost."""
    n = 30
    xs = 130 + 0.7 * np.arange(n)
    frames = [split_ring(x) for x in xs]
    blue = (np.abs(frames[0].astype(int) - BLUE).sum(-1) < 60)
    ys, xx = np.nonzero(blue)
    video = write_video(tmp_path / "ring.mp4", frames, fps=25, crf=35)
    case = Case(id="s", suite="test", task="track", width=W, height=H, duration=n / 25, fps=25,
                objects=[ObjectSpec(id="r", shape="other", box=(129, 119, 172, 133), color=BLUE)])
    tr = track(video, case, TrackingPlan(compensate_camera=False))
    o = tr["r"]
    assert o.visible.all() and tr.meta["lookalikes"] == 0
    assert abs(o.x[0] - xx.mean()) < 1.0  # the long piece alone is 6 px to the right
    assert o.area[0] > 0.9 * len(xx)
    assert np.abs(np.diff(o.x - xs)).max() < 1.2  # no jump between one piece and both
