"""The camera decision says when a camera whose path could not be estimated reliably did move (``moved``): the
evidence then shows that positions may mix the scene's motion with the camera's."""

import numpy as np

from lawful.perceive.camera_path import decide

CORNERS = np.array([[0, 0], [319, 0], [0, 179], [319, 179]], float)
I = np.array([[1.0, 0, 0], [0, 1.0, 0]])


def _key(i, dx, u=0.05, method="lk"):
    return (i, I + np.array([[0, 0, dx], [0, 0, 0]]), method, {"u": u, "n": 40})


def _hold(i):
    return (i, I, "hold", {"snr": 2.0, "u": np.inf, "weakest": [0, 0, 1, 0]})


def test_an_unbridged_gap_with_large_estimated_motion_is_moved():
    keys = [_key(0, 0.0), _key(16, 8.0), _hold(32), _key(48, 24.0)]  # a hold with one estimate after it
    d = decide(keys, CORNERS, (320, 180), 1.0, 3.0, 1.0, 0.5)
    assert d["reliable"] is False and d["moved"] is True and not d["used"]


def test_an_unbridged_gap_with_motion_within_the_bound_is_not_moved():
    keys = [_key(0, 0.0), _key(16, 0.3), _hold(32), _key(48, 0.2)]
    d = decide(keys, CORNERS, (320, 180), 1.0, 3.0, 1.0, 0.5)
    assert d["reliable"] is False and d["moved"] is False


def test_a_reliable_path_has_no_moved_flag():
    keys = [_key(0, 0.0), _key(16, 4.0), _key(32, 8.0), _key(48, 12.0)]
    d = decide(keys, CORNERS, (320, 180), 1.0, 3.0, 1.0, 0.5)
    assert d["used"] and d["reliable"] and "moved" not in d

