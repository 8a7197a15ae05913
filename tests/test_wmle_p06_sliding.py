"""P6 sliding onset: onset metrics, the both-stay-put rule, extraction on an analytic tilt, end to end."""

import numpy as np
import pytest

from lawful.score.wmle import q
from lawful.suites.wmle.p06_sliding_onset import SlidingOnset, onset_angle_metric, onset_frame_metric
from lawful.suites.wmle.validate import validate_variant
from lawful.tracks import Tracks

def _tracks(t, objects, r=10.0):
    return Tracks.from_positions(t, objects, radius=r)


def test_onset_formulas():
    m = onset_frame_metric(40.0, 52.0, 96.0)
    assert m.residual == pytest.approx(0.125, abs=1e-12) and m.value == pytest.approx(q(0.125, 1.0), abs=1e-6)
    m = onset_angle_metric(24.0, 33.0)
    assert m.residual == pytest.approx(9.0, abs=1e-12) and m.value == pytest.approx(1 / 1.1, abs=1e-6)


def _measure(task, case, law):
    t = np.arange(case.n_frames) * case.duration / case.n_frames
    pos = task._positions(case, t, law)
    tr = _tracks(t, {oid: (p[:, 0], p[:, 1]) for oid, p in pos.items()}, 20.0)
    return task.measure(case, tr)


def test_extraction_on_analytic_tilt():
    task = SlidingOnset()
    case, _ = task.make_case(0, 5)
    m = _measure(task, case, "true")
    assert m.get("onset_angle_l_deg") == pytest.approx(case.known["onset_angle_deg"], abs=0.2)
    s = task.metrics(case, m)
    assert s["M1"].residual < 0.005 and s["M2"].residual < 0.2
    anti = task.metrics(case, _measure(task, case, "anti"))
    assert anti["M2"].residual == pytest.approx(case.known["anti_onset_delta_deg"], abs=0.3)


def test_both_blocks_stay_put_rule():
    task = SlidingOnset()
    case, _ = task.make_case(0, 5)
    t = np.arange(96) / 24.0
    tr = _tracks(t, {o.id: (0.5 * (o.box[0] + o.box[2]), 0.5 * (o.box[1] + o.box[3])) for o in case.objects}, 20.0)
    s = task.metrics(case, task.measure(case, tr))
    assert s["M1"].value == 0.7 and s["M2"].value == 0.7


def test_reference_beats_twin_end_to_end():
    r = validate_variant("sliding_onset", 0, 11)
    assert r["ref_P"] >= 95 and r["ref_C"] >= 80
    assert r["anti_P"] < r["ref_P"] - 5
