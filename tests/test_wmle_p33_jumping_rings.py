"""P33 jumping rings: M1 formula, peaks on hand-made tracks (descent, plateau, still rising), end to end."""

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.suites.wmle.p33_jumping_rings import JumpingRings, peak_rise, rise_ratio
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world.em import jump_height

FPS = 24.0


def test_metric_formula():
    m = rise_ratio(0.1, 2.0)
    assert m.residual == pytest.approx(0.05) and m.value == pytest.approx(1.0)  # (1 - 0.05) / 0.2 clipped
    m = rise_ratio(1.7, 2.0)
    assert m.residual == pytest.approx(0.85) and m.value == pytest.approx(0.75)
    assert rise_ratio(2.1, 2.0).value == 0.0
    z = rise_ratio(None, None, closed_zero=True)
    assert z.status == "measured" and z.value == 0.0 and z.residual is None
    assert rise_ratio(None, 2.0).status == "operational_zero"


def test_peaks_need_a_descent_or_a_plateau():
    t = np.arange(40) / FPS
    hop = jump_height(t, 0.3, 300.0, 2000.0)
    h, i, _ = peak_rise(t, hop, 0.5)
    assert h == pytest.approx(hop.max()) and i == int(np.argmax(hop))
    rising = 3.0 * t
    assert peak_rise(t, rising, 0.5)[0] is None  # still rising at the end: no peak
    flat = np.r_[np.zeros(10), np.full(30, 20.0)]  # rises and stays up: a plateau
    assert peak_rise(t, flat, 0.5)[0] == pytest.approx(20.0)


def _rings(lift_closed, lift_split, y0=250.0):
    t = np.arange(len(lift_closed)) / FPS
    return Tracks.from_positions(t, {"closed": (np.full(len(t), 200.0), y0 - lift_closed),
                                     "split": (np.full(len(t), 440.0), y0 - lift_split)}, radius=10.0)


def test_hand_made_rings():
    task = JumpingRings()
    case, _ = task.make_case(0, 1000)
    d = case.known["ring_d_px"]
    t = np.arange(60) / FPS
    closed = jump_height(t, 0.5, 400.0, 3500.0)
    split = 0.4 * jump_height(t, 0.5, 400.0, 3500.0)
    got = task.metrics(case, task.measure(case, _rings(closed, split)))
    assert got["M1"].components["h_closed"] == pytest.approx(closed.max() / d)
    assert got["M1"].residual == pytest.approx(0.4) and got["M1"].value == pytest.approx(1.0)
    got = task.metrics(case, task.measure(case, _rings(closed, 0.9 * closed)))
    assert got["M1"].value == pytest.approx(0.5)
    zero = task.metrics(case, task.measure(case, _rings(np.zeros(60), split)))
    assert zero["M1"].value == 0.0 and "reliably observed zero" in zero["M1"].reason


def test_a_split_ring_unseen_in_its_flight_has_no_established_rise():
    """A twin's split ring lost while it flies (9 samples in a studio render) kept only its resting sightings:
    that is not a split ring that stayed down."""
    task = JumpingRings()
    case, _ = task.make_case(0, 1000)
    t = np.arange(60) / FPS
    closed = jump_height(t, 0.5, 400.0, 3500.0)
    split = closed.copy()
    tracks = _rings(closed, split)
    flying = np.flatnonzero(split > 5.0)
    tracks["split"].visible[flying] = False
    got = task.metrics(case, task.measure(case, tracks))
    assert got["M1"].status == "operational_zero" and "risen unseen" in got["M1"].reason
    one = _rings(closed, 0.02 * closed)  # a single missed sample at rest is not a hidden jump
    one["split"].visible[5] = False
    assert task.metrics(case, task.measure(case, one))["M1"].value == pytest.approx(1.0)
    one["closed"].visible[flying[-2:]] = False  # the closed ring unseen falling: its peak rule stands
    assert task.metrics(case, task.measure(case, one))["M1"].status == "measured"


def test_a_closed_ring_lost_for_its_whole_flight_has_neither_a_peak_nor_a_zero():
    """Under a 3-frame exposure blur (flat seed 7201) the closed ring was lost for the 9 samples of its jump: its
    highest sighting, the last one before the gap, was 0.13 px up, a "peak" that the later rest samples
    "established", and the lawful clip scored 13.9. Whether that sighting is just above the noise band or inside
    it, a ring lost right after its highest sighting has no established rise."""
    task = JumpingRings()
    case, _ = task.make_case(0, 1000)
    t = np.arange(60) / FPS
    closed = jump_height(t, 0.5, 400.0, 3500.0)
    flying = np.flatnonzero(closed > 0.0)
    for before in (0.3, 0.0):  # the last resting sighting a hair above the noise band, or at rest exactly
        lift = np.where(closed > 0.0, closed, 0.0)
        lift[flying[0] - 1] = before
        tracks = _rings(lift, 0.01 * closed)
        tracks["closed"].visible[flying] = False
        m = task.measure(case, tracks)
        assert m.get("rise_closed_px") is None and "closed_zero" not in m.notes
        got = task.metrics(case, m)["M1"]
        why = "never seen in flight" if before else "risen unseen"  # (a peak's rule, or the zero's)
        assert got.status == "operational_zero" and got.reason.startswith("closed:") and why in got.reason
    seen = _rings(np.zeros(60), 0.0 * closed)  # a closed ring seen at rest throughout is a measured zero
    assert task.metrics(case, task.measure(case, seen))["M1"].status == "measured"


def test_reference_and_twin_end_to_end(tmp_path):
    task = JumpingRings()
    case, _ = task.make_case(0, 1006)
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P33"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 80
    assert P["true"] >= 97 and P["anti"] <= 30


def test_resting_rings_whose_edge_pixels_flicker_do_not_jump():
    """A still clip through a lossy codec: each resting ring's centroid toggles by one edge pixel's share
    (0.01 px, the closed ring's twice the split ring's, as measured on a static model's clip). Both are
    far below the masks' resolution: the closed ring's rise is a reliably observed zero, M1 = 0 (it
    scored 1: with most frames repeating exactly, the noise's MAD was 0 and so was every threshold)."""
    task = JumpingRings()
    case, _ = task.make_case(0, 1000)
    flip = (np.arange(60) % 12 == 3).astype(float)  # every 12th frame one edge pixel flips
    tr = _rings(0.0101 * flip, 0.0049 * flip)
    tr.area[:] = 685.0  # a ring's mask as tracked
    got = task.metrics(case, task.measure(case, tr))["M1"]
    assert got.status == "measured" and got.value == 0.0 and "reliably observed zero" in got.reason


def test_a_split_ring_that_never_leaves_its_rest_rose_by_a_measured_zero():
    """The law lets the split ring lift by 0-2 % of its diameter: at 0 it only jitters at rest, and its highest
    sighting is noise, possibly among the last samples, where no descent or plateau can follow (studio P33 seed
    5001: unresolved, and its missing peak put C at 37.5 on a lawful clip). A rise that never leaves the noise
    band is a measured zero, established by every sample; M1 = 1."""
    task = JumpingRings()
    case, _ = task.make_case(0, 1000)
    t = np.arange(60) / FPS
    closed = jump_height(t, 0.5, 400.0, 3500.0)
    split = np.random.default_rng(5).normal(0.0, 0.15, 60)
    split[-1] = split.max() + 0.05  # the noise's highest point is the last sample
    m = task.measure(case, _rings(closed, split))
    assert m.get("rise_split_px") == 0.0 and "unresolved" not in m.notes
    assert [e.name for e in m.events if e.object == "split"] == ["peak_split"]
    got = task.metrics(case, m)
    assert got["M1"].residual == 0.0 and got["M1"].value == 1.0
    # a lift above the noise band (5 % of the diameter, 2 px) is still a peak of its own
    lift = split + 0.05 * case.known["ring_d_px"] * np.exp(-((t - 0.8) / 0.1) ** 2)
    assert task.measure(case, _rings(closed, lift)).get("rise_split_px") > 0.0
