"""Ended /admin sessions, shared by every replica and kept across restarts (R186).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "admin_sessions_ended",
        sa.Column("nonce", sa.Text, primary_key=True),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("admin_sessions_ended_expires", "admin_sessions_ended", ["expires_at"])


def downgrade() -> None:
    op.drop_table("admin_sessions_ended")
