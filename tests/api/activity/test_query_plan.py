"""A page of the audit log reads only the caller's account, newest first, through
``ix_audit_event_account_id_occurred_at`` of each month partition: PostgreSQL's own plan for
the query of ``api/activity/repository.py``, among other accounts' events."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.dialects import postgresql

from api.account.service import create_account
from api.activity import repository

# As a service with many customers: the account read holds about 3 % of the month's events.
ACCOUNTS = 60
EVENTS_PER_ACCOUNT = 1500  # one every 19 minutes: 20 days
BUSY_ACCOUNT_EVENTS = 3000  # one every 10 minutes: the account read
LIMIT = 51

# Events one every :every_min minutes back from :now (a second apart between accounts).
_EVENTS_SQL = text(
    """
    INSERT INTO audit_event (id, occurred_at, account_id, actor_user_id, actor_name,
        actor_email, client_address, action)
    SELECT gen_random_uuid(),
           CAST(:now AS timestamptz) - make_interval(mins => n * :every_min, secs => a.i),
           a.id, gen_random_uuid(), 'Someone', 'someone@example-corp.com', '192.0.2.1',
           'account.renamed'
    FROM unnest(CAST(:accounts AS uuid[])) WITH ORDINALITY AS a(id, i),
         generate_series(0, :count - 1) AS n
    """
)


def nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of the plan."""
    return [plan, *(node for child in plan.get("Plans", []) for node in nodes(child))]


def scans(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan's leaf nodes (the index scans)."""
    return [node for node in nodes(plan) if not node.get("Plans")]


def node_types(plan: dict[str, Any]) -> set[str]:
    return {node["Node Type"] for node in nodes(plan)}


@pytest.fixture(scope="module")
async def busy_log(app: FastAPI) -> tuple[uuid.UUID, datetime]:
    """Accounts with events over the last 20 days, one of them busier, analysed; the busy
    one and the newest time."""
    now = datetime.now(UTC)
    async with app.state.resources.sessionmaker() as db, db.begin():
        accounts = [
            (await create_account(db=db, settings=app.state.settings, name=f"Busy {i}")).id
            for i in range(ACCOUNTS)
        ]
        busy, others = accounts[0], accounts[1:]
        for ids, count, every in (
            (others, EVENTS_PER_ACCOUNT, 19),
            ([busy], BUSY_ACCOUNT_EVENTS, 10),
        ):
            await db.execute(
                _EVENTS_SQL, {"now": now, "accounts": ids, "count": count, "every_min": every}
            )
    async with app.state.resources.engine.connect() as connection:
        await connection.execute(text("ANALYZE audit_event"))
        await connection.commit()
    return busy, now


async def explain(app: FastAPI, **criteria: Any) -> dict[str, Any]:
    query = repository.events_query(
        criteria.pop("account_id"),
        actor_id=None,
        actions=set(),
        occurred_to=None,
        limit=LIMIT,
        **criteria,
    )
    sql = query.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True})
    async with app.state.resources.read_engine.connect() as connection:
        plan = await connection.scalar(text(f"EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) {sql}"))
    root: dict[str, Any] = plan[0]["Plan"]
    return root


def assert_reads_the_accounts_index_only(plan: dict[str, Any], account_id: uuid.UUID) -> None:
    """Every scan walks the account's entries of the (account, time, id) index: no
    sequential scan, and no row of another account read and thrown away."""
    assert "Seq Scan" not in node_types(plan)
    for scan in scans(plan):
        assert scan["Node Type"] in ("Index Scan", "Bitmap Index Scan"), scan
        assert scan["Index Name"].endswith("_account_id_occurred_at_id_idx")
        assert f"account_id = '{account_id}'::uuid" in scan["Index Cond"]
        assert scan.get("Rows Removed by Filter", 0) == 0


async def test_the_first_page(app: FastAPI, busy_log: tuple[uuid.UUID, datetime]) -> None:
    account_id, _ = busy_log
    plan = await explain(app, account_id=account_id, occurred_from=None, before=None)
    assert_reads_the_accounts_index_only(plan, account_id)
    # Newest first straight from the index, stopping at the page: no sort, no row past it.
    assert "Sort" not in node_types(plan)
    assert {scan["Scan Direction"] for scan in scans(plan)} == {"Backward"}
    assert sum(scan["Actual Rows"] for scan in scans(plan)) <= LIMIT
    assert plan["Actual Rows"] == LIMIT


async def test_a_next_page_in_a_date_range_reads_one_partition(
    app: FastAPI, busy_log: tuple[uuid.UUID, datetime]
) -> None:
    account_id, now = busy_log
    # Within this month, so a single month partition holds the whole range.
    month_start = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    cursor = (now - (now - month_start) / 4, uuid.uuid4())
    plan = await explain(app, account_id=account_id, occurred_from=month_start, before=cursor)
    assert_reads_the_accounts_index_only(plan, account_id)
    assert "ROW(occurred_at, id) < ROW(" in scans(plan)[0]["Index Cond"]
    # The other months' partitions are pruned (the index scans name their table; bitmap
    # scans leave it to the heap scan above them).
    partitions = {node["Relation Name"] for node in nodes(plan) if "Relation Name" in node}
    assert partitions == {f"audit_event_{now:%Y}m{now:%m}"}
