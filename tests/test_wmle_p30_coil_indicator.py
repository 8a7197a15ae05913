"""P30 coil indicator: M1 rule, lit detection, entry on hand-made tracks and lamp readings, end to end."""

import numpy as np
import pytest

from lawful.perceive.regions import RegionSeries
from lawful.runner.evaluate import evaluate_video
from lawful.suites.wmle.p30_coil_indicator import CoilIndicator, entry_and_light, lit_mask
from lawful.tracks import Tracks
from lawful.video import write_video

FPS = 24.0


def test_metric_rule():
    assert entry_and_light(True, True).value == 1.0
    assert entry_and_light(True, False).value == 0.5
    assert entry_and_light(False, True).value == 0.0  # no entry: no light "during entry" either
    low = entry_and_light(True, None)
    assert low.value == 0.5 and low.components == {"low": 0.5, "high": 1.0} and "unreadable" in low.reason
    assert entry_and_light(None, None).status == "operational_zero"


def test_lit_mask_against_the_off_level_and_noise():
    rng = np.random.default_rng(0)
    y = 40.0 + rng.normal(0, 0.5, 96)
    y[30:38] += 60.0
    lit, off, thr = lit_mask(y, np.ones(96, bool))
    assert off == pytest.approx(40.0, abs=1.0) and thr >= 3.0
    assert np.array_equal(np.flatnonzero(lit), np.arange(30, 38))
    assert not lit_mask(40.0 + rng.normal(0, 0.5, 96), np.ones(96, bool))[0].any()
    halo = np.full(96, 41.6)
    halo[35:43] = 141.0
    halo[43:] = 45.4  # what CRF 35 left of the glow after the flash: no light
    assert np.array_equal(np.flatnonzero(lit_mask(halo, np.ones(96, bool))[0]), np.arange(35, 43))


def _scene(case, lamp_on: dict[str, tuple[int, int]], speed=100.0):
    """The magnet's north half (30 x 18 px, leading) sliding right at ``speed`` px/s from x = 100; hidden
    once its front passes the coil's entrance; lamp lumas 40 (off) / 120 (on) over the given sample spans."""
    n = 96
    t = np.arange(n) / FPS
    x0 = case.known["coil"][0]
    cx = 100.0 + speed * np.clip(t - 0.5, 0, None)
    tr = Tracks.empty(["magnet"], n, fps=FPS)
    tr.t = t
    front = cx + 15.0
    vis = front < x0
    tr.visible[:, 0] = vis
    tr.xy[vis, 0, 0], tr.xy[vis, 0, 1] = cx[vis], 260.0
    tr.box[vis, 0] = np.stack([cx[vis] - 15, np.full(vis.sum(), 251.0), cx[vis] + 15, np.full(vis.sum(), 269.0)], 1)
    tr.area[vis, 0] = 540.0
    for name in case.known["lamps"]:
        y = np.full(n, 40.0)
        if name in lamp_on:
            a, b = lamp_on[name]
            y[a:b] = 120.0
        tr.regions[f"lamp_{name}"] = RegionSeries.from_values(f"lamp_{name}", "brightness", sigma=0.2, luma=y)
    t_entry = 0.5 + (x0 - 115.0) / speed
    return tr, t_entry


def test_hand_made_entry_and_lamps():
    task = CoilIndicator()
    case, _ = task.make_case(0, 1000)
    case.known["north_leads"] = True
    tr, t_entry = _scene(case, {})
    i = int(round(t_entry * FPS))
    m = task.measure(case, tr)
    assert m.get("entry_time_s") == pytest.approx(t_entry, abs=1e-9)
    assert task.metrics(case, m)["M1"].value == 0.5  # dark lamps
    lit = task.measure(case, _scene(case, {"entry": (i + 2, i + 9)})[0])
    assert task.metrics(case, lit)["M1"].value == 1.0
    late = task.measure(case, _scene(case, {"exit": (i + 14, i + 20)})[0])  # 14 samples = 0.58 s after
    assert task.metrics(case, late)["M1"].value == 0.5
    tr, _ = _scene(case, {"entry": (i + 2, i + 9)})
    for rs in tr.regions.values():
        rs.ok[:] = False
    gone = task.measure(case, tr)
    got = task.metrics(case, gone)["M1"]
    assert got.value == 0.5 and "unreadable" in got.reason and gone.notes["C_checks"]["indicator_readable"] == 0.0


def test_a_magnet_lost_at_the_coil_and_seen_past_it_entered_unseen():
    """A 3-frame exposure blur (flat seed 7201) paled the magnet where it reached the coil: no clear sighting put its
    front at the entrance, so "no entry" was measured (E = 0) though it was seen coming out past the coil. Seen
    past the coil, it went in: the entry is unresolved. One that stops short of the coil has no entry."""
    task = CoilIndicator()
    case, _ = task.make_case(0, 1000)
    case.known["north_leads"] = True
    tr, t_entry = _scene(case, {})
    x0, x1 = case.known["coil"][0], case.known["coil"][2]
    i = int(round(t_entry * FPS))
    tr.visible[i - 6:i, 0] = False  # lost on the approach, before its front reaches the entrance
    out = np.arange(len(tr.t)) > i + 30
    tr.visible[out, 0] = True
    tr.box[out, 0] = [x1 + 5.0, 251.0, x1 + 35.0, 269.0]
    tr.xy[out, 0] = [x1 + 20.0, 260.0]
    tr.area[out, 0] = 540.0
    m = task.measure(case, tr)
    got = task.metrics(case, m)["M1"]
    assert got.status == "operational_zero" and "seen past the coil" in got.reason
    short, _ = _scene(case, {}, speed=20.0)  # too slow to reach the coil in the clip: no entry, measured
    assert short.box[:, 0, 2].max() < x0
    stop = task.metrics(case, task.measure(case, short))["M1"]
    assert stop.status == "measured" and stop.value == 0.0


def test_reference_and_twin_end_to_end(tmp_path):
    task = CoilIndicator()
    case, _ = task.make_case(0, 1008)
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P30"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 80
    assert P["true"] == 100.0 and P["anti"] == 50.0
