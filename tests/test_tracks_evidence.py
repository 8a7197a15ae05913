"""The tracks' JSON evidence (``Tracks.to_dict``): one row per sample and object, as documented."""

import json

import numpy as np

from lawful.tracks import Tracks


def test_rows_hold_frame_time_position_box_and_visibility_with_nan_as_none():
    tr = Tracks.empty(["a", "b"], 3, fps=29.97)
    tr.frames = np.array([0, 2, 4])
    tr.t = np.array([0.0, 2 / 29.97, 4 / 29.97])
    tr.xy = np.array([[[10.004, 20.456], [np.nan, np.nan]], [[11.5, 21.25], [5.0, 6.0]], [[12.0, 22.0], [7.0, 8.0]]])
    tr.box = np.array([[[1, 2, 3, 4], [np.nan] * 4], [[1.234, 2, 3, 4], [5, 6, 7, 8]], [[2, 3, 4, 5], [6, 7, np.nan, 9]]],
                      float)
    tr.visible = np.array([[True, False], [True, True], [False, True]])
    out = tr.to_dict()
    assert out["fps"] == 29.97 and list(out["objects"]) == ["a", "b"]
    assert out["objects"]["a"][0] == [0, 0.0, 10.0, 20.46, 1.0, 2.0, 3.0, 4.0, True]
    assert out["objects"]["a"][1] == [2, 0.0667, 11.5, 21.25, 1.23, 2.0, 3.0, 4.0, True]  # time to 4 decimals
    assert out["objects"]["b"][0] == [0, 0.0, None, None, None, None, None, None, False]
    assert out["objects"]["b"][2] == [4, 0.1335, 7.0, 8.0, 6.0, 7.0, None, 9.0, True]
    assert json.loads(json.dumps(out)) == out  # plain JSON types only
    assert tr.to_dict(decimals=1)["objects"]["a"][1][2:4] == [11.5, 21.2]
