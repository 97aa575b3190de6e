"""Queries on the per-cycle ``usage`` rollups and the intake's ``usage_record`` rows; every
query takes the account id it is scoped to."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import Platform, Usage


class CycleUsage(NamedTuple):
    """One rollup row: a platform's runs and credits in the cycle starting at ``cycle_start``."""

    cycle_start: datetime
    platform: Platform
    runs: int
    credits: int


async def usage_since(db: AsyncSession, account_id: uuid.UUID, since: datetime) -> list[CycleUsage]:
    """Rollup rows of one account with ``cycle_start >= since`` (at most 3 per cycle).

    Plain column rows, not ORM entities: this is on the read path of every Account
    Information load (bench/api.py).
    """
    result = await db.execute(
        select(Usage.cycle_start, Usage.platform, Usage.runs, Usage.credits)
        .where(Usage.account_id == account_id, Usage.cycle_start >= since)
        .order_by(Usage.cycle_start)
    )
    return [CycleUsage(*row) for row in result]


class NewRecord(NamedTuple):
    """A record to store, already placed in its billing cycle."""

    idempotency_key: str
    platform: Platform
    runs: int
    credits: int
    recorded_at: datetime
    cycle_start: datetime


# One statement, one round trip: insert the records, skipping keys already stored for the
# account; add exactly the inserted ones to the rollups (in a fixed order, so concurrent
# batches of one account lock rollup rows in the same order); count them. Data-modifying CTEs
# always run to completion, and the whole statement runs in the request's transaction.
_INGEST = text(
    """
WITH inserted AS (
    INSERT INTO usage_record
        (account_id, idempotency_key, platform, runs, credits, recorded_at, cycle_start)
    SELECT CAST(:account_id AS uuid), r.idempotency_key, CAST(r.platform AS platform),
           r.runs, r.credits, r.recorded_at, r.cycle_start
    FROM unnest(
        CAST(:keys AS varchar[]), CAST(:platforms AS text[]), CAST(:runs AS integer[]),
        CAST(:credits AS integer[]), CAST(:recorded_at AS timestamptz[]),
        CAST(:cycle_starts AS timestamptz[])
    ) AS r(idempotency_key, platform, runs, credits, recorded_at, cycle_start)
    ON CONFLICT (account_id, idempotency_key) DO NOTHING
    RETURNING cycle_start, platform, runs, credits
), rolled_up AS (
    INSERT INTO usage (account_id, cycle_start, platform, runs, credits)
    SELECT CAST(:account_id AS uuid), cycle_start, platform, sum(runs), sum(credits)
    FROM inserted
    GROUP BY cycle_start, platform
    ORDER BY cycle_start, platform
    ON CONFLICT (account_id, cycle_start, platform) DO UPDATE
        SET runs = usage.runs + excluded.runs, credits = usage.credits + excluded.credits
    RETURNING 1
)
SELECT count(*) FROM inserted
"""
)


async def insert_records(
    db: AsyncSession, account_id: uuid.UUID, records: Sequence[NewRecord]
) -> int:
    """Store ``records`` for the account and add the new ones to its ``usage`` rollups.

    Records whose idempotency key the account already has are skipped (``ON CONFLICT DO
    NOTHING``; a concurrent insert of the same key waits for the other transaction). Pass
    records sorted by key and without duplicate keys, so concurrent batches lock in the same
    order. Returns how many records were inserted (and counted).
    """
    if not records:
        return 0
    count = await db.scalar(
        _INGEST,
        {
            "account_id": account_id,
            "keys": [r.idempotency_key for r in records],
            "platforms": [r.platform.value for r in records],
            "runs": [r.runs for r in records],
            "credits": [r.credits for r in records],
            "recorded_at": [r.recorded_at for r in records],
            "cycle_starts": [r.cycle_start for r in records],
        },
    )
    return int(count or 0)
