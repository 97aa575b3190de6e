"""The sign-in policy checked on every request (README "Security model").

- ``user.identity_sub``: the Cognito ``sub`` access tokens are matched by (unique). Existing
  rows have none until their user signs in again, so every session open before this
  migration ends and its user signs in once more.
- ``user.tokens_valid_after``: access tokens issued before it are refused.
- ``user.deactivated_at``: set while a user's access is turned off.
- ``user.email_verified``: existing users count as verified (they signed in before the
  check existed); registration sets it false until the emailed code is entered.
- ``removed_identity``: people removed from an account, whom auto-join refuses.

Revision ID: c5d1e2f3a4b6
Revises: a0fa304125e7
Create Date: 2026-11-25 17:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "c5d1e2f3a4b6"
down_revision: str | Sequence[str] | None = "a0fa304125e7"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("user", sa.Column("identity_sub", sa.String(64), nullable=True))
    op.create_unique_constraint("uq_user_identity_sub", "user", ["identity_sub"])
    op.add_column("user", sa.Column("tokens_valid_after", sa.DateTime(timezone=True)))
    op.add_column("user", sa.Column("deactivated_at", sa.DateTime(timezone=True)))
    op.add_column(
        "user",
        sa.Column("email_verified", sa.Boolean(), server_default="true", nullable=False),
    )
    op.create_table(
        "removed_identity",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("identity_sub", sa.String(64), nullable=True),
        sa.Column("provider", sa.String(40), nullable=True),
        sa.Column("provider_subject", sa.String(255), nullable=True),
        sa.Column(
            "removed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name="fk_removed_identity_account_id_account",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_removed_identity"),
    )
    op.create_index(
        "ix_removed_identity_account_email", "removed_identity", ["account_id", "email"]
    )
    op.create_index("ix_removed_identity_identity_sub", "removed_identity", ["identity_sub"])


def downgrade() -> None:
    op.drop_table("removed_identity")
    op.drop_column("user", "email_verified")
    op.drop_column("user", "deactivated_at")
    op.drop_column("user", "tokens_valid_after")
    op.drop_constraint("uq_user_identity_sub", "user", type_="unique")
    op.drop_column("user", "identity_sub")
