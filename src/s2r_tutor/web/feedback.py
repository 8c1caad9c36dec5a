"""Like/dislike feedback from the chat, kept in the shared store (`s2r_tutor.store`).

`FeedbackLog` is the storage (append, read, the latest vote per answer); `Votes` is the policy in
front of it (issue 13, finding 9: 2,057 likes for one answer in 20 s): one vote per answer, where a
second click changes the vote rather than adding one, and at most `Settings.feedback_per_minute`
clicks a minute from one reader and from one client address.

The chat's vote key is the answer's own random id (`answer:<id>`, kept in its signed record, R187),
counted once whoever casts it: a kept conversation restored under other sessions, or by a cookieless
reader who is a new reader after each reload, cannot vote on the same answer again (round-13 N3).
Older keys (`<session>:<index>`, before R187) count once per reader, as they did.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict, deque
from pathlib import Path

from pydantic import BaseModel, Field

from ..store import Store
from ..store import feedback as db

log = logging.getLogger("s2r_tutor.web")

ANSWER_VOTE = "answer:"  # a vote key naming an answer's id: one vote per answer, whoever casts it


def vote_key(reader: str, vote: str) -> tuple[str, str]:
    """What one vote is: the answer alone for an answer id, else (reader, vote) as before R187."""
    return ("", vote) if vote.startswith(ANSWER_VOTE) else (reader, vote)


class Feedback(BaseModel):
    liked: bool = Field(description="True for a like, False for a dislike")
    question: str
    answer: str = Field(description="the answer's Markdown as shown")
    citations: list[str] = Field(default_factory=list, description="chunk ids of the answer's citations")
    intent: str = ""
    backend: str = ""
    source: str = Field("chat", description="which front end sent it")
    reader: str = Field("", description="the verified reader id, or the browser's anonymous one")
    vote: str = Field("", description="which answer the vote is on (session and message); with `reader`, "
                      "the key of one vote: a later record with the same key replaces an earlier one")


class FeedbackLog:
    """One row per record in the store's `feedback` table (`s2r_tutor.store.feedback`); fields the
    table has no column for (`reader`, `vote`) are kept in its `extra` JSON and read back as keys.
    Text a database cannot hold (lone surrogates, NUL) is stored as U+FFFD, so a record is always
    written and reads back as valid text. The old var/feedback.jsonl is imported into the store on
    first start (`store/legacy.py`, which keeps the old reader's tolerance of torn lines).

    `target`: a shared `Store`, a SQLAlchemy URL, or a SQLite file path."""

    def __init__(self, target: Path | str | Store):
        self.store = target if isinstance(target, Store) else Store(target)
        self.skipped = 0  # kept for callers of the JSONL era: a table has no torn lines

    def append(self, record: Feedback) -> dict:
        return db.append(self.store, record.model_dump())

    def read(self, since: float | None = None) -> list[dict]:
        """Every record, oldest first, as dicts with `ts` (ISO 8601, UTC) and the Feedback fields."""
        return db.read(self.store, since=since)

    def votes(self) -> list[dict]:
        """The records that count, oldest first: for each vote (`vote_key`: an answer id, or an older
        (reader, vote) pair) only the latest record (a changed vote replaces the earlier one); records
        without a vote key are all kept."""
        latest: dict[tuple[str, str], dict] = {}
        loose: list[dict] = []
        for row in self.read():
            if row.get("vote"):
                key = vote_key(str(row.get("reader", "")), str(row["vote"]))
                latest.pop(key, None)  # re-insert: the dict keeps the order of the latest records
                latest[key] = row
            else:
                loose.append(row)
        return sorted([*loose, *latest.values()], key=lambda r: str(r.get("ts", "")))

    def latest_votes(self) -> dict[tuple[str, str], bool]:
        """{vote_key: liked} as stored: what `Votes` needs to dedupe across a restart."""
        return {vote_key(str(r.get("reader", "")), str(r["vote"])): bool(r.get("liked"))
                for r in self.votes() if r.get("vote")}


class RateLimit:
    """At most `limit` events per `window_s` for each key (a sliding window, in memory)."""

    def __init__(self, limit: int, window_s: float = 60.0, clock=time.monotonic, max_keys: int = 10_000):
        self.limit, self.window_s, self.clock, self.max_keys = limit, window_s, clock, max_keys
        self._hits: OrderedDict[str, deque] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, *keys: str) -> bool:
        """True (and counted under every key) when no key is over its limit; False counts nothing."""
        now = self.clock()
        with self._lock:
            queues = []
            for key in keys:
                q = self._hits.pop(key, None) or deque()
                while q and now - q[0] >= self.window_s:
                    q.popleft()
                self._hits[key] = q  # most recently used last
                queues.append(q)
            while len(self._hits) > self.max_keys:
                self._hits.popitem(last=False)
            if any(len(q) >= self.limit for q in queues):
                return False
            for q in queues:
                q.append(now)
            return True


RECORDED, CHANGED, UNCHANGED, LIMITED = "recorded", "changed", "unchanged", "limited"


class Votes:
    """The chat's like/dislike policy over a `FeedbackLog`. `cast()` returns what happened:
    RECORDED (a first vote), CHANGED (the other choice on the same answer: written, and it replaces
    the earlier one in `FeedbackLog.votes()`), UNCHANGED (the same choice again: nothing written),
    or LIMITED (over the rate limit: nothing written)."""

    MAX_REMEMBERED = 100_000  # votes kept in memory for dedupe; older ones fall back to the log

    def __init__(self, log: FeedbackLog, per_minute: int = 20, clock=time.monotonic):
        self.log = log
        self.limit = RateLimit(per_minute, 60.0, clock)
        self._seen: OrderedDict[tuple[str, str], bool] | None = None
        self._lock = threading.Lock()

    def cast(self, record: Feedback, client: str = "") -> str:
        if not self.limit.allow(f"reader:{record.reader}", f"client:{client}"):
            return LIMITED
        key = vote_key(record.reader, record.vote)
        with self._lock:
            if self._seen is None:
                self._seen = OrderedDict(self.log.latest_votes())
            before = self._seen.get(key) if record.vote else None
            if before is not None and before == record.liked:
                return UNCHANGED
            self.log.append(record)
            if record.vote:
                self._seen.pop(key, None)
                self._seen[key] = record.liked
                while len(self._seen) > self.MAX_REMEMBERED:
                    self._seen.popitem(last=False)
        return RECORDED if before is None else CHANGED
