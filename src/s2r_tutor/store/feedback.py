"""Like/dislike records: the queries behind `web.feedback.FeedbackLog`."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import sqlalchemy as sa

from .engine import Store
from .schema import feedback
from .text import storable, storable_json

COLUMNS = ("liked", "question", "answer", "citations", "intent", "backend", "source")


def _row(record: dict, created_at: float) -> dict:
    extra = {k: v for k, v in record.items() if k not in COLUMNS and k != "ts"}
    return {
        "created_at": created_at, "liked": bool(record.get("liked")),
        "question": storable(str(record.get("question", ""))), "answer": storable(str(record.get("answer", ""))),
        "citations": storable_json(list(record.get("citations") or [])),
        "intent": storable(str(record.get("intent") or "")), "backend": storable(str(record.get("backend") or "")),
        "source": storable(str(record.get("source") or "chat")), "extra": storable_json(extra),
    }


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def parse_iso(text: str) -> float:
    try:
        return datetime.fromisoformat(str(text)).timestamp()
    except ValueError:
        return time.time()


def append(store: Store, record: dict, created_at: float | None = None) -> dict:
    """Store one record (the Feedback model's fields); returns it as read() will, with `ts`."""
    row = _row(record, time.time() if created_at is None else created_at)
    with store.write() as conn:
        conn.execute(feedback.insert().values(**row))
    return _public(row)


def append_many(conn, records: list[tuple[dict, float]]) -> None:
    if records:
        conn.execute(feedback.insert(), [_row(r, at) for r, at in records])


def _public(row) -> dict:
    out = {"ts": iso(row["created_at"]), **{k: row[k] for k in COLUMNS}}
    out.update(row["extra"] or {})
    return out


def read(store: Store, since: float | None = None) -> list[dict]:
    """Every record, oldest first, shaped like a line of the old feedback.jsonl."""
    query = sa.select(feedback).order_by(feedback.c.created_at, feedback.c.id)
    if since is not None:
        query = query.where(feedback.c.created_at >= since)
    with store.read() as conn:
        return [_public(r._mapping) for r in conn.execute(query)]


def count(store: Store) -> int:
    with store.read() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(feedback)).scalar_one())
