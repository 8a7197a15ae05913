"""Simulated annotators whose truth is known, for tests, demos and the load benchmark.

A profile says how an annotator answers and behaves:

- ``good``: label = round(truth + N(0, σ)) clipped to 1-5; in a pair, prefers the law-correct clip
  with probability ``p`` (the other one otherwise); watches the clip, stays 40-90 s, passes checks;
- ``constant``: every label 3 (straight-lining);
- ``copy``: one random score per video for every question (per-video copy-paste), normal behaviour;
- ``rusher``: copy-paste, 3-8 s per page, never plays the video;
- ``contrarian``: label = 6 − truth and no plays (extreme peer disagreement with a behaviour flag);
- ``inattentive``: answers like ``good`` but ignores attention checks.

:func:`simulate_study` writes straight to the database (what the app would have stored), so the
analyses can be checked against the truth without a browser.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import select

from lawful.study.db import Answer, Assignment, Event, Item, StudyDB, Video

PROFILES = ("good", "constant", "copy", "rusher", "contrarian", "inattentive")
DEFAULT_QUALITY = {"reference": 4.2, "counterfactual": 2.0, "static": 1.5}


def default_truth(model: str, case_id: str, question: str) -> float:
    """A model's true score on a question: its quality, a little lower on the laws."""
    q = DEFAULT_QUALITY.get(model, 3.0)
    return q if question in ("semantic_alignment", "object_persistence") else q - 0.2


def answer_rating(profile: str, truths: dict[str, float], attention: int | None, sigma: float,
                  rng: random.Random) -> dict[str, str]:
    if profile == "constant":
        out = {q: "3" for q in truths}
    elif profile in ("copy", "rusher"):
        v = str(rng.randint(1, 5))
        out = {q: v for q in truths}
    elif profile == "contrarian":
        out = {q: str(min(5, max(1, round(6 - t)))) for q, t in truths.items()}
    else:
        out = {q: str(min(5, max(1, round(t + rng.gauss(0, sigma))))) for q, t in truths.items()}
    if attention is not None:
        out["_attention"] = str(attention) if profile not in ("inattentive", "rusher") else str(attention % 5 + 1)
    return out


def answer_pair(profile: str, left_good: bool | None, p: float, rng: random.Random) -> str:
    """'A' (left) / 'B' (right) / 'tie'; ``left_good``: which side is law-correct (None: neither)."""
    if profile != "good" and profile != "inattentive":
        return rng.choice(("A", "B"))
    if left_good is None:
        return rng.choice(("A", "B", "tie"))
    correct = rng.random() < p
    return "A" if correct == left_good else "B"


def behaviour(profile: str, rng: random.Random) -> tuple[float, int, float]:
    """(stay seconds, plays, watched seconds)."""
    if profile in ("rusher",):
        return rng.uniform(3, 8), 0, 0.0
    if profile == "contrarian":
        return rng.uniform(20, 40), 0, 0.0
    return rng.uniform(40, 90), rng.choice((1, 1, 2)), rng.uniform(3.0, 6.0)


def simulate_study(db: StudyDB, profiles: dict[str, str] | Callable[[str], str], *, sigma: float = 0.5,
                   p: float = 0.8, truth: Callable[[str, str, str], float] = default_truth,
                   good_model: str = "reference", seed: int = 0, t0: float = 1.7e9) -> int:
    """Answer every assignment as its annotator's profile would; returns the submissions written."""
    from lawful.study.assign import rating_questions
    from lawful.study.db import Annotator

    rng = random.Random(seed)
    prof = profiles if callable(profiles) else (lambda name: profiles.get(name, "good"))
    qcache: dict[tuple, list[str]] = {}
    n = 0
    with db.write() as s:
        videos = {v.id: v for v in s.scalars(select(Video))}
        names = {a.id: a.name for a in s.scalars(select(Annotator))}
        rows = s.execute(select(Assignment, Item).join(Item, Item.id == Assignment.item_id)
                         .order_by(Assignment.annotator_id, Assignment.position)).all()
        clock: dict[int, float] = {}
        for a, it in rows:
            profile = prof(names[a.annotator_id])
            if it.kind == "pair":
                left, right = (it.video_b, it.video_a) if a.swap else (it.video_a, it.video_b)
                lm, rm = videos[left].model, videos[right].model
                left_good = True if lm == good_model else False if rm == good_model else None
                answers = {"preference": answer_pair(profile, left_good, p, rng)}
            else:
                key = tuple(it.laws)
                if key not in qcache:
                    qcache[key] = [q["key"] for q in rating_questions(list(key))]
                v = videos[it.video_a]
                truths = {q: truth(v.model, it.case_id, q) for q in qcache[key]}
                answers = answer_rating(profile, truths, a.attention, sigma, rng)
            stay, plays, watch = behaviour(profile, rng)
            start = clock.get(a.annotator_id, t0 + rng.uniform(0, 3600))
            a.opened_at, a.submitted_at, a.watch_s = start, start + stay, watch
            clock[a.annotator_id] = start + stay + 1.0
            for q, val in answers.items():
                s.add(Answer(assignment_id=a.id, question=q, value=val, updated_at=start + stay))
            for j in range(plays):
                s.add(Event(assignment_id=a.id, seq=j + 1, kind="play", video_t=0.0, at=start + 2.0 + j))
            n += 1
    return n


def demo_run(out: str | Path, models: tuple[str, ...] = ("reference", "counterfactual", "static"),
             n_cases: int = 6, size: tuple[int, int] = (64, 48), frames: int = 12, fps: float = 12.0) -> Path:
    """A tiny PhyGround-style run folder: the first ``n_cases`` built-in cases and, per model, one small
    MP4 per case (a moving square whose colour tells the models apart), written with lawful's writer."""
    import numpy as np

    from lawful.suites.phyground.report import write_cases
    from lawful.video import write_video

    out = Path(out)
    paths = write_cases(out / "cases" / "phyground", n_cases)
    w, h = size
    for mi, model in enumerate(models):
        colour = np.array([(60 + 70 * mi) % 256, (200 - 50 * mi) % 256, (90 + 40 * mi) % 256], np.uint8)
        for ci, p in enumerate(paths):
            clip = []
            for t in range(frames):
                f = np.full((h, w, 3), 235, np.uint8)
                x = (4 + 3 * t + ci) % (w - 12)
                f[h // 2 - 6: h // 2 + 6, x: x + 12] = colour
                clip.append(f)
            write_video(out / "videos" / model / f"{p.stem}__0.mp4", clip, fps)
    return out


def simulate_judge(db: StudyDB, run_dir: str | Path, name: str, bias: float = 0.0,
                   truth: Callable[[str, str, str], float] = default_truth) -> int:
    """Store a simulated judge's answers (truth + ``bias``, clipped to 1-5) in the run's results store,
    for every clip and question of the study; returns the answers written."""
    from lawful.judges.judge import STORE_FILE
    from lawful.store import Store, VideoKey
    from lawful.study.assign import GENERAL_RUBRIC, LAW_RUBRIC, rating_questions

    with db.read() as s:
        videos = list(s.scalars(select(Video)))
        laws = {it.case_id: it.laws for it in s.scalars(select(Item))}
    n = 0
    with Store(Path(run_dir) / STORE_FILE) as st:
        for v in videos:
            for q in rating_questions(laws.get(v.case_id, [])):
                rubric = GENERAL_RUBRIC if q["domain"] == "general" else LAW_RUBRIC
                value = float(min(5.0, max(1.0, truth(v.model, v.case_id, q["key"]) + bias)))
                st.put_judgement(VideoKey("phyground", v.case_id, v.model, v.rollout), rubric, q["key"], value,
                                 "scored", meta={"simulated": True}, judge=name)
                n += 1
    return n
