"""Usage per hour, and the records counted in every rollup (README "Usage API").

- ``usage_hourly``, ``api_key_usage_hourly`` and ``usage_label_hourly``: runs, credits and
  records per UTC hour and platform of each account, API key and label value, kept from now on
  by the metering intake's statement beside the daily rollups.
- ``records`` on ``usage``, ``usage_daily``, ``api_key_usage_daily`` and ``usage_label_daily``
  (``api_key_usage`` has counted them from the start): how many metering records a row counts.

Both are filled from ``usage_record``, which keeps every record the intake counted (its cycle,
time, platform, key and labels), so the new figures agree with the rollups that were there: a
record's hour is its time's in UTC; a label value the cycle's ``usage_label`` does not name was
past the cap of its label and counts under the blank value, as the intake counts it. This reads
every stored record once per rollup: on a large ``usage_record`` run it at a quiet time.

Revision ID: 8f3d2b6a1c47
Revises: 6d2b8f4c0e51
Create Date: 2026-11-28 09:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "8f3d2b6a1c47"
down_revision: str | Sequence[str] | None = "6d2b8f4c0e51"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PLATFORM = postgresql.ENUM(name="platform", create_type=False)
# What the intake counts under a label's values past its cap (api/models/usage_label.py).
OTHER_LABEL_VALUE = ""
COUNTED = ("usage", "usage_daily", "api_key_usage_daily", "usage_label_daily")


def _figures() -> list[sa.Column[int]]:
    return [
        sa.Column(name, sa.BigInteger(), server_default="0", nullable=False)
        for name in ("runs", "credits", "records")
    ]


def _records() -> sa.Column[int]:
    return sa.Column("records", sa.BigInteger(), server_default="0", nullable=False)


# The value a record's label counted under in its cycle: its own where the cycle's usage_label
# names it, else the blank one (past the cap).
_COUNTED_VALUE = f"""CASE WHEN EXISTS (
    SELECT FROM usage_label AS u
    WHERE u.account_id = r.account_id AND u.cycle_start = r.cycle_start
      AND u.label_key = l.key AND u.label_value = l.value
) THEN l.value ELSE '{OTHER_LABEL_VALUE}' END"""
_DAY = "CAST(r.recorded_at AT TIME ZONE 'UTC' AS date)"
_HOUR = "date_trunc('hour', r.recorded_at, 'UTC')"


def upgrade() -> None:
    """Upgrade schema."""
    for table in COUNTED:
        op.add_column(table, _records())
    op.create_table(
        "usage_hourly",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("hour", sa.DateTime(timezone=True), nullable=False),
        sa.Column("platform", PLATFORM, nullable=False),
        *_figures(),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_usage_hourly_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "hour", "platform", name=op.f("pk_usage_hourly")),
    )
    op.create_table(
        "api_key_usage_hourly",
        sa.Column("key_id", sa.Uuid(), nullable=False),
        sa.Column("hour", sa.DateTime(timezone=True), nullable=False),
        sa.Column("platform", PLATFORM, nullable=False),
        *_figures(),
        sa.ForeignKeyConstraint(
            ["key_id"],
            ["api_key.id"],
            name=op.f("fk_api_key_usage_hourly_key_id_api_key"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("key_id", "hour", "platform", name=op.f("pk_api_key_usage_hourly")),
    )
    op.create_table(
        "usage_label_hourly",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("label_key", sa.String(length=32), nullable=False),
        sa.Column("hour", sa.DateTime(timezone=True), nullable=False),
        sa.Column("label_value", sa.String(length=100), nullable=False),
        sa.Column("platform", PLATFORM, nullable=False),
        *_figures(),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_usage_label_hourly_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "account_id",
            "label_key",
            "hour",
            "label_value",
            "platform",
            name=op.f("pk_usage_label_hourly"),
        ),
    )
    _backfill()


def _backfill() -> None:
    op.execute(
        """
        UPDATE usage AS t SET records = c.records
        FROM (SELECT account_id, cycle_start, platform, count(*) AS records
              FROM usage_record GROUP BY account_id, cycle_start, platform) AS c
        WHERE t.account_id = c.account_id AND t.cycle_start = c.cycle_start
          AND t.platform = c.platform
        """
    )
    op.execute(
        f"""
        UPDATE usage_daily AS t SET records = c.records
        FROM (SELECT account_id, cycle_start, {_DAY} AS day, platform, count(*) AS records
              FROM usage_record AS r GROUP BY 1, 2, 3, 4) AS c
        WHERE t.account_id = c.account_id AND t.cycle_start = c.cycle_start
          AND t.day = c.day AND t.platform = c.platform
        """  # noqa: S608 - constant SQL text only
    )
    op.execute(
        f"""
        UPDATE api_key_usage_daily AS t SET records = c.records
        FROM (SELECT api_key_id, cycle_start, {_DAY} AS day, platform, count(*) AS records
              FROM usage_record AS r WHERE api_key_id IS NOT NULL GROUP BY 1, 2, 3, 4) AS c
        WHERE t.key_id = c.api_key_id AND t.cycle_start = c.cycle_start
          AND t.day = c.day AND t.platform = c.platform
        """  # noqa: S608 - constant SQL text only
    )
    op.execute(
        f"""
        UPDATE usage_label_daily AS t SET records = c.records
        FROM (SELECT r.account_id, r.cycle_start, l.key AS label_key,
                     {_COUNTED_VALUE} AS label_value, {_DAY} AS day, r.platform,
                     count(*) AS records
              FROM usage_record AS r CROSS JOIN LATERAL jsonb_each_text(r.labels) AS l
              GROUP BY 1, 2, 3, 4, 5, 6) AS c
        WHERE t.account_id = c.account_id AND t.cycle_start = c.cycle_start
          AND t.label_key = c.label_key AND t.label_value = c.label_value
          AND t.day = c.day AND t.platform = c.platform
        """  # noqa: S608 - constant SQL text only
    )
    op.execute(
        f"""
        INSERT INTO usage_hourly (account_id, hour, platform, runs, credits, records)
        SELECT account_id, {_HOUR}, platform, sum(runs), sum(credits), count(*)
        FROM usage_record AS r
        GROUP BY 1, 2, 3
        """  # noqa: S608 - constant SQL text only
    )
    op.execute(
        f"""
        INSERT INTO api_key_usage_hourly (key_id, hour, platform, runs, credits, records)
        SELECT r.api_key_id, {_HOUR}, r.platform, sum(r.runs), sum(r.credits), count(*)
        FROM usage_record AS r JOIN api_key AS k ON k.id = r.api_key_id
        GROUP BY 1, 2, 3
        """  # noqa: S608 - constant SQL text only
    )
    op.execute(
        f"""
        INSERT INTO usage_label_hourly
            (account_id, label_key, hour, label_value, platform, runs, credits, records)
        SELECT r.account_id, l.key, {_HOUR}, {_COUNTED_VALUE}, r.platform, sum(r.runs),
               sum(r.credits), count(*)
        FROM usage_record AS r CROSS JOIN LATERAL jsonb_each_text(r.labels) AS l
        GROUP BY 1, 2, 3, 4, 5
        """  # noqa: S608 - constant SQL text only
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table("usage_label_hourly")
    op.drop_table("api_key_usage_hourly")
    op.drop_table("usage_hourly")
    for table in reversed(COUNTED):
        op.drop_column(table, "records")
