"""Usage by API key and by label, and spend limits (README "Metering intake"): the key and labels
of each record, the rollups the intake keeps of them (per key and per label value, per cycle
and per day), each account's total per cycle (checked against the allowance), a monthly limit
per key, and whether an account stops at its allowance (it keeps running, as before).

Records stored before keep no key (which key sent them was never stored), so a key's runs and
credits of past cycles are filled in only where they are certain: the key sent every record
its account has in that cycle. Elsewhere they start at zero. The totals per cycle are the sums
of the ``usage`` rows.

Revision ID: c5aef7146b9a
Revises: f1c3a5e7b9d2
Create Date: 2026-11-26 22:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "c5aef7146b9a"
down_revision: str | Sequence[str] | None = "f1c3a5e7b9d2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PLATFORM = postgresql.ENUM(name="platform", create_type=False)


def _totals() -> list[sa.Column[int]]:
    return [
        sa.Column("runs", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("credits", sa.BigInteger(), server_default="0", nullable=False),
    ]


def upgrade() -> None:
    """Upgrade schema."""
    op.add_column("usage_record", sa.Column("api_key_id", sa.Uuid(), nullable=True))
    op.add_column(
        "usage_record",
        sa.Column("labels", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    )
    for column in _totals():
        op.add_column("api_key_usage", column)
    op.execute(
        """
        UPDATE api_key_usage AS k SET runs = t.runs, credits = t.credits
        FROM (
            SELECT k.key_id, k.cycle_start, sum(u.runs) AS runs, sum(u.credits) AS credits
            FROM api_key_usage AS k
            JOIN api_key AS a ON a.id = k.key_id
            JOIN usage AS u ON u.account_id = a.account_id AND u.cycle_start = k.cycle_start
            WHERE k.records = (
                SELECT count(*) FROM usage_record AS r
                WHERE r.account_id = a.account_id AND r.cycle_start = k.cycle_start
            )
            GROUP BY k.key_id, k.cycle_start
        ) AS t
        WHERE k.key_id = t.key_id AND k.cycle_start = t.cycle_start
        """
    )
    op.create_table(
        "api_key_usage_daily",
        sa.Column("key_id", sa.Uuid(), nullable=False),
        sa.Column("cycle_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("platform", PLATFORM, nullable=False),
        *_totals(),
        sa.ForeignKeyConstraint(
            ["key_id"],
            ["api_key.id"],
            name=op.f("fk_api_key_usage_daily_key_id_api_key"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "key_id", "cycle_start", "day", "platform", name=op.f("pk_api_key_usage_daily")
        ),
    )
    op.create_table(
        "usage_label",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("cycle_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("label_key", sa.String(length=32), nullable=False),
        sa.Column("label_value", sa.String(length=100), nullable=False),
        *_totals(),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_usage_label_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "account_id", "cycle_start", "label_key", "label_value", name=op.f("pk_usage_label")
        ),
    )
    op.create_table(
        "usage_label_daily",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("cycle_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("label_key", sa.String(length=32), nullable=False),
        sa.Column("label_value", sa.String(length=100), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("platform", PLATFORM, nullable=False),
        *_totals(),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_usage_label_daily_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "account_id",
            "cycle_start",
            "label_key",
            "label_value",
            "day",
            "platform",
            name=op.f("pk_usage_label_daily"),
        ),
    )

    op.create_table(
        "usage_total",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("cycle_start", sa.DateTime(timezone=True), nullable=False),
        *_totals(),
        sa.Column("allowance_reached", sa.BigInteger(), nullable=True),
        sa.Column("allowance_reached_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_usage_total_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "cycle_start", name=op.f("pk_usage_total")),
    )
    op.execute(
        """
        INSERT INTO usage_total (account_id, cycle_start, runs, credits)
        SELECT account_id, cycle_start, sum(runs), sum(credits)
        FROM usage
        GROUP BY account_id, cycle_start
        """
    )
    op.add_column("api_key", sa.Column("monthly_limit", sa.BigInteger(), nullable=True))
    op.add_column("api_key_usage", sa.Column("limit_reached", sa.BigInteger(), nullable=True))
    op.add_column(
        "api_key_usage",
        sa.Column("limit_reached_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.add_column(
        "account",
        sa.Column("stop_at_allowance", sa.Boolean(), server_default="false", nullable=False),
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_column("account", "stop_at_allowance")
    op.drop_column("api_key_usage", "limit_reached_at")
    op.drop_column("api_key_usage", "limit_reached")
    op.drop_column("api_key", "monthly_limit")
    op.drop_table("usage_total")
    op.drop_table("usage_label_daily")
    op.drop_table("usage_label")
    op.drop_table("api_key_usage_daily")
    op.drop_column("api_key_usage", "credits")
    op.drop_column("api_key_usage", "runs")
    op.drop_column("usage_record", "labels")
    op.drop_column("usage_record", "api_key_id")
