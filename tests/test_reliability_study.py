"""Study progress (SQLite) under bad files and bad text: a clear StudyStoreError, and a corrupt file
is never overwritten (the reader's progress could still be recovered from it).
Case ids (R..) are catalogued in docs/reliability.md."""

from __future__ import annotations

import os
import sqlite3

import pytest

from s2r_tutor.errors import TutorError
from s2r_tutor.study.bank import Question
from s2r_tutor.study.progress import StudyStore, StudyStoreError


@pytest.mark.parametrize("content", [os.urandom(4096), b"SQLite format 3\x00" + b"\x00" * 100])
def test_corrupt_study_db_is_an_error_and_is_not_overwritten(tmp_path, content):
    """R46: a study database that is random bytes or a bare SQLite header: every call is a
    one-line StudyStoreError saying it is corrupt, and the file's bytes are left as they were."""
    path = tmp_path / "study.sqlite3"
    path.write_bytes(content)
    store = StudyStore(path, timeout_s=1)
    for call in (store.check, lambda: store.notes("me"), lambda: store.add_note("me", "04-08#intro", "笔记")):
        with pytest.raises(StudyStoreError, match="corrupt|not a database"):
            call()
    assert path.read_bytes() == content


def test_study_db_truncated_after_writes(tmp_path):
    """R47: a database with notes is cut in half (a crashed copy, a full disk): a clear error, the
    remains are not overwritten."""
    path = tmp_path / "study.sqlite3"
    store = StudyStore(path)
    for i in range(200):
        store.add_note("me", "04-08#intro", f"第 {i} 条笔记：域随机化" * 5)
    for extra in ("-wal", "-shm"):
        (tmp_path / f"study.sqlite3{extra}").unlink(missing_ok=True)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(StudyStoreError):
        StudyStore(path, timeout_s=1).check()
    assert path.read_bytes() == data[: len(data) // 2]


def test_odd_note_text_round_trips(tmp_path):
    """R48: RTL override, emoji and CJK in a note are stored and read back exactly; NUL, which
    PostgreSQL's text cannot hold, comes back as U+FFFD on every backend (the same value wherever stored)."""
    store = StudyStore(tmp_path / "study.sqlite3")
    text = "\x00笔记\u202e🤖 Sim2Real\x00"
    store.add_note("me", "04-08#intro", text)
    assert store.notes("me")[-1].text == "\ufffd笔记\u202e🤖 Sim2Real\ufffd"


@pytest.mark.parametrize("text,chunk", [("笔记\ud800", "04-08#intro"), ("笔记", "04-08#intro\udfff")])
def test_note_with_lone_surrogate_is_a_clear_error(tmp_path, text, chunk):
    """R49: a lone surrogate (possible from any JSON client: "\\ud800") is refused as bad input."""
    store = StudyStore(tmp_path / "study.sqlite3")
    store.add_note("me", "04-08#intro", "before")
    with pytest.raises(TutorError, match="lone surrogate"):
        store.add_note("me", chunk, text)
    assert [n.text for n in store.notes("me")] == ["before"]


def test_quiz_reply_with_lone_surrogate_is_recorded(tmp_path):
    """R49: a graded reply holding a lone surrogate is recorded (as U+FFFD), not lost to an encoder error."""
    store = StudyStore(tmp_path / "study.sqlite3")
    q = Question(id="q1", kind="term", template="cloze", question="?", answer="系统辨识", chunk_id="04-08#intro",
                 section="intro", quote="x")
    store.record("me", q, "wrong", 0.0, "答案\ud800")
    assert store.stats("me")["q1"].last_verdict == "wrong"
    conn = sqlite3.connect(tmp_path / "study.sqlite3")
    try:
        assert conn.execute("SELECT reply FROM results").fetchall() == [("答案\ufffd",)]
    finally:
        conn.close()
