"""First-frame blobs: an object its own cut splits in two (a split ring) is both pieces."""

import cv2
import numpy as np

from lawful.case import Case, ObjectSpec
from lawful.perceive.plan import TrackingPlan
from lawful.perceive.track import track
from lawful.video import write_video

W, H = 320, 240
BOX = (109, 111, 134, 131)
BLUE, GREY, BACK = (50, 85, 190), (150, 152, 150), (200, 198, 210)


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
