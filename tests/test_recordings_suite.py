"""The recordings suite end to end: lawful run scores its built-in models and prints its own leaderboard."""

import json

from typer.testing import CliRunner

from lawful.cli import app


def test_run_recordings_gives_a_leaderboard_by_r_label(tmp_path):
    r = CliRunner().invoke(app, ["run", "--suite", "recordings", "--tasks", "R1,R6", "-n", "1", "--out", str(tmp_path),
                                 "--quiet"])
    assert r.exit_code == 0, r.output
    assert "Recordings — consistency C, physics P, composite S" in r.output
    board = json.loads((tmp_path / "leaderboard.json").read_text())["recordings"]["models"]
    ref, anti, static = (board[m] for m in ("reference", "counterfactual", "static"))
    assert set(ref["tasks"]) == {"R1", "R6"}
    assert min(ref["tasks"].values()) >= 97 and max(static["tasks"].values()) == 0
    assert all(anti["tasks"][k] < ref["tasks"][k] - 20 for k in ref["tasks"])
    assert ref["families"]  # grouped by the tasks' families, as WMLE's table
