"""Pool users being created (README "Background work": the clean-up of pool users a crash left
without a console row).

- ``pending_pool_user``: one row per Cognito user the console has begun to create, committed
  before the pool is asked and deleted by the transaction that inserts the user's row. Starts
  empty: users created before this revision are not tracked.

Revision ID: f1c3a5e7b9d2
Revises: f2a6c8e1d4b7
Create Date: 2026-11-27 10:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "f1c3a5e7b9d2"
down_revision: str | Sequence[str] | None = "f2a6c8e1d4b7"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pending_pool_user",
        sa.Column("username", sa.String(320), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("username", name=op.f("pk_pending_pool_user")),
    )
    op.create_index(
        op.f("ix_pending_pool_user_started_at"), "pending_pool_user", ["started_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_pending_pool_user_started_at"), table_name="pending_pool_user")
    op.drop_table("pending_pool_user")
