"""The opening that cuts an object off a run of its colour treats pixels outside the blob's crop as background."""

import cv2
import numpy as np

from lawful.case import ObjectSpec
from lawful.perceive.associate import _bounded
from lawful.perceive.objects import Tracked
from lawful.perceive.segment import ColorModel, open_disc


def _ball_on_edge_stripe() -> np.ndarray:
    """A 25 x 94 crop (a blob's bounding box): a disc 18 px across centred at (14, 47) over a stripe 6 px wide down
    the crop's whole left edge (a backdrop stripe of the ball's colour, as the ball's search window cut it)."""
    m = np.zeros((94, 25), np.uint8)
    cv2.circle(m, (14, 47), 9, 1, -1, cv2.LINE_8)
    m[:, :6] = 1
    return m


def test_a_run_along_the_crop_edge_opens_as_one_inside_it():
    """A 6-px stripe is thinner than the 9-px disc that opens it wherever it runs. OpenCV's default border counts
    what lies outside as foreground: the stripe along the crop's edge survived whole."""
    m = _ball_on_edge_stripe()
    inside = np.pad(m, 6)  # the same blob with background round it
    assert np.array_equal(open_disc(m, 4), open_disc(inside, 4)[6:-6, 6:-6])
    assert not open_disc(m, 4)[:30].any()  # the stripe's rows away from the ball are gone
    default = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    assert default[:30, :6].all()  # what the default border kept


def test_a_ball_joined_to_a_stripe_along_its_crop_edge_is_cut_out_as_elsewhere():
    """Studio drop seed 7001: the ball's blob took a backdrop stripe of its colour down its crop's edge; the opening
    left the stripe joined to it, the blob was too large for the ball and the ball was lost from the first frame."""
    o = Tracked(ObjectSpec(id="ball", shape="sphere", box=(0, 0, 18, 18)), 0, ColorModel.fit(np.zeros((10, 3))), True,
                (114.0, 50.0))
    o.size, o.ref_area, o.diam = (18.0, 18.0), float(np.pi * 81), 18.0
    m = _ball_on_edge_stripe()
    got, inside = _bounded(m, (100, 3), o), _bounded(np.pad(m, 6), (94, -3), o)
    assert got is not None and inside is not None
    assert got[1] == inside[1] and np.array_equal(got[0], inside[0])
    mo = cv2.moments(got[0], binaryImage=True)
    assert abs(mo["m00"] / o.ref_area - 1.0) < 0.25 and abs(mo["m01"] / mo["m00"] + got[1][1] - 50.0) < 0.1
