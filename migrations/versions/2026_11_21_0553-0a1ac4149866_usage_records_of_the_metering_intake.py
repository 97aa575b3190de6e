"""Usage records of the metering intake, keyed by (account, idempotency key) (SPEC 3).

The ``platform`` enum type exists already (initial schema): reused, not created.

Revision ID: 0a1ac4149866
Revises: 2225c73fc143
Create Date: 2026-11-21 05:53:04.204035+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "0a1ac4149866"
down_revision: str | Sequence[str] | None = "2225c73fc143"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "usage_record",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("idempotency_key", sa.String(length=200), nullable=False),
        sa.Column(
            "platform",
            postgresql.ENUM("web", "nativeMobile", "api", name="platform", create_type=False),
            nullable=False,
        ),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.Column("credits", sa.Integer(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("cycle_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "received_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_usage_record_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "idempotency_key", name=op.f("pk_usage_record")),
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table("usage_record")
