"""Metering rules (issue 4 "Metering"): count each record once, in the billing cycle of its
time, into the per-cycle rollups that ``GET /web/account`` reads (SPEC 3 usage, 9 cycles)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from api.auth.principal import KeyHolder
from api.usage import repository
from api.usage.cycles import containing_cycle_starts
from api.usage.repository import NewRecord
from api.usage.schemas import UsageBatchOut, UsageRecordIn


async def ingest(
    db: AsyncSession, holder: KeyHolder, records: Sequence[UsageRecordIn]
) -> UsageBatchOut:
    """Count a batch of records for the API key's account, all or nothing.

    A key repeated inside the batch counts once (the first occurrence); a key the account
    already has counts zero times. Each record lands in the billing cycle containing its
    ``time`` (monthly from the account's anchor; times before the anchor in the first cycle).
    Only flushes: the request's transaction commits the records and the rollups together.

    Returns:
        how many records were counted now and how many were duplicates.
    """
    unique: dict[str, UsageRecordIn] = {}
    for record in records:
        unique.setdefault(record.idempotency_key, record)
    ordered = sorted(unique.values(), key=lambda r: r.idempotency_key)
    starts = containing_cycle_starts(holder.billing_cycle_anchor, [r.time for r in ordered])
    accepted = await repository.insert_records(
        db,
        holder.account_id,
        [
            NewRecord(r.idempotency_key, r.platform, r.runs, r.credits, r.time, start)
            for r, start in zip(ordered, starts, strict=True)
        ],
    )
    return UsageBatchOut(accepted=accepted, duplicates=len(records) - accepted)
