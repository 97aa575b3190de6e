"""Daily usage rollups for the export, usage alerts sent, and who gets them.

``usage_daily`` is filled from the records already stored, so every past cycle can be
exported at once.

Revision ID: a7d3e5f1c2b4
Revises: 9c4e1d2a7b58
Create Date: 2026-11-23 17:40:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "a7d3e5f1c2b4"
down_revision: str | Sequence[str] | None = "9c4e1d2a7b58"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PLATFORM = postgresql.ENUM(name="platform", create_type=False)


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "usage_daily",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("cycle_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("platform", PLATFORM, nullable=False),
        sa.Column("runs", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("credits", sa.BigInteger(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_usage_daily_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "account_id", "cycle_start", "day", "platform", name=op.f("pk_usage_daily")
        ),
    )
    op.execute(
        """
        INSERT INTO usage_daily (account_id, cycle_start, day, platform, runs, credits)
        SELECT account_id, cycle_start, (recorded_at AT TIME ZONE 'UTC')::date, platform,
               sum(runs), sum(credits)
        FROM usage_record
        GROUP BY account_id, cycle_start, (recorded_at AT TIME ZONE 'UTC')::date, platform
        """
    )
    op.create_table(
        "usage_alert",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("cycle_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("threshold", sa.SmallInteger(), nullable=False),
        sa.Column("used", sa.BigInteger(), nullable=False),
        sa.Column("allowance", sa.BigInteger(), nullable=False),
        sa.Column(
            "reached_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_usage_alert_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "account_id", "cycle_start", "threshold", name=op.f("pk_usage_alert")
        ),
    )
    op.add_column(
        "account",
        sa.Column(
            "usage_alert_thresholds",
            postgresql.ARRAY(sa.SmallInteger()),
            server_default="{50,80,100}",
            nullable=False,
        ),
    )
    op.add_column(
        "user",
        sa.Column("usage_alerts", sa.Boolean(), server_default="true", nullable=False),
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_column("user", "usage_alerts")
    op.drop_column("account", "usage_alert_thresholds")
    op.drop_table("usage_alert")
    op.drop_table("usage_daily")
