"""The PhyGround flow end to end against a local scripted judge: cases, renders, judging, leaderboard,
the no-judge section, the CLI entry points and the SFT export."""

from __future__ import annotations

import json
import os
import re

import pytest
from typer.testing import CliRunner

from lawful.cli import app
from lawful.judges.sft import export_sft
from test_judges_fakeserver import ChatServer, Reply, n_images, user_text

GENERAL = {"Semantic alignment": 5, "Physical temporal validity": 4, "Object persistence": 3}


def script(req, i):
    m = re.search(r"Judge ONE aspect only: (.+?)\.\n", user_text(req))
    name = m.group(1)
    key = re.search(r'Reply with a single JSON object and nothing else: \{"(\w+)"', user_text(req)).group(1)
    return Reply(json.dumps({key: GENERAL.get(name, 2)}))


def run_phyground(out, models, srv=None, n=None) -> dict:
    """``lawful run --suite phyground`` (the common runner, judged when ``srv`` is given): its section."""
    args = ["run", "--suite", "phyground", "-m", ",".join(models), "-o", str(out), "-q", "--workers", "1"]
    args += ["-n", str(n)] if n else []
    args += ["--judge", srv.url, "--judge-model", "judge-vl"] if srv else []
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    return json.loads((out / "leaderboard.json").read_text())["phyground"]


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    run = tmp_path_factory.mktemp("pg") / "run"
    with ChatServer(script) as srv:
        section = run_phyground(run, ("reference", "counterfactual"), srv, n=2)
        first = len(srv.requests)
        images = {n_images(r) for r in srv.requests}
        again = run_phyground(run, ("reference", "counterfactual"), srv, n=2)
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
    assert section["judge"]["statuses"] == {"phyground-general": {"scored": 12}, "phyground-law": {"scored": 10}}
    assert section["judge"]["model"] == "judge-vl" and section["videos"] == {"counterfactual": 2, "reference": 2}
    assert again["models"] == section["models"]


def test_without_a_judge_says_so_and_invents_nothing(tmp_path):
    sec = run_phyground(tmp_path / "r", ("static",), n=1)
    assert sec["status"] == "judge required" and sec["models"] == {} and sec["videos"] == {"static": 1}
    assert sec["cases"] == 1 and sec["prompt_set"] == "built-in"
    assert (tmp_path / "r" / "cases" / "phyground" / "pg-ball-drop.png").exists()


def test_text_only_cases_get_no_builtin_video(tmp_path):
    from lawful.runner.run import execute, plan_jobs
    from lawful.store import Store
    from lawful.suites.phyground.cases import CASES
    from lawful.suites.phyground.report import phyground_section, write_cases

    k = next(i for i, c in enumerate(CASES) if c.scene is None)  # the first text-only case
    paths = write_cases(tmp_path / "cases" / "phyground", k + 1)
    assert [p.with_suffix(".png").exists() for p in paths] == [True] * k + [False]
    with Store(tmp_path / "results.sqlite") as st:
        jobs, _ = plan_jobs(st, "phyground", [paths[0], paths[k]], ["static", "reference"], tmp_path, 1)
        execute(jobs, st, 1, progress=False)
        rows = {(v["model"], v["case_id"]): v for v in st.videos("phyground")}
        sec = phyground_section(st)
    assert {m: v["status"] for m, v in rows.items()} == {
        ("static", "pg-ball-drop"): "unmeasurable", ("reference", "pg-ball-drop"): "unmeasurable",
        ("static", CASES[k].id): "invalid", ("reference", CASES[k].id): "invalid"}
    assert "text-only" in rows[("reference", CASES[k].id)]["reason"]
    assert sec["videos"] == {"reference": 1, "static": 1} and sec["cases"] == 2


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


# ----------------------------------------------------------------------------- all 13 laws, built in
def law_score(key: str) -> int:
    from lawful.suites.phyground.taxonomy import LAWS

    return 1 + [law.key for law in LAWS].index(key) % 5  # a different, known answer per law


def script_by_law(req, i):
    from lawful.suites.phyground.taxonomy import LAW_DOMAIN

    key = re.search(r'Reply with a single JSON object and nothing else: \{"(\w+)"', user_text(req)).group(1)
    return Reply(json.dumps({key: law_score(key) if key in LAW_DOMAIN else 4}))


def test_builtin_run_fills_all_13_law_columns(tmp_path):
    from rich.console import Console

    from lawful.suites.phyground.cases import CASES
    from lawful.suites.phyground.report import law_table
    from lawful.suites.phyground.taxonomy import DOMAINS, LAW_DOMAIN

    with ChatServer(script_by_law) as srv:
        sec = run_phyground(tmp_path / "run", ("reference",), srv)
        n = len(srv.requests)
    drawn = [c for c in CASES if c.scene]
    assert n == sum(3 + len(c.laws) for c in drawn)  # 3 general + one call per law, drawn cases only
    m = sec["models"]["reference"]
    assert m["laws"] == {k: law_score(k) for k in LAW_DOMAIN}  # every column, each with its own answer
    assert min(m["instances"]["laws"].values()) >= 2 and set(m["domains"]) == set(DOMAINS)
    assert m["general"] == 4.0 and sec["prompt_set"] == "built-in" and sec["videos"] == {"reference": len(drawn)}
    con = Console(width=250, record=True)
    con.print(law_table(sec))
    assert "–" not in con.export_text()  # no empty law cell


# ----------------------------------------------------------------------------- published prompt sets
def _png(path, w=64, h=48):
    import numpy as np
    from PIL import Image

    Image.fromarray(np.full((h, w, 3), 120, np.uint8)).save(path)
    return path


def test_prompt_files_load_in_three_formats(tmp_path):
    from lawful.suites.phyground.prompts import load_prompts

    _png(tmp_path / "frame.png")
    (tmp_path / "p.jsonl").write_text(
        json.dumps({"prompt_id": "fl-1", "prompt": "Milk is poured into coffee.", "image": "frame.png",
                    "laws": ["Flow dynamics", "Boundary (liquid-solid) interaction", "continuity"],
                    "source_category": "video-physics"}) + "\n\n"
        + json.dumps({"prompt": "A lamp lights a cube.", "laws": "shadow | reflection"}) + "\n")
    a = load_prompts(tmp_path / "p.jsonl")
    assert [s.id for s in a] == ["fl-1", "p-0002"]
    assert a[0].laws == ("flow_dynamics", "boundary_interaction", "continuity") and a[0].source == "video-physics"
    assert a[0].image == str((tmp_path / "frame.png").resolve()) and a[1].image is None
    (tmp_path / "p.csv").write_text("id,prompt,laws,category\nc1,A ball hits a wall.,\"gravity; Collision\",mine\n")
    (c,) = load_prompts(tmp_path / "p.csv")
    assert c.laws == ("gravity", "collision") and c.source == "mine"
    (tmp_path / "p.json").write_text(json.dumps({"prompts": [{"id": "j1", "text": "Ice floats.",
                                                              "outcome": "It bobs.", "laws": ["buoyancy"]}]}))
    (j,) = load_prompts(tmp_path / "p.json")
    assert j.expected_outcome == "It bobs." and j.laws == ("buoyancy",)


@pytest.mark.parametrize("row,message", [
    ({"prompt": "x", "laws": ["bouyancy", "gravity"]},
     "row 1 (p-0001): unknown law 'bouyancy'; did you mean 'buoyancy'"),
    ({"prompt": "x", "laws": ["shadow", "telepathy"]}, "unknown law 'telepathy' (laws: gravity,"),
    ({"prompt": "x", "laws": []}, "no laws given"),
    ({"laws": ["shadow"]}, "no prompt"),
    ({"prompt": "x", "laws": ["shadow"], "image": "https://example.org/a.png"}, "is a URL"),
    ({"prompt": "x", "laws": ["shadow"], "image": "missing.png"}, "image 'missing.png' not found"),
    ({"id": "a/b", "prompt": "x", "laws": ["shadow"]}, "file-name safe"),
])
def test_prompt_file_errors_name_the_row(tmp_path, row, message):
    from lawful.suites.phyground.prompts import PromptSetError, load_prompts

    (tmp_path / "p.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(PromptSetError) as e:
        load_prompts(tmp_path / "p.jsonl")
    assert message in str(e.value) and "\n" not in str(e.value)


def test_prompt_file_level_errors(tmp_path):
    from lawful.suites.phyground.prompts import PromptSetError, load_prompts

    (tmp_path / "d.jsonl").write_text('{"id": "a", "prompt": "x", "laws": "shadow,gravity"}\n' * 2)
    with pytest.raises(PromptSetError, match="id repeats row 1"):
        load_prompts(tmp_path / "d.jsonl")
    (tmp_path / "p.txt").write_text("x")
    with pytest.raises(PromptSetError, match="use .json, .jsonl or .csv"):
        load_prompts(tmp_path / "p.txt")
    with pytest.raises(PromptSetError, match="not found"):
        load_prompts(tmp_path / "none.json")


def test_cli_run_takes_a_prompt_set_from_the_environment(tmp_path):
    from lawful.case import load_case
    from lawful.cli import app

    _png(tmp_path / "f.png", 80, 60)
    good = tmp_path / "set.csv"
    good.write_text("id,prompt,image,laws,source\n"
                    "s1,A cup of water tips over on a table.,f.png,flow_dynamics;boundary_interaction,mine\n"
                    "s2,A mirror faces a candle.,,reflection,mine\n")  # one law: kept, with a warning
    out = tmp_path / "run"
    r = CliRunner().invoke(app, ["run", "--suite", "phyground", "-m", "static", "-o", str(out), "-q"],
                           env={"LAWFUL_PHYGROUND_PROMPTS": str(good)})
    assert r.exit_code == 0, r.output
    assert "1 prompt(s) not tagged with 2-4 laws" in r.output and "s2" in r.output
    case = load_case(out / "cases" / "phyground" / "s1.json")
    assert (case.width, case.height) == (80, 60) and case.criteria == ["flow_dynamics", "boundary_interaction"]
    assert case.known["source"] == "mine" and (out / "cases" / "phyground" / "s1.png").exists()
    assert sorted(p.name for p in (out / "cases" / "phyground").glob("*.json")) == ["s1.json", "s2.json"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "x", "laws": ["bouyancy", "gravity"]}\n')
    # a bad file (here from --prompts, which wins over the variable) stops the run before any work with one
    # line naming the row and the closest law
    r = CliRunner().invoke(app, ["run", "--suite", "phyground", "-m", "static", "-o", str(tmp_path / "r2"), "-q",
                                 "--prompts", str(bad)], env={"LAWFUL_PHYGROUND_PROMPTS": str(good)})
    assert r.exit_code == 2 and "error: bad.jsonl row 1 (bad-0001): unknown law 'bouyancy'; did you mean " \
        "'buoyancy'" in " ".join(r.output.split())
    assert not (tmp_path / "r2" / "cases" / "phyground").exists()
    r = CliRunner().invoke(app, ["suite", "export", "--suite", "phyground", "-o", str(tmp_path / "exp"),
                                 "--prompts", str(good)])
    assert r.exit_code == 0 and sorted(p.name for p in (tmp_path / "exp").glob("*.json")) == ["s1.json", "s2.json"]
    # --prompts holds for its command only: a later command (or test) in this process sees the built-in set
    assert "LAWFUL_PHYGROUND_PROMPTS" not in os.environ


def test_judge_plan_counts_the_loaded_prompt_set(tmp_path, monkeypatch):
    from lawful.suites.base import get_suite

    (tmp_path / "set.jsonl").write_text('{"id": "a1", "prompt": "A ball falls.", "laws": "gravity,collision"}\n'
                                        '{"id": "a2", "prompt": "Ice floats.", "laws": "buoyancy,displacement"}\n')
    monkeypatch.setenv("LAWFUL_PHYGROUND_PROMPTS", str(tmp_path / "set.jsonl"))
    suite = get_suite("phyground")
    assert [(c.id, n) for c, n in suite.judge_cases()] == [("a1", 1), ("a2", 1)]
    assert suite.default_cases_per_task == 2 and suite.task("scene").case_ids(5) == ["a1", "a2"]
