# Frozen copy of progress.py from main at d2e64a1 (before the shared store), kept only so
# tests/test_store.py can write var/ files exactly as that code did and check the migration. Do not edit.
"""Per-reader quiz results and notes in one local SQLite file (path: `Settings.study_db`).

WAL journal, one short connection per operation (safe from the chat's worker threads), every
write in an explicit `BEGIN IMMEDIATE` transaction. A corrupt, locked or unopenable file raises
`StudyStoreError` with a message that says what to do, never a raw sqlite3 traceback.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from s2r_tutor.errors import TutorError
from s2r_tutor.study.bank import Question

SCHEMA_VERSION = 1
MAX_NOTE_CHARS = 5000
_READER = re.compile(r"^[\w.@\-]{1,64}$")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    id INTEGER PRIMARY KEY,
    reader TEXT NOT NULL,
    question_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('correct', 'partial', 'wrong')),
    score REAL NOT NULL,
    reply TEXT NOT NULL,
    answered_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS results_reader ON results (reader, question_id, answered_at);
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY,
    reader TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS notes_reader ON notes (reader, chunk_id);
"""


class StudyStoreError(TutorError):
    """The study database cannot be used (corrupt, locked, unwritable) or was given bad input."""


_SURROGATE = re.compile("[\ud800-\udfff]")


def _storable(value, what: str):
    """`value` unchanged, or StudyStoreError when it is text holding a lone surrogate (any JSON client
    can send "\\ud800"), which sqlite3 cannot encode as UTF-8."""
    if isinstance(value, str) and _SURROGATE.search(value):
        raise StudyStoreError(f"the {what} holds a character that is not valid Unicode text "
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
    def __init__(self, path: Path, timeout_s: float = 5.0):
        self.path = Path(path)
        self.timeout_s = timeout_s
        self._ready = False

    # -- connection and errors ---------------------------------------------------------------
    def _explain(self, exc: sqlite3.Error) -> StudyStoreError:
        msg = str(exc).lower()
        if "locked" in msg or "busy" in msg:
            return StudyStoreError(f"the study database {self.path} is locked by another process "
                                   f"(waited {self.timeout_s:g} s); close the other quiz or try again")
        if "not a database" in msg or "malformed" in msg or "corrupt" in msg:
            return StudyStoreError(f"the study database {self.path} is corrupt ({exc}); move it aside "
                                   "(progress and notes start afresh) or restore it from a backup")
        if "unable to open" in msg or "readonly" in msg or "read-only" in msg or "disk" in msg:
            return StudyStoreError(f"the study database {self.path} cannot be opened for writing ({exc})")
        return StudyStoreError(f"the study database {self.path} failed: {exc}")

    @contextlib.contextmanager
    def _conn(self, write: bool = False):
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StudyStoreError(f"cannot create the folder for {self.path} ({exc.strerror})") from None
        conn = None
        try:
            conn = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None)
            if not self._ready:
                self._init(conn)
            if write:
                conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if write and conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            if write:
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._explain(exc) from None
        finally:
            if conn is not None:
                conn.close()

    def _init(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # reads the header: corrupt -> error
        if version > SCHEMA_VERSION:
            raise StudyStoreError(f"the study database {self.path} was written by a newer s2r-tutor "
                                  f"(schema {version}, this one knows {SCHEMA_VERSION})")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("BEGIN IMMEDIATE")
        for statement in _SCHEMA.split(";"):  # executescript() would COMMIT on its own
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
        self._ready = True

    def check(self) -> None:
        """Open (creating if needed) and verify the file; raises StudyStoreError when unusable."""
        with self._conn() as conn:
            row = conn.execute("PRAGMA quick_check").fetchone()
            if row and row[0] != "ok":
                raise StudyStoreError(f"the study database {self.path} is corrupt ({row[0]}); move it aside")

    # -- results -----------------------------------------------------------------------------
    def record(self, reader: str, question: Question, verdict: str, score: float, reply: str,
               at: float | None = None) -> None:
        reader = clean_reader(reader)
        with self._conn(write=True) as conn:
            conn.execute(
                "INSERT INTO results (reader, question_id, chunk_id, kind, verdict, score, reply, answered_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (reader, question.id, question.chunk_id, question.kind, verdict, float(score),
                 _SURROGATE.sub("\ufffd", (reply or "")[:2000]), time.time() if at is None else at))

    def stats(self, reader: str) -> dict[str, Stats]:
        reader = clean_reader(reader)
        with self._conn() as conn:
            rows = conn.execute("SELECT question_id, verdict, answered_at FROM results WHERE reader = ? "
                                "ORDER BY answered_at DESC, id DESC", (reader,)).fetchall()
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
    def add_note(self, reader: str, chunk_id: str, text: str, at: float | None = None) -> int:
        reader = clean_reader(reader)
        chunk_id = _storable(chunk_id, "section id")
        text = _storable((text or "").strip(), "note")
        if not text:
            raise StudyStoreError("the note is empty")
        if len(text) > MAX_NOTE_CHARS:
            raise StudyStoreError(f"the note is longer than {MAX_NOTE_CHARS} characters")
        with self._conn(write=True) as conn:
            cur = conn.execute("INSERT INTO notes (reader, chunk_id, text, created_at) VALUES (?, ?, ?, ?)",
                               (reader, chunk_id, text, time.time() if at is None else at))
            return int(cur.lastrowid)

    def notes(self, reader: str) -> list[Note]:
        reader = clean_reader(reader)
        with self._conn() as conn:
            rows = conn.execute("SELECT id, reader, chunk_id, text, created_at FROM notes WHERE reader = ? "
                                "ORDER BY created_at, id", (reader,)).fetchall()
        return [Note(*r) for r in rows]

    def delete_note(self, reader: str, note_id: int) -> bool:
        reader = clean_reader(reader)
        with self._conn(write=True) as conn:
            return conn.execute("DELETE FROM notes WHERE reader = ? AND id = ?", (reader, int(note_id))).rowcount > 0
