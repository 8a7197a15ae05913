"""The study database (SQLAlchemy 2): SQLite in the study folder by default, any SQLAlchemy URL
(e.g. ``postgresql+psycopg://…``) for a real deployment.

Tables: ``meta`` (study settings as key → JSON), ``videos`` (one per clip, served by id from the
study's ``media/`` folder), ``items`` (what an annotator is shown: one video to rate, or two videos
of one prompt to compare), ``annotators`` (only a SHA-256 of each token is kept), ``assignments``
(annotator × item, with presentation order, A/B swap and attention-check value), ``answers`` (one
per assignment × question; unique, so a resent answer replaces, never duplicates) and ``events``
(the behaviour log; unique per assignment × client sequence number, so a resent batch is ignored).

Writes go through :meth:`StudyDB.write`: one transaction; on SQLite one writer at a time in this
process (readers are never blocked: WAL), so concurrent requests neither lose nor duplicate rows.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

from sqlalchemy import (JSON, BigInteger, Boolean, Float, ForeignKey, Integer, String, Text, UniqueConstraint, create_engine,
                        event, select)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

DB_FILE = "study.sqlite"


class Base(DeclarativeBase):
    pass


class Meta(Base):
    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[dict | list | str | float | None] = mapped_column(JSON)


class Video(Base):
    __tablename__ = "videos"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_id: Mapped[str] = mapped_column(String(200), index=True)
    model: Mapped[str] = mapped_column(String(200))
    rollout: Mapped[int] = mapped_column(Integer, default=0)
    file: Mapped[str] = mapped_column(String(200))  # a name inside <study>/media
    source: Mapped[str] = mapped_column(Text, default="")  # where it was copied from


class Item(Base):
    __tablename__ = "items"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # "rate" or "pair"
    case_id: Mapped[str] = mapped_column(String(200), index=True)
    video_a: Mapped[int] = mapped_column(ForeignKey("videos.id"))
    video_b: Mapped[int | None] = mapped_column(ForeignKey("videos.id"), nullable=True)
    prompt: Mapped[str] = mapped_column(Text)
    laws: Mapped[list] = mapped_column(JSON)
    target: Mapped[int] = mapped_column(Integer)  # annotators this item must reach


class Annotator(Base):
    __tablename__ = "annotators"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    removed: Mapped[bool] = mapped_column(Boolean, default=False)
    reasons: Mapped[list] = mapped_column(JSON, default=list)


class Assignment(Base):
    __tablename__ = "assignments"
    __table_args__ = (UniqueConstraint("annotator_id", "item_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotators.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    swap: Mapped[bool] = mapped_column(Boolean, default=False)  # pair items: show video_b on the left
    attention: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the value the check asks for
    opened_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    submitted_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    watch_s: Mapped[float | None] = mapped_column(Float, nullable=True)  # client-measured playing time


class Answer(Base):
    __tablename__ = "answers"
    __table_args__ = (UniqueConstraint("assignment_id", "question"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id"), index=True)
    question: Mapped[str] = mapped_column(String(64))  # a dimension, a law key, "preference" or "_attention"
    value: Mapped[str] = mapped_column(String(16))  # "1".."5", or "A"/"B"/"tie" (as shown on screen)
    updated_at: Mapped[float] = mapped_column(Float)


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("assignment_id", "seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id"), index=True)
    seq: Mapped[int] = mapped_column(BigInteger)  # client sequence number: a resent event is ignored
    kind: Mapped[str] = mapped_column(String(16))  # open, play, pause, seek, ended
    video_t: Mapped[float | None] = mapped_column(Float, nullable=True)  # position in the clip (s)
    client_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    at: Mapped[float] = mapped_column(Float)  # server clock


EVENT_KINDS = ("open", "play", "pause", "seek", "ended")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def default_url(study_dir: str | Path) -> str:
    return f"sqlite:///{Path(study_dir).resolve() / DB_FILE}"


class StudyDB:
    """Engine, sessions and the write discipline for one study."""

    def __init__(self, url: str):
        self.url = url
        self.sqlite = url.startswith("sqlite")
        kw = {"connect_args": {"check_same_thread": False, "timeout": 30}} if self.sqlite else {"pool_size": 20}
        self.engine = create_engine(url, **kw)
        if self.sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self._lock = threading.Lock() if self.sqlite else None
        Base.metadata.create_all(self.engine)

    @contextmanager
    def read(self):
        with Session(self.engine, expire_on_commit=False) as s:
            yield s

    @contextmanager
    def write(self):
        """One transaction: committed on success, rolled back on any error."""
        with self._lock or nullcontext(), Session(self.engine, expire_on_commit=False) as s, s.begin():
            yield s

    @contextmanager
    def core_write(self):
        """A Core connection in one transaction, under the same write discipline as :meth:`write`."""
        with self._lock or nullcontext(), self.engine.begin() as conn:
            yield conn

    def insert(self, table):
        """An INSERT with ``on_conflict_do_…`` (SQLite, PostgreSQL), or None for other databases."""
        name = self.engine.dialect.name
        if name == "sqlite":
            from sqlalchemy.dialects.sqlite import insert
        elif name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            return None
        return insert(table)

    def meta(self, key: str, default=None):
        with self.read() as s:
            m = s.get(Meta, key)
            return m.value if m else default

    def set_meta(self, s: Session, key: str, value) -> None:
        s.merge(Meta(key=key, value=json.loads(json.dumps(value))))

    def annotator_by_token(self, token: str | None) -> Annotator | None:
        if not token:
            return None
        with self.read() as s:
            return s.scalar(select(Annotator).where(Annotator.token_hash == hash_token(token)))

    def close(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit survives the app dying; see docs
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def now() -> float:
    return time.time()
