"""Like/dislike feedback from the chat, kept in the shared store (`s2r_tutor.store`).

It used to be appended to var/feedback.jsonl; that file is imported into the store on first start
(`store/legacy.py`, which also keeps the old reader's tolerance of torn and undecodable lines).
"""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import BaseModel, Field

from ..store import Store
from ..store import feedback as db

log = logging.getLogger("s2r_tutor.web")


class Feedback(BaseModel):
    liked: bool = Field(description="True for a like, False for a dislike")
    question: str
    answer: str = Field(description="the answer's Markdown as shown")
    citations: list[str] = Field(default_factory=list, description="chunk ids of the answer's citations")
    intent: str = ""
    backend: str = ""
    source: str = Field("chat", description="which front end sent it")


class FeedbackLog:
    """One row per record in the store's `feedback` table. Text a database cannot hold (lone
    surrogates, NUL) is stored as U+FFFD, so a record is always written and reads back as valid text.

    `target`: a shared `Store`, a SQLAlchemy URL, or a SQLite file path."""

    def __init__(self, target: Path | str | Store):
        self.store = target if isinstance(target, Store) else Store(target)
        self.skipped = 0  # kept for callers of the JSONL era: a table has no torn lines

    def append(self, record: Feedback) -> dict:
        return db.append(self.store, record.model_dump())

    def read(self, since: float | None = None) -> list[dict]:
        """Every record, oldest first, as dicts with `ts` (ISO 8601, UTC) and the Feedback fields."""
        return db.read(self.store, since=since)
