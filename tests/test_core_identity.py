"""A stored result belongs to the file it scored: another folder, an edited file or a failed generation is redone."""

import json
import shutil

import pytest
from typer.testing import CliRunner

from lawful.cli import app
from lawful.runner.run import RunConfig, run
from lawful.store import Store, VideoKey, fingerprint, same_file


@pytest.fixture(scope="module")
def drop_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    run(RunConfig(["principia"], ["reference", "counterfactual"], out, cases_per_task=1, workers=1, tasks=["drop"],
                  progress=False))
    return out


def _folder(tmp_path, out, model, name="reference"):
    d = tmp_path / model / name
    d.mkdir(parents=True)
    shutil.copy(out / "videos" / model / "drop-000__0.mp4", d / "drop-000.mp4")
    return d


def _evaluate(cases, videos, ev_out):
    res = CliRunner().invoke(app, ["evaluate", "--suite", "principia", "--videos", str(videos), "--cases", str(cases),
                                   "--out", str(ev_out), "--json", "-q"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["principia"]["models"]["folder:reference"]["tasks"]["restitution"]


def test_another_folder_of_the_same_name_is_scored_again(drop_run, tmp_path):
    cases = drop_run / "cases" / "principia"
    good = _folder(tmp_path, drop_run, "reference")
    other = _folder(tmp_path / "other", drop_run, "counterfactual")  # .../other/counterfactual/reference
    ev = tmp_path / "ev"
    assert _evaluate(cases, good, ev) >= 0.95
    assert _evaluate(cases, other, ev) <= 0.6  # was the first folder's 0.999 when keyed by the folder's name


def test_an_edited_video_is_scored_again_and_an_unchanged_one_is_not(drop_run, tmp_path):
    cases = drop_run / "cases" / "principia"
    vids = _folder(tmp_path, drop_run, "reference")
    ev = tmp_path / "ev"
    assert _evaluate(cases, vids, ev) >= 0.95
    with Store(ev / "results.sqlite") as st:
        created = st._db.execute("SELECT created FROM videos").fetchall()
    assert _evaluate(cases, vids, ev) >= 0.95
    with Store(ev / "results.sqlite") as st:
        assert st._db.execute("SELECT created FROM videos").fetchall() == created  # reused
    shutil.copy(drop_run / "videos" / "counterfactual" / "drop-000__0.mp4", vids / "drop-000.mp4")  # replaced
    assert _evaluate(cases, vids, ev) <= 0.6


def test_fingerprint_names_path_and_bytes(tmp_path):
    a = tmp_path / "a.mp4"
    a.write_bytes(b"x" * 10)
    fa = fingerprint(a)
    assert json.loads(fa)["size"] == 10 and same_file(fa, fingerprint(a))
    assert fingerprint(a, known=fa) is fa  # unchanged path, size and mtime: not hashed again
    b = tmp_path / "b.mp4"
    b.write_bytes(b"x" * 10)
    assert not same_file(fa, fingerprint(b))  # same bytes, another file
    a.write_bytes(b"y" * 10)
    assert not same_file(fa, fingerprint(a))
    assert fingerprint(tmp_path / "missing.mp4") is None and not same_file(None, None)


def test_a_failed_generation_is_tried_again(tmp_path):
    src = tmp_path / "src"
    run(RunConfig(["principia"], ["reference"], src, cases_per_task=1, workers=1, tasks=["drop"], progress=False))
    flag = tmp_path / "fixed"
    made = src / "videos" / "reference" / "drop-000__0.mp4"
    model = f"command:test -e {flag} && cp {made} {{out}}"
    out = tmp_path / "run"
    cfg = RunConfig(["principia"], [model], out, cases_per_task=1, workers=1, tasks=["drop"], progress=False)
    run(cfg)
    with Store(out / "results.sqlite") as st:
        (row,) = st.videos()
    assert row["status"] == "invalid" and "command failed" in row["reason"]
    flag.write_text("")
    run(cfg)
    with Store(out / "results.sqlite") as st:
        (row,) = st.videos()
        assert row["status"] == "scored"
        assert st.stored_fingerprint(VideoKey("principia", "drop-000", row["model"], 0))[1] is not None


def test_command_models_are_told_apart_and_can_be_named():
    from lawful.generators.base import get_generator, split_models

    a, b = get_generator("command:gen-a {out}"), get_generator("command:gen-b {out}")
    assert a.name != b.name and a.name.startswith("command-")
    assert get_generator("command:gen-a {out}").name == a.name  # stable across runs
    assert get_generator("mine=command:gen-a {out}").name == "mine"
    assert get_generator("ref2=reference").name == "ref2"
    assert split_models("reference,command:gen --size 3,4 {out},static") == [
        "reference", "command:gen --size 3,4 {out}", "static"]
    assert split_models("x=command:a,b {out}, folder:/v") == ["x=command:a,b {out}", "folder:/v"]
