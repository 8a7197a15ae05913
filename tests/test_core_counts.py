"""Leaderboard counts per column, and broken cases counted 0 where they belong."""

import json

from lawful.report.leaderboard import aggregate_generic, column_counts, table
from lawful.result import Score
from lawful.runner.run import Job, _run_job
from lawful.store import Store, VideoKey


def _rows(*specs):
    return [{"model": "m", "col": c, "case_id": k, "status": st, "value": v} for c, k, st, v in specs]


def test_a_failed_column_is_counted_as_failed_and_marked_in_the_table():
    rows = _rows(("restitution", "drop-000", "unmeasurable", None), ("gravity", "drop-000", "scored", 0.99),
                 ("restitution", "drop-001", "scored", 1.0), ("gravity", "drop-001", "scored", 0.98))
    counts = column_counts(rows)["m"]
    assert counts["restitution"] == {"scored": 1, "unmeasurable": 1, "invalid": 0}
    assert counts["gravity"] == {"scored": 2, "unmeasurable": 0, "invalid": 0}
    section = aggregate_generic(rows, ["restitution", "gravity"])
    assert section["models"]["m"]["tasks"]["restitution"] == 0.5  # the unmeasurable case counts 0
    section["models"]["m"].update(column_counts=counts, unattributed=0)
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(table("principia", section))
    text = console.export_text()
    assert "0.500*" in text and "0.985*" not in text and "3/1/0" in text
    assert "count 0" in text


def test_a_broken_case_that_names_its_task_counts_0_in_that_tasks_columns(tmp_path):
    bad = tmp_path / "drop-009.json"
    bad.write_text(json.dumps({"id": "drop-009", "suite": "principia", "task": "drop", "fps": "fast"}))
    job = Job(VideoKey("principia", "drop-009", "m", 0), str(bad), "reference", str(tmp_path / "v.mp4"))
    _, task, ev = _run_job(job)
    assert task == "drop" and ev.status == "invalid"
    assert set(ev.scores) == {"restitution", "gravity"} and "drop-009.json" in ev.reason
    nameless = tmp_path / "x.json"
    nameless.write_text("{not json")
    _, task, ev = _run_job(Job(VideoKey("principia", "x", "m", 0), str(nameless), "reference", str(tmp_path / "w.mp4")))
    assert task == "?" and set(ev.scores) == {"?"}
    with Store(tmp_path / "s.sqlite") as st:
        st.put(VideoKey("principia", "drop-009", "m", 0), "drop", "invalid",
               {"restitution": Score.invalid("x"), "gravity": Score.invalid("x")})
        st.put(VideoKey("principia", "x", "m", 0), "?", "invalid", {"?": Score.invalid("y")})
        from lawful.report.leaderboard import suite_section

        m = suite_section(st, "principia")["models"]["m"]
    assert m["tasks"] == {"restitution": 0.0, "gravity": 0.0} and m["unattributed"] == 1
    assert m["column_counts"]["gravity"] == {"scored": 0, "unmeasurable": 0, "invalid": 1}
