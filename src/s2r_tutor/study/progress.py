"""Per-reader quiz results and notes, kept in the shared store (`s2r_tutor.store`): one SQLite file
by default (`Settings.study_db`), PostgreSQL when `database_url` says so.

This module keeps the quiz logic (spaced-repetition order, summaries, input checks); the SQL lives
in `store/study.py`. Every failure of the database (corrupt, locked, unreachable, newer schema)
raises `StudyStorageError` with a message that says what to do, never a raw driver traceback.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import TutorError
from ..store import Store, StoreError
from ..store import study as db
from .bank import Question

MAX_NOTE_CHARS = 5000
_READER = re.compile(r"^[\w.@\-]{1,64}$")


class StudyStoreError(TutorError):
    """The study store was given bad input (an empty note, an unknown section, a bad reader id)."""

    part = None  # about the caller's input: the message is for them


class StudyStorageError(StudyStoreError, StoreError):
    """The study database itself cannot be used (corrupt, locked, unwritable, too new, unreachable):
    the message names its path or URL, so web users see only `public_message()`."""

    part = "the study store"


class NoteError(StudyStoreError):
    """A note the caller must change: unknown section, empty, too long (the API's 422)."""


class NoteLimitError(NoteError):
    """The reader already keeps the most notes allowed (the API's 409)."""


_SURROGATE = re.compile("[\ud800-\udfff]")


def _storable(value, what: str):
    """`value` unchanged, or StudyStoreError when it is text holding a lone surrogate (any JSON client
    can send "\\ud800"), which sqlite3 cannot encode as UTF-8."""
    if isinstance(value, str) and _SURROGATE.search(value):
        raise NoteError(f"the {what} holds a character that is not valid Unicode text "
                              "(a lone surrogate such as \\ud800); remove it and try again")
    return value


def clean_reader(reader: object) -> str:
    """A reader id: 1-64 letters, digits, '_', '.', '@' or '-' (CJK letters allowed)."""
    text = str(reader or "").strip()
    if not _READER.match(text):
        raise StudyStoreError("reader id must be 1-64 letters, digits, '_', '.', '@' or '-'")
    return text


@dataclass(frozen=True)
class Stats:
    attempts: int
    last_verdict: str
    last_at: float
    streak: int  # consecutive correct answers, newest first


@dataclass(frozen=True)
class Note:
    id: int
    reader: str
    chunk_id: str
    text: str
    created_at: float


class StudyStore:
    """`target`: a SQLite file (Path), a SQLAlchemy URL (str), or a shared `Store`."""

    def __init__(self, target: Path | str | Store, timeout_s: float = 5.0):
        self.store = target if isinstance(target, Store) else Store(target, timeout_s=timeout_s)
        self.path = self.store.path
        self.timeout_s = timeout_s

    @contextlib.contextmanager
    def _errors(self):
        try:
            yield
        except StudyStoreError:
            raise
        except StoreError as exc:
            raise StudyStorageError(str(exc)) from None

    @contextlib.contextmanager
    def _conn(self, write: bool = False):
        """A raw store connection in one transaction (rolled back on error): for tests and repairs."""
        with self._errors(), self.store.connect(write=write) as conn:
            yield conn

    def check(self) -> None:
        """Open (creating if needed) and verify the database; raises StudyStoreError when unusable."""
        with self._errors():
            self.store.check()

    # -- results -----------------------------------------------------------------------------
    def record(self, reader: str, question: Question, verdict: str, score: float, reply: str,
               at: float | None = None) -> None:
        reader = clean_reader(reader)
        with self._errors():
            db.record_result(self.store, reader=reader, question_id=question.id, chunk_id=question.chunk_id,
                             kind=question.kind, verdict=verdict, score=float(score), reply=(reply or "")[:2000],
                             answered_at=time.time() if at is None else at)

    def stats(self, reader: str) -> dict[str, Stats]:
        reader = clean_reader(reader)
        with self._errors():
            rows = db.results_for(self.store, reader)
        out: dict[str, Stats] = {}
        seq: dict[str, list[tuple[str, float]]] = {}
        for qid, verdict, at in rows:
            seq.setdefault(qid, []).append((verdict, at))
        for qid, items in seq.items():
            streak = 0
            for verdict, _ in items:
                if verdict != "correct":
                    break
                streak += 1
            out[qid] = Stats(len(items), items[0][0], items[0][1], streak)
        return out

    def order(self, reader: str, bank: list[Question]) -> list[Question]:
        """Simple spaced repetition: last missed (wrong, then partial; oldest miss first), then never
        seen (spread across sections), then correct ones (shortest streak, then longest ago)."""
        stats = self.stats(reader)
        rank_in_chunk: dict[str, int] = {}
        chunk_pos: dict[str, int] = {}
        unseen_key: dict[str, tuple[int, int]] = {}
        for q in bank:
            chunk_pos.setdefault(q.chunk_id, len(chunk_pos))
            r = rank_in_chunk.get(q.chunk_id, 0)
            rank_in_chunk[q.chunk_id] = r + 1
            unseen_key[q.id] = (r, chunk_pos[q.chunk_id])

        def key(q: Question):
            s = stats.get(q.id)
            if s is None:
                return (1, *unseen_key[q.id], 0.0)
            if s.last_verdict != "correct":
                return (0, 0 if s.last_verdict == "wrong" else 1, 0, s.last_at)
            return (2, s.streak, 0, s.last_at)

        return sorted(bank, key=key)

    def summary(self, reader: str) -> dict[str, int]:
        counts = {"answered": 0, "correct": 0, "partial": 0, "wrong": 0}
        for s in self.stats(reader).values():
            counts["answered"] += 1
            counts[s.last_verdict] += 1
        return counts

    # -- notes -------------------------------------------------------------------------------
    def add_note(self, reader: str, chunk_id: str, text: str, at: float | None = None,
                 max_notes: int | None = None, max_anonymous: int | None = None) -> int:
        """Store one note; with `max_notes`, NoteLimitError when the reader already has that many
        (counted inside the write transaction, so concurrent saves cannot pass the cap together)."""
        reader = clean_reader(reader)
        chunk_id = _storable(chunk_id, "section id")
        text = _storable((text or "").strip(), "note")
        if not text:
            raise NoteError("the note is empty")
        if len(text) > MAX_NOTE_CHARS:
            raise NoteError(f"the note is longer than {MAX_NOTE_CHARS} characters")
        with self._errors():
            note_id = db.add_note(self.store, reader=reader, chunk_id=chunk_id, text=text,
                                  created_at=time.time() if at is None else at, max_notes=max_notes,
                                  max_anonymous=max_anonymous)
        if isinstance(note_id, db.CapReached) and note_id.anonymous:
            raise NoteLimitError("anonymous readers keep as many notes as this server allows; sign in through "
                                 "your portal to keep notes, or ask an administrator")
        if isinstance(note_id, db.CapReached):
            raise NoteLimitError(f"you already keep {note_id.count} notes, the most allowed is {max_notes}; "
                                 "export them and start afresh, or ask an administrator")
        return note_id

    def notes(self, reader: str) -> list[Note]:
        reader = clean_reader(reader)
        with self._errors():
            rows = db.notes_for(self.store, reader)
        return [Note(*r) for r in rows]

    def delete_note(self, reader: str, note_id: int) -> bool:
        reader = clean_reader(reader)
        with self._errors():
            return db.delete_note(self.store, reader, note_id)
