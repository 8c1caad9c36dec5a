"""The one database every part of the app writes to: an SQLAlchemy engine, its transactions, and
errors turned into one clear sentence.

SQLite (the default, one file in the data folder) gets what the old hand-written store had: WAL,
a fresh connection per operation (safe from the chat's worker threads; no pooled handle can outlive
a file that was replaced underneath it), and every write in `BEGIN IMMEDIATE` so writers queue on
the busy timeout instead of failing half-way. PostgreSQL (for replicas) gets a small pool with a
liveness ping.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.pool import NullPool, StaticPool

from ..errors import TutorError


class StoreError(TutorError):
    """The store cannot be used (unreachable, corrupt, locked, unwritable, newer schema). The message
    may name a file or host: web users see only `public_message()`."""

    part = "the data store"


def database_url(settings) -> str:
    """The store's URL for these settings. The default derivation lives here only: SQLite in the
    data folder, in the file quiz progress always used (`study_db`), so an existing file is upgraded
    in place by the migrations rather than copied."""
    if settings.database_url:
        return settings.database_url
    return sqlite_url(Path(settings.study_db))


def sqlite_url(path: Path) -> str:
    return URL.create("sqlite", database=str(Path(path))).render_as_string()


class Store:
    """An engine plus the migration state for one URL. Cheap to create; `open_store` in
    `s2r_tutor.store` keeps one per process for the web app."""

    def __init__(self, url: str | Path, timeout_s: float = 5.0):
        if isinstance(url, Path) or "://" not in str(url):  # a bare path is a SQLite file
            url = sqlite_url(Path(url))
        self.url = make_url(str(url))
        if self.url.drivername in ("postgresql", "postgres"):  # plain postgresql:// means psycopg 3 here, not psycopg2
            self.url = self.url.set(drivername="postgresql+psycopg")
        self.timeout_s = timeout_s
        self.backend = self.url.get_backend_name()  # 'sqlite' or 'postgresql'
        self._engine: Engine | None = None
        self._ready = False
        self.after_migrate = None  # a callable(store), run once after the first successful migration
        self._lock = threading.Lock()
        self._migrate_lock = threading.RLock()

    # -- identity -----------------------------------------------------------------------------
    @property
    def path(self) -> Path | None:
        """The SQLite file, or None (PostgreSQL, in-memory SQLite)."""
        if self.backend == "sqlite" and self.url.database not in (None, "", ":memory:"):
            return Path(self.url.database)
        return None

    def describe(self) -> str:
        """Where the data is, for messages: the file, or the URL with its password hidden."""
        return str(self.path) if self.path else self.url.render_as_string(hide_password=True)

    # -- engine -------------------------------------------------------------------------------
    @property
    def engine(self) -> Engine:
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    engine = self._create_engine()
                    # Pooled connections are closed when this Store goes, not left to the collector.
                    weakref.finalize(self, engine.dispose)
                    self._engine = engine
        return self._engine

    def _create_engine(self) -> Engine:
        if self.backend == "sqlite":
            memory = self.path is None
            engine = sa.create_engine(
                self.url, poolclass=StaticPool if memory else NullPool,
                connect_args={"timeout": self.timeout_s, "check_same_thread": False},
            )

            @event.listens_for(engine, "connect")
            def _on_connect(dbapi_conn, _record):
                # We issue BEGIN ourselves (pysqlite's own transaction handling defers it past DDL).
                dbapi_conn.isolation_level = None
                cur = dbapi_conn.cursor()
                try:
                    cur.execute("PRAGMA schema_version")  # reads the header first: garbage fails here, untouched
                    if not memory:
                        cur.execute("PRAGMA journal_mode=WAL")
                    cur.execute("PRAGMA foreign_keys=ON")
                finally:
                    cur.close()

            @event.listens_for(engine, "begin")
            def _on_begin(conn):
                conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("s2r_write") else "BEGIN")

            return engine
        if self.backend == "postgresql":
            try:
                import psycopg  # noqa: F401 - only to say which package is missing
            except ImportError:
                raise StoreError("a PostgreSQL database_url needs the psycopg driver: "
                                 "pip install 's2r-tutor[postgres]'") from None
            return sa.create_engine(self.url, pool_size=5, max_overflow=10, pool_pre_ping=True,
                                    pool_timeout=self.timeout_s,
                                    connect_args={"connect_timeout": max(1, int(self.timeout_s))})
        raise StoreError(f"unsupported database {self.describe()}: use sqlite:///FILE or postgresql+psycopg://…")

    def dispose(self) -> None:
        if self._engine is not None:
            self._engine.dispose()

    # -- transactions -------------------------------------------------------------------------
    @contextlib.contextmanager
    def connect(self, write: bool = False, migrate: bool = True):
        """A connection inside one transaction, committed on success and rolled back on any error.
        Database errors become StoreError; others (the caller's) propagate unchanged."""
        if migrate:
            self.migrate()
        self._mkdir()
        try:
            with self.engine.connect() as conn:
                if write:
                    conn.execution_options(s2r_write=True)
                with conn.begin():
                    yield conn
        except sa_exc.SQLAlchemyError as exc:
            raise self.explain(exc) from None

    def read(self):
        return self.connect(write=False)

    def write(self):
        return self.connect(write=True)

    def migrate(self) -> None:
        """Bring the schema to this code's head once per Store (under a lock; see migrate.py), then
        run `after_migrate` once (open_store's first-start import of the old var/ files)."""
        if self._ready:
            return
        from .migrate import upgrade

        with self._migrate_lock:
            if self._ready:
                return
            self._mkdir()
            try:
                upgrade(self)
            except sa_exc.SQLAlchemyError as exc:
                raise self.explain(exc) from None
            self._ready = True
            hook, self.after_migrate = self.after_migrate, None
            if hook is not None:
                try:
                    hook(self)
                except BaseException:
                    self.after_migrate = hook  # try again on the next use
                    raise

    def check(self) -> None:
        """Open (creating and migrating if needed) and verify; raises StoreError when unusable."""
        with self.connect() as conn:
            if self.backend == "sqlite":
                row = conn.exec_driver_sql("PRAGMA quick_check").fetchone()
                if row and row[0] != "ok":
                    raise StoreError(f"the database {self.describe()} is corrupt ({row[0]}); move it aside")
            else:
                conn.exec_driver_sql("SELECT 1")

    def _mkdir(self) -> None:
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the folder for {self.path} ({exc.strerror})") from None

    # -- errors -------------------------------------------------------------------------------
    def explain(self, exc: BaseException) -> StoreError:
        """One sentence that says what is wrong and what to do; never the password, never a traceback."""
        if isinstance(exc, StoreError):
            return exc
        orig = getattr(exc, "orig", None) or exc
        detail = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
        msg = detail.lower()
        where = self.describe()
        if "locked" in msg or "busy" in msg:
            return StoreError(f"the database {where} is locked by another process (waited {self.timeout_s:g} s); "
                              "close the other quiz or try again")
        if "not a database" in msg or "malformed" in msg or "corrupt" in msg:
            return StoreError(f"the database {where} is corrupt ({detail}); move it aside (progress, notes and "
                              "feedback start afresh) or restore it from a backup")
        if "unable to open" in msg or "readonly" in msg or "read-only" in msg or "disk" in msg:
            return StoreError(f"the database {where} cannot be opened for writing ({detail})")
        if self.backend == "postgresql" and isinstance(exc, sa_exc.OperationalError):
            return StoreError(f"cannot reach the database {where} ({detail}); check S2R_DATABASE_URL and that "
                              "PostgreSQL is running")
        return StoreError(f"the database {where} failed: {detail}")


def raw_execute(conn: Connection, sql: str, params: dict | None = None):
    """For tests and one-off scripts: run literal SQL on a store connection."""
    return conn.execute(sa.text(sql), params or {})
