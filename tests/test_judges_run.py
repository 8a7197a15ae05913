"""Judging a run folder end to end against a real local chat-completions server."""

from __future__ import annotations

import logging
import re

import numpy as np
import pytest

from lawful.case import Case
from lawful.judges.client import JudgeClient, JudgeConfig
from lawful.judges.judge import discover, judge_consistency, judge_run
from lawful.store import Store
from lawful.video import write_video
from test_judges_fakeserver import ChatServer, Reply, n_images, user_text

KEY = "sk-run-secret-4242-never-store"

ANSWERS = {  # what the scripted judge says per criterion asked
    "Semantic alignment": '{"semantic_alignment": 5}',
    "Physical temporal validity": '```json\n{"physical_temporal_validity": 4}\n```',
    "Object persistence": 'The ball stays the same ball. {"object_persistence": 3} Done.',
    "Gravity": '{"gravity": 7}',
    "Collision": "I would rate the collision a 4 out of 5.",
}


def asked(req) -> str:
    m = re.search(r"Judge ONE aspect only: (.+?)\.\n", user_text(req))
    return m.group(1) if m else ""


def make_run(tmp_path, models=("modelA",)):
    run = tmp_path / "run"
    case = Case(id="pg_ball_drop", suite="phyground", task="scene", prompt="A red ball is dropped onto a box.",
                criteria=["gravity", "collision"], duration=2.0, fps=12,
                known={"expected_outcome": "The ball falls, hits the box and bounces off."})
    case.save(run / "cases")
    frames = [np.full((48, 64, 3), 10 * i, np.uint8) for i in range(24)]
    for m in models:
        write_video(run / "videos" / m / f"{case.id}.mp4", frames, fps=12)
    return run, case


def config(url, **kw):
    base = dict(url=url, model="judge-vl", api_key_env="LAWFUL_TEST_RUN_KEY", timeout_s=2, deadline_s=5,
                backoff_s=0.01, backoff_max_s=0.02, concurrency=2)
    base.update(kw)
    return JudgeConfig(**base)


def test_judged_run_statuses_cache_and_key_hygiene(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("LAWFUL_TEST_RUN_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    run, case = make_run(tmp_path)
    with ChatServer(lambda req, i: Reply(ANSWERS[asked(req)])) as srv:
        g = judge_run(run, "phyground-general", config(srv.url))
        law = judge_run(run, "phyground-law", config(srv.url))
        first = len(srv.requests)
        # frames: a 2 s clip at 4 fps → 8 images per call, 640 px cap leaves 64x48 alone
        assert {n_images(r) for r in srv.requests} == {8}
        assert all(r["temperature"] == 0 for r in srv.requests)
        with Store(run / "results.sqlite") as st:
            rows = {r["criterion"]: r for r in st.judgements(suite="phyground")}
        assert first == 5 and g.statuses["scored"] == 3 and law.statuses["invalid"] == 2
        assert rows["semantic_alignment"]["value"] == 5 and rows["semantic_alignment"]["status"] == "scored"
        assert rows["physical_temporal_validity"]["value"] == 4
        assert rows["object_persistence"]["value"] == 3
        for k in ("gravity", "collision"):  # out of range, prose: invalid, raw reply kept, no value
            assert rows[k]["status"] == "invalid" and rows[k]["value"] is None
            assert rows[k]["raw"] == ANSWERS[k.capitalize()]
        assert "outside" in rows["gravity"]["meta"]["reason"]
        assert rows["gravity"]["meta"]["judge_model"] == "judge-vl"
        assert rows["gravity"]["meta"]["rubric"] == "phyground-law@1.0.0"

        # the same command again: finished work is skipped, nothing is sent
        again = judge_run(run, "phyground-law", config(srv.url))
        assert again.skipped == 1 and len(srv.requests) == first
        # a fresh store with the same cache: every usable answer comes from disk; the two unusable
        # ones (out of range, prose) were never cached and are asked again
        (run / "results.sqlite").unlink()
        rep = judge_run(run, "phyground-general", config(srv.url))
        assert rep.usage["requests"] == 0 and rep.usage["cache_hits"] == rep.usage["calls"] == 3
        rep = judge_run(run, "phyground-law", config(srv.url))
        assert rep.usage["requests"] == 2 and rep.usage["cache_hits"] == 0
        assert rep.calls == {"calls": 2, "ok": 0, "retried": 0, "failed": 0, "unusable": 2, "cache_hits": 0}
        assert len(srv.requests) == first + 2
        with Store(run / "results.sqlite") as st:
            assert {r["criterion"]: r["value"] for r in st.judgements()}["physical_temporal_validity"] == 4

    assert srv.headers[0]["Authorization"] == f"Bearer {KEY}"
    for p in run.rglob("*"):  # store, WAL, cache files, videos: the key is nowhere on disk
        if p.is_file():
            assert KEY.encode() not in p.read_bytes(), p
    assert KEY not in caplog.text


def test_endpoint_failures_are_errors_and_redone(tmp_path):
    run, case = make_run(tmp_path)
    state = {"down": True}

    def script(req, i):
        if state["down"] and asked(req) == "Semantic alignment":
            return Reply("overloaded", status=500)
        return Reply(ANSWERS[asked(req)])

    with ChatServer(script) as srv:
        rep = judge_run(run, "phyground-general", config(srv.url, max_retries=1))
        assert rep.statuses == {"scored": 2, "error": 1}
        n = len(srv.requests)
        assert n == 2 + 2  # two answered, one tried twice
        state["down"] = False
        rep = judge_run(run, "phyground-general", config(srv.url))
        assert rep.statuses == {"scored": 3}  # the errored one is redone; the others come from the cache
        assert len(srv.requests) == n + 1
    with Store(run / "results.sqlite") as st:
        assert all(r["status"] == "scored" for r in st.judgements())


def test_429_then_success_inside_a_run(tmp_path):
    run, case = make_run(tmp_path)
    seen = set()

    def script(req, i):
        a = asked(req)
        if a not in seen:
            seen.add(a)
            return Reply("rate limited", status=429, headers={"Retry-After": "0"})
        return Reply(ANSWERS[a])

    with ChatServer(script) as srv:
        rep = judge_run(run, "phyground-general", config(srv.url))
    assert rep.statuses == {"scored": 3} and rep.usage["retries"] == 3 and rep.usage["requests"] == 6


def test_hang_past_deadline_inside_a_run(tmp_path):
    run, case = make_run(tmp_path)
    with ChatServer(lambda req, i: Reply('{"gravity": 4}', delay=2.0)) as srv:
        rep = judge_run(run, "phyground-law", config(srv.url, timeout_s=0.2, deadline_s=0.4, concurrency=2))
    assert rep.statuses == {"error": 2}


def test_discover_reads_rollouts_and_models(tmp_path):
    run, case = make_run(tmp_path, models=("a", "b"))
    frames = [np.zeros((16, 16, 3), np.uint8)] * 4
    write_video(run / "videos" / "a" / f"{case.id}__1.mp4", frames, fps=4)
    items = discover(run)
    assert [(i.key.model, i.key.rollout) for i in items] == [("a", 0), ("a", 1), ("b", 0)]
    assert discover(run, models=["b"])[0].key.model == "b"


def test_judge_consistency_for_wmle(tmp_path):
    run, case = make_run(tmp_path)
    wcase = case.model_copy(update={"suite": "wmle", "task": "free_fall"})
    replies = iter([Reply('{"consistency": 85.5}'), Reply('{"consistency": 140}')])
    with ChatServer(lambda req, i: next(replies)) as srv:
        c = JudgeClient(config(srv.url, api_key_env=None))
        video = run / "videos" / "modelA" / f"{case.id}.mp4"
        assert judge_consistency(video, wcase, c) == pytest.approx(85.5)
        assert n_images(srv.requests[0]) == 24  # 24 evenly spaced frames (WMLE), no fps rule
        assert judge_consistency(video, wcase, c) is None  # out of range → no C, never a guess


def principia_case(task: str, case_id: str, duration: float, fps: float) -> Case:
    """A valid Principia case of ``task`` (its objects and known fields), with this id and timing."""
    from lawful.suites.base import get_suite

    case, _ = get_suite("principia").task(task).make_case(0, 0)
    return case.model_copy(update={"id": case_id, "duration": duration, "fps": fps, "first_frame": None})


def test_principia_detect_asks_each_phenomenon_of_the_task(tmp_path):
    run = tmp_path / "run"
    case = principia_case("drop", "drop-000", 2.0, 12)
    case.save(run / "cases" / "principia")
    write_video(run / "videos" / "reference" / "drop-000__0.mp4",
                [np.full((48, 64, 3), 10 * i, np.uint8) for i in range(24)], fps=12)
    with ChatServer(lambda req, i: Reply('{"verdict": "PASS", "reason": "same ratio"}')) as srv:
        rep = judge_run(run, "principia-detect", config(srv.url, api_key_env=None))
        asked_for = sorted(re.search(r"Phenomenon: (.+)\n", user_text(r)).group(1) for r in srv.requests)
    assert asked_for == ["Gravity (free fall)", "Restitution"] and rep.statuses == {"scored": 2}
    assert {n_images(r) for r in srv.requests} == {24}  # the full video: every one of its 24 frames
    with Store(run / "results.sqlite") as st:
        rows = st.judgements(rubric="principia-detect")
    assert {r["criterion"]: r["value"] for r in rows} == {"restitution": 1.0, "gravity": 1.0}
    assert rows[0]["meta"]["extra"] == {"reason": "same ratio"}


def test_principia_detect_sees_the_full_video_not_32_frames(tmp_path):
    """Seed 002 B.2: the VLM receives the full video. A 4 s pendulum clip at 24 fps has 96 frames."""
    run = tmp_path / "run"
    case = principia_case("pendulum", "pendulum-000", 4.0, 24)
    case.save(run / "cases" / "principia")
    write_video(run / "videos" / "reference" / "pendulum-000__0.mp4",
                [np.full((48, 64, 3), (2 * i) % 256, np.uint8) for i in range(96)], fps=24)
    with ChatServer(lambda req, i: Reply('{"verdict": "FAIL", "reason": "x"}')) as srv:
        rep = judge_run(run, "principia-detect", config(srv.url, api_key_env=None))
    assert rep.statuses == {"scored": 1} and n_images(srv.requests[0]) == 96
    assert "every frame" in user_text(srv.requests[0])


def test_applepi_rubric_all_criteria_in_one_call_with_reference(tmp_path):
    import json

    from PIL import Image

    run = tmp_path / "run"
    d = run / "cases" / "applepi"
    d.mkdir(parents=True)
    Image.fromarray(np.full((48, 64, 3), 200, np.uint8)).save(d / "ff-000.png")
    case = Case(id="ff-000", suite="applepi", task="FreeFall", first_frame="ff-000.png", duration=1.0, fps=12,
                known={"subtrack": "perception-text"})
    case.save(d)
    write_video(run / "videos" / "m" / "ff-000__0.mp4", [np.full((48, 64, 3), 255, np.uint8)] * 12, fps=12)
    from lawful.judges.rubric import load_rubric

    keys = [c.key for c in load_rubric("applepi-perception-text").criteria]
    answer = {k: 0.5 for k in keys} | {"axes_color_match": -1, "text_readability": 1.5, "feedback": "ok"}
    with ChatServer(lambda req, i: Reply(json.dumps(answer))) as srv:
        rep = judge_run(run, "applepi-perception-text", config(srv.url, api_key_env=None))
        assert len(srv.requests) == 1 and n_images(srv.requests[0]) == 2  # the input scene + the last frame
        assert "Annotated input scene:" in user_text(srv.requests[0])
    assert rep.statuses == {"scored": 17, "invalid": 1}
    with Store(run / "results.sqlite") as st:
        rows = {r["criterion"]: r for r in st.judgements()}
    assert rows["axes_color_match"]["value"] == -1 and rows["axes_color_match"]["meta"]["na"]
    assert rows["text_readability"]["status"] == "invalid"
    fused = load_rubric("applepi-perception-text").fuse({k: r["value"] for k, r in rows.items()})
    # content: (0.5 + 0.5) / 2 without the invalid readability; layout and style 0.5 (−1 left out)
    assert fused["score"] == pytest.approx(0.5)


def test_missing_reference_is_unmeasurable(tmp_path):
    run = tmp_path / "run"
    case = Case(id="ff-001", suite="applepi", task="FreeFall", duration=1.0, fps=12,
                known={"subtrack": "perception-graphic"})
    case.save(run / "cases" / "applepi")
    write_video(run / "videos" / "m" / "ff-001__0.mp4", [np.zeros((16, 16, 3), np.uint8)] * 12, fps=12)
    with ChatServer(lambda req, i: Reply("{}")) as srv:
        rep = judge_run(run, "applepi-perception-graphic", config(srv.url, api_key_env=None))
        assert len(srv.requests) == 0
    assert rep.statuses == {"unmeasurable": 8}


def test_applepi_keyframes_one_call_per_timestamp_averaged(tmp_path):
    import json

    from PIL import Image

    run = tmp_path / "run"
    d = run / "cases" / "applepi"
    d.mkdir(parents=True)
    for name in ("ff.png", "gt0.png", "gt1.png"):
        Image.fromarray(np.full((32, 32, 3), 128, np.uint8)).save(d / name)
    case = Case(id="ff-002", suite="applepi", task="FreeFall", first_frame="ff.png", duration=1.0, fps=24,
                known={"subtrack": "deduction-keyframe", "deduction_timestamps": [0.5, 1.0],
                       "gt_keyframes": ["gt0.png", "gt1.png"]})
    case.save(d)
    # frame 0 is the condition frame; 24 physics frames span 1 s
    write_video(run / "videos" / "m" / "ff-002__0.mp4",
                [np.full((32, 32, 3), 10 * i, np.uint8) for i in range(25)], fps=24)

    def script(req, i):
        t = re.search(r"t = ([\d.]+) s", user_text(req)).group(1)
        v = {"0.50": 0.2, "1.00": 0.6}[t]
        keys = ["gen_annotations_removed", "object_consistency", "visual_quality", "object_position_match",
                "physics_accuracy"]
        return Reply(json.dumps({k: v for k in keys}))

    with ChatServer(script) as srv:
        rep = judge_run(run, "applepi-deduction-keyframe", config(srv.url, api_key_env=None))
        assert len(srv.requests) == 2 and {n_images(r) for r in srv.requests} == {3}
    assert rep.statuses == {"scored": 5}
    with Store(run / "results.sqlite") as st:
        rows = {r["criterion"]: r for r in st.judgements()}
    assert rows["physics_accuracy"]["value"] == pytest.approx(0.4)  # mean of the two timestamps
    # physics frames: t = 0.5 → 1 + round(0.5·24) = 13; t = 1.0 → 1 + min(24, 23) = 24
    per = rows["physics_accuracy"]["meta"]["per_keyframe"]
    assert [(k["time_point"], k["frames"]) for k in per] == [("0.50", [13]), ("1.00", [24])]
