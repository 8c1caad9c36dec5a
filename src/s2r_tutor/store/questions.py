"""The question log: one row per ask (chat, widget, API), for `s2r-tutor insights` and /admin.

What is kept: the question, its language, intent, whether it was refused, the top retrieval score,
the cited section ids, latency, the answer backend, which front end, which replica, and a hashed
reader id. Never the LLM key, a reader token or an IP address: nothing here ever receives them.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time

import sqlalchemy as sa

from .engine import Store
from .schema import question_log
from .text import storable, storable_json

DAY_S = 86_400.0
PURGE_EVERY_S = 3_600.0
MAX_QUESTION_CHARS = 2_000


def hash_reader(reader: str | None) -> str | None:
    """A stable pseudonym for a reader id (the same reader counts once), not the id itself."""
    if not reader:
        return None
    return hashlib.sha256(f"s2r-tutor reader:{reader}".encode("utf-8", "replace")).hexdigest()[:16]


def replica_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def entry(answer, latency_s: float, *, source: str, reader: str | None = None) -> dict:
    """The row for one answered ask (an `Answer`)."""
    return {
        "asked_at": time.time(),
        "question": storable(answer.question[:MAX_QUESTION_CHARS]),
        "language": answer.language,
        "intent": storable(answer.intent),
        "refused": bool(answer.refused),
        "top_score": float(answer.hits[0].score) if answer.hits else None,
        "sections": storable_json(list(dict.fromkeys(c.chunk_id for c in answer.citations))),
        "latency_ms": round(latency_s * 1000.0, 1),
        "backend": storable(answer.backend),
        "source": source,
        "reader_hash": hash_reader(reader),
        "replica": replica_name(),
    }


class QuestionLog:
    """Writes rows and, at most once an hour per process, purges those past `retention_days`."""

    def __init__(self, store: Store, retention_days: int):
        self.store = store
        self.retention_days = retention_days
        self._last_purge = 0.0
        self._lock = threading.Lock()

    def record(self, answer, latency_s: float, *, source: str, reader: str | None = None) -> None:
        row = entry(answer, latency_s, source=source, reader=reader)
        with self.store.write() as conn:
            conn.execute(question_log.insert().values(**row))
        with self._lock:
            due = time.time() - self._last_purge > PURGE_EVERY_S
            if due:
                self._last_purge = time.time()
        if due:
            purge(self.store, self.retention_days)


def purge(store: Store, days: int, now: float | None = None) -> int:
    """Delete rows older than `days`; returns how many went."""
    cutoff = (time.time() if now is None else now) - days * DAY_S
    with store.write() as conn:
        return conn.execute(question_log.delete().where(question_log.c.asked_at < cutoff)).rowcount


def rows(store: Store, since: float | None = None) -> list[dict]:
    query = sa.select(question_log).order_by(question_log.c.asked_at, question_log.c.id)
    if since is not None:
        query = query.where(question_log.c.asked_at >= since)
    with store.read() as conn:
        return [dict(r._mapping) for r in conn.execute(query)]


def add(store: Store, row: dict) -> None:
    """Insert a row as given (tests and imports)."""
    with store.write() as conn:
        conn.execute(question_log.insert().values(**row))
