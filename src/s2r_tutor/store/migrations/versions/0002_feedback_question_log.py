"""Feedback (was var/feedback.jsonl), the question log, and the record of legacy files imported.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("liked", sa.Boolean, nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("citations", sa.JSON, nullable=False),
        sa.Column("intent", sa.Text, nullable=False, server_default=""),
        sa.Column("backend", sa.Text, nullable=False, server_default=""),
        sa.Column("source", sa.Text, nullable=False, server_default="chat"),
        sa.Column("extra", sa.JSON, nullable=False),
    )
    op.create_index("feedback_created", "feedback", ["created_at"])
    op.create_table(
        "question_log",
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
    )
    op.create_index("question_log_asked", "question_log", ["asked_at"])
    op.create_table(
        "legacy_imports",
        sa.Column("source", sa.Text, primary_key=True),
        sa.Column("rows", sa.Integer, nullable=False),
        sa.Column("skipped", sa.Integer, nullable=False),
        sa.Column("imported_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("legacy_imports")
    op.drop_table("question_log")
    op.drop_table("feedback")
