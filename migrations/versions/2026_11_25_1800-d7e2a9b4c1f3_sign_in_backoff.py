"""Failed sign-in attempts back off per (email, client address) (README "Sign-in and abuse
limits").

- ``sign_in_backoff``: consecutive failures of one email from one address key, and until
  when the next attempt waits. Starts empty: nobody is waiting.

Revision ID: d7e2a9b4c1f3
Revises: c5d1e2f3a4b6
Create Date: 2026-11-25 18:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "d7e2a9b4c1f3"
down_revision: str | Sequence[str] | None = "c5d1e2f3a4b6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sign_in_backoff",
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("address_key", sa.String(64), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("blocked_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("email", "address_key", name=op.f("pk_sign_in_backoff")),
    )
    op.create_index(
        op.f("ix_sign_in_backoff_updated_at"), "sign_in_backoff", ["updated_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_sign_in_backoff_updated_at"), table_name="sign_in_backoff")
    op.drop_table("sign_in_backoff")
