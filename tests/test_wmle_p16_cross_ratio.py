"""P16 cross-ratio on a sliding rod: M1/M2 on known numbers, hand-made tracks, rendered reference and twin."""

import math

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p16_cross_ratio import IDS, CrossRatio, collinearity, cross_ratio_constancy, frame_cross_ratio
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world import optics

FPS = 24.0


def _markers(s_of_t, T=72, seed=0, jitter=0.0):
    """Tracks of four markers at rod fractions ``s_of_t(i)`` on a rod turning from 70° to 25°, seen through
    a fixed homography."""
    rng = np.random.default_rng(seed)
    H = np.array([[1.02, 0.05, 4.0], [-0.03, 0.98, 6.0], [2e-4, -1e-4, 1.0]])
    tr = Tracks.empty(list(IDS), T, fps=FPS)
    tr.t, tr.frames = np.arange(T) / FPS, np.arange(T)
    for i in range(T):
        phi = math.radians(70 - 45 * i / (T - 1))
        top, foot = np.array([80, 310 - 270 * math.sin(phi)]), np.array([80 + 270 * math.cos(phi), 310])
        p = optics.apply_homography(H, top + np.asarray(s_of_t(i))[:, None] * (foot - top))
        p += rng.normal(0, jitter, p.shape)
        for j in range(4):
            tr.xy[i, j] = p[j]
            tr.box[i, j] = [p[j, 0] - 9, p[j, 1] - 9, p[j, 0] + 9, p[j, 1] + 9]
            tr.area[i, j] = math.pi * 81
            tr.visible[i, j] = True
    return tr


def test_metric_formulas():
    chi = np.r_[np.full(10, 1.3), np.full(10, 1.5)]  # two levels: CV = 0.1 / 1.4, no local noise
    m = cross_ratio_constancy(chi)
    assert m.residual == pytest.approx(0.1 / 1.4, rel=1e-9) and m.value == pytest.approx(q(0.1 / 1.4, 0.10))
    rng = np.random.default_rng(1)
    noisy = 1.4 + rng.normal(0, 0.004, 400)  # pure measurement noise: its variance is taken out
    assert cross_ratio_constancy(noisy).residual < 0.25 * cv_of(noisy)
    m = collinearity([0.01, 0.03, math.nan, 0.02, 0.02, 0.02])
    assert m.residual == pytest.approx(0.02) and m.value == pytest.approx(q(0.02, 0.05))
    assert cross_ratio_constancy([1.4, 1.4]).status == "operational_zero"
    chi, ratio = frame_cross_ratio(np.array([[0, 0], [1, 0.5], [2, 0], [3, 0.5]], float))
    assert chi == pytest.approx(optics.cross_ratio([0, 1, 2, 3]), rel=0.05) and ratio > 0.05


def cv_of(x):
    return float(np.std(x) / np.mean(x))


def test_hand_made_tracks_rigid_and_drifting():
    task = CrossRatio()
    case, _ = task.make_case(0, 3)
    s = np.array([0.1, 0.35, 0.6, 0.9])
    rigid = task.measure(case, _markers(lambda i: s, jitter=0.05))
    got = task.metrics(case, rigid)
    assert got["M1"].residual < 0.002 and got["M2"].residual < 0.001
    drift = [s + np.array([0, 0, 0.14 * i / 71, 0]) for i in range(72)]
    m = task.measure(case, _markers(lambda i: drift[i]))
    want = np.array([optics.cross_ratio(d) for d in drift])
    assert task.metrics(case, m)["M1"].residual == pytest.approx(cv_of(want), rel=0.02)


def test_reference_and_twin_end_to_end(tmp_path):
    task = CrossRatio()
    case, _ = task.make_case(0, 1002)
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P16"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 95
    assert P["true"] >= 97
    assert P["anti"] < 85
