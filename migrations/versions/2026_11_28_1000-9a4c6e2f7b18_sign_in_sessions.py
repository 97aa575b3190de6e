"""Sign-in sessions (README "Sessions"): each sign-in, by the ``origin_jti`` Cognito stamps on
every token of it, until it ends.

Revision ID: 9a4c6e2f7b18
Revises: 8f3d2b6a1c47
Create Date: 2026-11-28 10:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "9a4c6e2f7b18"
down_revision: str | Sequence[str] | None = "8f3d2b6a1c47"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sign_in_session",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("identity_sub", sa.String(length=64), nullable=False),
        sa.Column("origin_jti", sa.String(length=64), nullable=False),
        sa.Column("method", sa.String(length=20), nullable=False),
        sa.Column("user_agent", sa.String(length=512), nullable=False),
        sa.Column("browser", sa.String(length=100), nullable=True),
        sa.Column("os", sa.String(length=100), nullable=True),
        sa.Column("client_address", sa.String(length=64), nullable=False),
        sa.Column(
            "started_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column(
            "last_active_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_reason", sa.String(length=20), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sign_in_session")),
        sa.UniqueConstraint("origin_jti", name=op.f("uq_sign_in_session_origin_jti")),
    )
    op.create_index(
        "ix_sign_in_session_live",
        "sign_in_session",
        ["identity_sub"],
        postgresql_where=sa.text("ended_at IS NULL"),
    )
    op.create_index(
        op.f("ix_sign_in_session_last_active_at"), "sign_in_session", ["last_active_at"]
    )


def downgrade() -> None:
    op.drop_table("sign_in_session")
