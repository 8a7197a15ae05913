"""The PhyGround flow end to end against a local scripted judge: cases, renders, judging, leaderboard,
the no-judge section, the CLI entry points and the SFT export."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from lawful.judges.client import JudgeConfig
from lawful.judges.sft import export_sft
from lawful.suites.phyground.run import run_phyground
from test_judges_fakeserver import ChatServer, Reply, n_images, user_text

GENERAL = {"Semantic alignment": 5, "Physical temporal validity": 4, "Object persistence": 3}


def script(req, i):
    m = re.search(r"Judge ONE aspect only: (.+?)\.\n", user_text(req))
    name = m.group(1)
    key = re.search(r'Reply with a single JSON object and nothing else: \{"(\w+)"', user_text(req)).group(1)
    return Reply(json.dumps({key: GENERAL.get(name, 2)}))


def cfg(url):
    return JudgeConfig(url=url, model="judge-vl", timeout_s=5, deadline_s=10, backoff_s=0.01, concurrency=2)


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    run = tmp_path_factory.mktemp("pg") / "run"
    with ChatServer(script) as srv:
        section = run_phyground(run, models=("reference", "counterfactual"), judge_config=cfg(srv.url),
                                cases_per_task=2, progress=False)
        first = len(srv.requests)
        images = {n_images(r) for r in srv.requests}
        again = run_phyground(run, models=("reference", "counterfactual"), judge_config=cfg(srv.url),
                              cases_per_task=2, progress=False)
        assert len(srv.requests) == first  # finished work is never asked again
    return run, section, again, first, images


def test_section_scores_from_the_judge(judged):
    run, section, again, first, images = judged
    # 2 cases × 2 models; ball drop has 3 laws, ball off table 2: (3 + 3) + (3 + 2) calls per model
    assert first == 2 * (6 + 5)
    assert images == {12}  # 3 s clips at 4 fps
    assert section["scale"] == [1, 5] and set(section["models"]) == {"reference", "counterfactual"}
    m = section["models"]["reference"]
    assert m["general"] == pytest.approx(4.0) and m["physics"] == pytest.approx(2.0)
    assert m["overall"] == pytest.approx(3.0)
    assert m["instances"]["laws"] == {"gravity": 2, "collision": 1, "impenetrability": 1, "inertia": 1}
    assert section["judge"]["usage"]["requests"] == first
    assert again["judge"]["usage"]["requests"] == 0
    assert again["models"] == section["models"]


def test_without_a_judge_says_so_and_invents_nothing(tmp_path):
    sec = run_phyground(tmp_path / "r", models=("static",), cases_per_task=1, progress=False)
    assert sec["status"] == "judge required" and sec["models"] == {} and sec["videos"] == {"static": 1}
    assert (tmp_path / "r" / "cases" / "phyground" / "pg-ball-drop.png").exists()


def test_text_only_cases_get_no_builtin_video(tmp_path):
    from lawful.suites.phyground.run import make_videos, write_cases

    paths = write_cases(tmp_path / "cases", 7)
    assert [p.with_suffix(".png").exists() for p in paths] == [True] * 6 + [False]  # case 7 is text-only
    items = make_videos([paths[0], paths[6]], ("static", "reference"), tmp_path)
    assert [(i.key.model, i.key.case_id) for i in items] == [("static", "pg-ball-drop"), ("reference", "pg-ball-drop")]


def test_sft_export_from_judgements(judged, tmp_path):
    run = judged[0]
    res = export_sft(run, tmp_path / "sft")
    assert res["records"] == judged[3] and res["videos"] == 4
    recs = [json.loads(x) for x in (tmp_path / "sft" / "train.jsonl").read_text().splitlines()]
    r = next(x for x in recs if x["criterion"] == "gravity" and x["model"] == "reference"
             and x["case_id"] == "pg-ball-drop")
    assert r["target"] == {"gravity": 2} and r["messages"][2]["content"] == '{"gravity": 2}'
    assert len(r["images"]) == 12 and all((tmp_path / "sft" / p).exists() for p in r["images"])
    assert r["messages"][1]["content"].count("<image>") == 12
    assert "bounces several times" in r["messages"][1]["content"]  # the expected outcome is in the prompt


def test_sft_export_from_a_human_table(judged, tmp_path):
    run = judged[0]
    table = tmp_path / "human.csv"
    table.write_text("case_id,model,criterion,score\n"
                     "pg-ball-drop,reference,gravity,5\n"
                     "pg-ball-drop,reference,gravity,6\n"       # off the 1-5 scale: skipped
                     "pg-ball-drop,reference,buoyancy,3\n"      # not a law of this case: skipped
                     "pg-ball-drop,nobody,gravity,3\n")         # no such video: skipped
    res = export_sft(run, tmp_path / "sft2", labels=table)
    assert res["records"] == 1
    assert res["skipped"] == {"label off the scale": 1, "criterion does not apply to the case": 1,
                              "no video for the label": 1}


def test_cli_judge_group_and_run_subcommand(judged, tmp_path):
    from lawful.cli import app

    run = judged[0]
    with ChatServer(script) as srv:
        r = CliRunner().invoke(app, ["judge", "--run", str(run), "--rubric", "phyground-general,phyground-law",
                                     "--judge", srv.url, "--judge-model", "judge-vl"])
        assert r.exit_code == 0, r.output
        assert len(srv.requests) == 22  # a new endpoint is a new judge (the cache key names it): asked afresh
        r = CliRunner().invoke(app, ["judge", "run", "--run", str(run), "--rubric", "phyground-law",
                                     "--judge", srv.url, "--judge-model", "other-judge", "--models", "reference"])
        assert r.exit_code == 0, r.output
        assert len(srv.requests) == 27  # and a different judge model too (5 more law calls)
    board = json.loads((run / "leaderboard.json").read_text())
    assert board["phyground"]["models"]["reference"]["overall"] == pytest.approx(3.0)
    r = CliRunner().invoke(app, ["judge", "--run", str(run)])
    assert r.exit_code == 2 and "missing --rubric, --judge, --judge-model" in r.output


def test_evaluate_a_folder_calls_the_judge_and_survives_text_only_cases(judged, tmp_path):
    import shutil

    from typer.testing import CliRunner

    from lawful.cli import app

    run, *_ = judged
    vids = tmp_path / "vids"
    vids.mkdir()
    for p in (run / "videos" / "reference").glob("*__0.mp4"):
        shutil.copy(p, vids / p.name.replace("__0", ""))
    assert len(list(vids.iterdir())) >= 1
    with ChatServer(script) as srv:
        r = CliRunner().invoke(app, ["evaluate", "--suite", "phyground", "--videos", str(vids), "--out",
                                     str(tmp_path / "ev"), "--judge", srv.url, "--judge-model", "judge-vl", "--json",
                                     "-q"])
        assert r.exit_code == 0, r.output
        assert len(srv.requests) > 0  # the judge was asked
    sec = json.loads(r.stdout[r.stdout.index("{"):])["phyground"]
    (model,) = sec["models"]
    assert model == "folder:vids" and sec["models"][model]["overall"] is not None
