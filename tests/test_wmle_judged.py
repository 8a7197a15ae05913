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


def _lost(case):
    """A video whose object was lost: unmeasurable, no C, no P (what evaluate_video stores)."""
    return {"suite": "wmle", "case_id": case, "task": "t", "model": "m", "rollout": 0, "col": "P1",
            "status": "unmeasurable", "value": None, "reason": "object lost",
            "score": {"status": "unmeasurable", "value": None, "metrics": {}, "extra": {}}}


def test_judge_C_applies_to_a_video_whose_object_was_lost():
    """Seed 003: S = 0.15·C (+ 0.85·P only when C ≥ 80); a lost object has P = 0, so S = 0.15·C."""
    from lawful.suites.wmle.report import aggregate

    rows = [_lost("a"), _lost("b")]
    values = {VideoKey("wmle", "a", "m", 0): {"consistency": 90.0},
              VideoKey("wmle", "b", "m", 0): {"consistency": 40.0}}
    board = aggregate(apply_judge_consistency(rows, values))["models"]["m"]
    assert board["C"]["P1"] == (90.0 + 40.0) / 2
    assert board["tasks"]["P1"] == (0.15 * 90.0 + 0.15 * 40.0) / 2  # was 0.0: judge's C ignored
    assert board["P"]["P1"] == 0.0


def test_C_provenance_says_judge_measured_or_unusable():
    from lawful.suites.wmle.judged import provenance

    rows = [_row("a", 100.0, 90.0), _row("b", 100.0, 90.0), _row("c", 100.0, 90.0)]
    values = {VideoKey("wmle", "a", "m", 0): {"consistency": 85.0},
              VideoKey("wmle", "b", "m", 0): {"consistency": None}}  # asked, no usable answer
    out = apply_judge_consistency(rows, values)
    assert [r["score"]["extra"]["C_source"] for r in out] == ["judge", "measured (judge unusable)", "measured"]
    assert provenance(out) == {"m": {"judge": 1, "measured": 1, "judge_unusable": 1}}


def test_the_table_says_which_c_came_from_the_judge():
    from rich.console import Console

    from lawful.suites.wmle.report import aggregate, table

    rows = [{"suite": "wmle", "col": "P2", "task": "free_fall", "model": "m", "status": "scored", "value": 90.0,
             "score": {"metrics": {"C": 90.0, "P": 90.0}, "extra": {"C_source": src}}} for src in ("judge", "measured")]
    sec = aggregate(rows)
    assert sec["models"]["m"]["C_judged"] == {"P2": 1}
    c = Console(width=200, record=True)
    c.print(table(sec))
    text = c.export_text()
    assert "90.00 J1" in text and "judge's C" in text
