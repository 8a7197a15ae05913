"""Hosted video APIs end to end against fake servers: each adapter's video is generated, downloaded and
scored through `lawful run`'s runner, surviving a 429 (Retry-After honoured), a 500, a timeout and a
killed driver without paying twice."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from hosted_fakes import ENV, GENERIC_YAML, FakeAPIs, build_principia, specs
from lawful.runner.run import RunConfig, model_dir_name, run

APIS = ("veo", "replicate", "fal", "gen")
SUBMIT = {"veo": ":predictLongRunning", "replicate": "/v1/models/owner/model/predictions",
          "fal": "/fal-ai/wan-i2v/image-to-video", "gen": "/gen/jobs"}
POLL = {"veo": "/operations/", "replicate": "/v1/predictions/", "fal": "/status", "gen": "/gen/jobs/"}


@pytest.fixture()
def env(monkeypatch):
    # the assertions read the store; the HTML/leaderboard writers are other modules' business
    monkeypatch.setattr("lawful.report.leaderboard.write_reports", lambda *a, **k: {})
    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    for k in ("LAWFUL_HOSTED_BUDGET_USD", "LAWFUL_HOSTED_BUDGET_JOBS", "LAWFUL_HOSTED_BUDGET_S"):
        monkeypatch.delenv(k, raising=False)


def _setup(tmp_path, n=1, **kw):
    out = tmp_path / "run"
    _, videos = build_principia(out, n)
    fake = FakeAPIs(videos, **kw)
    yaml_path = tmp_path / "genvideo.yaml"
    yaml_path.write_text(GENERIC_YAML.format(base=fake.base))
    return out, fake, specs(fake.base, yaml_path)


def _board(out, models, n=1):
    """Run, then per stored model: videos, scored, invalid, the mean score and the reasons of the invalid."""
    run(RunConfig(["principia"], models, out, cases_per_task=n, workers=1, tasks=["drop"], progress=False))
    con = sqlite3.connect(out / "results.sqlite")
    board = {}
    for (model,) in con.execute("SELECT DISTINCT model FROM videos"):
        st = [s for (s,) in con.execute("SELECT status FROM videos WHERE model = ?", (model,))]
        vals = [v for (v,) in con.execute("SELECT value FROM scores WHERE model = ? AND status = 'scored'", (model,))]
        board[model] = {"videos": len(st), "scored": st.count("scored"), "invalid": st.count("invalid"),
                        "overall": sum(vals) / len(vals) if vals else None,
                        "reasons": [r for (r,) in con.execute(
                            "SELECT reason FROM videos WHERE model = ? AND status = 'invalid'", (model,))]}
    con.close()
    return board


def test_each_adapter_generates_a_scored_video_through_faults(tmp_path, env):
    out, fake, sp = _setup(tmp_path)
    try:
        for api in APIS:
            fake.fault("POST", SUBMIT[api], "429")
            fake.fault("GET", POLL[api], "500")
            fake.fault("GET", POLL[api], "timeout")
        board = _board(out, list(sp.values()))
    finally:
        fake.close()
    assert fake.faults == []  # every injected fault was met
    names = {"veo": "veo:veo-3.0-generate-001", "replicate": "replicate:owner/model",
             "fal": "fal:fal-ai/wan-i2v/image-to-video", "gen": "genvideo"}
    for api, name in names.items():
        m = board[name]
        assert (m["videos"], m["scored"], m["invalid"]) == (1, 1, 0), (api, m)
        assert m["overall"] > 0.95  # the law-correct video came back intact and scores as such
        assert (out / "videos" / model_dir_name(name) / "drop-000__0.mp4").stat().st_size > 1000
        assert fake.count(api) == 1  # the 429 was not a second paid job
        # Retry-After: 1 was honoured before the submission was sent again
        t429 = next(t for t, meth, p, c in fake.log if c == 429 and SUBMIT[api] in p)
        t_next = next(t for t, meth, p, c in fake.log if meth == "POST" and SUBMIT[api] in p and t > t429)
        assert t_next - t429 >= 0.9
    secrets = [v.encode() for v in ENV.values()]
    for f in out.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            assert not any(s in data for s in secrets), f  # keys are never stored


def _job_ids(out, sp) -> int:
    n = 0
    for name in ("veo:veo-3.0-generate-001", "replicate:owner/model", "fal:fal-ai/wan-i2v/image-to-video",
                 "genvideo"):
        db = out / "videos" / model_dir_name(name) / "hosted_jobs.sqlite"
        if db.exists():
            con = sqlite3.connect(db, timeout=5)
            try:
                n += con.execute("SELECT COUNT(*) FROM jobs WHERE job_id != ''").fetchone()[0]
            except sqlite3.OperationalError:
                pass
            con.close()
    return n


def test_killed_driver_resumes_stored_jobs_without_resubmitting(tmp_path, env):
    out, fake, sp = _setup(tmp_path)
    fake.hold.clear()  # jobs stay running: the driver is killed while it polls
    models = list(sp.values())
    code = ("import sys; from pathlib import Path; from lawful.runner.run import RunConfig, run; "
            "run(RunConfig(['principia'], sys.argv[2:], Path(sys.argv[1]), cases_per_task=1, workers=1, "
            "tasks=['drop'], progress=False))")
    proc = subprocess.Popen([sys.executable, "-c", code, str(out), *models], env={**os.environ},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 40
        while _job_ids(out, sp) < 4 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _job_ids(out, sp) == 4, proc.stderr.read().decode()[-2000:] if proc.poll() is not None else ""
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert all(fake.count(api) == 1 for api in APIS)
    fake.hold.set()
    try:
        board = _board(out, models)
    finally:
        fake.close()
    assert all(fake.count(api) == 1 for api in APIS)  # polled the stored jobs, paid for nothing twice
    assert all(m["scored"] == 1 for m in board.values()), board


def test_budget_exhausted_videos_are_invalid_and_stay_unpaid(tmp_path, env, monkeypatch):
    out, fake, sp = _setup(tmp_path, n=2)
    monkeypatch.setenv("LAWFUL_HOSTED_BUDGET_USD", "1.5")
    model = sp["fal"] + "&usd_per_video=1"
    try:
        board = _board(out, [model], n=2)
        m = board["fal:fal-ai/wan-i2v/image-to-video"]
        assert (m["videos"], m["scored"], m["invalid"]) == (2, 1, 1)
        reasons = m["reasons"]
        assert len(reasons) == 1 and reasons[0].startswith("budget exhausted: $1.00 of $1.50 spent")
        _board(out, [model], n=2)  # a rerun retries the invalid one: the budget counts what was already spent
    finally:
        fake.close()
    assert fake.count("fal") == 1
