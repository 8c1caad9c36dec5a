"""The tables, as SQLAlchemy Core objects the query modules use. The migrations in
`migrations/versions/` create exactly these; `tests/test_store.py` checks the two agree."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

# Quiz results and notes keep the column names and types of the first (hand-written SQLite) schema,
# so an old study.sqlite3 is adopted in place by revision 0001.
results = sa.Table(
    "results", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("reader", sa.Text, nullable=False),
    sa.Column("question_id", sa.Text, nullable=False),
    sa.Column("chunk_id", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("verdict", sa.Text, nullable=False),
    sa.Column("score", sa.Float, nullable=False),
    sa.Column("reply", sa.Text, nullable=False),
    sa.Column("answered_at", sa.Float, nullable=False),
    sa.CheckConstraint("verdict IN ('correct', 'partial', 'wrong')", name="results_verdict"),
    sa.Index("results_reader", "reader", "question_id", "answered_at"),
)

notes = sa.Table(
    "notes", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("reader", sa.Text, nullable=False),
    sa.Column("chunk_id", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Index("notes_reader", "reader", "chunk_id"),
)

feedback = sa.Table(
    "feedback", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("liked", sa.Boolean, nullable=False),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("citations", sa.JSON, nullable=False),
    sa.Column("intent", sa.Text, nullable=False, server_default=""),
    sa.Column("backend", sa.Text, nullable=False, server_default=""),
    sa.Column("source", sa.Text, nullable=False, server_default="chat"),
    # Fields a newer Feedback model carries that have no column yet (a reader id, a session):
    # kept rather than dropped, so adding a field does not need a migration first.
    sa.Column("extra", sa.JSON, nullable=False),
    sa.Index("feedback_created", "created_at"),
)

question_log = sa.Table(
    "question_log", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("asked_at", sa.Float, nullable=False),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("language", sa.Text, nullable=False),
    sa.Column("intent", sa.Text, nullable=False),
    sa.Column("refused", sa.Boolean, nullable=False),
    sa.Column("top_score", sa.Float, nullable=True),
    sa.Column("sections", sa.JSON, nullable=False),
    sa.Column("latency_ms", sa.Float, nullable=False),
    sa.Column("backend", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("reader_hash", sa.Text, nullable=True),
    sa.Column("replica", sa.Text, nullable=False, server_default=""),
    sa.Index("question_log_asked", "asked_at"),
)

# One row per legacy file already copied in, so a restart (or a second replica) never copies twice.
legacy_imports = sa.Table(
    "legacy_imports", metadata,
    sa.Column("source", sa.Text, primary_key=True),
    sa.Column("rows", sa.Integer, nullable=False),
    sa.Column("skipped", sa.Integer, nullable=False),
    sa.Column("imported_at", sa.Float, nullable=False),
)

# /admin sessions ended by a logout before they expired (R186): one row per session nonce, until the
# session would have expired anyway, so every replica and a restarted one refuse the cookie.
admin_sessions_ended = sa.Table(
    "admin_sessions_ended", metadata,
    sa.Column("nonce", sa.Text, primary_key=True),
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Index("admin_sessions_ended_expires", "expires_at"),
)
