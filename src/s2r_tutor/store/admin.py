"""Ended /admin sessions (R186): the queries behind `web.admin.Sessions`. A logout writes the
session's nonce with its expiry; a row is deleted once that expiry has passed (each logout sweeps),
so the table holds at most the sessions that logged out within the last `admin_session_s`."""

from __future__ import annotations

import sqlalchemy as sa

from .engine import Store
from .schema import admin_sessions_ended as ended

MAX_NONCE_CHARS = 64


def end_session(store: Store, nonce: str, expires_at: float, now: float) -> None:
    """Record that the session `nonce` (valid until `expires_at`) is over; forget every expired one."""
    with store.write() as conn:
        conn.execute(ended.delete().where(sa.or_(ended.c.expires_at <= now, ended.c.nonce == nonce)))
        if expires_at > now:
            conn.execute(ended.insert().values(nonce=nonce[:MAX_NONCE_CHARS], expires_at=float(expires_at)))


def session_ended(store: Store, nonce: str) -> bool:
    with store.read() as conn:
        row = conn.execute(sa.select(ended.c.nonce).where(ended.c.nonce == nonce[:MAX_NONCE_CHARS])).first()
    return row is not None


def ended_count(store: Store) -> int:
    with store.read() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(ended)).scalar_one())
