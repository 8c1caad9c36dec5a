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


def add_note(store: Store, *, reader: str, chunk_id: str, text: str, created_at: float) -> int:
    with store.write() as conn:
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
    with store.write() as conn:
        return conn.execute(notes.delete().where(notes.c.reader == reader, notes.c.id == int(note_id))).rowcount > 0
