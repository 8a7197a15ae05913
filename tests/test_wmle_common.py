"""WMLE shared machinery: q, G, P, the gated composite, C from tracks, scores, aggregation, AUC."""

import math

import numpy as np
import pytest

from lawful.case import Case
from lawful.result import Measurement
from lawful.score.wmle import CONSISTENCY_GATE, composite, cv, geometric_mean, physical_score, q
from lawful.suites.wmle.common import (
    FAMILIES, MetricScore, WmleTask, departure_time, fill_gaps, interval_slopes, measure_consistency, score_metrics,
)
from lawful.suites.wmle.report import aggregate, table
from lawful.score.stats import roc_auc
from lawful.tracks import Tracks


# --- formulas -------------------------------------------------------------------------------------
def test_q_golden():
    assert q(0.0, 0.1) == 1.0
    assert q(0.1, 0.1) == pytest.approx(0.5, abs=1e-12)
    assert q(-0.3, 0.15) == pytest.approx(1 / 3, abs=1e-12)
    assert q(math.inf, 0.1) == 0.0
    with pytest.raises(ValueError):
        q(0.1, 0.0)


def test_geometric_mean_and_cv():
    assert geometric_mean([0.25, 1.0]) == pytest.approx(0.5, abs=1e-12)
    assert geometric_mean([0.5, 0.5, 0.5]) == pytest.approx(0.5, abs=1e-12)
    assert geometric_mean([0.9, 0.0]) == 0.0
    assert math.isnan(geometric_mean([]))
    assert cv([1.0, 2.0, 3.0]) == pytest.approx(np.std([1, 2, 3]) / 2.0, abs=1e-12)
    assert math.isnan(cv([5.0]))


def test_physical_score_excludes_undefined_keeps_operational_zero():
    assert physical_score({"M1": 0.8, "M2": None}) == pytest.approx(80.0)
    assert physical_score({"M1": 0.8, "M2": 0.0}) == pytest.approx(40.0)
    assert physical_score({"M1": None}) is None


def test_composite_gate_golden():
    assert CONSISTENCY_GATE == 80
    assert composite(79.9, 90.0) == pytest.approx(11.985, abs=1e-9)  # gated: only 0.15 C
    assert composite(80.0, 90.0) == pytest.approx(88.5, abs=1e-9)  # 12 + 76.5
    assert composite(100.0, None) == pytest.approx(15.0, abs=1e-9)  # no physics score recorded
    assert composite(100.0, 100.0) == pytest.approx(100.0, abs=1e-9)


# --- consistency C from tracks ---------------------------------------------------------------------
def _tracks(n=40, jump_at=None, gone=None, double_at=None):
    tr = Tracks.empty(["ball"], n, fps=24.0)
    tr.t = np.arange(n) / 24.0
    x = 100 + 3.0 * np.arange(n)
    if jump_at is not None:
        x[jump_at:] += 200.0
    tr.xy[:, 0, 0], tr.xy[:, 0, 1] = x, 200.0
    tr.box[:, 0] = np.stack([x - 10, np.full(n, 190.0), x + 10, np.full(n, 210.0)], axis=1)
    tr.area[:, 0] = 314.0
    tr.visible[:, 0] = True
    if gone is not None:
        tr.visible[gone:, 0] = False
        tr.xy[gone:, 0] = np.nan
        tr.area[gone:, 0] = 0
    if double_at is not None:
        tr.area[double_at:, 0] = 700.0
    return tr


def test_consistency_clean_track_is_100():
    chk = measure_consistency(_tracks(), ["ball"], ["impact"], ["impact"])
    assert chk.C == pytest.approx(100.0)


def test_consistency_teleport_fails_gate():
    chk = measure_consistency(_tracks(jump_at=20), ["ball"], [], [])
    assert chk.continuity == pytest.approx(0.75)
    assert chk.C == pytest.approx(75.0)


def test_consistency_disappearance_and_duplication_and_events():
    assert measure_consistency(_tracks(gone=30), ["ball"], [], []).C == pytest.approx(75.0)
    assert measure_consistency(_tracks(double_at=30), ["ball"], [], []).C == pytest.approx(75.0)
    assert measure_consistency(_tracks(), ["ball"], ["impact"], ["impact", "apex"]).C == pytest.approx(50.0)
    assert measure_consistency(_tracks(), ["ball", "other"], [], []).found == pytest.approx(0.5)


def test_consistency_forgives_short_dropouts():
    tr = _tracks()
    tr.visible[10:12, 0] = False
    assert measure_consistency(tr, ["ball"], [], []).persistence == pytest.approx(1.0)


# --- scores -----------------------------------------------------------------------------------------
class _Dummy(WmleTask):
    name = "dummy_task"
    label = "P99"
    family = FAMILIES[0]
    level = "E"

    def make_case(self, index, seed):
        raise NotImplementedError

    def render(self, case, law="true"):
        raise NotImplementedError

    def extract(self, case, tracks):
        return Measurement()

    def metrics(self, case, m):
        return m.notes["metrics"]


def _case(**known):
    return Case(id="c", suite="wmle", task="dummy_task", known=known)


def test_score_gate_operational_zero_and_judge_seam():
    task = _Dummy()
    assert task.phenomena == ("P99",)
    m = Measurement(notes={"C": 79.9, "metrics": {"M1": MetricScore.measured(0.9, 0.011),
                                                   "M2": MetricScore.operational_zero("apex not seen")}})
    sc = task.score(_case(), m)["P99"]
    assert sc.status == "scored"
    assert sc.metrics["P"] == pytest.approx(45.0)
    assert sc.value == pytest.approx(0.15 * 79.9)
    assert sc.extra["gated"] is True
    assert sc.extra["metric_status"] == {"M1": "measured", "M2": "operational_zero"}
    assert sc.residuals["M1"] == pytest.approx(0.011)
    sc = task.score(_case(judge_C=100.0), m)["P99"]  # a judge's C replaces the measured one
    assert sc.metrics["C"] == 100.0 and sc.extra["C_source"] == "judge"
    assert sc.value == pytest.approx(15 + 0.85 * 45.0)


def test_score_all_undefined_is_invalid_without_physics():
    m = Measurement(notes={"C": 100.0, "metrics": {"M1": MetricScore.undefined("execution error")}})
    sc = score_metrics(_Dummy(), _case(), m, m.notes["metrics"])
    assert sc.status == "invalid" and sc.metrics["P"] is None and sc.extra["S"] == pytest.approx(15.0)


# --- aggregation ------------------------------------------------------------------------------------
def _row(model, label, C, P, status="scored", unresolved=False):
    S = composite(C, P) if C is not None else None
    score = {"status": status, "metrics": {"C": C, "P": P}, "extra": {"level": "E", "family": FAMILIES[0],
                                                                      "unresolved": unresolved}}
    return {"suite": "wmle", "case_id": "x", "task": "t", "model": model, "rollout": 0, "col": label,
            "status": status, "value": S if status == "scored" else None, "reason": "", "score": score}


def test_aggregate_gate_before_averaging_and_invalid_excluded():
    rows = [_row("m", "P1", 100.0, 80.0), _row("m", "P1", 60.0, 90.0),  # second is gated: S = 9
            _row("m", "P1", None, None, status="invalid"),
            _row("m", "P2", 100.0, 50.0)]
    sec = aggregate(rows)
    m = sec["models"]["m"]
    assert m["tasks"]["P1"] == pytest.approx((83.0 + 9.0) / 2)
    assert m["P"]["P1"] == pytest.approx(85.0)  # gated video's P counts, invalid excluded
    assert m["C"]["P1"] == pytest.approx(80.0)
    assert m["gate_passed"]["P1"] is False and m["gate_passed"]["P2"] is True
    assert m["overall"] == pytest.approx(((83.0 + 9.0) / 2 + composite(100.0, 50.0)) / 2)
    assert m["videos"] == 4 and m["invalid"] == 1 and m["scored"] == 3
    assert sec["scale"] == [0, 100]
    t = table(sec)
    assert t.row_count == 4  # P1, P2, the family row, the average


def test_roc_auc_mann_whitney_with_ties():
    assert roc_auc([3, 4], [1, 2]) == 1.0
    assert roc_auc([1, 2], [3, 4]) == 0.0
    assert roc_auc([1, 3], [1, 2]) == pytest.approx(0.625)  # (0.5 + 0 + 1 + 1) / 4


# --- kinematics helpers -----------------------------------------------------------------------------
def test_departure_time_recovers_release():
    t = np.arange(40) / 24.0
    d = np.where(t > 0.3, 400.0 * (t - 0.3) ** 2, 0.0)
    assert departure_time(t, d, 1.0, n_fit=20) == pytest.approx(0.3, abs=1e-4)
    assert departure_time(t, np.zeros(40), 1.0) is None


def test_a_creeping_first_sample_does_not_cap_a_whole_fall_fit():
    # released at 0.3 s; a codec smeared the start: 0.2-0.6 px of creep on the three samples before it, the first of
    # them past a 0.15-px threshold (what a CRF 35 clip of a flat free fall showed, its release read 24 ms early)
    t = np.arange(60) / 24.0
    d = np.where(t > 0.3, 160.0 * (t - 0.3) ** 2, 0.0)
    d[5:8] = [0.2, 0.4, 0.6]  # t = 0.208, 0.25, 0.292: before the release
    capped = departure_time(t, d, 0.15, n_fit=55)
    assert capped <= t[5] + 1e-9  # the search stops at the first sample past the threshold
    free = departure_time(t, d, 0.15, n_fit=55, n_after=4)
    assert free == pytest.approx(0.3, abs=0.004) and abs(free - 0.3) < 0.2 * abs(capped - 0.3)
    clean = np.where(t > 0.3, 160.0 * (t - 0.3) ** 2, 0.0)  # no creep: the same release either way
    assert departure_time(t, clean, 0.15, n_fit=55, n_after=4) == pytest.approx(0.3, abs=1e-4)


def test_interval_slopes_are_midpoint_velocities():
    t = np.arange(30) / 24.0
    v, c = interval_slopes(t, 5 * t**2 + 2 * t, 3)
    assert np.allclose(v, 10 * c + 2, atol=1e-9)


def test_fill_gaps_only_short_runs():
    y = np.array([0.0, np.nan, 2.0, np.nan, np.nan, np.nan, 6.0])
    out = fill_gaps(y, 2)
    assert out[1] == pytest.approx(1.0) and np.isnan(out[3:6]).all()


def test_suite_discovers_tasks_in_label_order():
    from lawful.suites.base import get_suite

    suite = get_suite("wmle")
    labels = [t.label for t in suite.tasks.values()]
    assert labels == sorted(labels, key=lambda s: int(s[1:]))
    assert {"P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"} <= set(labels)
    assert suite.scale == (0.0, 100.0) and suite.default_cases_per_task == 2
