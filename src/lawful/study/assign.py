"""Creating a study from a run folder: its videos, the questions, and a random, balanced assignment.

Assignment rules (seed 001 §B.2: randomised assignment and order, capped workloads):

- every item (a video to rate, or a pair of videos of one prompt) reaches exactly its target number
  of annotators;
- no annotator sees the same prompt (case) twice — not even as a rating and a pair;
- workloads differ by at most one item: for each case, in random order, the case's item slots go to
  the least-loaded annotators who have not seen it yet (ties broken at random); choosing the m
  least-loaded keeps every load within one of the others;
- each annotator's items are shown in their own random order; a share of their rating items carry an
  attention check (an extra row that says which score to pick).
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import math
import os
import random
import shutil
from collections import defaultdict
from pathlib import Path

from sqlalchemy import func, select

from lawful.study.db import Annotator, Assignment, Item, StudyDB, Video, default_url, hash_token, new_token

GENERAL_RUBRIC = "phyground-general"
LAW_RUBRIC = "phyground-law"
PREFERENCE_QUESTION = ("Which clip shows physically more believable events (things fall, collide, flow and "
                       "reflect the way they would in the real world)?")


class StudyError(ValueError):
    """A study that cannot be created or used as asked; the message is one line."""


def balanced_assignment(items: list[tuple[int, str, int]], annotators: list[int],
                        rng: random.Random) -> dict[int, list[int]]:
    """``items``: (item id, case id, target). Returns annotator → item ids, under the rules above."""
    by_case: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for iid, case, target in items:
        by_case[case].append((iid, target))
    load = {a: 0 for a in annotators}
    out: dict[int, list[int]] = {a: [] for a in annotators}
    cases = sorted(by_case)
    rng.shuffle(cases)
    for case in cases:
        slots = [iid for iid, target in by_case[case] for _ in range(target)]
        if len(slots) > len(annotators):
            raise StudyError(f"case {case} needs {len(slots)} different annotators (its items × annotators per "
                             f"item) but the study has {len(annotators)}: add annotators or lower --per-video")
        rng.shuffle(slots)
        chosen = sorted(annotators, key=lambda a: (load[a], rng.random()))[: len(slots)]
        for a, iid in zip(chosen, slots):
            out[a].append(iid)
            load[a] += 1
    return out


def rating_questions(laws: list[str], sub_questions: bool = False) -> list[dict]:
    """The general dimensions, then the item's laws: key, name, question (and the judge's checklist
    when ``sub_questions``; the seed keeps it from human annotators)."""
    from lawful.judges.rubric import load_rubric

    out = []
    for rubric, keys in ((load_rubric(GENERAL_RUBRIC), None), (load_rubric(LAW_RUBRIC), laws)):
        for c in rubric.criteria:
            if keys is None or c.key in keys:
                out.append({"key": c.key, "name": c.name, "question": c.question, "domain": c.domain,
                            "sub_questions": list(c.sub_questions) if sub_questions else []})
    return out


def scale_anchors() -> dict[str, dict[str, str]]:
    from lawful.judges.rubric import load_rubric

    return {"general": load_rubric(GENERAL_RUBRIC).scale.anchors, "law": load_rubric(LAW_RUBRIC).scale.anchors}


def _media_copy(src: Path, media: Path) -> str:
    """Copy (hard-link when possible) a video into the study's media folder under a content-hash name."""
    h = hashlib.sha256(src.read_bytes()).hexdigest()[:20]
    name = f"{h}{src.suffix.lower() or '.mp4'}"
    dst = media / name
    if not dst.exists():
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    return name


def create_study(run_dir: str | Path, study_dir: str | Path, annotators: int, per_video: int, *,
                 mode: str = "rate", url: str | None = None, suite: str = "phyground",
                 models: list[str] | None = None, attention_every: int = 10, min_watch_s: float | None = None,
                 sub_questions: bool = False, seed: int = 0, base_url: str = "http://127.0.0.1:8000") -> dict:
    """Build the study database and media folder; write ``links.csv`` (one sign-in link per annotator)
    and ``admin_token`` (both readable only by the owner). Returns a summary."""
    from lawful.judges.judge import discover

    if mode not in ("rate", "pair", "both"):
        raise StudyError(f"unknown mode {mode!r}: use rate, pair or both")
    if annotators < 1 or per_video < 1:
        raise StudyError("--annotators and --per-video must be at least 1")
    run_dir, study_dir = Path(run_dir), Path(study_dir)
    if not run_dir.is_dir():
        raise StudyError(f"run folder not found: {run_dir}")
    found = discover(run_dir, suite=suite, models=models)
    if not found:
        raise StudyError(f"no {suite} videos with cases in {run_dir} (expected cases/ and videos/<model>/<case>.mp4)")
    per_case: dict[str, list] = defaultdict(list)
    for it in found:
        per_case[it.key.case_id].append(it.key.model)
    for case, ms in per_case.items():
        n = len(ms) * (mode != "pair") + math.comb(len(set(ms)), 2) * (mode != "rate")
        if n * per_video > annotators:
            raise StudyError(f"prompt {case} has {n} items × {per_video} annotators each, but no annotator may see a "
                             f"prompt twice and the study has {annotators}: add annotators or lower --per-video")
    study_dir.mkdir(parents=True, exist_ok=True)
    url = url or default_url(study_dir)
    media = study_dir / "media"
    media.mkdir(exist_ok=True)
    rng = random.Random(seed)
    db = StudyDB(url)
    with db.read() as s:
        if s.scalar(select(func.count(Item.id))):
            db.close()
            raise StudyError(f"{url} already holds a study; choose another --out or --db")
    from lawful.suites.phyground.taxonomy import LAW_DOMAIN

    with db.write() as s:
        db.set_meta(s, "settings", {"run": str(run_dir.resolve()), "suite": suite, "mode": mode,
                                    "annotators": annotators, "per_video": per_video, "seed": seed,
                                    "attention_every": attention_every, "min_watch_s": min_watch_s,
                                    "sub_questions": sub_questions})
        db.set_meta(s, "anchors", scale_anchors())
        db.set_meta(s, "preference_question", PREFERENCE_QUESTION)
        videos: dict[str, list[Video]] = defaultdict(list)
        prompts, laws = {}, {}
        for it in found:
            v = Video(case_id=it.key.case_id, model=it.key.model, rollout=it.key.rollout,
                      file=_media_copy(it.video, media), source=str(it.video))
            s.add(v)
            videos[it.key.case_id].append(v)
            prompts[it.key.case_id] = it.case.prompt
            laws[it.key.case_id] = [k for k in it.case.criteria if k in LAW_DOMAIN]
        s.flush()
        items = []
        for case, vs in sorted(videos.items()):
            if mode in ("rate", "both"):
                items += [Item(kind="rate", case_id=case, video_a=v.id, prompt=prompts[case], laws=laws[case],
                               target=per_video) for v in vs]
            if mode in ("pair", "both"):
                first = {}
                for v in sorted(vs, key=lambda v: (v.model, v.rollout)):
                    first.setdefault(v.model, v)  # one clip per model: its first rollout
                items += [Item(kind="pair", case_id=case, video_a=a.id, video_b=b.id, prompt=prompts[case],
                               laws=laws[case], target=per_video)
                          for a, b in itertools.combinations(first.values(), 2)]
        s.add_all(items)
        s.flush()
        tokens = {}
        anns = []
        for i in range(annotators):
            tok = new_token()
            a = Annotator(name=f"annotator-{i + 1:03d}", token_hash=hash_token(tok), reasons=[])
            s.add(a)
            anns.append(a)
            tokens[a.name] = tok
        s.flush()
        plan = balanced_assignment([(it.id, it.case_id, it.target) for it in items], [a.id for a in anns], rng)
        kinds = {it.id: it.kind for it in items}
        for a in anns:
            ids = plan[a.id]
            rng.shuffle(ids)
            rated = [i for i in ids if kinds[i] == "rate"]
            checks = set(rng.sample(rated, math.ceil(len(rated) / attention_every))) if attention_every and rated else set()
            for pos, iid in enumerate(ids):
                s.add(Assignment(annotator_id=a.id, item_id=iid, position=pos, swap=rng.random() < 0.5,
                                 attention=rng.randint(1, 5) if iid in checks else None))
        admin = new_token()
        db.set_meta(s, "admin_token_hash", hash_token(admin))
    db.close()
    links = study_dir / "links.csv"
    with _private(links) as f:
        w = csv.writer(f)
        w.writerow(["annotator", "link"])
        for name, tok in tokens.items():
            w.writerow([name, f"{base_url}/a/{tok}"])
    with _private(study_dir / "admin_token") as f:
        f.write(admin + "\n")
    loads = [len(v) for v in plan.values()]
    return {"study": str(study_dir), "url": url, "videos": len(found), "items": len(items),
            "cases": len(videos), "annotators": annotators, "per_video": per_video,
            "load_min": min(loads), "load_max": max(loads), "links": str(links),
            "admin_token_file": str(study_dir / "admin_token"), "tokens": tokens, "admin_token": admin}


def _private(path: Path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    return os.fdopen(fd, "w", newline="")
