"""The results store: one SQLite file per run folder.

Tables
- ``videos``     one row per evaluated video: (suite, case_id, model, rollout) → status, reason, path,
                 evidence JSON (tracks, events). A row here means the work is finished and is never redone.
- ``scores``     one row per (video, column): status, value, reason, the full Score JSON.
- ``judgements`` one row per judge call result: (suite, case_id, model, rollout, rubric, criterion)
                 → value, status, raw text, meta JSON (model, rubric version, usage).

Writes are committed immediately, so a killed run loses at most the video in flight.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lawful.result import Score

_SCHEMA = """
CREATE TABLE IF NOT EXISTS videos (
  suite TEXT, case_id TEXT, task TEXT, model TEXT, rollout INTEGER,
  status TEXT, reason TEXT, path TEXT, evidence TEXT, created REAL DEFAULT (julianday('now')),
  PRIMARY KEY (suite, case_id, model, rollout));
CREATE TABLE IF NOT EXISTS scores (
  suite TEXT, case_id TEXT, task TEXT, model TEXT, rollout INTEGER, col TEXT,
  status TEXT, value REAL, reason TEXT, score TEXT,
  PRIMARY KEY (suite, case_id, model, rollout, col));
CREATE TABLE IF NOT EXISTS judgements (
  suite TEXT, case_id TEXT, model TEXT, rollout INTEGER, rubric TEXT, criterion TEXT,
  value REAL, status TEXT, raw TEXT, meta TEXT, created REAL DEFAULT (julianday('now')),
  PRIMARY KEY (suite, case_id, model, rollout, rubric, criterion));
"""


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
        self._db.commit()

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
    ) -> None:
        """Record a finished video and its scores in one transaction."""
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
                "INSERT OR REPLACE INTO videos (suite, case_id, task, model, rollout, status, reason, path, evidence)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                (key.suite, key.case_id, task, key.model, key.rollout, status, reason, path,
                 json.dumps(evidence or {})),
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
        meta: dict | None = None,
    ) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO judgements (suite, case_id, model, rollout, rubric, criterion, value, status,"
                " raw, meta) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (key.suite, key.case_id, key.model, key.rollout, rubric, criterion, value, status, raw,
                 json.dumps(meta or {})),
            )

    def judgements(self, suite: str | None = None, rubric: str | None = None) -> list[dict[str, Any]]:
        q = "SELECT suite, case_id, model, rollout, rubric, criterion, value, status, raw, meta FROM judgements"
        conds, args = [], []
        if suite:
            conds.append("suite=?")
            args.append(suite)
        if rubric:
            conds.append("rubric=?")
            args.append(rubric)
        if conds:
            q += " WHERE " + " AND ".join(conds)
        cur = self._db.execute(q, args)
        cols = [d[0] for d in cur.description]
        out = []
        for r in cur:
            d = dict(zip(cols, r))
            d["meta"] = json.loads(d["meta"]) if d["meta"] else {}
            out.append(d)
        return out
