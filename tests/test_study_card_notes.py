"""The chat's card tab shows a reader's notes under each section (web/chat.py `card_notes`):
which slot gets which note, literal text, and a broken study database as one warning line."""

from __future__ import annotations

from types import SimpleNamespace

from s2r_tutor.study.progress import StudyStore
from s2r_tutor.web.chat import card_notes
from s2r_tutor.web.identity import COOKIE

READER = "anon-" + "R" * 22  # an anonymous reader, as the browser's cookie names it


def _show(settings, sections, reader: str = READER):
    show = card_notes(SimpleNamespace(settings=settings), sections)
    assert show is not None
    return show(SimpleNamespace(headers={"cookie": f"{COOKIE}={reader}"}, query_params={}, session_hash="s"))


def test_each_sections_notes_go_to_its_slot_as_literal_text(settings, tmp_path):
    settings = settings.model_copy(update={"study_db": tmp_path / "study.sqlite3"})
    store = StudyStore(settings.study_db)
    store.add_note(READER, "04-08#b-2", "第二部分的笔记")
    store.add_note(READER, "04-08#a", "**粗** <img src=x> http://e.com")
    store.add_note("someone-else", "04-08#c", "不是我的")
    status, a, b, c = _show(settings, [["04-08#a"], ["04-08#b", "04-08#b-2"], ["04-08#c"]])
    assert status["visible"] is False
    assert a["visible"] and "&#42;&#42;粗&#42;&#42; &#60;img src&#61;x&#62; http&#58;&#47;&#47;e&#46;com" in a["value"]
    assert "<img" not in a["value"] and "读者 reader: 匿名 anonymous" in a["value"] and READER not in a["value"]
    assert b["visible"] and "第二部分的笔记" in b["value"]  # a section split into parts: notes of every part
    assert c["visible"] is False and c["value"] == ""


def test_no_database_yet_shows_nothing_and_creates_nothing(settings, tmp_path):
    settings = settings.model_copy(update={"study_db": tmp_path / "none" / "study.sqlite3"})
    status, slot = _show(settings, [["04-08#a"]])
    assert status["visible"] is False and slot["visible"] is False
    assert not settings.study_db.exists()


def test_corrupt_database_is_one_warning_line(settings, tmp_path):
    settings = settings.model_copy(update={"study_db": tmp_path / "study.sqlite3"})
    settings.study_db.write_bytes(b"not a database at all" * 100)
    status, slot = _show(settings, [["04-08#a"]])
    # which part failed, never the database's path (R144: the details go to the server log)
    assert status["visible"] and "笔记暂时无法显示" in status["value"] and "study store" in status["value"]
    assert str(tmp_path) not in status["value"]
    assert slot["visible"] is False
