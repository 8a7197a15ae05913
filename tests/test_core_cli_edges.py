"""CLI rough edges: task names across suites, did-you-mean, unreadable case files, suite listing."""

from typer.testing import CliRunner

from lawful.case import CaseError, load_case
from lawful.cli import app
from lawful.suites.base import get_suite

import pytest


def test_a_task_typo_gets_a_did_you_mean_not_a_traceback(tmp_path):
    r = CliRunner().invoke(app, ["run", "--tasks", "pendulm", "--out", str(tmp_path), "-q"])
    assert r.exit_code == 2 and "did you mean 'pendulum'" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(app, ["run", "--suite", "principia,wmle", "--tasks", "drop,P99", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "'P99'" in r.output


def test_a_rubric_typo_in_judge_plan_gets_a_did_you_mean_not_a_traceback():
    r = CliRunner().invoke(app, ["judge", "plan", "-r", "applepi.deduction"])
    assert r.exit_code == 2 and "did you mean 'applepi-deduction'" in r.output and "Traceback" not in r.output


def test_tasks_of_several_suites_go_each_to_its_own_suite(tmp_path):
    r = CliRunner().invoke(app, ["run", "--suite", "principia,wmle", "--tasks", "pendulum,P12", "--models", "reference",
                                 "-n", "1", "--out", str(tmp_path), "-q", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "cases" / "principia").glob("*.json")) == ["pendulum-000.json"]
    assert sorted(p.name for p in (tmp_path / "cases" / "wmle").glob("*.json")) == ["pendulum_mass-000.json"]


def test_match_tasks_takes_names_and_labels():
    wmle = get_suite("wmle")
    assert wmle.match_tasks(["p3", "free_fall", "drop"]) == ["free_fall", "complementary_angle_throws"]
    assert len(get_suite("applepi").task_names()) == 10


def test_a_case_file_that_is_not_utf8_is_one_line(tmp_path):
    p = tmp_path / "c.json"
    p.write_bytes('{"id": "caf\u00e9"}'.encode("latin-1"))
    with pytest.raises(CaseError, match="not UTF-8"):
        load_case(p)
    r = CliRunner().invoke(app, ["evaluate", "--case", str(p), "--video", str(p)])
    assert r.exit_code != 0 and "Traceback" not in r.output and "UTF-8" in r.output


def test_suite_list_names_every_suites_tasks():
    r = CliRunner().invoke(app, ["suite", "list"])
    assert r.exit_code == 0
    line = next(x for x in r.output.splitlines() if x.startswith("applepi"))
    assert line.startswith("applepi (10 tasks): FreeFall,") and "(0 tasks" not in r.output


def test_preset_paper_runs_wmle_with_four_rollouts_seeded_42_to_45(tmp_path):
    import sqlite3

    from lawful.runner.run import RunConfig, run

    src = tmp_path / "src"
    run(RunConfig(["wmle"], ["reference"], src, cases_per_task=1, workers=1, tasks=["free_fall"], progress=False))
    video = next((src / "videos" / "reference").glob("*.mp4"))
    log = tmp_path / "seeds.txt"
    model = f"command:echo {{seed}} >> {log} && cp {video} {{out}}"
    r = CliRunner().invoke(app, ["run", "--suite", "wmle", "--tasks", "P2", "-n", "1", "--preset", "paper",
                                 "--models", model, "--out", str(tmp_path / "run"), "-q", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert sorted(int(x) for x in log.read_text().split()) == [42, 43, 44, 45]
    rows = sqlite3.connect(tmp_path / "run" / "results.sqlite").execute("SELECT rollout FROM videos").fetchall()
    assert sorted(x[0] for x in rows) == [0, 1, 2, 3]
    assert "± " in r.output  # S ± its std over the four videos


def test_presets_carry_the_papers_settings():
    assert get_suite("wmle").paper["seed_base"] == 42 and get_suite("wmle").paper["rollouts"] == 4
    assert get_suite("principia").paper["rollouts"] == 2 and get_suite("applepi").paper["rollouts"] == 3


def test_evaluate_takes_ocr_for_apple_pi_predictions(tmp_path, monkeypatch):
    import lawful.suites.applepi.run as R

    seen = {}

    def fake(dataset, predictions, out, **kw):
        seen.update(kw)
        return {"scale": [0, 1], "models": {}}

    monkeypatch.setattr(R, "evaluate_predictions", fake)
    r = CliRunner().invoke(app, ["evaluate", "--suite", "applepi", "--predictions", str(tmp_path), "--ocr",
                                 "--out", str(tmp_path / "ev"), "--json"])
    assert r.exit_code == 0, r.output
    assert seen["ocr"] is True and seen["motion_masks"] is False
    r = CliRunner().invoke(app, ["evaluate", "--suite", "applepi", "--predictions", str(tmp_path), "--motion-masks",
                                 "--out", str(tmp_path / "ev2"), "--json"])
    assert r.exit_code == 0, r.output
    assert seen["motion_masks"] is True and seen["ocr"] is False


def _fake_applepi(monkeypatch, tmp_path) -> dict:
    """Apple-π's case building, planning and judging replaced by recorders (no dataset is rendered)."""
    from lawful.case import Case
    from lawful.suites.applepi import answers as A
    from lawful.suites.applepi import judging as J
    from lawful.suites.applepi import tasks as T

    seen: dict = {}

    def write_case(self, index, run_seed, case_id, folder, options=None):
        seen["build"] = options
        return Case(id=case_id, suite="applepi", task=self.name).save(folder)

    def plan(self, store, suite, case_paths, models, out, rollouts, seed_base, options):
        seen["plan"], seen["cases"] = options, [p.name for p in case_paths]
        return [], 0, {"_dataset": str(tmp_path), "_models": list(models), "skipped": {"x": "why"}}

    def judge(run_dir, rubric, client, store, **kw):
        from lawful.judges.judge import RunReport

        seen.setdefault("judge", []).append((rubric.name, client.config.model))
        return RunReport()

    monkeypatch.setattr(T.ApplePiTask, "write_case", write_case)
    monkeypatch.setattr(A.ReleaseAnswers, "plan", plan)
    monkeypatch.setattr(J, "judge_rubric", judge)
    return seen


def test_run_takes_motion_masks_for_apple_pi(tmp_path, monkeypatch):
    seen = _fake_applepi(monkeypatch, tmp_path)
    r = CliRunner().invoke(app, ["run", "--suite", "applepi", "--tasks", "FreeFall", "-n", "1", "--motion-masks",
                                 "--out", str(tmp_path), "--quiet"])
    assert r.exit_code == 0, r.output
    assert seen["plan"]["motion_masks"] is True and seen["cases"] == ["FreeFall_000001.json"]


def test_run_hands_apple_pi_its_options_and_keeps_what_only_the_run_knows(tmp_path, monkeypatch):
    """`lawful run` runs Apple-π's tasks on the common runner: the OCR option reaches its case building and planning,
    the judge is asked each of its five rubrics through the common judge step (judge_run → Suite.judge), and the
    section's run-only keys (skipped models) join the section recomputed from the store."""
    import json

    seen = _fake_applepi(monkeypatch, tmp_path)
    r = CliRunner().invoke(app, ["run", "--suite", "applepi", "--ocr", "--out", str(tmp_path), "--quiet", "--workers",
                                 "1", "--judge", "http://127.0.0.1:9/v1", "--judge-model", "jm"])
    assert seen["plan"]["ocr"] is True and seen["build"]["ocr"] is True
    assert sorted(seen["judge"]) == [(f"applepi-{s}", "jm") for s in ("deduction", "formulation-graphic",
                                                                       "formulation-text", "perception-graphic",
                                                                       "perception-text")], r.output
    assert len(seen["cases"]) == 20, r.output  # ten tasks x the suite's default two cases
    section = json.loads((tmp_path / "leaderboard.json").read_text())["applepi"]
    assert section == {"scale": [0, 1], "models": {}, "ocr": None, "skipped": {"x": "why"}}
