"""Access tokens for automation (README "Automation").

- ``access_token``: an account's tokens, stored as their SHA-256, with their scopes, the role
  their creator had when making them, expiry, revocation, last use and the expiry emails sent.
- ``account.access_tokens_enabled``: an Owner's switch for all of the account's tokens.

Revision ID: 5c1a7e3b9d40
Revises: 3e9b7c2d5a14
Create Date: 2026-11-27 22:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "5c1a7e3b9d40"
down_revision: str | Sequence[str] | None = "3e9b7c2d5a14"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "account",
        sa.Column("access_tokens_enabled", sa.Boolean(), server_default="true", nullable=False),
    )
    op.create_table(
        "access_token",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("token_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("last4", sa.String(4), nullable=False),
        sa.Column("scopes", postgresql.ARRAY(sa.String(40)), nullable=False),
        sa.Column(
            "creator_role",
            postgresql.ENUM(name="user_role", create_type=False),
            nullable=False,
        ),
        sa.Column("created_by_user_id", sa.Uuid(), nullable=True),
        sa.Column("created_by_name", sa.String(400), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_used_address", sa.String(64), nullable=True),
        sa.Column("expiry_reminded_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expiry_notified_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name="fk_access_token_account_id_account",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by_user_id"],
            ["user.id"],
            name="fk_access_token_created_by_user_id_user",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_access_token"),
        sa.UniqueConstraint("token_hash", name="uq_access_token_token_hash"),
    )
    op.create_index("ix_access_token_account_id", "access_token", ["account_id"])
    op.create_index("ix_access_token_created_by_user_id", "access_token", ["created_by_user_id"])


def downgrade() -> None:
    op.drop_table("access_token")
    op.drop_column("account", "access_tokens_enabled")
