"""Quiz results and notes: the queries behind `study.progress.StudyStore`."""

from __future__ import annotations

import sqlalchemy as sa

from .engine import Store
from .schema import notes, results
from .text import storable


def record_result(store: Store, *, reader: str, question_id: str, chunk_id: str, kind: str, verdict: str,
                  score: float, reply: str, answered_at: float) -> None:
    with store.write() as conn:
        conn.execute(results.insert().values(
            reader=reader, question_id=question_id, chunk_id=chunk_id, kind=kind, verdict=verdict,
            score=float(score), reply=storable(reply), answered_at=float(answered_at)))


def results_for(store: Store, reader: str) -> list[tuple[str, str, float]]:
    """(question_id, verdict, answered_at) for one reader, newest first."""
    query = (sa.select(results.c.question_id, results.c.verdict, results.c.answered_at)
             .where(results.c.reader == reader).order_by(results.c.answered_at.desc(), results.c.id.desc()))
    with store.read() as conn:
        return [tuple(r) for r in conn.execute(query)]


class CapReached:
    """add_note's answer when the reader already keeps `max_notes` notes (nothing was written)."""

    def __init__(self, count: int, anonymous: bool = False):
        self.count = count
        self.anonymous = anonymous  # the cap on all anonymous readers' notes together, not this reader's


ANON_PREFIX = "anon-"  # web/identity.py's anonymous reader ids
ID_MIN, ID_MAX = -(2**63), 2**63 - 1  # SQLite's (and PostgreSQL's bigint) integer range


def add_note(store: Store, *, reader: str, chunk_id: str, text: str, created_at: float,
             max_notes: int | None = None, max_anonymous: int | None = None) -> int | CapReached:
    """The new note's id. With `max_notes`, the reader's notes are counted inside the write
    transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: a per-reader advisory lock), so concurrent
    saves cannot pass the cap together. With `max_anonymous`, an anonymous reader's note is refused
    once all anonymous readers together keep that many (F6: each cookieless call is a new reader)."""
    with store.write() as conn:
        if max_anonymous is not None and reader.startswith(ANON_PREFIX):
            count = conn.execute(sa.select(sa.func.count()).select_from(notes)
                                 .where(notes.c.reader.startswith(ANON_PREFIX))).scalar_one()
            if count >= max_anonymous:
                return CapReached(int(count), anonymous=True)
        if max_notes is not None:
            if store.backend == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(hashtext(:r))"), {"r": f"s2r-notes:{reader}"})
            count = conn.execute(sa.select(sa.func.count()).select_from(notes).where(notes.c.reader == reader)).scalar_one()
            if count >= max_notes:
                return CapReached(int(count))
        result = conn.execute(notes.insert().values(reader=reader, chunk_id=storable(chunk_id),
                                                    text=storable(text), created_at=float(created_at)))
        return int(result.inserted_primary_key[0])


def notes_for(store: Store, reader: str) -> list[tuple[int, str, str, str, float]]:
    """(id, reader, chunk_id, text, created_at) for one reader, oldest first."""
    query = (sa.select(notes.c.id, notes.c.reader, notes.c.chunk_id, notes.c.text, notes.c.created_at)
             .where(notes.c.reader == reader).order_by(notes.c.created_at, notes.c.id))
    with store.read() as conn:
        return [tuple(r) for r in conn.execute(query)]


def delete_note(store: Store, reader: str, note_id: int) -> bool:
    if not ID_MIN <= int(note_id) <= ID_MAX:  # no such row; SQLite would raise OverflowError (F4c)
        return False
    with store.write() as conn:
        return conn.execute(notes.delete().where(notes.c.reader == reader, notes.c.id == int(note_id))).rowcount > 0
