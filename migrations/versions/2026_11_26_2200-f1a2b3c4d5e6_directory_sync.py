"""Directory sync over SCIM 2.0 (README "Directory sync (SCIM)").

- ``scim_token``: an account's SCIM bearer tokens, stored as their SHA-256 only.
- ``user.identity_id`` may be null: a user the directory provisioned for an account with
  single sign-on has no pool user until their first sign-in.
- ``user.external_id`` and ``user.directory_attributes``: the directory's id of the person
  and what it set that the console keeps no column of its own for; ``userName`` is unique
  per account, case-insensitively.

Revision ID: f1a2b3c4d5e6
Revises: 809f5b98b057
Create Date: 2026-11-26 22:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "f1a2b3c4d5e6"
down_revision: str | Sequence[str] | None = "809f5b98b057"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "scim_token",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("token_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("last4", sa.String(4), nullable=False),
        sa.Column("created_by_user_id", sa.Uuid(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name="fk_scim_token_account_id_account",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by_user_id"],
            ["user.id"],
            name="fk_scim_token_created_by_user_id_user",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_scim_token"),
        sa.UniqueConstraint("token_hash", name="uq_scim_token_token_hash"),
    )
    op.create_index("ix_scim_token_account_id", "scim_token", ["account_id"])
    op.alter_column("user", "identity_id", existing_type=sa.String(255), nullable=True)
    op.add_column("user", sa.Column("external_id", sa.String(255), nullable=True))
    op.add_column("user", sa.Column("directory_attributes", postgresql.JSONB(), nullable=True))
    op.create_index(
        "uq_user_directory_user_name",
        "user",
        ["account_id", sa.text("lower(directory_attributes ->> 'userName')")],
        unique=True,
    )
    op.create_index("ix_user_account_id_external_id", "user", ["account_id", "external_id"])


def downgrade() -> None:
    op.drop_index("ix_user_account_id_external_id", table_name="user")
    op.drop_index("uq_user_directory_user_name", table_name="user")
    op.drop_column("user", "directory_attributes")
    op.drop_column("user", "external_id")
    op.execute('DELETE FROM "user" WHERE identity_id IS NULL')
    op.alter_column("user", "identity_id", existing_type=sa.String(255), nullable=False)
    op.drop_table("scim_token")
