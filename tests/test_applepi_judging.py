"""The judge in the Apple-π flow: a real chat-completions server on 127.0.0.1, one tiny case (320×192,
1.5 s, one task, the reference model, three rollouts), judged per subtrack and fused (E.1/E.3)."""

from __future__ import annotations

import json

import pytest

from lawful.judges.cache import JudgeCache
from lawful.judges.client import JudgeClient, JudgeConfig
from lawful.judges.rubric import load_rubric
from lawful.store import Store
from lawful.suites.applepi import run
from lawful.suites.applepi.fusion import SUBTRACKS, rubric_name
from lawful.suites.applepi.judging import judge_applepi
from lawful.suites.applepi.scenes import TASKS
from test_judges_fakeserver import ChatServer, Reply, n_images, user_text

KW = dict(models=("reference",), tasks=[TASKS[0]], cases_per_task=1, width=320, height=192, duration=1.5,
          ocr=False, workers=1, progress=False, dense_maps=False)
ALL_KEYS = sorted({c.key for n in [rubric_name(s) for s in SUBTRACKS] + ["applepi-deduction-keyframe"]
                   for c in load_rubric(n).criteria})
ONES = json.dumps({k: 1 for k in ALL_KEYS} | {"feedback": "fine"})


def ones(req, i):
    return Reply(ONES)


def cfg(url: str) -> JudgeConfig:
    return JudgeConfig(url=url, model="fake-judge", max_retries=0, timeout_s=10, deadline_s=20, concurrency=4)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    out = tmp_path_factory.mktemp("applepi_nojudge")
    return out, run.run_applepi(out, **KW)


def expected(sub: str, metrics: dict[str, float], judge: float = 1.0) -> float:
    """E.1/E.3 by hand: each group the mean of its judge values and its applicable (≠ -1) metrics."""
    total = 0.0
    for g in load_rubric(rubric_name(sub)).groups:
        vals = [judge] * len(g.criteria) + [metrics[m] for m in g.objective if metrics[m] != -1]
        total += g.weight * sum(vals) / len(vals)
    return total


def cols(out) -> dict[tuple[int, str], dict]:
    with Store(out / "results.sqlite") as st:
        return {(r["rollout"], r["col"]): r for r in st.scores("applepi")}


def test_without_judge_no_fused_columns(base):
    out, sec = base
    c = cols(out)
    assert {col for _, col in c} & set(SUBTRACKS) == set()
    assert {f"{s}_objective" for s in SUBTRACKS} <= {col for _, col in c}
    assert sec["models"]["reference"]["scoring"].startswith("objective-only") and "judge" not in sec


def test_judge_fuses_every_subtrack(base, tmp_path):
    out0, _ = base
    with ChatServer(ones) as srv:
        sec = run.run_applepi(tmp_path, dataset=out0 / "applepi" / "dataset", judge_config=cfg(srv.url), **KW)
        n_req = len(srv.requests)
    # one all-criteria call per subtrack and rollout; the reference's identical rollouts may hit the cache
    assert 5 <= n_req <= 15
    assert sec["models"]["reference"]["scoring"] == "judged (E.1/E.3 fusion)"
    assert sec["judge"]["judged"] == 15 and sec["judge"]["fused"] == 15 and set(sec["judge"]["statuses"]) == {"scored"}
    c = cols(tmp_path)
    for r in range(3):
        for sub in SUBTRACKS:
            obj = c[(r, f"{sub}_objective")]
            fused = c[(r, sub)]
            assert fused["status"] == "scored"
            assert fused["value"] == pytest.approx(expected(sub, obj["score"]["metrics"]), abs=1e-9), sub
    assert sec["models"]["reference"]["subtracks"]["deduction"] == pytest.approx(
        sum(c[(r, "deduction")]["value"] for r in range(3)) / 3)
    # the requests carried the GT references and the case fields the rubrics need
    texts = [user_text(q) for q in srv.requests]
    ft = [t for t in texts if "Correct answer: option" in t]
    meta = json.loads(next((out0 / "applepi" / "dataset").rglob("metadata.json")).read_text())
    fi = meta["formula_info"]
    assert ft and f"option {fi['correct_letter']}, formula {fi['correct_formula']}" in ft[0]
    assert meta["annotation"] in ft[0]
    assert {n_images(q) for q in srv.requests if "only the physical objects" in user_text(q)} == {3}
    # resume: everything judged is skipped, nothing is sent
    with ChatServer(ones) as srv2:
        again = judge_applepi(tmp_path, JudgeClient(cfg(srv2.url)))
        assert srv2.requests == []
    assert (again["judged"], again["skipped"], again["fused"]) == (0, 15, 15)


def test_invalid_answers_are_recorded_not_fused(base, tmp_path):
    out0, _ = base
    run.run_applepi(tmp_path, dataset=out0 / "applepi" / "dataset", **KW)

    def script(req, i):  # Formulation-Text gets prose without JSON, the rest valid answers
        return Reply("I think it looks fine.") if "Correct answer: option" in user_text(req) else Reply(ONES)

    with ChatServer(script) as srv:
        res = judge_applepi(tmp_path, JudgeClient(cfg(srv.url)), dataset=out0 / "applepi" / "dataset")
    assert res["judged"] == 15 and res["fused"] == 12 and res["statuses"]["invalid"] == 3 * 11
    c = cols(tmp_path)
    assert all((r, "formulation_text") not in c for r in range(3))
    assert all((r, "perception_text") in c for r in range(3))
    with Store(tmp_path / "results.sqlite") as st:
        rows = st.judgements(suite="applepi", rubric="applepi-formulation-text")
    assert len(rows) == 33 and {r["status"] for r in rows} == {"invalid"} and {r["value"] for r in rows} == {None}
    assert all(r["raw"] == "I think it looks fine." for r in rows)
    # invalid answers count as judged: a resume sends nothing
    with ChatServer(ones) as srv2:
        again = judge_applepi(tmp_path, JudgeClient(cfg(srv2.url), JudgeCache(tmp_path / "cache")))
        assert srv2.requests == [] and again["skipped"] == 15


def test_image_protocol_deduction_keyframes(base, tmp_path):
    out0, _ = base
    with ChatServer(ones) as srv:
        sec = run.run_applepi(tmp_path, dataset=out0 / "applepi" / "dataset", protocol="image",
                              judge_config=cfg(srv.url), **KW)
        kf = [q for q in srv.requests if "the ground-truth frame at t =" in user_text(q)]
    assert 3 <= len(kf) <= 9  # one keyframe-rubric call per rollout and timestamp (identical rollouts: cache)
    assert all(n_images(q) == 3 for q in kf)
    assert sec["judge"]["fused"] == 15
    c = cols(tmp_path)
    for r in range(3):
        ded = c[(r, "deduction")]
        assert ded["score"]["extra"]["judge"]["motion_smoothness"] == 1.0  # object_position_match stands in
        assert [k["object_position_match"] for k in ded_meta(tmp_path, r)] == [1.0, 1.0, 1.0]
        assert ded["value"] == pytest.approx(expected("deduction", c[(r, "deduction_objective")]["score"]["metrics"]))


def ded_meta(out, rollout: int) -> list[dict]:
    with Store(out / "results.sqlite") as st:
        rows = [r for r in st.judgements(suite="applepi", rubric="applepi-deduction")
                if r["rollout"] == rollout and r["criterion"] == "physics_accuracy"]
    assert len(rows) == 1 and rows[0]["meta"]["rubric"].startswith("applepi-deduction-keyframe")
    return rows[0]["meta"]["per_keyframe"]


def test_predictions_made_elsewhere_are_judged_and_fused(base, tmp_path):
    """`lawful evaluate --suite applepi --predictions … --judge …`: the same judging and E.1/E.3 fusion."""
    out0, _ = base
    with ChatServer(ones) as srv:
        sec = run.evaluate_predictions(out0 / "applepi" / "dataset", out0 / "applepi" / "predictions" / "reference",
                                       tmp_path, model="submitted", workers=1, progress=False,
                                       judge_config=cfg(srv.url))
        assert srv.requests
    assert sec["judge"]["judged"] == 15 and sec["judge"]["fused"] == 15 and set(sec["judge"]["statuses"]) == {"scored"}
    assert sec["models"]["submitted"]["scoring"] == "judged (E.1/E.3 fusion)"
    c = cols(tmp_path)
    for r in range(3):
        for sub in SUBTRACKS:
            assert c[(r, sub)]["value"] == pytest.approx(expected(sub, c[(r, f"{sub}_objective")]["score"]["metrics"]),
                                                         abs=1e-9), sub


def test_lawful_judge_on_an_apple_pi_run_judges_and_fuses_like_run_judge(base, tmp_path):
    """``lawful judge --run DIR --rubric applepi-<subtrack>`` reaches Apple-π's rows through the common judge
    step (judge_run → Suite.judge): one subtrack's three rollouts are judged, fused, and counted as a judged run."""
    from typer.testing import CliRunner

    from lawful.cli import app

    out0, _ = base
    run.run_applepi(tmp_path, dataset=out0 / "applepi" / "dataset", **KW)
    with ChatServer(ones) as srv:
        r = CliRunner().invoke(app, ["judge", "--run", str(tmp_path), "--rubric", "applepi-perception-graphic",
                                     "--judge", srv.url, "--judge-model", "fake-judge"])
        assert r.exit_code == 0, r.output
        assert 1 <= len(srv.requests) <= 3
    c = cols(tmp_path)
    for k in range(3):
        obj = c[(k, "perception_graphic_objective")]
        assert c[(k, "perception_graphic")]["value"] == pytest.approx(
            expected("perception_graphic", obj["score"]["metrics"]), abs=1e-9)
        assert (k, "deduction") not in c  # only the rubric asked for
    with Store(tmp_path / "results.sqlite") as st:
        assert [(j["rubric"], j["suite"]) for j in st.judge_runs()] == [("applepi-perception-graphic", "applepi")]
    board = json.loads((tmp_path / "leaderboard.json").read_text())["applepi"]["models"]["reference"]
    assert board["subtracks"]["perception_graphic_objective"] == pytest.approx(
        sum(c[(k, "perception_graphic_objective")]["value"] for k in range(3)) / 3)  # objective-only until all judged
