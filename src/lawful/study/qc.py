"""Quality control of a study (``lawful study qc``): the seed's rules on the collected answers.

Rows come from submitted assignments only (a draft is not an annotation). Per submission the
behaviour is read from the log: ``stay_s`` (first view → submit, server clock), ``plays`` (play
events), ``watch_s`` (seconds of video the page saw playing), ``answer_s`` (first play → submit).

Two rounds (seed 001 §B.3-B.5; the second round is lawful's reading of "two-round filtering"):
round 1 applies :func:`lawful.study.quality.annotator_quality` to everyone; round 2 applies it again
to the annotators round 1 kept, so peer MAE is measured against clean peers and a pattern hidden by
bad peers shows. An annotator removed in either round is removed. Low volume (fewer than
``min_videos`` submissions), failed attention checks and short watching enter through the same
function (see its docstring).
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

from sqlalchemy import select

from lawful.study.db import Annotator, Answer, Assignment, Event, Item, StudyDB, Video
from lawful.study.quality import annotator_quality

MIN_VIDEOS = 3  # fewer complete submissions than this: too little to judge anyone by


def submissions(db: StudyDB) -> list[dict]:
    """One dict per submitted assignment: who, what, behaviour and the answers."""
    with db.read() as s:
        q = (select(Assignment, Item, Annotator.name)
             .join(Item, Item.id == Assignment.item_id).join(Annotator, Annotator.id == Assignment.annotator_id)
             .where(Assignment.submitted_at.is_not(None)))
        subs = s.execute(q).all()
        answers: dict[int, dict[str, str]] = defaultdict(dict)
        for r in s.scalars(select(Answer)):
            answers[r.assignment_id][r.question] = r.value
        plays: dict[int, list[float]] = defaultdict(list)
        for aid, at in s.execute(select(Event.assignment_id, Event.at).where(Event.kind == "play")):
            plays[aid].append(at)
        videos = {v.id: v for v in s.scalars(select(Video))}
    out = []
    for a, it, name in subs:
        first_play = min(plays[a.id]) if plays[a.id] else None
        va = videos[it.video_a]
        out.append({"assignment": a.id, "annotator": name, "item": it.id, "kind": it.kind, "case_id": it.case_id,
                    "video": it.video_a, "model": va.model, "rollout": va.rollout,
                    "video_b": it.video_b, "model_b": videos[it.video_b].model if it.video_b else None,
                    "swap": a.swap, "attention": a.attention, "answers": answers[a.id],
                    "stay_s": a.submitted_at - (a.opened_at or a.submitted_at), "plays": len(plays[a.id]),
                    "watch_s": a.watch_s or 0.0,
                    "answer_s": a.submitted_at - (first_play or a.opened_at or a.submitted_at)})
    return out


def label_rows(subs: list[dict]) -> list[dict]:
    """Rating labels in :mod:`lawful.study.quality`'s layout (the attention row left out)."""
    rows = []
    for sub in subs:
        if sub["kind"] != "rate":
            continue
        for q, v in sub["answers"].items():
            if q.startswith("_"):
                continue
            rows.append({"annotator": sub["annotator"], "video": sub["video"], "case_id": sub["case_id"],
                         "model": sub["model"], "rollout": sub["rollout"], "dimension": q, "score": float(v),
                         "stay_s": sub["stay_s"], "plays": sub["plays"], "watch_s": sub["watch_s"]})
    return rows


def pair_votes(subs: list[dict]) -> list[dict]:
    """Pair answers with the on-screen A/B undone: ``preferred`` is a model name or ``tie``."""
    out = []
    for sub in subs:
        if sub["kind"] != "pair" or "preference" not in sub["answers"]:
            continue
        left, right = (sub["model_b"], sub["model"]) if sub["swap"] else (sub["model"], sub["model_b"])
        v = sub["answers"]["preference"]
        out.append({"annotator": sub["annotator"], "case_id": sub["case_id"], "item": sub["item"],
                    "model_a": sub["model"], "model_b": sub["model_b"], "video_a": sub["video"],
                    "video_b": sub["video_b"], "preferred": {"A": left, "B": right}.get(v, "tie"),
                    "stay_s": sub["stay_s"], "plays": sub["plays"], "watch_s": sub["watch_s"]})
    return out


def attention_results(subs: list[dict]) -> dict[str, tuple[int, int]]:
    """annotator → (checks answered, checks failed)."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for sub in subs:
        if sub["attention"] is not None:
            out[sub["annotator"]][0] += 1
            out[sub["annotator"]][1] += sub["answers"].get("_attention") != str(sub["attention"])
    return {a: (n, f) for a, (n, f) in out.items()}


def two_round_qc(subs: list[dict], min_videos: int = MIN_VIDEOS, min_watch_s: float | None = None) -> dict:
    """Both rounds on the submissions; per annotator the final decision and which round decided it."""
    rows = label_rows(subs)
    for p in pair_votes(subs):  # pair-only annotators still get behaviour and volume checks
        rows.append({"annotator": p["annotator"], "video": f"pair-{p['item']}", "dimension": "preference",
                     "score": None, "stay_s": p["stay_s"], "plays": p["plays"], "watch_s": p["watch_s"]})
    submitted = defaultdict(int)
    for sub in subs:
        submitted[sub["annotator"]] += 1
    kw = {"min_videos": min_videos, "min_watch_s": min_watch_s, "attention": attention_results(subs),
          "volume": dict(submitted)}
    first = annotator_quality(rows, **kw)
    kept = {a for a, q in first.items() if not q["remove"]}
    second = annotator_quality([r for r in rows if r["annotator"] in kept], **kw)
    out = {}
    for a, q in first.items():
        if q["remove"]:
            out[a] = {**q, "round": 1}
        else:
            q2 = second[a]
            out[a] = {**q2, "round": 2 if q2["remove"] else None}
    return out


def apply_qc(db: StudyDB, min_videos: int = MIN_VIDEOS, min_watch_s: float | None = None) -> dict:
    """Run both rounds and record each annotator's removal and reasons in the database."""
    settings = db.meta("settings") or {}
    min_watch_s = min_watch_s if min_watch_s is not None else settings.get("min_watch_s")
    subs = submissions(db)
    result = two_round_qc(subs, min_videos=min_videos, min_watch_s=min_watch_s)
    with db.write() as s:
        for a in s.scalars(select(Annotator)):
            q = result.get(a.name)
            a.removed = bool(q and q["remove"])
            a.reasons = list(q["reasons"]) if q else []
        db.set_meta(s, "qc", {"min_videos": min_videos, "min_watch_s": min_watch_s, "annotators": result})
    removed = sorted(a for a, q in result.items() if q["remove"])
    return {"annotators": len(result), "removed": removed, "kept": len(result) - len(removed),
            "removed_round_1": sorted(a for a, q in result.items() if q.get("round") == 1),
            "removed_round_2": sorted(a for a, q in result.items() if q.get("round") == 2),
            "submissions": len(subs), "details": result}


def answers_csv(db: StudyDB) -> str:
    """Every submitted answer, one row each, with the submission's behaviour."""
    buf = io.StringIO()
    cols = ["annotator", "assignment", "kind", "case_id", "model", "rollout", "model_b", "question", "value",
            "stay_s", "plays", "watch_s", "answer_s"]
    w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore")
    w.writeheader()
    for sub in submissions(db):
        for q, v in sorted(sub["answers"].items()):
            w.writerow({**sub, "question": q, "value": v})
    return buf.getvalue()


def dumps(obj) -> str:
    return json.dumps(obj, indent=2, default=str)
