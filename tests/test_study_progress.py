"""SQLite progress and notes: spaced repetition order, survival across reopening, transactions,
clear errors on a corrupt or locked file, Markdown export, notes for the card tab."""

from __future__ import annotations

import sqlite3

import pytest

from s2r_tutor.errors import TutorError
from s2r_tutor.settings import Settings
from s2r_tutor.study.bank import generate_bank
from s2r_tutor.study.notes import export_markdown, note_starters, notes_for_sections, save_note
from s2r_tutor.study.progress import StudyStore, StudyStoreError, clean_reader


@pytest.fixture(scope="module")
def bank(tutor):
    return generate_bank(tutor.chunks)


def test_missed_items_come_back_first(tmp_path, bank):
    store = StudyStore(tmp_path / "s.sqlite3")
    a, b, c, d = bank[:4]
    store.record("ann", a, "correct", 1.0, "x", at=100)
    store.record("ann", b, "wrong", 0.0, "x", at=101)
    store.record("ann", c, "partial", 0.5, "x", at=102)
    store.record("ann", d, "wrong", 0.0, "x", at=103)
    order = store.order("ann", bank)
    assert [q.id for q in order[:3]] == [b.id, d.id, c.id]  # wrong (oldest first), then partial
    assert order[-1].id == a.id  # answered correctly: last
    assert {q.id for q in order[3:-1]} == {q.id for q in bank[4:]}  # unseen in between
    # answering the missed one correctly moves it behind the unseen questions
    store.record("ann", b, "correct", 1.0, "x", at=104)
    order = store.order("ann", bank)
    assert order[0].id == d.id and b.id in {q.id for q in order[-2:]}
    # another reader is unaffected
    assert store.order("bob", bank)[0].id == bank[0].id


def test_unseen_questions_are_spread_across_sections(tmp_path, bank):
    first = StudyStore(tmp_path / "s.sqlite3").order("new", bank)[:10]
    assert len({q.chunk_id for q in first}) == 10


def test_progress_and_notes_survive_reopening(tmp_path, bank, tutor):
    path = tmp_path / "study.sqlite3"
    store = StudyStore(path)
    store.record("ann", bank[0], "wrong", 0.0, "不知道")
    save_note(store, "ann", "04-08#reality-gap", "客户现场地面更滑", tutor.chunks)
    del store
    again = StudyStore(path)
    assert again.stats("ann")[bank[0].id].last_verdict == "wrong"
    assert again.order("ann", bank)[0].id == bank[0].id
    assert [n.text for n in again.notes("ann")] == ["客户现场地面更滑"]
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_corrupt_database_gives_a_clear_error(tmp_path, bank):
    path = tmp_path / "study.sqlite3"
    path.write_bytes(b"this is not a sqlite database\n" * 200)
    store = StudyStore(path)
    with pytest.raises(StudyStoreError, match="corrupt") as info:
        store.stats("ann")
    assert isinstance(info.value, TutorError) and str(path) in str(info.value)
    with pytest.raises(StudyStoreError, match="corrupt"):
        StudyStore(path).record("ann", bank[0], "correct", 1.0, "x")


def test_locked_database_gives_a_clear_error_and_writes_nothing(tmp_path, bank):
    path = tmp_path / "study.sqlite3"
    StudyStore(path).record("ann", bank[0], "correct", 1.0, "x")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        store = StudyStore(path, timeout_s=0.2)
        with pytest.raises(StudyStoreError, match="locked"):
            store.record("ann", bank[1], "wrong", 0.0, "x")
        with pytest.raises(StudyStoreError, match="locked"):
            store.add_note("ann", "04-08#intro", "note")
    finally:
        other.execute("ROLLBACK")
        other.close()
    stats = StudyStore(path).stats("ann")
    assert set(stats) == {bank[0].id}


def test_a_failed_write_rolls_back(tmp_path, bank):
    store = StudyStore(tmp_path / "s.sqlite3")
    with pytest.raises(ZeroDivisionError):
        with store._conn(write=True) as conn:
            conn.exec_driver_sql("INSERT INTO notes (reader, chunk_id, text, created_at) VALUES ('ann', 'x', 'y', 0)")
            1 / 0
    assert store.notes("ann") == []


def test_reader_ids_are_validated(tmp_path):
    assert clean_reader(" ann.lee@corp ") == "ann.lee@corp"
    assert clean_reader("张三") == "张三"
    for bad in ["", "a b", "x" * 65, "../etc", None]:
        with pytest.raises(StudyStoreError):
            clean_reader(bad)


def test_notes_starters_export_and_card_tab_view(tmp_path, tutor):
    assert note_starters(tutor.chunks) == ["哪个观点与你已有认知不同？", "是否可以应用到工作？", "是否值得进一步研究？"]
    settings = Settings(corpus_dir=tutor.settings.corpus_dir, index_dir=tutor.settings.index_dir,
                        study_db=tmp_path / "study.sqlite3")
    store = StudyStore(settings.study_db)
    save_note(store, "ann", "04-08#notes", "哪个观点与你已有认知不同？\n强化学习 ≠ Sim2Real", tutor.chunks)
    save_note(store, "ann", "04-08#reality-gap", "摩擦 <b>要测</b>", tutor.chunks)
    save_note(store, "bob", "04-08#intro", "bob's", tutor.chunks)
    with pytest.raises(StudyStoreError, match="unknown section"):
        save_note(store, "ann", "04-08#nope", "x", tutor.chunks)
    with pytest.raises(StudyStoreError, match="empty"):
        save_note(store, "ann", "04-08#intro", "   ", tutor.chunks)
    assert notes_for_sections(settings, "ann") == {
        "04-08#notes": ["哪个观点与你已有认知不同？\n强化学习 ≠ Sim2Real"],
        "04-08#reality-gap": ["摩擦 <b>要测</b>"],
    }
    md = export_markdown(store, "ann", tutor.chunks)
    assert md.startswith("# 我的笔记 · ann")
    assert "[04-08#reality-gap]" in md and "[04-08#notes]" in md and "bob's" not in md
    # card order: the reality-gap section comes before the notes section
    assert md.index("[04-08#reality-gap]") < md.index("[04-08#notes]")
    assert export_markdown(store, "nobody", tutor.chunks).rstrip().endswith("（还没有笔记）")


def test_concurrent_writers_all_land(tmp_path, bank):
    """The chat runs handlers in threads: simultaneous answers wait for each other, none is lost."""
    import threading

    store = StudyStore(tmp_path / "s.sqlite3")
    errors: list[Exception] = []

    def answer(reader: str) -> None:
        try:
            for q in bank[:20]:
                store.record(reader, q, "correct", 1.0, "x")
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=answer, args=(f"r{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [StudyStore(store.path).summary(f"r{i}")["correct"] for i in range(4)] == [20] * 4


def test_unopenable_path_gives_a_clear_error(tmp_path):
    folder = tmp_path / "study.sqlite3"
    folder.mkdir()  # a directory where the file should be
    with pytest.raises(StudyStoreError, match="cannot be opened|failed"):
        StudyStore(folder).notes("ann")
