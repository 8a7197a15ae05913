"""P31 charged balls: M1/M2 formulas, the zero rules on hand-made tracks, end to end (law high, twin lower)."""

import math

import numpy as np
import pytest

from lawful.runner.evaluate import evaluate_video
from lawful.score.wmle import q
from lawful.suites.wmle.p31_charged_balls import ChargedBalls, angle_asymmetry, offset_asymmetry
from lawful.tracks import Tracks
from lawful.video import write_video
from lawful.world.em import settle

FPS = 24.0
PIVOT = (320.0, 34.0)
L = 220.0


def test_metric_formulas():
    m = angle_asymmetry(20.0, 11.0)
    assert m.residual == pytest.approx(9.0) and m.value == pytest.approx(1 / (1 + 9 / 90))
    m = offset_asymmetry(30.0, 60.0)
    assert m.residual == pytest.approx(math.log(2)) and m.value == pytest.approx(1 / (1 + math.log(2)))
    assert offset_asymmetry(-3.0, 60.0).status == "operational_zero"


def test_settle_is_a_damped_step():
    t = np.array([0.0, 0.5, 20.0])
    v = settle(t, 0.5, 3.0, 20.0, 1.0, 0.25)
    assert v[0] == 3.0 and v[1] == 3.0 and v[2] == pytest.approx(20.0, abs=1e-9)
    assert settle(np.array([1.0]), 0.5, 3.0, 20.0, 1.0, 0.25)[0] > 20.0  # overshoots half a period after


def _balls(theta_l, theta_r, L_l=L, L_r=L):
    """Tracks of two balls on threads from PIVOT at outward angles (deg) [T]."""
    n = len(theta_l)
    t = np.arange(n) / FPS
    a_l, a_r = np.radians(theta_l), np.radians(theta_r)
    pos = {"left": (PIVOT[0] - L_l * np.sin(a_l), PIVOT[1] + L_l * np.cos(a_l)),
           "right": (PIVOT[0] + L_r * np.sin(a_r), PIVOT[1] + L_r * np.cos(a_r))}
    return Tracks.from_positions(t, pos, radius=12.0)


def _case():
    case, _ = ChargedBalls().make_case(0, 1000)
    case.known["pivot"] = list(PIVOT)
    return case


def test_hand_made_equilibria():
    t = np.arange(120) / FPS
    task, case = ChargedBalls(), _case()
    th = settle(t, 0.3, 3.0, 20.0, 1.0, 0.25)
    m = task.measure(case, _balls(th, settle(t, 0.3, 3.0, 12.0, 1.0, 0.25)))
    got = task.metrics(case, m)
    assert got["M1"].residual == pytest.approx(8.0, abs=1e-3)
    e2 = math.log(math.sin(math.radians(20)) / math.sin(math.radians(12)))
    assert got["M2"].residual == pytest.approx(e2, abs=1e-4) and got["M2"].value == pytest.approx(q(e2, 1.0), abs=1e-4)
    sym = task.metrics(case, task.measure(case, _balls(th, th)))
    assert sym["M1"].value == pytest.approx(1.0) and sym["M2"].value == pytest.approx(1.0)


@pytest.mark.parametrize("kind", ["no_separation", "not_settled", "unequal_threads", "stretching_thread"])
def test_observed_failures_zero_both(kind):
    t = np.arange(120) / FPS
    th = settle(t, 0.3, 3.0, 20.0, 1.0, 0.25)
    if kind == "no_separation":
        tr = _balls(np.full(len(t), 3.0), np.full(len(t), 3.0))
    elif kind == "not_settled":
        sw = 20.0 + 8.0 * np.sin(2 * np.pi * t / 1.0)
        tr = _balls(sw, sw)
    elif kind == "unequal_threads":
        tr = _balls(th, th, L_l=L, L_r=0.8 * L)
    else:  # the right thread lengthens by 12 % over the clip: its median lies within 5 % of the left's
        tr = _balls(th, th, L_l=L, L_r=L * np.linspace(0.94, 1.06, len(t)))
    task, case = ChargedBalls(), _case()
    got = task.metrics(case, task.measure(case, tr))
    assert got["M1"].value == 0.0 and got["M2"].value == 0.0
    assert got["M1"].status == "measured" and "observed failure" in got["M1"].reason
    want = {"no_separation": "no outward separation", "not_settled": "not settled",
            "unequal_threads": "threads not equal", "stretching_thread": "threads not equal"}[kind]
    assert want in got["M1"].reason


def test_two_stray_sightings_in_a_row_are_no_change_of_a_thread():
    """A blob of the right ball's colour taken for it in 2 samples in a row, 40 px off its path while it swings
    (the studio P31 seed 1001 failure had one): the thread's length is read over its running median, so the
    clip is scored, not failed for a changing thread; at 3 in a row the thread did change."""
    t = np.arange(120) / FPS
    th = settle(t, 0.3, 3.0, 20.0, 1.0, 0.25)
    task, case = ChargedBalls(), _case()
    for run, fails in ((2, False), (3, True)):
        tr = _balls(th, th)
        tr.xy[20:20 + run, 1, 0] += 40.0
        m = task.measure(case, tr)
        assert ("threads not equal" in m.notes.get("failure", "")) == fails
        if not fails:
            got = task.metrics(case, m)
            assert got["M1"].value == pytest.approx(1.0) and got["M2"].value == pytest.approx(1.0)


def test_reference_and_twin_end_to_end(tmp_path):
    task = ChargedBalls()
    case, _ = task.make_case(0, 1005)
    P = {}
    for law in ("true", "anti"):
        path = write_video(tmp_path / f"{law}.mp4", task.render(case, law), case.fps)
        sc = evaluate_video(case, path, task).scores["P31"]
        P[law] = sc.metrics["P"]
        assert sc.metrics["C"] >= 80
    assert P["true"] >= 97
    assert P["anti"] < 85
