"""`lawful run --judge`: only the judge-dependent fields change; no judge = measurement only."""

import json

import pytest

from typer.testing import CliRunner

from lawful.cli import app
from test_judges_fakeserver import ChatServer, Reply

ARGS = ["run", "--suite", "wmle", "--models", "reference", "-n", "1", "--tasks", "pendulum_mass", "--workers", "1",
        "-q"]


def _section(out):
    return json.loads((out / "leaderboard.json").read_text())["wmle"]["models"]["reference"]


def test_judge_C_changes_only_C_and_S(tmp_path, monkeypatch):
    plain, judged = tmp_path / "plain", tmp_path / "judged"
    r = CliRunner().invoke(app, ARGS + ["--out", str(plain)])
    assert r.exit_code == 0, r.output
    monkeypatch.setenv("JUDGE_KEY", "sk-secret-123")
    answer = {"C": '{"consistency": 70}'}
    with ChatServer(lambda req, i: Reply(answer["C"])) as srv:
        r = CliRunner().invoke(app, ARGS + ["--out", str(judged), "--judge", srv.url, "--judge-model", "vlm",
                                            "--api-key-env", "JUDGE_KEY"])
        assert r.exit_code == 0, r.output
        assert len(srv.requests) == 1  # one video, one wmle-consistency call
        # re-running the same judged command sends nothing (cache + store) and changes nothing
        answer["C"] = '{"consistency": 5}'
        r = CliRunner().invoke(app, ARGS + ["--out", str(judged), "--judge", srv.url, "--judge-model", "vlm"])
        assert r.exit_code == 0 and len(srv.requests) == 1
    a, b = _section(plain), _section(judged)
    assert a["C"]["P12"] == 100.0 and b["C"]["P12"] == 70.0
    assert a["P"]["P12"] == b["P"]["P12"] > 95  # physics untouched
    assert a["tasks"]["P12"] == pytest.approx(0.15 * 100 + 0.85 * a["P"]["P12"], abs=1e-4)  # both rounded to 4 places
    assert b["tasks"]["P12"] == 0.15 * 70  # C < 80: physics gated out of S
    assert "sk-secret-123" not in (judged / "results.sqlite").read_bytes().decode("latin-1")
    board = json.loads((judged / "leaderboard.json").read_text())
    assert board["judge"]["C_source"] == {"reference": {"judge": 1, "measured": 0, "judge_unusable": 0}}


def test_evaluate_one_wmle_case_with_a_judge(tmp_path):
    out = tmp_path / "plain"
    assert CliRunner().invoke(app, ARGS + ["--out", str(out)]).exit_code == 0
    case = out / "cases" / "wmle" / "pendulum_mass-000.json"
    video = out / "videos" / "reference" / "pendulum_mass-000__0.mp4"
    ev = tmp_path / "ev"
    with ChatServer(lambda req, i: Reply('{"consistency": 60}')) as srv:
        r = CliRunner().invoke(app, ["evaluate", "--case", str(case), "--video", str(video), "--json",
                                     "--judge", srv.url, "--judge-model", "vlm", "--out", str(ev)])
        assert r.exit_code == 0, r.output
        assert len(srv.requests) == 1
    # the reply cache lives in the --out folder, never beside the user's case file
    assert not (case.parent / "judge_cache").exists() and len(list((ev / "judge_cache").rglob("*.json"))) == 1
    s = json.loads(r.stdout)["scores"]["P12"]
    assert s["metrics"]["C"] == 60.0 and s["extra"]["C_source"] == "judge"
    assert s["value"] == 0.15 * 60.0  # gated: physics not counted


def test_evaluate_one_with_no_usable_judge_answer_exits_3(tmp_path):
    out = tmp_path / "plain"
    assert CliRunner().invoke(app, ARGS + ["--out", str(out)]).exit_code == 0
    case = out / "cases" / "wmle" / "pendulum_mass-000.json"
    video = out / "videos" / "reference" / "pendulum_mass-000__0.mp4"
    with ChatServer(lambda req, i: Reply("no idea")) as srv:
        r = CliRunner().invoke(app, ["evaluate", "--case", str(case), "--video", str(video), "--json",
                                     "--judge", srv.url, "--judge-model", "vlm", "--out", str(tmp_path / "ev")])
    assert r.exit_code == 3
    s = json.loads(r.stdout[: r.stdout.rindex("}") + 1])["scores"]["P12"]
    assert s["extra"]["C_source"] == "measured" and s["metrics"]["C"] == 100.0  # said, not passed off as judged
