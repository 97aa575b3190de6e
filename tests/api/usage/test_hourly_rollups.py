"""The hourly rollups and the records counted in every rollup (README "Usage API"): kept by the
intake's statement from its first batch, filled in from the stored records by the migration
that adds them, so usage metered before it reads the same, and deleted past the retention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from alembic import command
from fastapi import FastAPI
from sqlalchemy import select

from api.models import ApiKey, ApiKeyUsageHourly, Platform, UsageHourly, UsageLabelHourly
from api.usage.feature import usage_hourly_retention
from devstack.services import random_suffix
from devstack.stack import Stack
from tests.api.conftest import MakeUser
from tests.api.kernel.test_migrations import _config, _sql_on

BEFORE = "5c1a7e3b9d40"  # the revision before the hourly rollups

# Records as the intake stored them (account a1, key b1): in two cycles (from Oct 21 and Nov 21,
# 10:15), one without a key, the labels as sent; the label "run" took its one place in the
# cycle's usage_label for "r1", so its "r2" was past the cap (counted under the blank value).
STORED = """
INSERT INTO account (id, name) VALUES ('00000000-0000-0000-0000-0000000000a1', 'Acme');
INSERT INTO api_key (id, account_id, key_hash, sealed, encryption_key_id, last4) VALUES
 ('00000000-0000-0000-0000-0000000000b1', '00000000-0000-0000-0000-0000000000a1', 'h', 'x',
  'k1', '1a2b');
INSERT INTO usage_record (account_id, idempotency_key, platform, runs, credits, recorded_at,
  cycle_start, api_key_id, labels) VALUES
 ('00000000-0000-0000-0000-0000000000a1', 'a', 'web', 1, 4, '2026-11-21 09:05+00',
  '2026-10-21 10:15+00', '00000000-0000-0000-0000-0000000000b1',
  '{"project": "checkout", "run": "r1"}'),
 ('00000000-0000-0000-0000-0000000000a1', 'b', 'web', 2, 6, '2026-11-21 09:55+00',
  '2026-10-21 10:15+00', '00000000-0000-0000-0000-0000000000b1',
  '{"project": "checkout", "run": "r2"}'),
 ('00000000-0000-0000-0000-0000000000a1', 'c', 'api', 1, 3, '2026-11-21 10:20+00',
  '2026-11-21 10:15+00', NULL, NULL);
INSERT INTO usage (account_id, cycle_start, platform, runs, credits) VALUES
 ('00000000-0000-0000-0000-0000000000a1', '2026-10-21 10:15+00', 'web', 3, 10),
 ('00000000-0000-0000-0000-0000000000a1', '2026-11-21 10:15+00', 'api', 1, 3);
INSERT INTO usage_daily (account_id, cycle_start, day, platform, runs, credits) VALUES
 ('00000000-0000-0000-0000-0000000000a1', '2026-10-21 10:15+00', '2026-11-21', 'web', 3, 10),
 ('00000000-0000-0000-0000-0000000000a1', '2026-11-21 10:15+00', '2026-11-21', 'api', 1, 3);
INSERT INTO api_key_usage_daily (key_id, cycle_start, day, platform, runs, credits) VALUES
 ('00000000-0000-0000-0000-0000000000b1', '2026-10-21 10:15+00', '2026-11-21', 'web', 3, 10);
INSERT INTO usage_label (account_id, cycle_start, label_key, label_value, runs, credits) VALUES
 ('00000000-0000-0000-0000-0000000000a1', '2026-10-21 10:15+00', 'project', 'checkout', 3, 10),
 ('00000000-0000-0000-0000-0000000000a1', '2026-10-21 10:15+00', 'run', 'r1', 1, 4),
 ('00000000-0000-0000-0000-0000000000a1', '2026-10-21 10:15+00', 'run', '', 2, 6);
INSERT INTO usage_label_daily (account_id, cycle_start, label_key, label_value, day, platform,
  runs, credits) VALUES
 ('00000000-0000-0000-0000-0000000000a1', '2026-10-21 10:15+00', 'project', 'checkout',
  '2026-11-21', 'web', 3, 10),
 ('00000000-0000-0000-0000-0000000000a1', '2026-10-21 10:15+00', 'run', 'r1', '2026-11-21',
  'web', 1, 4),
 ('00000000-0000-0000-0000-0000000000a1', '2026-10-21 10:15+00', 'run', '', '2026-11-21', 'web',
  2, 6)
"""


def test_the_migration_counts_the_stored_records_into_the_new_rollups(stack: Stack) -> None:
    name = f"console_migrate_{random_suffix()}"
    url = stack.postgres.create_database(name)
    sql = _sql_on(url, name)
    try:
        config = _config(url)
        command.upgrade(config, BEFORE)
        for statement in STORED.split(";"):
            sql(statement)
        command.upgrade(config, "head")

        def rows(statement: str) -> list[tuple[object, ...]]:
            return [tuple(r) for r in sql(statement)]

        assert rows(
            "SELECT to_char(hour AT TIME ZONE 'UTC', 'HH24:MI'), platform::text, runs, credits,"
            " records FROM usage_hourly ORDER BY hour"
        ) == [("09:00", "web", 3, 10, 2), ("10:00", "api", 1, 3, 1)]
        assert rows("SELECT runs, credits, records FROM api_key_usage_hourly") == [(3, 10, 2)]
        assert rows(
            "SELECT label_key, label_value, credits, records FROM usage_label_hourly"
            " ORDER BY label_key, label_value"
        ) == [("project", "checkout", 10, 2), ("run", "", 6, 1), ("run", "r1", 4, 1)]
        for table in ("usage", "usage_daily"):
            assert rows(
                "SELECT platform::text, records FROM " + table + " ORDER BY platform"  # noqa: S608
            ) == [("api", 1), ("web", 2)]
        assert rows("SELECT records FROM api_key_usage_daily") == [(2,)]
        assert rows(
            "SELECT label_value, records FROM usage_label_daily ORDER BY label_key, label_value"
        ) == [("checkout", 2), ("", 1), ("r1", 1)]
        command.downgrade(config, BEFORE)
        assert rows("SELECT to_regclass('usage_hourly')") == [(None,)]
    finally:
        stack.postgres.drop_database(name)


async def test_hours_past_the_retention_are_deleted_and_the_rest_stay(
    app: FastAPI, make_user: MakeUser
) -> None:
    me = await make_user()
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    old, kept = now - timedelta(days=401), now - timedelta(days=399)
    async with app.state.resources.sessionmaker() as db, db.begin():
        key_id = await db.scalar(select(ApiKey.id).where(ApiKey.account_id == me.account.id))
        for hour in (old, kept):
            db.add(UsageHourly(account_id=me.account.id, hour=hour, platform=Platform.WEB))
            db.add(ApiKeyUsageHourly(key_id=key_id, hour=hour, platform=Platform.WEB))
            db.add(
                UsageLabelHourly(
                    account_id=me.account.id,
                    label_key="project",
                    hour=hour,
                    label_value="checkout",
                    platform=Platform.WEB,
                )
            )
    await usage_hourly_retention(app.state.resources)
    async with app.state.resources.sessionmaker() as db:
        for model, owner in (
            (UsageHourly, UsageHourly.account_id == me.account.id),
            (ApiKeyUsageHourly, ApiKeyUsageHourly.key_id == key_id),
            (UsageLabelHourly, UsageLabelHourly.account_id == me.account.id),
        ):
            hours = (await db.scalars(select(model.hour).where(owner))).all()
            assert hours == [kept], model.__tablename__
