"""The study app's security and durability, through FastAPI's TestClient: links, ownership, admin
token, no path traversal, answers that survive resends, refreshes and a restart."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")
from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from lawful.study.app import create_app  # noqa: E402
from lawful.study.assign import create_study  # noqa: E402
from lawful.study.db import Answer, Event, StudyDB, default_url  # noqa: E402
from lawful.study.simulate import demo_run  # noqa: E402


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    run = demo_run(root / "run", models=("reference", "counterfactual"), n_cases=2, frames=4)
    info = create_study(run, root / "study", annotators=3, per_video=1, attention_every=0)
    return root / "study", info


def client(study, who=None):
    c = TestClient(create_app(study[0]))
    if who:
        c.headers["Authorization"] = f"Bearer {study[1]['tokens'][who]}"
    return c


def first_task(c):
    r = c.get("/api/task")
    assert r.status_code == 200, r.text
    return r.json()["assignment"]


def test_sign_in_link_sets_cookie_and_unknown_links_fail(study):
    c = client(study)
    assert c.get("/api/task").status_code == 401
    assert c.get("/a/not-a-token", follow_redirects=False).status_code == 404
    r = c.get(f"/a/{study[1]['tokens']['annotator-001']}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert "httponly" in r.headers["set-cookie"].lower() and "samesite=strict" in r.headers["set-cookie"].lower()
    assert c.get("/api/task").json()["total"] >= 1  # the cookie now signs the API in
    page = c.get("/")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"


def test_annotators_reach_only_their_own_work(study):
    a, b = client(study, "annotator-001"), client(study, "annotator-002")
    mine, theirs = first_task(a), first_task(b)
    assert mine["id"] != theirs["id"]
    tid = theirs["id"]
    assert b.get(f"/api/assignments/{tid}").status_code == 200
    assert a.get(f"/api/assignments/{tid}").status_code == 404
    assert a.put(f"/api/assignments/{tid}/answers", json={"answers": {"gravity": "5"}}).status_code == 404
    assert a.post(f"/api/assignments/{tid}/events", json={"events": [{"seq": 1, "kind": "play"}]}).status_code == 404
    assert a.post(f"/api/assignments/{tid}/submit", json={"answers": {}}).status_code == 404
    assert a.get(f"/media/{tid}/0").status_code == 404
    assert b.get(f"/media/{tid}/0").status_code == 200 and b.get(f"/media/{tid}/0").content[4:8] == b"ftyp"
    assert b.get(f"/media/{tid}/1").status_code == 404  # a rating item has one clip
    assert "model" not in b.get(f"/api/assignments/{tid}").text  # model names never reach annotators
    with StudyDB(default_url(study[0])).read() as s:
        assert s.scalar(select(func.count(Event.id)).where(Event.assignment_id == tid)) == 0


def test_admin_endpoints_need_the_admin_token(study):
    anon, ann = client(study), client(study, "annotator-001")
    for c in (anon, ann):
        assert c.get("/api/admin/progress").status_code == 401
        assert c.post("/api/admin/qc").status_code == 401
        assert c.get("/api/admin/report").status_code == 401
        assert c.get("/api/admin/answers.csv").status_code == 401
    anon.headers["X-Admin-Token"] = "wrong"
    assert anon.get("/api/admin/progress").status_code == 401
    adm = client(study)
    assert adm.get("/admin/login/wrong", follow_redirects=False).status_code == 401
    assert adm.get(f"/admin/login/{study[1]['admin_token']}", follow_redirects=False).status_code == 303
    p = adm.get("/api/admin/progress").json()
    assert p["total"] == 4 and len(p["annotators"]) == 3  # 2 prompts x 2 models x 1 annotator each


@pytest.mark.parametrize("path", ["/static/../study.sqlite", "/static/%2e%2e/study.sqlite", "/static/..%2fstudy.sqlite",
                                  "/media/../study.sqlite", "/media/1/..%2f..%2fstudy.sqlite", "/media/..%2f..%2fadmin_token",
                                  "/static/%2e%2e/%2e%2e/app.py", "/static/../../admin_token"])
def test_no_path_traversal(study, path):
    c = client(study, "annotator-001")
    r = c.get(path)
    assert r.status_code in (401, 404, 422), (path, r.status_code)
    assert b"SQLite format" not in r.content and study[1]["admin_token"].encode() not in r.content


def test_answers_are_idempotent_and_survive_refresh_and_restart(study):
    c = client(study, "annotator-003")
    t = first_task(c)
    keys = [q["key"] for q in t["questions"]]
    aid = t["id"]
    draft = {keys[0]: "4"}
    for _ in range(3):  # resent saves
        assert c.put(f"/api/assignments/{aid}/answers", json={"answers": draft, "watch_s": 1.5}).status_code == 200
    ev = {"events": [{"seq": 10, "kind": "play", "t": 0.0}, {"seq": 11, "kind": "pause", "t": 0.3}]}
    assert c.post(f"/api/assignments/{aid}/events", json=ev).json()["added"] == 2
    assert c.post(f"/api/assignments/{aid}/events", json=ev).json()["added"] == 0
    assert c.post(f"/api/assignments/{aid}/events", json={"events": [{"seq": 12, "kind": "teleport"}]}).status_code == 422
    # bad input is refused with a reason
    assert c.put(f"/api/assignments/{aid}/answers", json={"answers": {keys[0]: "7"}}).status_code == 422
    assert c.put(f"/api/assignments/{aid}/answers", json={"answers": {"not_a_law": "3"}}).status_code == 422
    r = c.post(f"/api/assignments/{aid}/submit", json={"answers": draft})
    assert r.status_code == 422 and "unanswered" in r.json()["detail"]
    # a server restart: a new app on the same database sees the draft
    c2 = client(study, "annotator-003")
    again = first_task(c2)
    assert again["id"] == aid and again["answers"] == draft and again["watch_s"] == 1.5
    full = {k: "3" for k in keys}
    assert c2.post(f"/api/assignments/{aid}/submit", json={"answers": full}).json()["status"] == "submitted"
    assert c2.post(f"/api/assignments/{aid}/submit", json={"answers": full}).json()["status"] == "already submitted"
    assert c2.post(f"/api/assignments/{aid}/submit", json={"answers": {**full, keys[0]: "1"}}).status_code == 409
    assert c2.put(f"/api/assignments/{aid}/answers", json={"answers": {keys[0]: "1"}}).status_code == 409
    with StudyDB(default_url(study[0])).read() as s:
        stored = dict(s.execute(select(Answer.question, Answer.value).where(Answer.assignment_id == aid)).all())
        n = s.scalar(select(func.count(Answer.id)).where(Answer.assignment_id == aid))
    assert stored == full and n == len(keys)
    nxt = first_task(c2)
    assert nxt is None or nxt["id"] != aid


def test_pair_items_serve_two_clips_and_undo_the_left_right_swap(tmp_path):
    from lawful.study.db import Assignment, Item, Video
    from lawful.study.qc import pair_votes, submissions

    run = demo_run(tmp_path / "run", models=("reference", "counterfactual"), n_cases=1, frames=4)
    info = create_study(run, tmp_path / "pairs", annotators=6, per_video=6, mode="pair", seed=3)
    db = StudyDB(default_url(tmp_path / "pairs"))
    with db.read() as s:
        swaps = {a.id: a.swap for a in s.scalars(select(Assignment))}
        it = s.scalars(select(Item)).one()
        model = {v.id: v.model for v in s.scalars(select(Video))}
        files = {v.id: v.file for v in s.scalars(select(Video))}
    assert set(swaps.values()) == {True, False}  # both orders occur
    left_model = {}
    c = TestClient(create_app(tmp_path / "pairs"))
    for name, tok in info["tokens"].items():
        c.headers["Authorization"] = f"Bearer {tok}"
        t = first_task(c)
        assert t["kind"] == "pair" and len(t["videos"]) == 2 and "questions" not in t
        clips = [c.get(u).content for u in t["videos"]]
        assert clips[0] != clips[1]
        left = it.video_b if swaps[t["id"]] else it.video_a
        left_model[name] = model[left]
        assert clips[0] == (tmp_path / "pairs" / "media" / files[left]).read_bytes()  # slot 0 is the left clip
        assert c.put(f"/api/assignments/{t['id']}/answers", json={"answers": {"preference": "5"}}).status_code == 422
        assert c.post(f"/api/assignments/{t['id']}/submit", json={"answers": {"preference": "A"}}).status_code == 200
    votes = {v["annotator"]: v["preferred"] for v in pair_votes(submissions(db))}
    assert votes == left_model  # "A" always means the clip shown on the left, whichever model it was
    db.close()
