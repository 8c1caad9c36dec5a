"""The shared store: SQLAlchemy Core over SQLite (default) or PostgreSQL (replicas), with Alembic
migrations. One module per job: `engine` (engine, transactions, errors), `schema` (tables),
`migrate` (Alembic under a lock), `study` (quiz results and notes), `feedback`, `questions` (the
question log), `legacy` (first-start import of the old study.sqlite3 and feedback.jsonl)."""

from __future__ import annotations

import threading

from .engine import Store, StoreError, database_url

_stores: dict[tuple, Store] = {}
_stores_lock = threading.Lock()


def open_store(settings) -> Store:
    """The process's Store for these settings, cached per URL so the web app's parts share one
    engine (one PostgreSQL pool per process). Touches no database: the first use migrates and then
    imports the old var/ files once (so a broken store cannot stop the app from starting)."""
    url = database_url(settings)
    key = (url, str(settings.study_db), str(settings.feedback_file))
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            store = _stores[key] = Store(url)
            study_db, feedback_file = settings.study_db, settings.feedback_file

            def import_old_files(s: Store) -> None:
                from .legacy import import_legacy

                import_legacy(s, study_db, feedback_file)

            store.after_migrate = import_old_files
    return store


def close_stores() -> None:
    """Close the pooled connections of every Store open_store handed out (tests, shutdown)."""
    with _stores_lock:
        stores = list(_stores.values())
        _stores.clear()
    for store in stores:
        store.dispose()


__all__ = ["Store", "StoreError", "close_stores", "database_url", "open_store"]
