# Frozen copy of feedback.py from main at d2e64a1 (before the shared store), kept only so
# tests/test_store.py can write var/ files exactly as that code did and check the migration. Do not edit.
"""Like/dislike feedback from the chat, appended to a local JSONL file (one record per line)."""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, Field

# A str can hold code points UTF-8 cannot encode: lone surrogates (a browser or JSON client can send
# "\ud800"). They are stored as U+FFFD so the record is still written and read back as valid UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")

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
    """Appends one JSON line per record. A lock serialises writers in this process, and each record
    goes out in one `write()` on an O_APPEND descriptor, so a second process appending to the same
    file on a local file system adds whole lines after it rather than overwriting it.

    A writer that died mid-append leaves a torn last line: the next append starts a fresh line so
    only the torn record is lost, and `read()` skips lines that are not a JSON object (their count
    is in `skipped` and logged)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self.skipped = 0  # lines the last read() could not decode

    def append(self, record: Feedback) -> dict:
        row = {"ts": datetime.now(timezone.utc).isoformat(timespec="seconds"), **record.model_dump()}
        line = _SURROGATE.sub("\ufffd", json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = b"\n" + line  # the last write was torn: do not glue this record to it
                os.write(fd, line)
            finally:
                os.close(fd)
        return row

    def read(self) -> list[dict]:
        """Every whole record, oldest first; torn or undecodable lines are skipped and counted."""
        if not self.path.exists():
            return []
        rows: list[dict] = []
        bad: list[int] = []
        with self.path.open("rb") as f:
            for number, raw in enumerate(f, start=1):
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw.decode("utf-8"))
                except ValueError:  # UnicodeDecodeError and JSONDecodeError are both ValueErrors
                    row = None
                if isinstance(row, dict):
                    rows.append(row)
                else:
                    bad.append(number)
        self.skipped = len(bad)
        if bad:
            log.warning("%s: skipped %d line(s) that are not a JSON record (line %s)", self.path, len(bad),
                        ", ".join(map(str, bad[:10])) + (" …" if len(bad) > 10 else ""))
        return rows
