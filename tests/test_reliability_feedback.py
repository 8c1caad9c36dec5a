"""The like/dislike log (web/feedback.py, now rows in the store): odd text, and the old JSON-lines
file's torn or undecodable lines when it is imported. Case ids (R..) are catalogued in docs/reliability.md."""

from __future__ import annotations

from s2r_tutor.store import Store
from s2r_tutor.store.legacy import import_legacy, read_jsonl
from s2r_tutor.web.feedback import Feedback, FeedbackLog


def test_feedback_with_odd_text_round_trips(tmp_path):
    """R93: RTL, emoji, newlines and 20 kB answers read back exactly (NUL as U+FFFD, see R48)."""
    log = FeedbackLog(tmp_path / "store.sqlite3")
    rec = Feedback(liked=False, question="什么是\u202eSim2Real🤖\n第二行", answer="答" * 20_000, citations=["04-08#intro"])
    log.append(rec)
    log.append(Feedback(liked=True, question="o\x00k", answer="a"))
    rows = log.read()
    assert [r["question"] for r in rows] == [rec.question, "o\ufffdk"]
    assert rows[0]["answer"] == rec.answer and rows[0]["citations"] == ["04-08#intro"] and rows[0]["liked"] is False


def test_feedback_with_lone_surrogate_is_kept_or_refused_cleanly(tmp_path):
    """R94: a question holding a lone surrogate (a browser can send "\\ud800") is logged with the
    surrogate stored as U+FFFD, and the records around it are kept."""
    log = FeedbackLog(tmp_path / "store.sqlite3")
    log.append(Feedback(liked=True, question="before", answer="a"))
    log.append(Feedback(liked=True, question="什么\ud800", answer="a\udfff"))
    log.append(Feedback(liked=False, question="after", answer="b"))
    assert [(r["question"], r["answer"]) for r in log.read()] == [("before", "a"), ("什么\ufffd", "a\ufffd"), ("after", "b")]


def test_torn_last_line_of_the_old_file_loses_only_itself(tmp_path):
    """R95: the old feedback.jsonl ends in half a line (a writer died mid-append): importing it keeps
    every whole record and counts the torn one."""
    path = tmp_path / "feedback.jsonl"
    path.write_bytes(b'{"ts": "2026-12-01T10:00:00+00:00", "liked": true, "question": "first", "answer": "a"}\n'
                     b'{"ts": "2026-12-02T15:00:00+00:00", "liked": tr')
    rows, skipped = read_jsonl(path)
    assert [r["question"] for r in rows] == ["first"] and skipped == 1
    store = Store(tmp_path / "store.sqlite3")
    assert import_legacy(store, None, path) == {f"feedback:{path.resolve()}": 1}
    assert [r["question"] for r in FeedbackLog(store).read()] == ["first"]


def test_undecodable_lines_of_the_old_file_are_skipped_and_counted(tmp_path, caplog):
    """R95: invalid UTF-8, a JSON value that is not an object and a torn line in the middle of the
    old log are skipped (counted and logged); every whole record around them is imported."""
    path = tmp_path / "feedback.jsonl"
    path.write_bytes(b'{"liked": true, "question": "one", "answer": "a"}\n'
                     b'\xff\xfe not utf-8\n[1, 2]\n{"ts": "2026\n'
                     b'{"liked": true, "question": "two", "answer": "b"}\n')
    with caplog.at_level("WARNING", logger="s2r_tutor.store"):
        rows, skipped = read_jsonl(path)
    assert [r["question"] for r in rows] == ["one", "two"] and skipped == 3
    assert "skipped 3 line(s)" in caplog.text
