"""First start after the move to the store: copy the old var/study.sqlite3 (when the store is not that
very file, which migrations adopt in place) and var/feedback.jsonl into it, once.

Each copied file is recorded in `legacy_imports` in the same transaction as its rows, so a restart,
or a second replica starting at the same moment, never copies it twice. The old files are left
where they were (nothing is lost if the copy must be redone; delete them when satisfied).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from . import feedback as fb
from .engine import Store, StoreError
from .schema import legacy_imports, notes, results
from .text import storable

log = logging.getLogger("s2r_tutor.store")


def read_jsonl(path: Path) -> tuple[list[dict], int]:
    """Every whole record of an old feedback.jsonl, oldest first, and how many lines were skipped:
    a torn last line (a writer died mid-append), invalid UTF-8, or a JSON value that is not an object."""
    rows: list[dict] = []
    bad: list[int] = []
    with Path(path).open("rb") as f:
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
    if bad:
        log.warning("%s: skipped %d line(s) that are not a JSON record (line %s)", path, len(bad),
                    ", ".join(map(str, bad[:10])) + (" …" if len(bad) > 10 else ""))
    return rows, len(bad)


def _read_study(path: Path) -> tuple[list[dict], list[dict]]:
    """Results and notes of an old study.sqlite3, opened read-only (the file is not touched)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        conn.row_factory = sqlite3.Row
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        res = [dict(r) for r in conn.execute("SELECT * FROM results ORDER BY id")] if "results" in names else []
        nts = [dict(r) for r in conn.execute("SELECT * FROM notes ORDER BY id")] if "notes" in names else []
    finally:
        conn.close()
    for r in res + nts:
        r.pop("id", None)
    return res, nts


def _same_file(store: Store, path: Path) -> bool:
    return store.path is not None and store.path.resolve() == Path(path).resolve()


def _claim(conn, source: str, rows: int, skipped: int) -> bool:
    """Record the import of `source` in this transaction; False when another process already did."""
    if conn.execute(sa.select(legacy_imports.c.source).where(legacy_imports.c.source == source)).first():
        return False
    conn.execute(legacy_imports.insert().values(source=source, rows=rows, skipped=skipped, imported_at=time.time()))
    return True


def import_legacy(store: Store, study_db: Path | None, feedback_file: Path | None) -> dict[str, int]:
    """Copy what is still only in the old files; returns {source: rows copied} for this call."""
    done: dict[str, int] = {}
    if study_db is not None and Path(study_db).is_file() and not _same_file(store, study_db):
        source = f"study:{Path(study_db).resolve()}"
        try:
            res, nts = _read_study(Path(study_db))
        except sqlite3.Error as exc:
            log.error("cannot import the old study database %s (%s); it is left as it was", study_db, exc)
        else:
            done.update(_copy(store, source, lambda conn: _insert_study(conn, res, nts), len(res) + len(nts), 0))
    if feedback_file is not None and Path(feedback_file).is_file():
        source = f"feedback:{Path(feedback_file).resolve()}"
        rows, skipped = read_jsonl(Path(feedback_file))
        records = [(r, fb.parse_iso(r.get("ts", ""))) for r in rows]
        done.update(_copy(store, source, lambda conn: fb.append_many(conn, records), len(rows), skipped))
    for source, n in done.items():
        log.info("imported %d record(s) from %s into %s", n, source, store.describe())
    return done


def _copy(store: Store, source: str, insert, rows: int, skipped: int) -> dict[str, int]:
    try:
        with store.write() as conn:
            if not _claim(conn, source, rows, skipped):
                return {}
            insert(conn)
    except StoreError as exc:
        if isinstance(exc.__context__, sa_exc.IntegrityError) or "unique" in str(exc).lower() or "duplicate" in str(exc).lower():
            return {}  # another replica claimed it first, in a transaction that committed before ours
        raise
    return {source: rows}


def _insert_study(conn, res: list[dict], nts: list[dict]) -> None:
    if res:
        conn.execute(results.insert(), [{**r, "reply": storable(str(r.get("reply", "")))} for r in res])
    if nts:
        conn.execute(notes.insert(), [{**n, "text": storable(str(n["text"])), "chunk_id": storable(str(n["chunk_id"]))}
                                      for n in nts])
