"""Evidence overlays: markers land on the pixels the track and the region readings say."""

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.report.overlay import EVENT_COLOR, PALETTE, REGION_COLOR, Overlay, draw
from lawful.result import Event
from lawful.tracks import Tracks

T = 12


def has(img, y, x, color, r=1, tol=40):
    """Whether a pixel within ``r`` of (x, y) has ``color`` (anti-aliased lines blend their edges)."""
    win = img[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1].reshape(-1, 3).astype(int)
    return bool((np.abs(win - np.array(color)) <= tol).all(1).any())


def evidence():
    """Ball 'a' moves right 10 px per frame from (40, 50); 'b' stays at (150, 100); a level at row 80 + i."""
    t = np.arange(T) / 24.0
    tr = Tracks.from_positions(t, {"a": (40 + 10 * np.arange(T), np.full(T, 50.0)), "b": (150.0, 100.0)}, radius=6)
    tr.regions["surface"] = RegionSeries.from_values("surface", "level", sigma=0.3, row=80.0 + np.arange(T))
    ev = {"tracks": tr.to_dict(), "events": [Event(object="a", name="impact", frame=4.5, t=4.5 / 24).model_dump()]}
    return ev


def test_dot_box_and_trail_at_the_track_pixels():
    ov = Overlay.from_evidence(evidence())
    img = draw(np.zeros((160, 240, 3), np.uint8), ov, at=7, labels=False)
    # frame 7: 'a' is at (110, 50): the filled dot has its colour there; its box edge 6 px out; the trail behind
    assert has(img, 50, 110, PALETTE[0])
    assert has(img, 50, 104, PALETTE[0])  # box's left edge (x0 = 104)
    assert has(img, 50, 60, PALETTE[0])  # trail through frame 2's position
    assert not has(img, 50, 160, PALETTE[0], r=3)  # nothing ahead of the ball yet
    assert has(img, 100, 150, PALETTE[1])  # 'b' where it stays
    # the level reading of frame 7 (row 87), across the whole width when the probe's box is unknown
    assert has(img, 87, 20, REGION_COLOR) and not has(img, 70, 20, REGION_COLOR, r=3)


def test_event_ring_where_it_happened_and_only_after():
    ov = Overlay.from_evidence(evidence())
    assert ov.position("a", 4.5) == pytest.approx((85.0, 50.0))
    before = draw(np.zeros((160, 240, 3), np.uint8), ov, at=3, labels=False)
    after = draw(np.zeros((160, 240, 3), np.uint8), ov, at=6, labels=False)
    ring = [(50 + dy, 85 + dx) for dy, dx in ((-7, 0), (7, 0), (0, -7), (0, 7))]  # radius 5t+2 = 7 at t=1
    assert all(has(after, y, x, EVENT_COLOR) for y, x in ring)
    assert not any(has(before, y, x, EVENT_COLOR) for y, x in ring)


def test_probe_box_and_scaled_frame():
    ov = Overlay.from_evidence(evidence(), probes={"surface": (20.0, 60.0, 60.0, 120.0)})
    img = draw(np.zeros((320, 480, 3), np.uint8), ov, at=0, scale=(2.0, 2.0), labels=False)
    # row 80 in case pixels is row 160.5 at twice the size, only inside the probe's columns (40..120)
    assert has(img, 160, 80, REGION_COLOR)
    assert not has(img, 160, 200, REGION_COLOR, r=3)
    assert not has(img, 140, 80, REGION_COLOR, r=3) and has(img, 140, 40, REGION_COLOR)  # inside; box's left edge


def test_key_frames_hold_the_events():
    ov = Overlay.from_evidence(evidence())
    keys = dict(ov.key_frames())
    assert keys[0] == "first frame" and "a impact" in keys[4] and keys[T - 1] == "last frame"
