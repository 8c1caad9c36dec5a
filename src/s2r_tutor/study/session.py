"""`Study`: the one object the CLI and the chat tabs talk to (bank + grader + store), so neither
adapter holds quiz logic."""

from __future__ import annotations

from pathlib import Path

from ..models import Chunk
from ..store import Store, open_store
from .bank import Question, check_language, generate_bank
from .flashcards import Flashcard, build_flashcards
from .grading import Grade, Grader
from .progress import StudyStore, StudyStoreError


def feedback_language(session_language: str) -> str | None:
    """The language to grade a session's replies in: an English session gets English feedback
    whatever the reply ('A', '2', '系统辨识'); a Chinese one follows each reply's language, so a
    reader who answers in English is answered in English."""
    return "en" if check_language(session_language) == "en" else None


class Study:
    def __init__(self, chunks: list[Chunk], embedder, db_path: Path | str | Store, timeout_s: float = 5.0):
        self.chunks = list(chunks)
        self.bank: list[Question] = generate_bank(self.chunks)
        self.by_id = {q.id: q for q in self.bank}
        self.grader = Grader(self.bank, embedder)
        self.store = StudyStore(db_path, timeout_s=timeout_s)
        self._flashcards: list[Flashcard] | None = None

    @classmethod
    def from_tutor(cls, tutor, db_path: Path | None = None) -> "Study":
        return cls(tutor.chunks, tutor.embedder, db_path or open_store(tutor.settings))

    @property
    def flashcards(self) -> list[Flashcard]:
        if self._flashcards is None:
            self._flashcards = build_flashcards(self.chunks)
        return self._flashcards

    def next_questions(self, reader: str, n: int, exclude: set[str] | frozenset[str] = frozenset()) -> list[Question]:
        """The next `n` questions for this reader: missed ones first (see StudyStore.order), leaving
        out `exclude` (those already asked in this sitting) unless nothing else is left."""
        order = self.store.order(reader, self.bank)
        fresh = [q for q in order if q.id not in exclude]
        return (fresh or order)[: max(0, n)]

    def answer(self, reader: str, question_id: str, reply: str, language: str | None = None) -> Grade:
        """Grade a reply and record it (one transaction). `language` ('zh' / 'en'): the feedback's,
        None to follow the reply's."""
        q = self.by_id.get(question_id)
        if q is None:
            raise StudyStoreError(f"unknown question id {question_id!r} (the card may have changed)")
        grade = self.grader.grade(q, reply, language)
        self.store.record(reader, q, grade.verdict, grade.score, reply)
        return grade
