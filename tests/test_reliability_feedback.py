"""The like/dislike log (web/feedback.py, JSON lines): odd text and a torn last line.
Case ids (R..) are catalogued in docs/reliability.md."""

from __future__ import annotations

from s2r_tutor.web.feedback import Feedback, FeedbackLog


def test_feedback_with_odd_text_round_trips(tmp_path):
    """R93: NUL, RTL, emoji, newlines and 20 kB answers are one line each and read back exactly."""
    log = FeedbackLog(tmp_path / "feedback.jsonl")
    rec = Feedback(liked=False, question="什么\x00是\u202eSim2Real🤖\n第二行", answer="答" * 20_000, citations=["04-08#intro"])
    log.append(rec)
    log.append(Feedback(liked=True, question="ok", answer="a"))
    rows = log.read()
    assert [r["question"] for r in rows] == [rec.question, "ok"]
    assert (tmp_path / "feedback.jsonl").read_text("utf-8").count("\n") == 2


def test_feedback_with_lone_surrogate_is_kept_or_refused_cleanly(tmp_path):
    """R94: a question holding a lone surrogate (a browser can send "\\ud800") is logged or refused
    with a clear error, not a UnicodeEncodeError. It is logged, the surrogate stored as U+FFFD, and
    the records around it are kept."""
    log = FeedbackLog(tmp_path / "feedback.jsonl")
    log.append(Feedback(liked=True, question="before", answer="a"))
    try:
        log.append(Feedback(liked=True, question="什么\ud800", answer="a\udfff"))
    except UnicodeEncodeError:
        raise
    except Exception:  # noqa: BLE001 - any deliberate refusal is fine
        return
    log.append(Feedback(liked=False, question="after", answer="b"))
    assert log.read()
    assert [(r["question"], r["answer"]) for r in log.read()] == [("before", "a"), ("什么\ufffd", "a\ufffd"), ("after", "b")]


def test_torn_last_line_loses_only_itself(tmp_path):
    """R95: the process dies mid-append, leaving half a line: the next append still lands as its
    own line, and read() returns every whole record."""
    path = tmp_path / "feedback.jsonl"
    log = FeedbackLog(path)
    log.append(Feedback(liked=True, question="first", answer="a"))
    with path.open("ab") as f:
        f.write(b'{"ts": "2026-12-02T15:00:00+00:00", "liked": tr')  # the torn write
    log.append(Feedback(liked=False, question="after the crash", answer="b"))
    assert [r["question"] for r in log.read()] == ["first", "after the crash"]
    assert log.skipped == 1


def test_undecodable_lines_are_skipped_and_counted(tmp_path, caplog):
    """R95: invalid UTF-8, a JSON value that is not an object and a torn line in the middle of the
    log are skipped (counted and logged); every whole record around them is read."""
    path = tmp_path / "feedback.jsonl"
    log = FeedbackLog(path)
    log.append(Feedback(liked=True, question="one", answer="a"))
    with path.open("ab") as f:
        f.write(b'\xff\xfe not utf-8\n[1, 2]\n{"ts": "2026\n')
    log.append(Feedback(liked=True, question="two", answer="b"))
    with caplog.at_level("WARNING", logger="s2r_tutor.web"):
        assert [r["question"] for r in log.read()] == ["one", "two"]
    assert log.skipped == 3
    assert "skipped 3 line(s)" in caplog.text
