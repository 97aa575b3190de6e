"""A page of the audit log reads only the caller's account, newest first, through
``ix_audit_event_account_id_occurred_at`` of each month partition: PostgreSQL's own plan for
the query of ``api/activity/repository.py``, among other accounts' events."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import insert, text
from sqlalchemy.dialects import postgresql

from api.account.service import create_account
from api.activity import repository
from api.models import AuditEvent

ACCOUNTS = 12
EVENTS_PER_ACCOUNT = 400
LIMIT = 51


def scans(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan's leaf nodes (the scans)."""
    children = plan.get("Plans", [])
    return [node for child in children for node in scans(child)] if children else [plan]


def node_types(plan: dict[str, Any]) -> set[str]:
    return {plan["Node Type"]} | {t for child in plan.get("Plans", []) for t in node_types(child)}


@pytest.fixture(scope="module")
async def busy_log(app: FastAPI) -> tuple[uuid.UUID, datetime]:
    """Accounts with events over the last 20 days, analysed; one of them and the newest
    time."""
    now = datetime.now(UTC)
    async with app.state.sessionmaker() as db, db.begin():
        accounts = [
            (await create_account(db, app.state.settings, f"Busy {i}")).id for i in range(ACCOUNTS)
        ]
        rows = [
            {
                "occurred_at": now - timedelta(minutes=71 * n + i),
                "account_id": account_id,
                "actor_user_id": uuid.uuid4(),
                "actor_name": "Someone",
                "actor_email": "someone@example-corp.com",
                "client_address": "192.0.2.1",
                "action": "account.renamed",
            }
            for i, account_id in enumerate(accounts)
            for n in range(EVENTS_PER_ACCOUNT)
        ]
        await db.execute(insert(AuditEvent), rows)
    async with app.state.engine.connect() as connection:
        await connection.execute(text("ANALYZE audit_event"))
        await connection.commit()
    return accounts[ACCOUNTS // 2], now


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
    async with app.state.read_engine.connect() as connection:
        plan = await connection.scalar(text(f"EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) {sql}"))
    root: dict[str, Any] = plan[0]["Plan"]
    return root


def assert_reads_the_accounts_index_only(plan: dict[str, Any], account_id: uuid.UUID) -> None:
    assert "Sort" not in node_types(plan)  # the index gives the order
    assert "Seq Scan" not in node_types(plan)
    for scan in scans(plan):
        assert scan["Node Type"] == "Index Scan", scan
        assert scan["Scan Direction"] == "Backward"
        assert scan["Index Name"].endswith("_account_id_occurred_at_id_idx")
        assert f"account_id = '{account_id}'::uuid" in scan["Index Cond"]
        assert scan.get("Rows Removed by Filter", 0) == 0
    # No more rows than the page: nothing of another account, nothing past the limit.
    assert sum(scan["Actual Rows"] for scan in scans(plan)) <= LIMIT


async def test_the_first_page(app: FastAPI, busy_log: tuple[uuid.UUID, datetime]) -> None:
    account_id, _ = busy_log
    plan = await explain(app, account_id=account_id, occurred_from=None, before=None)
    assert_reads_the_accounts_index_only(plan, account_id)
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
    partitions = {scan["Relation Name"] for scan in scans(plan)}
    assert partitions == {f"audit_event_{now:%Y}m{now:%m}"}
    assert "ROW(occurred_at, id) < ROW(" in scans(plan)[0]["Index Cond"]
