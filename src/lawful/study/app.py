"""The annotation web app (FastAPI): annotator pages and JSON API, admin endpoints.

Security model
- An annotator signs in with their link ``/a/<token>`` (a cookie is set; the API also takes
  ``Authorization: Bearer <token>``). They can read and write only their own assignments: any other
  id answers 404, whoever owns it.
- Admin endpoints (``/api/admin/…``) need the study's admin token (``X-Admin-Token`` header, or the
  cookie set by ``/admin/login/<token>``); without it they answer 401.
- Videos are served only by assignment and slot (``/media/<assignment>/<0|1>``) from the study's
  ``media/`` folder; no path from the request reaches the file system, and the resolved file must lie
  inside that folder. Model names never reach the annotator.
- Answers are saved on every click (``PUT …/answers``) and on submit, each in one transaction, keyed
  by (assignment, question): a refresh, a resent request or a server restart loses or duplicates
  nothing. Behaviour events carry a client sequence number; a resent event is ignored.
"""

from __future__ import annotations

import hmac
from functools import lru_cache, wraps
from pathlib import Path

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from sqlalchemy import func, select

from lawful.study.assign import rating_questions
from lawful.study.db import (EVENT_KINDS, Annotator, Answer, Assignment, Event, Item, StudyDB, Video, default_url,
                             hash_token, now)

HERE = Path(__file__).parent
COOKIE, ADMIN_COOKIE = "lawful_study", "lawful_study_admin"
SCORES = {"1", "2", "3", "4", "5"}
PREFERENCES = {"A", "B", "tie"}
HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; "
                                      "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


class SecurityHeaders:
    """Pure ASGI middleware adding :data:`HEADERS` to every HTTP response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k.lower().encode(), v.encode()) for k, v in HEADERS.items() if k.lower().encode() not in have]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class AnswersIn(BaseModel):
    answers: dict[str, str] = Field(default_factory=dict, max_length=64)
    watch_s: float | None = Field(default=None, ge=0, le=86400)


class EventIn(BaseModel):
    seq: int = Field(ge=0, lt=2**62)
    kind: str
    t: float | None = Field(default=None, ge=0, le=86400)
    client_ms: float | None = None


class EventsIn(BaseModel):
    events: list[EventIn] = Field(max_length=500)


def create_app(study_dir: str | Path, url: str | None = None) -> FastAPI:
    """The app for the study in ``study_dir`` (database: ``url`` or the folder's SQLite file)."""
    study_dir = Path(study_dir).resolve()
    media = (study_dir / "media").resolve()
    db = StudyDB(url or default_url(study_dir))
    admin_hash = db.meta("admin_token_hash")
    settings = db.meta("settings") or {}
    if not admin_hash:
        raise RuntimeError(f"no study in {url or study_dir}: create one with `lawful study create`")
    anchors, preference_question = db.meta("anchors"), db.meta("preference_question")
    app = FastAPI(title="lawful study", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.db, app.state.study_dir = db, study_dir
    app.add_middleware(SecurityHeaders)

    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    def inline(f):
        """With SQLite, run a short handler on the event loop (no thread hop: each DB call is
        sub-millisecond and writes are serial anyway); with a server database, in the thread pool."""
        if not db.sqlite:
            return f

        @wraps(f)
        async def run(*args, **kwargs):
            return f(*args, **kwargs)
        return run

    tokens: dict[str, int] = {}

    A, ANS, EV = Assignment.__table__, Answer.__table__, Event.__table__
    with db.read() as s:  # what never changes while the study runs: who owns what, which clips
        items = {it.id: it for it in s.scalars(select(Item))}
        owner = {r.id: r for r in s.execute(select(A.c.id, A.c.annotator_id, A.c.item_id, A.c.swap, A.c.attention))}
        files = dict(s.execute(select(Video.id, Video.file)).all())

    @inline
    def annotator(request: Request) -> int:
        auth = request.headers.get("authorization", "")
        token = auth[7:] if auth.lower().startswith("bearer ") else request.cookies.get(COOKIE)
        if not token:
            raise HTTPException(401, "sign in with your study link")
        if token not in tokens:
            a = db.annotator_by_token(token)
            if a is None:
                raise HTTPException(401, "unknown study link")
            tokens[token] = a.id
        return tokens[token]

    def admin(request: Request) -> None:
        token = request.headers.get("x-admin-token") or request.cookies.get(ADMIN_COOKIE) or ""
        if not hmac.compare_digest(hash_token(token), admin_hash):
            raise HTTPException(401, "admin token required")

    @lru_cache(maxsize=1024)
    def questions(laws: tuple[str, ...]) -> list[dict]:
        return rating_questions(list(laws), settings.get("sub_questions", False))

    def own(aid: int, ann: int):
        a = owner.get(aid)
        if a is None or a.annotator_id != ann:  # someone else's work is indistinguishable from none
            raise HTTPException(404, "no such assignment")
        return a, items[a.item_id]

    def allowed(a, it: Item) -> dict[str, set[str]]:
        if it.kind == "pair":
            return {"preference": PREFERENCES}
        keys = {q["key"]: SCORES for q in questions(tuple(it.laws))}
        if a.attention is not None:
            keys["_attention"] = SCORES
        return keys

    def saved(conn, aid: int) -> dict[str, str]:
        return dict(conn.execute(select(ANS.c.question, ANS.c.value).where(ANS.c.assignment_id == aid)).all())

    def state(conn, aid: int):
        return conn.execute(select(A.c.opened_at, A.c.submitted_at, A.c.watch_s).where(A.c.id == aid)).one()

    def payload(conn, aid: int, st) -> dict:
        a, it = owner[aid], items[owner[aid].item_id]
        out = {"id": aid, "kind": it.kind, "prompt": it.prompt, "answers": saved(conn, aid),
               "watch_s": st.watch_s or 0.0, "submitted": st.submitted_at is not None,
               "min_watch_s": settings.get("min_watch_s"),
               "videos": [f"/media/{aid}/0"] + ([f"/media/{aid}/1"] if it.kind == "pair" else [])}
        if it.kind == "pair":
            out["question"] = preference_question
        else:
            out["questions"] = questions(tuple(it.laws))
            out["attention"] = a.attention
            out["anchors"] = anchors
        return out

    def check(values: dict[str, str], allow: dict[str, set[str]]) -> None:
        for k, v in values.items():
            if k not in allow:
                raise HTTPException(422, f"unknown question {k!r}")
            if v not in allow[k]:
                raise HTTPException(422, f"invalid answer {v!r} to {k!r}")

    def upsert(conn, aid: int, values: dict[str, str]) -> None:
        """One answer per (assignment, question): insert, or replace the stored value."""
        t = now()
        ins = db.insert(Answer)
        if not values:
            return
        if ins is not None:
            ins = ins.values([{"assignment_id": aid, "question": k, "value": v, "updated_at": t} for k, v in values.items()])
            conn.execute(ins.on_conflict_do_update(index_elements=["assignment_id", "question"],
                                                   set_={"value": ins.excluded.value, "updated_at": ins.excluded.updated_at}))
            return
        have = saved(conn, aid)
        for k, v in values.items():
            if k not in have:
                conn.execute(ANS.insert().values(assignment_id=aid, question=k, value=v, updated_at=t))
            elif have[k] != v:
                conn.execute(ANS.update().where(ANS.c.assignment_id == aid, ANS.c.question == k).values(value=v, updated_at=t))

    def watched(conn, aid: int, st, watch_s: float | None) -> None:
        if watch_s is not None and watch_s > (st.watch_s or 0.0):
            conn.execute(A.update().where(A.c.id == aid).values(watch_s=watch_s))

    # --- pages ---------------------------------------------------------------------------------
    pages = {name: (HERE / "templates" / f"{name}.html").read_text() for name in ("annotate", "admin")}

    @app.get("/", response_class=HTMLResponse)
    def page_annotate():
        return HTMLResponse(pages["annotate"])

    @app.get("/admin", response_class=HTMLResponse)
    def page_admin():
        return HTMLResponse(pages["admin"])

    @app.get("/a/{token}")
    def sign_in(token: str, request: Request):
        if db.annotator_by_token(token) is None:
            raise HTTPException(404, "unknown study link")
        r = RedirectResponse("/", status_code=303)
        r.set_cookie(COOKIE, token, httponly=True, samesite="strict", max_age=90 * 86400,
                     secure=request.url.scheme == "https")
        return r

    @app.get("/admin/login/{token}")
    def admin_sign_in(token: str, request: Request):
        if not hmac.compare_digest(hash_token(token), admin_hash):
            raise HTTPException(401, "admin token required")
        r = RedirectResponse("/admin", status_code=303)
        r.set_cookie(ADMIN_COOKIE, token, httponly=True, samesite="strict", max_age=7 * 86400,
                     secure=request.url.scheme == "https")
        return r

    # --- annotator API -------------------------------------------------------------------------
    @app.get("/api/task")
    @inline
    def next_task(ann: int = Depends(annotator)):
        """Progress and the first unsubmitted assignment (marked opened on first view)."""
        with db.engine.connect() as conn:
            rows = conn.execute(select(A.c.id, A.c.opened_at, A.c.submitted_at, A.c.watch_s)
                                .where(A.c.annotator_id == ann).order_by(A.c.position)).all()
            done = sum(r.submitted_at is not None for r in rows)
            pending = next((r for r in rows if r.submitted_at is None), None)
            head = {"done": done, "total": len(rows)}
            if pending is None:
                return {**head, "assignment": None}
            if pending.opened_at is not None:
                return {**head, "assignment": payload(conn, pending.id, pending)}
        with db.core_write() as conn:
            conn.execute(A.update().where(A.c.id == pending.id, A.c.opened_at.is_(None)).values(opened_at=now()))
            return {**head, "assignment": payload(conn, pending.id, state(conn, pending.id))}

    @app.get("/api/assignments/{aid}")
    @inline
    def get_assignment(aid: int, ann: int = Depends(annotator)):
        own(aid, ann)
        with db.engine.connect() as conn:
            return payload(conn, aid, state(conn, aid))

    @app.put("/api/assignments/{aid}/answers")
    @inline
    def save_answers(aid: int, body: AnswersIn, ann: int = Depends(annotator)):
        """Save a draft (some or all answers); repeating it changes nothing."""
        check(body.answers, allowed(*own(aid, ann)))
        with db.core_write() as conn:
            st = state(conn, aid)
            if st.submitted_at is not None:
                have = saved(conn, aid)
                if any(have.get(k) != v for k, v in body.answers.items()):
                    raise HTTPException(409, "already submitted; answers can no longer change")
                return {"saved": 0, "submitted": True}
            upsert(conn, aid, body.answers)
            watched(conn, aid, st, body.watch_s)
            return {"saved": len(body.answers), "submitted": False}

    @app.post("/api/assignments/{aid}/events")
    @inline
    def log_events(aid: int, body: EventsIn, ann: int = Depends(annotator)):
        """Append behaviour events; an event whose sequence number is already stored is ignored."""
        own(aid, ann)
        for e in body.events:
            if e.kind not in EVENT_KINDS:
                raise HTTPException(422, f"unknown event kind {e.kind!r}")
        if not body.events:
            return {"added": 0}
        t = now()
        rows = [{"assignment_id": aid, "seq": e.seq, "kind": e.kind, "video_t": e.t, "client_ms": e.client_ms, "at": t}
                for e in body.events]
        with db.core_write() as conn:
            ins = db.insert(Event)
            if ins is not None:
                res = conn.execute(ins.values(rows).on_conflict_do_nothing(index_elements=["assignment_id", "seq"]))
                return {"added": res.rowcount}
            have = set(conn.execute(select(EV.c.seq).where(EV.c.assignment_id == aid,
                                                           EV.c.seq.in_([r["seq"] for r in rows]))).scalars())
            new = [r for r in rows if r["seq"] not in have and not have.add(r["seq"])]
            if new:
                conn.execute(EV.insert(), new)
            return {"added": len(new)}

    @app.post("/api/assignments/{aid}/submit")
    @inline
    def submit(aid: int, body: AnswersIn, ann: int = Depends(annotator)):
        """Final answers: every question must be answered. Resubmitting the same answers is a no-op."""
        allow = allowed(*own(aid, ann))
        check(body.answers, allow)
        missing = sorted(set(allow) - set(body.answers))
        if missing:
            raise HTTPException(422, f"unanswered: {', '.join(missing)}")
        with db.core_write() as conn:
            st = state(conn, aid)
            if st.submitted_at is not None:
                if saved(conn, aid) != body.answers:
                    raise HTTPException(409, "already submitted with other answers")
                return {"status": "already submitted"}
            upsert(conn, aid, body.answers)
            t = now()
            conn.execute(A.update().where(A.c.id == aid).values(
                submitted_at=t, opened_at=st.opened_at or t, watch_s=max(st.watch_s or 0.0, body.watch_s or 0.0)))
            return {"status": "submitted"}

    @app.get("/media/{aid}/{slot}")
    @inline
    def video(aid: int, slot: int, ann: int = Depends(annotator)):
        a, it = own(aid, ann)
        ids = [it.video_a] if it.kind == "rate" else ([it.video_b, it.video_a] if a.swap else [it.video_a, it.video_b])
        if slot not in range(len(ids)):
            raise HTTPException(404, "no such video")
        path = (media / files[ids[slot]]).resolve()
        if path.parent != media or not path.is_file():
            raise HTTPException(404, "no such video")
        return FileResponse(path, media_type="video/mp4", headers={"Cache-Control": "private, max-age=3600"})

    # --- admin API -----------------------------------------------------------------------------
    @app.get("/api/admin/progress", dependencies=[Depends(admin)])
    def progress():
        with db.read() as s:
            rows = s.execute(select(Annotator.name, func.count(Assignment.id), func.count(Assignment.submitted_at))
                             .join(Assignment, Assignment.annotator_id == Annotator.id)
                             .group_by(Annotator.id).order_by(Annotator.name)).all()
        return {"annotators": [{"name": n, "total": t, "done": d} for n, t, d in rows],
                "done": sum(r[2] for r in rows), "total": sum(r[1] for r in rows)}

    @app.post("/api/admin/qc", dependencies=[Depends(admin)])
    def run_qc():
        from lawful.study.qc import apply_qc
        from lawful.study.report import json_safe

        return json_safe(apply_qc(db))

    @app.get("/api/admin/report", dependencies=[Depends(admin)])
    def report():
        from lawful.study.report import build_report, json_safe

        return json_safe(build_report(db))

    @app.get("/api/admin/answers.csv", dependencies=[Depends(admin)])
    def export():
        from lawful.study.qc import answers_csv

        return Response(answers_csv(db), media_type="text/csv")

    return app
