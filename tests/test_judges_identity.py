"""Who the judge is: endpoint in the cache key, URL credentials as a header only, several judges
side by side in one store (and `lawful judge compare`), N/A where no answer was usable."""

from __future__ import annotations

import json
import math
import sqlite3

import numpy as np
from typer.testing import CliRunner

from lawful.cli import app
from lawful.judges.agreement import principia_agreement
from lawful.judges.cache import JudgeCache
from lawful.judges.client import JudgeClient, JudgeConfig
from lawful.judges.judge import judge_run
from lawful.store import Store, VideoKey
from lawful.video import write_video
from test_judges_fakeserver import ChatServer, Reply
from test_judges_run import ANSWERS, asked, config, make_run, principia_case


def test_cache_key_includes_the_endpoint(tmp_path):
    """The same model name on another endpoint is another judge: its answer is not replayed."""
    cache = JudgeCache(tmp_path / "cache")
    with ChatServer(lambda req, i: Reply('{"x": 1}')) as a, ChatServer(lambda req, i: Reply('{"x": 2}')) as b:
        ra = JudgeClient(JudgeConfig(url=a.url, model="m"), cache).complete("s", ["q"], "r@1")
        rb = JudgeClient(JudgeConfig(url=b.url, model="m"), cache).complete("s", ["q"], "r@1")
        again = JudgeClient(JudgeConfig(url=a.url, model="m"), cache).complete("s", ["q"], "r@1")
    assert (ra.text, rb.text, again.text) == ('{"x": 1}', '{"x": 2}', '{"x": 1}')
    assert len(b.requests) == 1 and again.cached and len(a.requests) == 1


def test_url_credentials_become_a_basic_auth_header_and_are_never_kept(tmp_path, caplog):
    run, _ = make_run(tmp_path)
    with ChatServer(lambda req, i: Reply(ANSWERS[asked(req)])) as srv:
        url = srv.url.replace("http://", "http://alice:pa55w0rd-xyz@")
        r = CliRunner().invoke(app, ["judge", "--run", str(run), "--rubric", "phyground-general", "--judge", url,
                                     "--judge-model", "vlm"])
        assert r.exit_code == 0, r.output
    assert len(srv.requests) == 3 and "calls: 3 ok" in r.output
    assert {h["Authorization"] for h in srv.headers} == {"Basic YWxpY2U6cGE1NXcwcmQteHl6"}  # alice:pa55w0rd-xyz
    assert "pa55w0rd" not in r.output and "pa55w0rd" not in caplog.text
    for p in run.rglob("*"):
        if p.is_file():
            assert b"pa55w0rd" not in p.read_bytes(), p
    with Store(run / "results.sqlite") as st:
        assert {row["judge"] for row in st.judgements()} == {f"vlm@{srv.url}/chat/completions"}


def test_two_judges_side_by_side_and_compare(tmp_path):
    run, _ = make_run(tmp_path, models=("modelA", "modelB"))
    general = {"Semantic alignment": 4, "Physical temporal validity": 3, "Object persistence": 5}

    def judge(shift):
        def script(req, i):
            a = asked(req)
            return Reply(json.dumps({a.lower().replace(" ", "_"): min(5, general[a] + shift)}))
        return script

    with ChatServer(judge(0)) as a, ChatServer(judge(1)) as b:
        judge_run(run, "phyground-general", config(a.url, model="judge-a", api_key_env=None))
        judge_run(run, "phyground-general", config(b.url, model="judge-b", api_key_env=None))
        ida, idb = f"judge-a@{a.url}/chat/completions", f"judge-b@{b.url}/chat/completions"
    with Store(run / "results.sqlite") as st:
        rows = st.judgements(rubric="phyground-general", judge="*")
        assert len(rows) == 12 and {r["judge"] for r in rows} == {ida, idb}  # 2 videos × 3 criteria × 2 judges
        assert st.judges("phyground-general") == [idb, ida]  # the last to answer first
        assert {r["judge"] for r in st.judgements(rubric="phyground-general")} == {idb}  # default: the latest
    r = CliRunner().invoke(app, ["judge", "compare", "--run", str(run), "--rubric", "phyground-general",
                                 "--judges", f"{ida},{idb}", "--json", "--csv", str(tmp_path / "pairs.csv")])
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    # B is A + 1 except where A already gave 5 (object persistence): 2 of 6 pairs agree exactly
    assert res["items"] == 6 and res["both_scored"] == 6
    assert res["exact_agreement"] == 2 / 6 and res["mean_abs_diff"] == 4 / 6
    assert (tmp_path / "pairs.csv").read_text().count("\n") == 7


def test_a_store_from_before_the_judge_column_is_migrated(tmp_path):
    db = tmp_path / "results.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE judgements (suite TEXT, case_id TEXT, model TEXT, rollout INTEGER, rubric TEXT, "
                "criterion TEXT, value REAL, status TEXT, raw TEXT, meta TEXT, created REAL DEFAULT "
                "(julianday('now')), PRIMARY KEY (suite, case_id, model, rollout, rubric, criterion))")
    con.execute("INSERT INTO judgements (suite, case_id, model, rollout, rubric, criterion, value, status, raw, meta)"
                " VALUES ('wmle','c','m',0,'wmle-consistency','consistency',70,'scored','{}',?)",
                (json.dumps({"judge_model": "old", "endpoint": "http://h/v1"}),))
    con.commit()
    con.close()
    with Store(db) as st:
        st.put_judgement(VideoKey("wmle", "c", "m", 0), "wmle-consistency", "consistency", 40.0, "scored", "",
                         {"judge_model": "new", "endpoint": "http://k/v1"})
        rows = st.judgements(judge="*")
    assert sorted((r["judge"], r["value"]) for r in rows) == [("new@http://k/v1", 40.0), ("old@http://h/v1", 70.0)]


def test_agreement_with_no_usable_verdict_is_na_not_zero():
    rows = [{"phenomenon": "gravity", "verdict": None, "truth": t} for t in ("PASS", "FAIL")]
    rows += [{"phenomenon": "restitution", "verdict": "PASS", "truth": "PASS"},
             {"phenomenon": "restitution", "verdict": None, "truth": "FAIL"}]
    res = principia_agreement(rows)
    assert math.isnan(res["per_phenomenon"]["gravity"]) and res["n_unanswered"]["gravity"] == 2
    assert res["per_phenomenon"]["restitution"] == 0.5  # an unanswered scene still earns no credit
    assert res["overall"] == 0.5  # the mean over phenomena that have an A_φ


def test_principia_detect_with_no_usable_answer_prints_na_and_fails(tmp_path):
    run = tmp_path / "run"
    case = principia_case("drop", "drop-000", 2.0, 12)
    case.save(run / "cases" / "principia")
    for m in ("reference", "counterfactual"):
        write_video(run / "videos" / m / "drop-000__0.mp4",
                    [np.full((48, 64, 3), 10 * i, np.uint8) for i in range(24)], fps=12)
    with ChatServer(lambda req, i: Reply("The physics looks fine to me.")) as srv:
        r = CliRunner().invoke(app, ["judge", "--run", str(run), "--rubric", "principia-detect", "--judge", srv.url,
                                     "--judge-model", "vlm"])
    assert len(srv.requests) == 4  # 2 videos × 2 phenomena of the drop task
    assert r.exit_code == 3, r.output
    assert "calls: 0 ok, 0 retried, 0 failed, 4 unusable" in r.output
    assert "none of 4 calls gave a usable answer" in r.output
    table = r.output[r.output.index("Overall"):].splitlines()[0]
    assert "N/A" in table and "0.000" not in table
