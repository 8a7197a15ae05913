"""Principia on tracks with Gaussian localisation noise of known sigma: the DCS gate and the events
hold for law-correct motion, anti-physics still fails, a static track is not physical, and an
object that leaves the frame makes its column unmeasurable."""

from __future__ import annotations

import numpy as np
import pytest

from lawful.suites.base import get_suite
from lawful.suites.principia import drop, pendulum, spring
from lawful.world.scenes import pairs
from test_principia_measure import tracks_from

SUITE = get_suite("principia")


def _noisy(case, sigma, seed, xy=None):
    rows = {o: np.asarray(r, float) for o, r in case.truth.tracks.items()}
    t = next(iter(rows.values()))[:, 0]
    xy = xy if xy is not None else {o: r[:, 1:] for o, r in rows.items()}
    rng = np.random.default_rng(seed)
    return tracks_from(case, {o: p + rng.normal(0, sigma, p.shape) for o, p in xy.items()}, t)


@pytest.mark.parametrize("name", list(SUITE.tasks))
@pytest.mark.parametrize("sigma", [1.0, 2.0])
def test_law_correct_motion_with_noise_passes_the_gate_and_scores_high(name, sigma):
    task = SUITE.task(name)
    for index in range(2):
        case, _ = task.make_case(index, 11)
        for seed in range(2):
            m = task.measure(case, _noisy(case, sigma, seed))
            for col, s in task.score(case, m).items():
                assert s.status == "scored", (col, s.reason)
                assert s.metrics["dcs"] >= 0.8
                assert s.value >= (1.0 if col in task.ordering_columns else 0.95), (col, s.value, s.sides)
            sig = [v["sigma_px"] for v in m.notes["dcs_noise"].values()]
            assert all(0.6 * sigma < v < 1.8 * sigma for v in sig), sig  # the gate used the measured noise


def _anti_xy(name, case):
    k, t = case.known, case.truth.tracks
    times = np.asarray(next(iter(t.values())))[:, 0]
    if name == "pendulum":
        return {o: np.column_stack(p) for o, p in zip(pendulum.IDS, pairs.pendulum_positions(k, pendulum.IDS, times, "anti"))}
    if name == "spring":
        ext = pairs.spring_extensions(k, times, "anti")
        return {o: np.column_stack([np.full_like(times, k["x"][i]),
                                    k["bar_y"] + k["rest_px"] + ext[i] + k["side_px"][i] / 2])
                for i, o in enumerate(spring.IDS)}
    return {o: np.column_stack([np.full_like(times, k["x"][i]),
                                k["ground_y"] - k["radius_px"] - pairs.drop_height_px(k, i, times, "anti")])
            for i, o in enumerate(drop.IDS)}


@pytest.mark.parametrize("name", ["drop", "pendulum", "spring"])
def test_anti_physics_with_noise_still_scores_low(name):
    task = SUITE.task(name)
    case, _ = task.make_case(1, 11)
    scores = task.score(case, task.measure(case, _noisy(case, 1.0, 0, _anti_xy(name, case))))
    for col, s in scores.items():
        assert s.status == "scored" and s.metrics["dcs"] >= 0.8, (col, s.reason)
        assert s.value <= 0.7, (col, s.value)


@pytest.mark.parametrize("name", ["drop", "pendulum", "spring", "projectile", "friction"])
def test_a_static_noisy_track_is_not_scored_as_physical(name):
    task = SUITE.task(name)
    case, _ = task.make_case(0, 3)
    still = {o.id: np.tile(np.asarray(case.truth.tracks[o.id])[0, 1:], (case.n_frames, 1)) for o in case.objects}
    m = task.measure(case, _noisy(case, 1.0, 5, still))
    for col, s in task.score(case, m).items():
        assert s.value in (0.0, None), (col, s.status, s.value)
        assert s.status == "unmeasurable" or s.reason.startswith("DCS"), (col, s.reason)


def test_reversed_motion_with_noise_fails_the_gate():
    task = SUITE.task("drop")
    case, _ = task.make_case(0, 4)
    rows = {o: np.asarray(r, float) for o, r in case.truth.tracks.items()}
    xy = {o: np.column_stack([r[:, 1], 2 * r[0, 2] - r[:, 2]]) for o, r in rows.items()}  # falls upwards
    for col, s in task.score(case, task.measure(case, _noisy(case, 1.0, 1, xy))).items():
        assert s.status == "scored" and s.value == 0.0 and s.metrics["dcs"] < 0, (col, s.reason)


def test_slow_motion_buried_in_noise_is_unmeasurable_not_zero():
    task = SUITE.task("spring")
    case, _ = task.make_case(0, 4)
    rows = {o: np.asarray(r, float) for o, r in case.truth.tracks.items()}
    n = len(next(iter(rows.values())))
    # each cube creeps down 1 px per frame under 6 px noise: it moves, but no step stands out
    xy = {o: np.column_stack([r[:, 1], r[0, 2] + np.arange(n) * 1.0]) for o, r in rows.items()}
    m = task.measure(case, _noisy(case, 6.0, 2, xy))
    s = task.score(case, m)["spring"]
    assert m.notes["dcs_status"] == "too_noisy"
    assert s.status == "unmeasurable" and "noise threshold" in s.reason


def test_a_pendulum_released_on_its_pivot_line_is_unmeasurable():
    task = SUITE.task("pendulum")
    case, _ = task.make_case(0, 4)
    rows = {o: np.asarray(r, float) for o, r in case.truth.tracks.items()}
    ax = case.known["anchors"]["bob_1"][0]
    xy = {o: r[:, 1:].copy() for o, r in rows.items()}
    xy["bob_1"][:, 0] = ax + 0.2 * np.sin(np.arange(len(xy["bob_1"])) / 3.0)  # hangs straight down
    s = task.score(case, task.measure(case, _noisy(case, 0.5, 0, xy)))["pendulum"]
    assert s.status == "unmeasurable" and "direction undefined" in s.reason


def _cut_at_bottom(tr, j, height):
    """The tracker's view of object ``j`` where it crosses the bottom edge: the visible part only."""
    box = tr.box[:, j].copy()
    over = box[:, 3] > height - 1
    gone = box[:, 1] > height - 1
    part = over & ~gone
    tr.box[part, j, 3] = height - 1
    tr.xy[part, j, 1] = (box[part, 1] + height - 1) / 2
    tr.area[part, j] *= (height - 1 - box[part, 1]) / (box[part, 3] - box[part, 1])
    tr.visible[gone, j] = False
    tr.xy[gone, j] = np.nan
    tr.box[gone, j] = np.nan
    tr.area[gone, j] = 0


def test_a_cube_leaving_the_frame_makes_the_spring_unmeasurable_not_a_later_turn():
    task = SUITE.task("spring")
    case, _ = task.make_case(0, 4)
    tr = tracks_from(case)
    heavy = int(np.argmax(case.known["side_px"]))
    oid = spring.IDS[heavy]
    j = tr.ids.index(oid)
    # a frame that ends 25 px above the heavy cube's lowest bottom edge
    low = float(np.nanmax(tr.box[:, j, 3]))
    case.height = int(low - 25)
    before = task.measure(case, tracks_from(case))  # with perfect (uncut) boxes the edge is still seen
    assert before.get(f"extension_{oid}") is None and "frame edge" in before.missing[f"extension_{oid}"]
    _cut_at_bottom(tr, j, case.height)
    m = task.measure(case, tr)
    s = task.score(case, m)["spring"]
    assert m.get(f"extension_{oid}") is None
    assert s.status == "unmeasurable" and oid in s.reason and "frame edge" in s.reason
    other = spring.IDS[1 - heavy]
    assert m.get(f"extension_{other}") == pytest.approx(case.truth.quantities[f"extension_{other}"], rel=0.01)


def test_a_pendulum_counts_only_the_swings_seen_before_a_gap():
    task = SUITE.task("pendulum")
    case, _ = task.make_case(0, 4)
    tr = tracks_from(case)
    full = task.measure(case, tr)
    j = tr.ids.index("bob_1")
    n = full.get("half_periods_bob_1")
    turns = [e.frame for e in full.events if e.object == "bob_1" and e.name.startswith("turning_")]
    lost = int(round(turns[-2]))  # a dropout right at the second-to-last turning point
    tr.visible[lost - 1:lost + 2, j] = False
    tr.xy[lost - 1:lost + 2, j] = np.nan
    m = task.measure(case, tr)
    assert m.get("half_periods_bob_1") < n
    assert m.get("period_bob_1") == pytest.approx(full.get("period_bob_1"), rel=0.01)
