"""The shared store (s2r_tutor.store) on both backends: the same tests over SQLite and a real
PostgreSQL server (tests/pgserver.py). Migrations, round trips, a newer schema, concurrent start-up,
and the first-start migration of var/ files written by the code from before the store."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from s2r_tutor.settings import Settings
from s2r_tutor.store import Store, StoreError, migrate, open_store
from s2r_tutor.store.schema import metadata
from s2r_tutor.study.bank import Question
from s2r_tutor.study.progress import StudyStore, StudyStoreError
from s2r_tutor.web.feedback import Feedback, FeedbackLog

Q = [Question(id=f"q{i}", kind="term", template="cloze", question="?", answer="系统辨识", chunk_id="04-08#intro",
              section="intro", quote="x") for i in range(3)]


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    from pgserver import fresh_name

    return request.getfixturevalue("postgres").create_database(fresh_name())


def test_migrations_create_exactly_the_schema(url):
    store = Store(url)
    store.migrate()
    with store.engine.connect() as conn:
        assert migrate.current_revision(conn) == (migrate.head(),)
        insp = sa.inspect(conn)
        for table in metadata.sorted_tables:
            assert {c["name"] for c in insp.get_columns(table.name)} == set(table.columns.keys()), table.name
    Store(url).migrate()  # a second start is a no-op


def test_progress_notes_and_feedback_round_trip(url):
    study = StudyStore(url)
    study.record("ann", Q[0], "wrong", 0.0, "不知道\ud800", at=1)
    study.record("ann", Q[0], "correct", 1.0, "系统辨识", at=2)
    study.record("bob", Q[1], "partial", 0.5, "x", at=3)
    assert study.stats("ann")["q0"].last_verdict == "correct" and study.stats("ann")["q0"].attempts == 2
    assert study.summary("bob") == {"answered": 1, "correct": 0, "partial": 1, "wrong": 0}
    first = study.add_note("ann", "04-08#intro", "笔记\x00 🤖")
    study.add_note("ann", "04-08#reality-gap", "second")
    assert [n.text for n in study.notes("ann")] == ["笔记\ufffd 🤖", "second"]
    assert study.delete_note("ann", first) and not study.delete_note("bob", first)
    assert [n.chunk_id for n in study.notes("ann")] == ["04-08#reality-gap"]
    with pytest.raises(StudyStoreError, match="lone surrogate"):
        study.add_note("ann", "04-08#intro", "bad\ud800")

    log = FeedbackLog(url)
    row = log.append(Feedback(liked=False, question="什么是\ud800?", answer="a\x00", citations=["04-08#intro"]))
    log.append(Feedback(liked=True, question="ok", answer="b"))
    rows = log.read()
    assert [(r["liked"], r["question"], r["answer"]) for r in rows] == [(False, "什么是\ufffd?", "a\ufffd"), (True, "ok", "b")]
    assert rows[0]["citations"] == ["04-08#intro"] and rows[0]["ts"] == row["ts"]


def test_fields_a_newer_feedback_model_adds_are_kept(url):
    """identity adds reader/session fields to Feedback: they land in `extra` and read back."""
    from s2r_tutor.store import feedback as fb

    store = Store(url)
    fb.append(store, {"liked": True, "question": "q", "answer": "a", "reader": "ann", "session": "s1"})
    assert fb.read(store)[0]["reader"] == "ann" and fb.read(store)[0]["session"] == "s1"


@pytest.mark.reliability("R150")
def test_a_newer_schema_is_a_clear_error(url):
    Store(url).migrate()
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '9999_future'")
    engine.dispose()
    with pytest.raises(StoreError, match="newer s2r-tutor") as info:
        StudyStore(url).notes("ann")
    assert "9999_future" in str(info.value) and "password" not in str(info.value)


@pytest.mark.reliability("R152")
def test_concurrent_start_ups_migrate_once_and_all_writes_land(url):
    """Replicas starting together: each migrates under the lock; none fails, every write lands."""
    errors: list[Exception] = []

    def start_and_write(i: int) -> None:
        try:
            s = StudyStore(url)
            for j in range(5):
                s.record(f"r{i}", Q[j % 3], "correct", 1.0, "x")
        except Exception as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    threads = [threading.Thread(target=start_and_write, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    store = Store(url)
    with store.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM results").scalar() == 30
        assert conn.exec_driver_sql("SELECT count(*) FROM alembic_version").scalar() == 1


@pytest.mark.reliability("R153")
def test_unreachable_postgresql_is_a_clear_error():
    with pytest.raises(StoreError, match="cannot reach the database") as info:
        StudyStore("postgresql+psycopg://me:s3cret@127.0.0.1:9/none", timeout_s=1).notes("ann")
    assert "s3cret" not in str(info.value)


# --------------------------------------------------------------------------- first start after the move

def _write_old_files(var):
    """var/study.sqlite3 and var/feedback.jsonl written by the code from before the store (tests/legacy)."""
    from legacy.feedback_v1 import Feedback as OldFeedback
    from legacy.feedback_v1 import FeedbackLog as OldLog
    from legacy.progress_v1 import StudyStore as OldStore

    old = OldStore(var / "study.sqlite3")
    old.record("ann", Q[0], "wrong", 0.0, "不知道", at=100)
    old.record("ann", Q[0], "correct", 1.0, "系统辨识", at=200)
    old.record("bob", Q[2], "partial", 0.5, "部分", at=300)
    old.add_note("ann", "04-08#intro", "旧笔记 one", at=150)
    old.add_note("bob", "04-08#reality-gap", "摩擦\n要测", at=160)
    log = OldLog(var / "feedback.jsonl")
    log.append(OldFeedback(liked=True, question="什么是 Sim2Real？", answer="x [1]", citations=["04-08#summary"]))
    log.append(OldFeedback(liked=False, question="域随机化怎么调？", answer="y", intent="howto", backend="template"))
    return old


def _assert_everything_kept(study: StudyStore, log: FeedbackLog):
    assert study.stats("ann")["q0"].attempts == 2 and study.stats("ann")["q0"].last_verdict == "correct"
    assert study.stats("bob")["q2"].last_verdict == "partial"
    assert [(n.chunk_id, n.text, n.created_at) for n in study.notes("ann")] == [("04-08#intro", "旧笔记 one", 150)]
    assert [n.text for n in study.notes("bob")] == ["摩擦\n要测"]
    rows = log.read()
    assert [(r["liked"], r["question"]) for r in rows] == [(True, "什么是 Sim2Real？"), (False, "域随机化怎么调？")]
    assert rows[0]["citations"] == ["04-08#summary"] and rows[1]["intent"] == "howto"


@pytest.mark.reliability("R154")
def test_old_files_migrate_in_place_on_sqlite(tmp_path):
    """The default store is the old study.sqlite3 itself: adopted at revision 0001 and upgraded in
    place; feedback.jsonl is copied in once; a restart copies nothing again."""
    var = tmp_path / "var"
    _write_old_files(var)
    settings = Settings(study_db=var / "study.sqlite3", feedback_file=var / "feedback.jsonl")
    store = open_store(settings)
    _assert_everything_kept(StudyStore(store), FeedbackLog(store))
    from s2r_tutor.store.legacy import import_legacy

    assert import_legacy(Store(store.url), settings.study_db, settings.feedback_file) == {}
    assert len(FeedbackLog(store).read()) == 2
    assert (var / "feedback.jsonl").exists()  # left in place


def test_old_files_are_copied_into_postgresql(tmp_path, postgres):
    from pgserver import fresh_name

    var = tmp_path / "var"
    _write_old_files(var)
    settings = Settings(study_db=var / "study.sqlite3", feedback_file=var / "feedback.jsonl",
                        database_url=postgres.create_database(fresh_name("legacy")))
    before = (var / "study.sqlite3").read_bytes()
    store = open_store(settings)
    _assert_everything_kept(StudyStore(store), FeedbackLog(store))
    assert (var / "study.sqlite3").read_bytes() == before
    # a second replica starting on the same files copies nothing twice
    from s2r_tutor.store.legacy import import_legacy

    assert import_legacy(Store(settings.database_url), settings.study_db, settings.feedback_file) == {}
    assert len(FeedbackLog(store).read()) == 2


@pytest.mark.reliability("R151")
def test_an_old_file_from_a_newer_hand_written_schema_is_refused(tmp_path):
    import sqlite3

    path = tmp_path / "study.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE results (id INTEGER PRIMARY KEY)")
    conn.execute("PRAGMA user_version=7")
    conn.commit()
    conn.close()
    with pytest.raises(StudyStoreError, match="newer s2r-tutor"):
        StudyStore(path).notes("ann")
