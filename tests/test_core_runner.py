"""End to end through the runner and the CLI on a small Principia subset."""

import json
import shutil
import sqlite3
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from lawful.cli import app
from lawful.runner.run import RunConfig, run

TASKS = ["drop", "pendulum"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    board = run(RunConfig(["principia"], ["reference", "counterfactual", "static"], out, cases_per_task=1,
                          workers=2, tasks=TASKS, progress=False))
    return out, board


def test_run_folder_and_leaderboard(small_run):
    out, board = small_run
    for f in ("results.sqlite", "leaderboard.json", "report.html"):
        assert (out / f).exists()
    assert sorted(p.name for p in (out / "cases" / "principia").glob("*.png")) == ["drop-000.png", "pendulum-000.png"]
    on_disk = json.loads((out / "leaderboard.json").read_text())
    sec = on_disk["principia"]
    assert sec["scale"] == [0, 1]
    assert set(sec["models"]) == {"reference", "counterfactual", "static"}
    ref = sec["models"]["reference"]
    assert set(ref["tasks"]) == {"restitution", "gravity", "pendulum"}
    assert ref["videos"] == 2 and ref["scored"] == 2 and ref["invalid"] == 0
    assert all(v >= 0.95 for v in ref["tasks"].values())
    assert all(v <= 0.6 for v in sec["models"]["counterfactual"]["tasks"].values())
    assert all(v == 0 for v in sec["models"]["static"]["tasks"].values())
    assert ref["overall"] == pytest.approx(np.mean(list(ref["tasks"].values())))
    html = (out / "report.html").read_text()
    assert "<table>" in html and "data:image/png;base64" in html


def test_resume_redoes_nothing(small_run):
    out, _ = small_run
    db = out / "results.sqlite"
    before = sqlite3.connect(db).execute("SELECT case_id, model, created FROM videos ORDER BY 1, 2").fetchall()
    mtimes = {p: p.stat().st_mtime for p in (out / "videos").rglob("*.mp4")}
    run(RunConfig(["principia"], ["reference", "counterfactual", "static"], out, cases_per_task=1, workers=2,
                  tasks=TASKS, progress=False))
    after = sqlite3.connect(db).execute("SELECT case_id, model, created FROM videos ORDER BY 1, 2").fetchall()
    assert before == after
    assert mtimes == {p: p.stat().st_mtime for p in (out / "videos").rglob("*.mp4")}


def test_resume_without_report_writes_nothing(small_run):
    """``report=False`` (the CLI adds Apple-π's section and writes once): the stored results are reused and
    no leaderboard or report is (re)written."""
    out, _ = small_run
    board = out / "leaderboard.json"
    kept = board.read_bytes()
    board.unlink()
    assert run(RunConfig(["principia"], ["reference", "counterfactual", "static"], out, cases_per_task=1,
                         workers=2, tasks=TASKS, progress=False, report=False)) == {}
    assert not board.exists()
    board.write_bytes(kept)


def test_cases_built_in_a_pool_are_the_files_built_inline(tmp_path):
    from lawful.runner.run import build_cases
    from lawful.suites.base import get_suite

    suite = get_suite("principia")
    inline = build_cases(suite, tmp_path / "a", 2, 5, TASKS, progress=False)
    pooled = build_cases(suite, tmp_path / "b", 2, 5, TASKS, progress=False, workers=2)
    assert [p.name for p in inline] == [p.name for p in pooled] == [
        "drop-000.json", "drop-001.json", "pendulum-000.json", "pendulum-001.json"]
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "b").iterdir()) and len(files) == 8
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)


def test_killed_run_resumes(tmp_path):
    """Kill a run mid-way; the same command finishes it without redoing stored videos."""
    cmd = [sys.executable, "-m", "lawful.cli", "run", "--out", str(tmp_path), "-n", "1", "--tasks", "drop,pendulum",
           "--workers", "1", "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = tmp_path / "results.sqlite"
    import time

    deadline = time.time() + 120
    n = 0
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if db.exists():
            try:
                n = sqlite3.connect(db).execute("SELECT COUNT(*) FROM videos").fetchone()[0]
            except sqlite3.OperationalError:
                n = 0
            if n >= 2:
                proc.kill()
                break
    proc.wait()
    first = sqlite3.connect(db).execute("SELECT case_id, model, created FROM videos").fetchall()
    assert 2 <= len(first) < 6 or proc.returncode == 0
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = sqlite3.connect(db).execute("SELECT case_id, model, created FROM videos").fetchall()
    assert len(rows) == 6
    assert set(first) <= set(rows)  # finished work kept as it was


def test_evaluate_folder_with_bad_inputs(small_run, tmp_path):
    out, _ = small_run
    cases = tmp_path / "cases"
    shutil.copytree(out / "cases" / "principia", cases)
    vids = tmp_path / "vids"
    vids.mkdir()
    # drop: two good rollouts; pendulum: a corrupt file; plus a malformed case file with no video
    for k in (0, 1):
        shutil.copy(out / "videos" / "reference" / "drop-000__0.mp4", vids / f"drop-000__{k}.mp4")
    (vids / "pendulum-000.mp4").write_bytes(b"not a video at all" * 50)
    (cases / "broken-000.json").write_text('{"id": "broken-000", "suite": "principia", "task": "nope"}')
    res = CliRunner().invoke(app, ["evaluate", "--suite", "principia", "--videos", str(vids), "--cases", str(cases),
                                   "--out", str(tmp_path / "ev"), "--json", "-q"])
    assert res.exit_code == 0, res.output
    sec = json.loads(res.stdout)["principia"]["models"]["folder:vids"]
    assert sec["videos"] == 4 and sec["scored"] == 2 and sec["invalid"] == 2
    rows = sqlite3.connect(tmp_path / "ev" / "results.sqlite").execute(
        "SELECT case_id, status, reason FROM videos ORDER BY case_id").fetchall()
    reasons = {r[0]: r[2] for r in rows}
    assert "unknown task" in reasons["broken-000"] and "cannot decode" in reasons["pendulum-000"]
    assert sec["tasks"]["restitution"] >= 0.95
    # a judge pointed at the run folder later finds the videos' cases where they were exported
    from lawful.judges.judge import discover

    found = {(i.key.case_id, i.key.rollout) for i in discover(tmp_path / "ev")}
    assert {("drop-000", 0), ("drop-000", 1)} <= found


def test_evaluate_one_case_json(small_run):
    out, _ = small_run
    res = CliRunner().invoke(app, ["evaluate", "--case", str(out / "cases" / "principia" / "pendulum-000.json"),
                                   "--video", str(out / "videos" / "reference" / "pendulum-000__0.mp4"), "--json"])
    assert res.exit_code == 0, res.output
    r = json.loads(res.stdout)
    assert r["status"] == "scored"
    s = r["scores"]["pendulum"]
    assert s["value"] >= 0.95 and set(s["sides"]) == {"F1", "F2"}
    assert any(e["object"] for e in r["events"])


def test_cli_errors_are_one_line(tmp_path):
    r = CliRunner().invoke(app, ["run", "--suite", "principa", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "did you mean 'principia'" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    r = CliRunner().invoke(app, ["evaluate", "--case", str(bad), "--video", str(bad)])
    assert r.exit_code == 2 and "not valid JSON" in r.output


def test_jobs_of_one_batch_run_together_in_first_seen_order():
    """A suite's jobs that share a batch (Apple-π: every job of one case) reach one worker together; the others
    run alone, in plan order."""
    from lawful.job import Job
    from lawful.runner.jobs import batches
    from lawful.store import VideoKey

    def job(case, model, batch=""):
        return Job(VideoKey("s", case, model, 0), f"{case}.json", model, "x", batch=batch)

    a1, b1, a2, c, b2 = job("a", "m1", "a"), job("b", "m1", "b"), job("a", "m2", "a"), job("c", "m1"), job("b", "m2", "b")
    assert batches([a1, b1, a2, c, b2]) == [[a1, a2], [b1, b2], [c]]
    assert batches([c, c]) == [[c], [c]]
