"""P15 small-angle isochronism: M1/M2 formulas, the sinusoid residual on hand-made tracks, end to end."""

import math

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import geometric_mean, q
from lawful.suites.wmle import _pendulums as pk
from lawful.suites.wmle.p15_isochronism import Isochronism, isochronism_ratio, sinusoid_residuals
from lawful.tracks import Tracks
from lawful.video import write_video

FPS = 240.0


def test_metric_formulas():
    m = isochronism_ratio(1.0, 1.1)
    assert m.residual == pytest.approx(1 / 1.1 - 1, abs=1e-12)
    assert m.value == pytest.approx(1 / (1 + (1 - 1 / 1.1) / 0.10), abs=1e-12)
    m = sinusoid_residuals(0.05, 0.0)
    assert m.value == pytest.approx(math.sqrt(1 / 1.5), abs=1e-12)
    assert sinusoid_residuals(None, 0.0).status == "operational_zero"


def test_sinusoid_rms_of_a_pure_sinusoid_is_zero():
    t = np.arange(0, 6, 1 / FPS)
    u, T = pk.sinusoid_rms(t, 0.1 * np.sin(2 * np.pi * t / 1.3 + 0.4) + 0.02, 1.25)
    assert u == pytest.approx(0.0, abs=1e-9) and T == pytest.approx(1.3, abs=1e-9)


def _best_sinusoid_rms(t, a, w_lo, w_hi):
    """Brute force: the smallest RMS residual of A cos ωt + B sin ωt + c over a fine ω grid (refined twice)."""
    for _ in range(3):
        ws = np.linspace(w_lo, w_hi, 401)
        rms = [np.sqrt(np.mean((np.column_stack([np.cos(w * t), np.sin(w * t), np.ones_like(t)])
                                @ np.linalg.lstsq(np.column_stack([np.cos(w * t), np.sin(w * t), np.ones_like(t)]),
                                                  a, rcond=None)[0] - a) ** 2)) for w in ws]
        k = int(np.argmin(rms))
        step = ws[1] - ws[0]
        w_lo, w_hi = ws[k] - step, ws[k] + step
    return float(min(rms))


def test_hand_made_swings_with_a_third_harmonic():
    """Angle A cos ωt + B cos 3ωt: centre crossings are unchanged; the residual of the best sinusoid
    (about B/√2) matches a brute-force search over ω."""
    t = np.arange(int(6 * FPS)) / FPS  # whole periods, whole samples per period
    A, B = math.radians(10), 0.03
    left = A * np.cos(2 * np.pi * t / 1.0) + B * np.cos(6 * np.pi * t / 1.0)
    right = math.radians(5) * np.cos(2 * np.pi * t / 1.2)
    tr = Tracks.empty(["left", "right"], len(t), fps=FPS)
    tr.t, tr.frames = t, np.arange(len(t))
    task = Isochronism()
    case, _ = task.make_case(0, 3)
    for j, (p, a) in enumerate(zip(case.known["pendulums"], (left, right))):
        px, py, L = p["pivot_x"], p["pivot_y"], p["length_px"]
        tr.xy[:, j, 0], tr.xy[:, j, 1] = px + L * np.sin(a), py + L * np.cos(a)
        tr.box[:, j] = np.stack([tr.xy[:, j, 0] - 12, tr.xy[:, j, 1] - 12, tr.xy[:, j, 0] + 12,
                                 tr.xy[:, j, 1] + 12], axis=1)
        tr.area[:, j] = 450.0
    tr.visible[:] = True
    m = task.measure(case, tr)
    got = task.metrics(case, m)
    u = _best_sinusoid_rms(t, left, 2 * np.pi * 0.95, 2 * np.pi * 1.05)
    assert u == pytest.approx(B / math.sqrt(2), rel=1e-3)
    assert m.get("sinusoid_rms_left_rad") == pytest.approx(u, abs=1e-8)
    assert got["M1"].value == pytest.approx(q(1 / 1.2 - 1, 0.10), abs=1e-6)
    assert got["M2"].value == pytest.approx(geometric_mean([q(u, 0.10), 1.0]), abs=1e-6)


def test_reference_and_twin_end_to_end(tmp_path):
    task = Isochronism()
    case, _ = task.make_case(3, 1003)
    case = case.model_copy(update={"duration": 4.5})
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P15"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 80
    assert P["true"] >= 95
    assert P["anti"] < 80
