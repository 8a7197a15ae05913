"""P9 sphere vs ring: the √(10/7) constant, M1's formula, extraction on hand-made tracks, end to end."""

import math

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p09_sphere_vs_ring import TIME_RATIO, SphereVsRing, travel_time_ratio
from lawful.tracks import Tracks
from lawful.video import write_video


def _tracks(t, objects, r=15.0):
    ids = list(objects)
    tr = Tracks.empty(ids, len(t), fps=1.0 / (t[1] - t[0]))
    tr.t = np.asarray(t, float)
    tr.frames = np.arange(len(t))
    for j, oid in enumerate(ids):
        x, y = objects[oid]
        tr.xy[:, j, 0], tr.xy[:, j, 1] = x, y
        tr.box[:, j] = np.stack([x - r, y - r, x + r, y + r], axis=1)
        tr.area[:, j] = np.pi * r * r
        tr.visible[:, j] = True
    return tr


def test_time_ratio_from_inertia():
    # a = g sin(theta) / (1 + k): k = 2/5 (solid sphere), 1 (thin ring); t ∝ 1 / sqrt(a)
    assert TIME_RATIO == pytest.approx(math.sqrt(10 / 7), abs=1e-15)


def test_metric_formula():
    assert travel_time_ratio(TIME_RATIO).value == pytest.approx(1.0, abs=1e-12)
    m = travel_time_ratio(1.0)
    e = abs(1.0 / math.sqrt(10 / 7) - 1)
    assert m.residual == pytest.approx(e, abs=1e-12)
    assert m.value == pytest.approx(1 / (1 + e / 0.10), abs=1e-9)
    assert travel_time_ratio(None).status == "operational_zero"


@pytest.mark.parametrize("accel_ratio", [10 / 7, 1.21])
def test_extraction_recovers_the_travel_time_ratio(accel_ratio):
    """Both bodies released together at t0 = 0.2 s (between samples), stopped after 300 px."""
    t = np.arange(2400) / 800.0
    t0, a_s = 0.2, 140.0
    u = np.array([math.cos(0.35), math.sin(0.35)])
    paths = {}
    for oid, a, x0 in (("sphere", a_s, 40.0), ("ring", a_s / accel_ratio, 340.0)):
        s = np.minimum(0.5 * a * np.clip(t - t0, 0, None) ** 2, 300.0)
        paths[oid] = (x0 + s * u[0], 60.0 + s * u[1])
    task = SphereVsRing()
    case, _ = task.make_case(0, 3)
    m = task.extract(case, _tracks(t, paths))
    assert m.get("release_time_s") == pytest.approx(t0, abs=1e-6)
    r_t = math.sqrt(accel_ratio)
    got = task.metrics(case, m)["M1"]
    assert got.value == pytest.approx(q(r_t / TIME_RATIO - 1, 0.10), abs=1e-6)


def test_unmoving_ring_is_an_operational_zero():
    t = np.arange(80) / 24.0
    s = 0.5 * 100 * t**2
    task = SphereVsRing()
    case, _ = task.make_case(0, 3)
    m = task.extract(case, _tracks(t, {"sphere": (40 + s, 60 + 0 * s), "ring": (340 + 0 * t, 60 + 0 * t)}))
    assert task.metrics(case, m)["M1"].status == "operational_zero"


def test_render_is_a_pure_function_of_the_case():
    task = SphereVsRing()
    case, first = task.make_case(2, 1002)
    again = type(case).model_validate_json(case.model_dump_json())
    frames = task.render(again)
    assert np.array_equal(next(iter(frames)), first)


def test_reference_and_twin_end_to_end(tmp_path):
    task = SphereVsRing()
    case, _ = task.make_case(1, 1001)
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P9"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 80
    assert P["true"] >= 95
    assert P["anti"] < 50


def test_release_fit_standard_error_matches_the_scatter_of_the_ratio():
    """Noisy sphere and ring at 24 fps: the stated standard error of sqrt(c_sphere / c_ring) is the spread
    the measured travel-time ratio shows over noise draws; the score stays the seed's q(e1; 0.10)."""
    from lawful.suites.wmle.p09_sphere_vs_ring import joint_release_time

    t = np.arange(48) / 24.0
    rng = np.random.default_rng(3)
    clean = {"sphere": np.minimum(0.5 * 140.0 * np.clip(t - 0.1, 0, None) ** 2, 220.0)}
    clean["ring"] = np.minimum(0.5 * 98.0 * np.clip(t - 0.1, 0, None) ** 2, 220.0)
    ratios, ses = [], []
    for _ in range(100):
        paths = {b: s + rng.normal(0, 0.3, len(t)) for b, s in clean.items()}
        _, fit = joint_release_time(t, paths, 200.0)
        ratios.append(math.sqrt(fit["c"][0] / fit["c"][1]))
        ses.append(fit["ratio_rel_se"])
    assert np.mean(ratios) == pytest.approx(TIME_RATIO, rel=0.002)
    assert np.std(ratios) / np.mean(ratios) / np.mean(ses) == pytest.approx(1.0, abs=0.25)
    m = travel_time_ratio(TIME_RATIO * 1.01, sigma_rel=float(np.mean(ses)))
    assert m.value == pytest.approx(q(0.01, 0.10)) and m.components["uncertainty"] > 0
    assert m.components["e1_beyond_noise"] == pytest.approx(max(0.0, 0.01 - m.components["uncertainty"]))
