"""Quiz results and notes: the tables of the first hand-written SQLite schema (PRAGMA user_version 1).
An old study.sqlite3 already has them and is stamped at this revision instead of running it.

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "results",
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
    )
    op.create_index("results_reader", "results", ["reader", "question_id", "answered_at"])
    op.create_table(
        "notes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("reader", sa.Text, nullable=False),
        sa.Column("chunk_id", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("notes_reader", "notes", ["reader", "chunk_id"])


def downgrade() -> None:
    op.drop_table("notes")
    op.drop_table("results")
