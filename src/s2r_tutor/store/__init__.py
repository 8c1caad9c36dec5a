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
    """The process's Store for these settings: migrated, and the old var/ files imported once.
    Cached per URL, so the web app's parts share one engine (one PostgreSQL pool per process)."""
    url = database_url(settings)
    key = (url, str(settings.study_db), str(settings.feedback_file))
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            store = _stores[key] = Store(url)
    if not store.legacy_done:
        from .legacy import import_legacy

        store.migrate()
        import_legacy(store, settings.study_db, settings.feedback_file)
        store.legacy_done = True
    return store


__all__ = ["Store", "StoreError", "database_url", "open_store"]
