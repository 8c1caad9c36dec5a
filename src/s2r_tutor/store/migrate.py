"""Alembic migrations, run programmatically at start-up under a lock so that several processes
(replicas, the CLI beside a server) never migrate at once: on SQLite a file lock beside the
database, on PostgreSQL a session advisory lock. The migration scripts are package data
(`store/migrations/`), so an installed wheel migrates as a checkout does.

A database stamped with a revision this code does not know was written by a newer s2r-tutor:
that is a clear StoreError, never an attempt to run.
"""

from __future__ import annotations

import contextlib
import threading

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError

from ..storage import file_lock
from .engine import Store, StoreError

SCRIPT_LOCATION = "s2r_tutor.store:migrations"
# pg_advisory_lock takes a bigint; any fixed number unique to this app will do.
ADVISORY_KEY = 0x5332525475746F  # "S2RTuto"
LEGACY_SQLITE_VERSION = 1  # PRAGMA user_version of the hand-written study schema = revision 0001
_memory_lock = threading.Lock()


def _config(conn=None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", SCRIPT_LOCATION)
    if conn is not None:
        cfg.attributes["connection"] = conn
    return cfg


def script() -> ScriptDirectory:
    return ScriptDirectory.from_config(_config())


def head() -> str:
    return script().get_current_head()


@contextlib.contextmanager
def _lock(store: Store, conn):
    if store.backend == "postgresql":
        conn.exec_driver_sql(f"SELECT pg_advisory_lock({ADVISORY_KEY})")
        conn.commit()
        try:
            yield
        finally:
            conn.rollback()
            conn.exec_driver_sql(f"SELECT pg_advisory_unlock({ADVISORY_KEY})")
            conn.commit()
    elif store.path is not None:
        with file_lock(store.path.with_name(store.path.name + ".migrate.lock")):
            yield
    else:
        with _memory_lock:
            yield


def current_revision(conn) -> tuple[str, ...]:
    return tuple(MigrationContext.configure(conn).get_current_heads())


def upgrade(store: Store) -> None:
    """Bring the store to the head revision (creating it when empty); no-op when already there."""
    scripts = script()
    with store.engine.connect() as conn, _lock(store, conn):
        current = current_revision(conn)
        tables = set(sa.inspect(conn).get_table_names())
        if not current and "results" in tables:
            # A study.sqlite3 from before Alembic: its schema is revision 0001 exactly.
            version = conn.exec_driver_sql("PRAGMA user_version").scalar() if store.backend == "sqlite" else 0
            if version > LEGACY_SQLITE_VERSION:
                raise StoreError(f"the database {store.describe()} was written by a newer s2r-tutor "
                                 f"(schema {version}, this one knows {LEGACY_SQLITE_VERSION}); upgrade s2r-tutor")
            conn.rollback()
            command.stamp(_config(conn), "0001")
            conn.commit()
            current = ("0001",)
        for rev in current:
            try:
                known = scripts.get_revision(rev)
            except CommandError:
                known = None
            if known is None:
                raise StoreError(f"the database {store.describe()} is at schema revision {rev!r}, which this "
                                 f"s2r-tutor does not know (it knows up to {scripts.get_current_head()!r}): it was "
                                 "written by a newer s2r-tutor; upgrade this one, or point S2R_DATABASE_URL elsewhere")
        conn.rollback()
        if current != (scripts.get_current_head(),):
            command.upgrade(_config(conn), "head")
            conn.commit()
