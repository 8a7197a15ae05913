"""Principia's order gate: a clip whose frames are out of order fails (scored 0 with the reason), on the cases' true
tracks put out of order; law-correct tracks, with or without Gaussian noise, pass it."""

from __future__ import annotations

import numpy as np
import pytest

from lawful.perceive import noise
from lawful.suites.base import get_suite
from test_principia_measure import tracks_from

SUITE = get_suite("principia")


def _reordered(case, order):
    rows = {o: np.asarray(r, float) for o, r in case.truth.tracks.items()}
    t = next(iter(rows.values()))[:, 0]
    return tracks_from(case, {o: r[order, 1:] for o, r in rows.items()}, t)


def _swapped(n):
    return [i ^ 1 if (i ^ 1) < n else i for i in range(n)]


@pytest.mark.parametrize("name", ["drop", "friction", "projectile", "momentum_mass"])
def test_neighbouring_frames_swapped_fail_the_order_gate(name):
    task = SUITE.task(name)
    case, _ = task.make_case(0, 11)
    n = len(next(iter(case.truth.tracks.values())))
    m = task.measure(case, tracks_from(case))
    assert m.get("order") == 1.0 and all(v["zigzags"] == 0 for v in m.notes["order"].values())
    m = task.measure(case, _reordered(case, _swapped(n)))
    assert m.get("order") < 0.8
    worst = min((v for v in m.notes["order"].values() if v["runs"]), key=lambda v: 1 - v["zigzags"] / v["runs"])
    for s in task.score(case, m).values():
        assert s.status == "scored" and s.value == 0.0 and s.metrics["order"] == m.get("order")
        assert s.reason.startswith(f"frames out of order: {worst['zigzags']} of {worst['runs']} runs")


def test_the_step_is_two_mask_edges_or_what_the_measured_noise_makes_a_step():
    task = SUITE.task("drop")
    case, _ = task.make_case(0, 11)
    m = task.measure(case, tracks_from(case))
    assert all(v["step_px"] == pytest.approx(2 * noise.MASK_EDGE_PX) for v in m.notes["order"].values())
    rows = {o: np.asarray(r, float) for o, r in case.truth.tracks.items()}
    t = next(iter(rows.values()))[:, 0]
    rng = np.random.default_rng(3)
    tracks = tracks_from(case, {o: r[:, 1:] + rng.normal(0, 2.0, r[:, 1:].shape) for o, r in rows.items()}, t)
    m = task.measure(case, tracks)
    for o, v in m.notes["order"].items():
        sigma = noise.track_noise(tracks[o]).sigma
        assert 1.2 < sigma < 3.2 and v["step_px"] == pytest.approx(noise.k_for() * np.sqrt(2) * sigma, abs=1e-3)
    assert m.get("order") == 1.0  # 2-px noise on law-correct centroids zigzags past two mask edges, not past this


def test_a_still_scene_passes_and_a_stretch_out_of_order_fails():
    task = SUITE.task("friction")
    case, _ = task.make_case(0, 11)
    n = len(next(iter(case.truth.tracks.values())))
    m = task.measure(case, _reordered(case, [0] * n))  # every frame the first: no run (the DCS's "no motion" fails it)
    assert m.get("order") == 1.0 and all(v["runs"] == 0 for v in m.notes["order"].values())
    # a generator's temporal flicker over the slide: frames of a stretch a third of the clip long in a random order
    # (the rest in order, so the measured noise is the track's own)
    y = np.asarray(case.truth.tracks["block_1"], float)[:, 2]
    moving = np.flatnonzero(np.abs(np.diff(y)) > 3 * noise.MASK_EDGE_PX)
    a = int(moving[0])
    b = min(n, a + n // 3)
    perm = list(range(n))
    perm[a:b] = list(a + np.random.default_rng(5).permutation(b - a))
    m = task.measure(case, _reordered(case, perm))
    assert m.get("order") < 0.8 and all(s.value == 0.0 for s in task.score(case, m).values())
    assert all(v["step_px"] == pytest.approx(2 * noise.MASK_EDGE_PX) for v in m.notes["order"].values())
