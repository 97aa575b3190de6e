"""Two-step sign-in (README "Two-step sign-in").

- ``account.two_step_required_at``: since when the account's password users must use it
  (null: not required).
- ``user.two_step_enabled_at``: the user's two-step sign-in is on since then.
- ``user.two_step_reset_at``: a new set-up is due since then (an Owner or Admin reset it, or
  the user signed in with a recovery code).
- ``recovery_code``: one-time recovery codes, as Argon2id hashes.

Revision ID: 6b2d8e4f0a13
Revises: c5aef7146b9a
Create Date: 2026-11-27 11:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "6b2d8e4f0a13"
down_revision: str | Sequence[str] | None = "c5aef7146b9a"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("account", sa.Column("two_step_required_at", sa.DateTime(timezone=True)))
    op.add_column("user", sa.Column("two_step_enabled_at", sa.DateTime(timezone=True)))
    op.add_column("user", sa.Column("two_step_reset_at", sa.DateTime(timezone=True)))
    op.create_table(
        "recovery_code",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("code_hash", sa.String(200), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user.id"], name="fk_recovery_code_user_id_user", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_recovery_code"),
    )
    op.create_index("ix_recovery_code_user_id", "recovery_code", ["user_id"])


def downgrade() -> None:
    op.drop_table("recovery_code")
    op.drop_column("user", "two_step_reset_at")
    op.drop_column("user", "two_step_enabled_at")
    op.drop_column("account", "two_step_required_at")
