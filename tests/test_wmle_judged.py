from lawful.store import VideoKey
from lawful.suites.wmle.judged import apply_judge_consistency


def _row(case, C, P, status="scored"):
    S = 0.15 * C + (0.85 * P if C >= 80 else 0.0)
    return {"suite": "wmle", "case_id": case, "task": "t", "model": "m", "rollout": 0, "col": "P1",
            "status": status, "value": S, "reason": "", "score": {"value": S, "metrics": {"C": C, "P": P}}}


def test_judge_C_replaces_measured_C_and_regates():
    rows = [_row("a", 100.0, 90.0), _row("b", 100.0, 90.0), _row("c", 60.0, 90.0)]
    values = {VideoKey("wmle", "a", "m", 0): {"consistency": 79.0},   # judge fails the gate
              VideoKey("wmle", "c", "m", 0): {"consistency": 85.0}}   # judge passes a measured fail
    out = {r["case_id"]: r for r in apply_judge_consistency(rows, values)}
    assert out["a"]["value"] == 0.15 * 79.0  # physics no longer counted
    assert out["a"]["score"]["extra"]["C_measured"] == 100.0
    assert out["b"]["value"] == 0.15 * 100 + 0.85 * 90  # no judge value: unchanged
    assert abs(out["c"]["value"] - (0.15 * 85 + 0.85 * 90)) < 1e-9
    assert rows[0]["value"] == 0.15 * 100 + 0.85 * 90  # inputs untouched
