"""The results store: one SQLite file per run folder.

Tables
- ``videos``     one row per evaluated video: (suite, case_id, model, rollout) → status, reason, path,
                 the file's fingerprint (resolved path, size, mtime, SHA-256 of its bytes), evidence JSON
                 (tracks, events). A row means the work is finished: it is redone only when the file it
                 scored changed or moved (:func:`fingerprint`), or when there was no file (a failed generation).
- ``scores``     one row per (video, column): status, value, reason, the full Score JSON.
- ``judgements`` one row per judge answer: (suite, case_id, model, rollout, rubric, criterion, judge)
                 → value, status, raw text, meta JSON (model, rubric version, usage). ``judge`` is the
                 judge's identity (``model@endpoint``), so several judges' answers sit side by side;
                 a store written before that column existed is migrated on open.
- ``judge_runs`` one row per judged rubric run: when, rubric, judge, suite, call counts JSON.

Writes are committed immediately, so a killed run loses at most the video in flight.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lawful.result import Score

def model_dir_name(model: str) -> str:
    """The folder name of a model's videos in a run folder (``videos/<name>/``): safe characters, ≤ 60."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", model)[:60]


_SCHEMA = """
CREATE TABLE IF NOT EXISTS videos (
  suite TEXT, case_id TEXT, task TEXT, model TEXT, rollout INTEGER,
  status TEXT, reason TEXT, path TEXT, evidence TEXT, created REAL DEFAULT (julianday('now')),
  fingerprint TEXT,
  PRIMARY KEY (suite, case_id, model, rollout));
CREATE TABLE IF NOT EXISTS scores (
  suite TEXT, case_id TEXT, task TEXT, model TEXT, rollout INTEGER, col TEXT,
  status TEXT, value REAL, reason TEXT, score TEXT,
  PRIMARY KEY (suite, case_id, model, rollout, col));
"""
_JUDGE_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgements (
  suite TEXT, case_id TEXT, model TEXT, rollout INTEGER, rubric TEXT, criterion TEXT,
  value REAL, status TEXT, raw TEXT, meta TEXT, created REAL DEFAULT (julianday('now')), judge TEXT DEFAULT '',
  PRIMARY KEY (suite, case_id, model, rollout, rubric, criterion, judge));
CREATE TABLE IF NOT EXISTS judge_runs (
  started REAL DEFAULT (julianday('now')), rubric TEXT, judge TEXT, suite TEXT, counts TEXT);
"""
_JUDGE_COLS = "suite, case_id, model, rollout, rubric, criterion, value, status, raw, meta, created"


def judge_identity(meta: dict) -> str:
    """``model@endpoint`` from a judgement's meta (what rows written before the judge column hold)."""
    return f"{meta.get('judge_model', '?')}@{meta.get('endpoint', '')}"


def fingerprint(path: str | Path, known: str | None = None) -> str | None:
    """Identity of a video file: ``{"path", "size", "mtime_ns", "sha256"}`` as JSON, None if there is no file.

    With ``known`` (an earlier fingerprint of the same path, size and mtime) the bytes are not hashed again.
    """
    p = Path(path)
    try:
        st = p.stat()
        resolved = str(p.resolve())
    except OSError:
        return None
    if not p.is_file():  # a folder (a suite's answers) is not a file to fingerprint
        return None
    if known:
        k = json.loads(known)
        if (k.get("path"), k.get("size"), k.get("mtime_ns")) == (resolved, st.st_size, st.st_mtime_ns):
            return known
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return json.dumps({"path": resolved, "size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": h.hexdigest()})


def same_file(stored: str | None, current: str | None) -> bool:
    """Whether two fingerprints name the same file with the same bytes (mtime alone may differ)."""
    if not stored or not current:
        return False
    a, b = json.loads(stored), json.loads(current)
    return (a["path"], a["size"], a["sha256"]) == (b["path"], b["size"], b["sha256"])


@dataclass(frozen=True)
class VideoKey:
    suite: str
    case_id: str
    model: str
    rollout: int = 0


class Store:
    """Thread-safe access to a run's ``results.sqlite``."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        cols = {r[1] for r in self._db.execute("PRAGMA table_info(videos)")}
        if "fingerprint" not in cols:  # a store written before videos were fingerprinted: those rows are redone
            self._db.execute("ALTER TABLE videos ADD COLUMN fingerprint TEXT")
        self._migrate_judgements()
        self._db.executescript(_JUDGE_SCHEMA)
        self._db.commit()

    def _migrate_judgements(self) -> None:
        """A ``judgements`` table without the ``judge`` column (one judge per answer) gets it, keyed."""
        cols = [r[1] for r in self._db.execute("PRAGMA table_info(judgements)")]
        if not cols or "judge" in cols:
            return
        rows = list(self._db.execute(f"SELECT {_JUDGE_COLS} FROM judgements"))
        with self._db:
            self._db.execute("DROP TABLE judgements")
            self._db.executescript(_JUDGE_SCHEMA)
            self._db.executemany(
                f"INSERT INTO judgements ({_JUDGE_COLS}, judge) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [(*r, judge_identity(json.loads(r[9]) if r[9] else {})) for r in rows])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- videos and scores ---------------------------------------------------------------
    def done(self, key: VideoKey) -> bool:
        cur = self._db.execute(
            "SELECT 1 FROM videos WHERE suite=? AND case_id=? AND model=? AND rollout=?",
            (key.suite, key.case_id, key.model, key.rollout),
        )
        return cur.fetchone() is not None

    def stored_fingerprint(self, key: VideoKey) -> tuple[bool, str | None]:
        """``(stored?, fingerprint of the file it scored or None)``."""
        r = self._db.execute("SELECT fingerprint FROM videos WHERE suite=? AND case_id=? AND model=? AND rollout=?",
                             (key.suite, key.case_id, key.model, key.rollout)).fetchone()
        return (r is not None, r[0] if r else None)

    def finished(self, suite: str | None = None) -> set[VideoKey]:
        q, args = "SELECT suite, case_id, model, rollout FROM videos", ()
        if suite:
            q, args = q + " WHERE suite=?", (suite,)
        return {VideoKey(*r) for r in self._db.execute(q, args)}

    def put(
        self,
        key: VideoKey,
        task: str,
        status: str,
        scores: dict[str, Score],
        reason: str = "",
        path: str = "",
        evidence: dict | None = None,
        fingerprint: str | None = None,
    ) -> None:
        """Record a finished video and its scores in one transaction (``fingerprint``: of the file scored)."""
        with self._lock, self._db:
            self._db.execute(
                "DELETE FROM scores WHERE suite=? AND case_id=? AND model=? AND rollout=?",
                (key.suite, key.case_id, key.model, key.rollout),
            )
            for col, s in scores.items():
                self._db.execute(
                    "INSERT INTO scores VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (key.suite, key.case_id, task, key.model, key.rollout, col, s.status, s.value, s.reason,
                     s.model_dump_json()),
                )
            self._db.execute(
                "INSERT OR REPLACE INTO videos (suite, case_id, task, model, rollout, status, reason, path, evidence,"
                " fingerprint) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (key.suite, key.case_id, task, key.model, key.rollout, status, reason, path,
                 json.dumps(evidence or {}), fingerprint),
            )

    def videos(self, suite: str | None = None) -> list[dict[str, Any]]:
        q = "SELECT suite, case_id, task, model, rollout, status, reason, path FROM videos"
        cur = self._db.execute(q + (" WHERE suite=?" if suite else "") + " ORDER BY model, case_id, rollout",
                               (suite,) if suite else ())
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur]

    def evidence(self, key: VideoKey) -> dict:
        cur = self._db.execute(
            "SELECT evidence FROM videos WHERE suite=? AND case_id=? AND model=? AND rollout=?",
            (key.suite, key.case_id, key.model, key.rollout),
        )
        r = cur.fetchone()
        return json.loads(r[0]) if r and r[0] else {}

    def scores(self, suite: str | None = None) -> list[dict[str, Any]]:
        """Score rows: suite, case_id, task, model, rollout, col, status, value, reason, score (parsed)."""
        q = "SELECT suite, case_id, task, model, rollout, col, status, value, reason, score FROM scores"
        cur = self._db.execute(q + (" WHERE suite=?" if suite else "") + " ORDER BY model, case_id, rollout, col",
                               (suite,) if suite else ())
        cols = [d[0] for d in cur.description]
        rows = []
        for r in cur:
            d = dict(zip(cols, r))
            d["score"] = json.loads(d["score"]) if d["score"] else {}
            rows.append(d)
        return rows

    # --- judgements -------------------------------------------------------------------------
    def put_judgement(
        self, key: VideoKey, rubric: str, criterion: str, value: float | None, status: str, raw: str = "",
        meta: dict | None = None, judge: str | None = None,
    ) -> None:
        """One answer of ``judge`` (default: ``model@endpoint`` from ``meta``); replaces only that judge's."""
        meta = meta or {}
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO judgements (suite, case_id, model, rollout, rubric, criterion, value, status,"
                " raw, meta, judge, created) VALUES (?,?,?,?,?,?,?,?,?,?,?, julianday('now'))",
                (key.suite, key.case_id, key.model, key.rollout, rubric, criterion, value, status, raw,
                 json.dumps(meta), judge or meta.get("judge") or judge_identity(meta)),
            )

    def judges(self, rubric: str | None = None, suite: str | None = None) -> list[str]:
        """Judges with answers (for ``rubric``/``suite``), the one that answered last first."""
        q, conds, args = "SELECT judge, MAX(created) AS t FROM judgements", [], []
        for col, v in (("rubric", rubric), ("suite", suite)):
            if v:
                conds.append(f"{col}=?")
                args.append(v)
        q += (" WHERE " + " AND ".join(conds) if conds else "") + " GROUP BY judge ORDER BY t DESC, judge"
        return [r[0] for r in self._db.execute(q, args)]

    def judgements(self, suite: str | None = None, rubric: str | None = None,
                   judge: str | None = None) -> list[dict[str, Any]]:
        """Judge answers. ``judge``: one judge's; None: per rubric, the judge that answered it last
        (what a single-judge reader wants); ``"*"``: every judge's, side by side."""
        q = "SELECT suite, case_id, model, rollout, rubric, criterion, value, status, raw, meta, judge FROM judgements"
        conds, args = [], []
        if suite:
            conds.append("suite=?")
            args.append(suite)
        if rubric:
            conds.append("rubric=?")
            args.append(rubric)
        if judge and judge != "*":
            conds.append("judge=?")
            args.append(judge)
        if conds:
            q += " WHERE " + " AND ".join(conds)
        cur = self._db.execute(q, args)
        cols = [d[0] for d in cur.description]
        out = []
        for r in cur:
            d = dict(zip(cols, r))
            d["meta"] = json.loads(d["meta"]) if d["meta"] else {}
            out.append(d)
        if judge is None:
            latest = {rb: (self.judges(rb, suite) or [None])[0] for rb in {d["rubric"] for d in out}}
            out = [d for d in out if d["judge"] == latest[d["rubric"]]]
        return out

    def put_judge_run(self, rubric: str, judge: str, suite: str, counts: dict[str, int]) -> None:
        """Record one judged run's call counts (ok / retried / failed / unusable …)."""
        with self._lock, self._db:
            self._db.execute("INSERT INTO judge_runs (rubric, judge, suite, counts) VALUES (?,?,?,?)",
                             (rubric, judge, suite, json.dumps(counts)))

    def judge_runs(self, since: float | None = None) -> list[dict[str, Any]]:
        """Judge runs, oldest first (``since``: julian day, e.g. :meth:`now`)."""
        q = "SELECT started, rubric, judge, suite, counts FROM judge_runs"
        cur = self._db.execute(q + (" WHERE started >= ?" if since is not None else "") + " ORDER BY started",
                               (since,) if since is not None else ())
        return [{"started": r[0], "rubric": r[1], "judge": r[2], "suite": r[3], "counts": json.loads(r[4])}
                for r in cur]

    def now(self) -> float:
        """The store's clock (julian day), to select what happened after a point."""
        return self._db.execute("SELECT julianday('now')").fetchone()[0]
