"""Judge failures are visible: `lawful run --judge` against a fake server in every failure mode.

One WMLE run folder (two reference videos of P12, measured C = 100) is judged again and again,
each time by a fresh server (a new endpoint is a new judge, so nothing is shared). For each mode:
the exit code, the call counts the run prints, and where the leaderboard's C came from.
``FAILURE_TABLE`` is printed by ``test_failure_table`` (pytest -s) for the issue's closing note.
"""

from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from lawful.cli import app
from lawful.store import Store
from test_judges_fakeserver import ChatServer, Reply

ARGS = ["run", "--suite", "wmle", "--models", "reference", "-n", "2", "--tasks", "pendulum_mass", "--workers", "1",
        "-q"]
FAST = ["--judge-timeout", "0.5", "--judge-retries", "1"]

# mode → (reply script, exit code, ok, retried, failed, unusable, C source of the 2 videos)
GOOD = '{"consistency": 70}'
MODES = {
    "ok": (lambda i: Reply(GOOD), 0, 2, 0, 0, 0, "judge"),
    "garbage text": (lambda i: Reply("I cannot rate this video."), 3, 0, 0, 0, 2, "unusable"),
    "JSON without the key": (lambda i: Reply('{"score_c": 70}'), 3, 0, 0, 0, 2, "unusable"),
    "out of range (150)": (lambda i: Reply('{"consistency": 150}'), 3, 0, 0, 0, 2, "unusable"),
    "not a number": (lambda i: Reply('{"consistency": "high"}'), 3, 0, 0, 0, 2, "unusable"),
    "empty reply": (lambda i: Reply(""), 3, 0, 0, 0, 2, "unusable"),
    "HTTP 500": (lambda i: Reply("boom", status=500), 3, 0, 2, 2, 0, "unusable"),
    "HTTP 429 always": (lambda i: Reply("slow down", status=429, headers={"Retry-After": "0"}), 3, 0, 2, 2, 0,
                        "unusable"),
    "HTTP 401": (lambda i: Reply("bad key", status=401), 3, 0, 0, 2, 0, "unusable"),
    "connection reset": (lambda i: Reply(reset=True), 3, 0, 2, 2, 0, "unusable"),
    "truncated body": (lambda i: Reply(GOOD, truncate=True), 3, 0, 2, 2, 0, "unusable"),
    "hang past timeout": (lambda i: Reply(GOOD, delay=3.0), 3, 0, 2, 2, 0, "unusable"),
    "malformed 200 body": (lambda i: Reply(raw_body=b"<html>proxy error</html>"), 3, 0, 0, 2, 0, "unusable"),
    "no choices": (lambda i: Reply(raw_body=b'{"choices": []}'), 3, 0, 0, 2, 0, "unusable"),
    "429 then ok": (None, 0, 2, 2, 0, 0, "judge"),
    "partial (1 ok, 1 garbage)": (None, 0, 1, 0, 0, 1, "mixed"),
}
FAILURE_TABLE: dict[str, tuple] = {}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("fail") / "run"
    r = CliRunner().invoke(app, ARGS + ["--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def _script(mode):
    if mode == "429 then ok":
        seen = set()

        def s(req, i):
            k = json.dumps(req["messages"][-1]["content"][-1])
            if k not in seen:
                seen.add(k)
                return Reply("slow down", status=429, headers={"Retry-After": "0"})
            return Reply(GOOD)
        return s
    if mode == "partial (1 ok, 1 garbage)":
        return lambda req, i: Reply(GOOD if i == 0 else "??")
    f = MODES[mode][0]
    return lambda req, i: f(i)


def _invoke(run_dir, srv, *extra):
    t0 = time.monotonic()
    r = CliRunner().invoke(app, ARGS + ["--out", str(run_dir), "--judge", srv.url, "--judge-model", "vlm",
                                        *FAST, *extra])
    return r, time.monotonic() - t0


@pytest.mark.parametrize("mode", list(MODES))
def test_failure_mode(run_dir, mode):
    _, code, ok, retried, failed, unusable, source = MODES[mode]
    with ChatServer(_script(mode)) as srv:
        r, secs = _invoke(run_dir, srv)
    out = r.output
    assert r.exit_code == code, out
    line = f"calls: {ok} ok, {retried} retried, {failed} failed, {unusable} unusable"
    assert line in out, out
    board = json.loads((run_dir / "leaderboard.json").read_text())
    wm = board["wmle"]["models"]["reference"]
    prov = board["judge"]["C_source"]["reference"]
    assert board["judge"]["calls"]["calls"] == 2
    if source == "judge":
        assert prov == {"judge": 2, "measured": 0, "judge_unusable": 0} and wm["C"]["P12"] == 70.0
        shown = "C = 70 (judge, 2 of 2)"
    elif source == "unusable":  # the measured C stays, and the run says so instead of passing it off silently
        assert prov == {"judge": 0, "measured": 0, "judge_unusable": 2} and wm["C"]["P12"] == 100.0
        assert "2 measured because the judge gave no usable answer" in out
        assert "none of 2 calls gave a usable answer" in out
        shown = "C = 100 (measured: judge unusable for 2 of 2)"
    else:
        assert prov == {"judge": 1, "measured": 0, "judge_unusable": 1} and wm["C"]["P12"] == 85.0
        shown = "C = 85 (judge 1, measured 1: judge unusable)"
    assert secs < 30  # a hang is bounded by --judge-timeout × (1 + --judge-retries), not 305 s
    with Store(run_dir / "results.sqlite") as st:
        assert st.judge_runs()[-1]["counts"]["calls"] == 2  # the counts are stored with the run
    FAILURE_TABLE[mode] = (r.exit_code, line, shown)


def test_partial_failure_is_an_error_with_strict(run_dir):
    with ChatServer(_script("partial (1 ok, 1 garbage)")) as srv:
        r, _ = _invoke(run_dir, srv, "--strict")
    assert r.exit_code == 3 and "1 of 2 calls gave no usable answer (--strict)" in r.output


def test_unusable_answers_are_not_cached_and_redo_asks_again(run_dir):
    """Item 7: an unusable reply is neither cached nor replayed; --redo gets a fresh answer."""
    answer = {"text": "garbage"}
    with ChatServer(lambda req, i: Reply(answer["text"])) as srv:
        r, _ = _invoke(run_dir, srv)
        assert r.exit_code == 3 and len(srv.requests) == 2
        answer["text"] = GOOD
        r = CliRunner().invoke(app, ["judge", "--run", str(run_dir), "--rubric", "wmle-consistency", "--judge",
                                     srv.url, "--judge-model", "vlm", "--redo", "--retries", "0"])
        assert r.exit_code == 0, r.output
        assert len(srv.requests) == 4 and "calls: 2 ok" in r.output
    with Store(run_dir / "results.sqlite") as st:
        rows = st.judgements(rubric="wmle-consistency")
    assert {row["value"] for row in rows} == {70.0}
    # `lawful judge` recomputes the WMLE leaderboard with the judge's C and says where C came from
    assert "wmle C of reference: 2 from the judge, 0 measured" in r.output
    assert json.loads((run_dir / "leaderboard.json").read_text())["wmle"]["models"]["reference"]["C"]["P12"] == 70.0


def test_hung_endpoint_is_bounded_by_the_options_and_shows_progress(run_dir, monkeypatch):
    """Item 8: --judge-timeout / --judge-retries bound a hang; the judge phase has a progress bar."""
    import contextlib

    import lawful.progress

    updates = []

    class Bar:
        def add_task(self, desc, **k):
            updates.append(("add", desc))
            return 0

        def update(self, tid, **k):
            updates.append(("update", k.get("completed"), k.get("total")))

        def advance(self, *a, **k):
            pass

    monkeypatch.setattr(lawful.progress, "progress_bar", lambda enabled=True: contextlib.nullcontext(Bar()))
    args = [a for a in ARGS if a != "-q"]
    with ChatServer(lambda req, i: Reply(GOOD, delay=5.0)) as srv:
        t0 = time.monotonic()
        r = CliRunner().invoke(app, args + ["--out", str(run_dir), "--judge", srv.url, "--judge-model", "vlm",
                                            "--judge-timeout", "0.3", "--judge-retries", "0"])
        secs = time.monotonic() - t0
    assert r.exit_code == 3 and "0 retried, 2 failed" in r.output, r.output
    assert secs < 5.0 and len(srv.requests) == 2  # one attempt each, cut at 0.3 s
    assert ("add", "judge wmle-consistency") in updates and ("update", 2, 2) in updates


def test_failure_table(run_dir):
    """The closing note's table (run with -s to see it)."""
    if not FAILURE_TABLE:
        pytest.skip("run with the failure-mode tests")
    print("\n| failure mode | exit | run prints | leaderboard shows |\n|---|---|---|---|")
    for mode, (code, line, shown) in FAILURE_TABLE.items():
        print(f"| {mode} | {code} | {line} | {shown} |")
