"""The audit log's table (README "Audit log", migration a0fa304125e7): append-only for the API's
database role, partitioned by month, and kept a year by the retention pass
(``api/audit/retention.py``)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from dateutil.relativedelta import relativedelta
from fastapi import FastAPI
from sqlalchemy import func, insert, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from api.account.service import create_account
from api.audit.retention import MONTHS_AHEAD, retain
from api.models import AuditEvent

INSUFFICIENT_PRIVILEGE = "42501"


def month_start(months_from_now: int) -> datetime:
    """The first instant (UTC) of the month ``months_from_now`` months from this one."""
    now = datetime.now(UTC)
    first = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return first + relativedelta(months=months_from_now)


def partition_name(start: datetime) -> str:
    """The name ``audit_event_ensure_partitions`` gives the month of ``start``."""
    return f"audit_event_{start:%Y}m{start:%m}"


async def add_event(app: FastAPI, account_id: uuid.UUID, at: datetime) -> uuid.UUID:
    event_id = uuid.uuid4()
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            insert(AuditEvent).values(
                id=event_id,
                occurred_at=at,
                account_id=account_id,
                actor_name="Ada Lovelace",
                actor_email="ada@example-corp.com",
                client_address="192.0.2.1",
                action="account.renamed",
            )
        )
    return event_id


async def exists(app: FastAPI, event_id: uuid.UUID) -> bool:
    async with app.state.resources.sessionmaker() as db:
        count = await db.scalar(
            select(func.count()).select_from(AuditEvent).where(AuditEvent.id == event_id)
        )
    return count == 1


@pytest.fixture
async def account_id(app: FastAPI) -> uuid.UUID:
    async with app.state.resources.sessionmaker() as db, db.begin():
        return (await create_account(db=db, settings=app.state.settings, name="Audited")).id


@pytest.fixture
async def connection(app: FastAPI) -> AsyncIterator[AsyncConnection]:
    """A connection as the API's role, whose transaction is always rolled back (so a
    statement that wrongly succeeds changes nothing for the other tests)."""
    async with app.state.resources.engine.connect() as conn:
        yield conn
        await conn.rollback()


class TestAppendOnly:
    @pytest.mark.parametrize(
        "statement",
        [
            "UPDATE {table} SET action = 'user.deleted' WHERE id = :id",
            "UPDATE {table} SET occurred_at = occurred_at - interval '2 years' WHERE id = :id",
            "DELETE FROM {table} WHERE id = :id",
        ],
    )
    @pytest.mark.parametrize("table", ["audit_event", "this month", "audit_event_default"])
    async def test_rows_are_never_changed_or_deleted(
        self,
        app: FastAPI,
        connection: AsyncConnection,
        account_id: uuid.UUID,
        statement: str,
        table: str,
    ) -> None:
        at = datetime.now(UTC) if table != "audit_event_default" else month_start(-2)
        table = partition_name(month_start(0)) if table == "this month" else table
        event_id = await add_event(app, account_id, at)
        with pytest.raises(DBAPIError) as refused:
            await connection.execute(text(statement.format(table=table)), {"id": event_id})
        assert refused.value.orig.sqlstate == INSUFFICIENT_PRIVILEGE
        await connection.rollback()
        assert await exists(app, event_id)

    @pytest.mark.parametrize(
        "table",
        [
            "audit_event",
            "audit_event_default",
            "this month",
        ],
    )
    async def test_no_table_of_the_log_can_be_truncated(
        self, app: FastAPI, connection: AsyncConnection, account_id: uuid.UUID, table: str
    ) -> None:
        event_id = await add_event(app, account_id, datetime.now(UTC))
        table = partition_name(month_start(0)) if table == "this month" else table
        with pytest.raises(DBAPIError) as refused:
            await connection.execute(text(f"TRUNCATE {table}"))
        assert refused.value.orig.sqlstate == INSUFFICIENT_PRIVILEGE
        await connection.rollback()
        assert await exists(app, event_id)

    async def test_the_api_role_holds_no_update_delete_or_truncate_privilege(
        self, connection: AsyncConnection
    ) -> None:
        rows = (
            await connection.execute(
                text(
                    "SELECT table_name, privilege_type FROM information_schema.table_privileges "
                    "WHERE grantee = current_user AND table_name LIKE 'audit\\_event%'"
                )
            )
        ).all()
        tables = {table for table, _ in rows}
        # The log, its default partition and this month's and the coming months'.
        expected = {"audit_event", "audit_event_default"} | {
            partition_name(month_start(i)) for i in range(MONTHS_AHEAD + 1)
        }
        assert expected <= tables
        for table in tables:
            held = {privilege for name, privilege in rows if name == table}
            assert "INSERT" in held and "SELECT" in held, table
            assert not held & {"UPDATE", "DELETE", "TRUNCATE"}, (table, held)


class TestRetention:
    async def test_a_pass_drops_months_past_a_year_and_creates_the_coming_ones(
        self, app: FastAPI, account_id: uuid.UUID
    ) -> None:
        engine = app.state.resources.engine
        # Two old months in partitions of their own: one ended more than a year ago, one
        # ends less than a year ago. And a coming month whose partition is missing.
        expired, kept = month_start(-20), month_start(-12)
        coming = month_start(MONTHS_AHEAD)
        async with engine.begin() as conn:
            for start in (expired, kept):
                await conn.execute(
                    text(
                        f"CREATE TABLE {partition_name(start)} PARTITION OF audit_event "
                        f"FOR VALUES FROM ('{start.isoformat()}') "
                        f"TO ('{(start + relativedelta(months=1)).isoformat()}')"
                    )
                )
            await conn.execute(text(f"DROP TABLE {partition_name(coming)}"))
        old_event = await add_event(app, account_id, expired + relativedelta(days=3))
        year_old_event = await add_event(app, account_id, kept + relativedelta(days=3))
        recent_event = await add_event(app, account_id, datetime.now(UTC))

        report = await retain(engine, app.state.settings.audit.retention_days)

        assert (report.created, report.dropped) == (1, 1)
        assert not await exists(app, old_event)
        assert await exists(app, year_old_event)
        assert await exists(app, recent_event)
        async with engine.connect() as conn:
            partitions = set(
                (
                    await conn.execute(
                        text(
                            "SELECT c.relname FROM pg_inherits AS i "
                            "JOIN pg_class AS c ON c.oid = i.inhrelid "
                            "WHERE i.inhparent = 'audit_event'::regclass"
                        )
                    )
                ).scalars()
            )
        assert partition_name(expired) not in partitions
        assert {partition_name(kept), partition_name(coming)} <= partitions
        # A second pass has nothing left to do.
        again = await retain(engine, app.state.settings.audit.retention_days)
        assert (again.created, again.dropped) == (0, 0)
