"""Usage by API key and by label (README "Metering intake"): the key and labels of each record,
and the rollups the intake keeps of them (per key and per label value, per cycle and per day).

Records stored before keep no key (which key sent them was never stored), so a key's runs and
credits of past cycles are filled in only where they are certain: the key sent every record
its account has in that cycle. Elsewhere they start at zero.

Revision ID: c5aef7146b9a
Revises: e4b8c2d6f1a9
Create Date: 2026-11-26 22:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "c5aef7146b9a"
down_revision: str | Sequence[str] | None = "e4b8c2d6f1a9"
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


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table("usage_label_daily")
    op.drop_table("usage_label")
    op.drop_table("api_key_usage_daily")
    op.drop_column("api_key_usage", "credits")
    op.drop_column("api_key_usage", "runs")
    op.drop_column("usage_record", "labels")
    op.drop_column("usage_record", "api_key_id")
