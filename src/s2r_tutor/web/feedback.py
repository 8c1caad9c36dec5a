"""Like/dislike feedback from the chat, appended to a local JSONL file (one record per line)."""

from __future__ import annotations

import json
import os
import re
import threading
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, Field

# A str can hold code points UTF-8 cannot encode: lone surrogates (a browser or JSON client can send
# "\ud800"). They are stored as U+FFFD so the record is still written and read back as valid UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")


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
    file on a local file system adds whole lines after it rather than overwriting it."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()

    def append(self, record: Feedback) -> dict:
        row = {"ts": datetime.now(timezone.utc).isoformat(timespec="seconds"), **record.model_dump()}
        line = _SURROGATE.sub("\ufffd", json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        return row

    def read(self) -> list[dict]:
        if not self.path.exists():
            return []
        with self.path.open(encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
