"""A hoop whose visible rim breaks into arcs stays tracked where the arcs pin its centre, and is not placed at a
lone arc's centroid (studio Principia inertia, seeds 1006 and 1007).

Truth by construction: a green tube seen end-on rolls right over a red floor. In its first frames its
inner wall shows too (a filled green disc, as a tube seen slightly from the side does); from frame 12
on only its rim is green, and two stretches of the rim (its right 100 degrees, in light going off the
object's colour, and 40 degrees on its left, behind a rod) are not, so the colour mask holds two thin
arcs. Each arc is thinner than half the first frame's disc (the rule that keeps floor stripes of an
object's colour out), and the studio tube was lost for 18 samples right before its finish line: the
clip was unmeasurable. A hoop's visible part is its rim, so thin pieces are candidates, taken where the circle
through their outline pins the hoop's centre. A lone arc does not (seed 1007 under CRF 35: fragments of the
tube's rim, placed at their centroids up to a radius off, stepped backwards and the clip scored a confident 0)."""

import numpy as np
import cv2

from lawful.case import Case, ObjectSpec
from lawful.perceive.track import track
from lawful.suites.base import TrackingPlan
from lawful.video import write_video

W, H, N, FPS = 320, 180, 36, 24
GREEN, FLOOR, OFF = (60, 185, 40), (160, 60, 70), (150, 120, 60)
R_OUT, R_IN = 13.0, 9.5


def film(noise: float = 2.0, seed: int = 0, lone: bool = False):
    """Frames and the hoop's true centres ``[N, 2]``; ``lone``: from frame 12 only its top 80 degrees are green."""
    rng = np.random.default_rng(seed)
    s = 4  # supersampling per pixel side
    yy, xx = np.mgrid[0:H * s, 0:W * s]
    x, y = (xx + 0.5) / s - 0.5, (yy + 0.5) / s - 0.5
    centres, frames = [], []
    for i in range(N):
        cx, cy = 40.0 + 6.5 * i + 0.04 * i * i, 100.0
        d = np.hypot(x - cx, y - cy)
        a = np.arctan2(y - cy, x - cx)
        img = np.empty((H * s, W * s, 3), np.float32)
        img[:] = FLOOR
        img[:60 * s] = (90, 100, 150)  # a wall above the floor
        if i < 12:
            img[d <= R_OUT] = GREEN
        else:
            rim = (d <= R_OUT) & (d >= R_IN)
            img[rim] = GREEN
            img[rim & (np.abs(a) < np.radians(50))] = OFF  # right 100 degrees off the colour
            img[rim & (np.abs(np.abs(a) - np.pi) < np.radians(20))] = (40, 40, 40)  # left 40 degrees behind a rod
            if lone:
                img[rim & (np.abs(a + np.pi / 2) > np.radians(40))] = OFF
        f = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)
        frames.append(np.clip(f + rng.normal(0, noise, f.shape), 0, 255).astype(np.uint8))
        centres.append((cx, cy))
    return frames, np.array(centres)


def _track(tmp_path, frames, truth):
    path = write_video(tmp_path / "hoop.mp4", frames, fps=FPS)
    c0 = truth[0]
    case = Case(id="hoop", suite="test", task="hoop", width=W, height=H, duration=N / FPS, fps=FPS, camera="fixed",
                objects=[ObjectSpec(id="tube", shape="hollow_cylinder", color=GREEN,
                                    box=(c0[0] - R_OUT - 2, c0[1] - R_OUT - 2, c0[0] + R_OUT + 2, c0[1] + R_OUT + 2))])
    return track(path, case, TrackingPlan())


def test_a_hoop_seen_as_two_thin_arcs_is_followed(tmp_path):
    frames, truth = film()
    tr = _track(tmp_path, frames, truth)
    vis = tr.visible[:, 0]
    assert vis.sum() >= N - 2, np.flatnonzero(~vis)  # before: lost from the first frame of arcs on
    arcs = vis & (np.arange(N) >= 12)
    err = np.hypot(*(tr.xy[arcs, 0] - truth[arcs]).T)
    assert np.median(err) < 0.6 and err.max() < 1.5, err  # the circle through the arcs' outline, not their centroid


def test_a_lone_arc_of_a_hoop_is_not_taken_for_the_hoop(tmp_path):
    frames, truth = film(lone=True)
    tr = _track(tmp_path, frames, truth)
    vis = tr.visible[:, 0]
    assert vis[:12].all()
    err = np.hypot(*(tr.xy[vis, 0] - truth[vis]).T)
    assert err.max() < 1.5, err  # where it is reported at all, it is where the hoop is: never at the arc (~10 px off)
