"""Metering rules (issue 4 "Metering"): count each record once, in the billing cycle of its
time, into the per-cycle rollups that ``GET /web/account`` reads (SPEC 3 usage, 9 cycles)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from api.auth.principal import KeyHolder
from api.models import Platform
from api.usage import repository
from api.usage.cycles import containing_cycle_starts, recent_cycle_starts
from api.usage.errors import RecordInTheFuture
from api.usage.repository import NewRecord
from api.usage.schemas import (
    MAX_CLOCK_SKEW,
    PlatformUsage,
    UsageBatchResponse,
    UsageEntry,
    UsageRecordCreate,
)

USAGE_CYCLES_SHOWN = 12
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


async def ingest(
    db: AsyncSession, holder: KeyHolder, records: Sequence[UsageRecordCreate]
) -> UsageBatchResponse:
    """Count a batch of records for the API key's account, all or nothing.

    A key repeated inside the batch counts once (the first occurrence); a key the account
    already has counts zero times. Each record lands in the billing cycle containing its
    ``time`` (monthly from the account's anchor; times before the anchor in the first cycle).
    Only flushes: the request's transaction commits the records and the rollups together.

    Returns:
        how many records were counted now and how many were duplicates.
    """
    latest = datetime.now(UTC) + MAX_CLOCK_SKEW
    unique: dict[str, UsageRecordCreate] = {}
    for record in records:
        if record.time > latest:
            raise RecordInTheFuture(
                f"time must not be in the future (record {record.idempotency_key!r})"
            )
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
    return UsageBatchResponse(accepted=accepted, duplicates=len(records) - accepted)


async def usage_by_cycle(
    db: AsyncSession,
    account_id: uuid.UUID,
    billing_cycle_anchor: datetime,
    now: datetime | None = None,
) -> list[UsageEntry]:
    """Usage of the last ``USAGE_CYCLES_SHOWN`` billing cycles (SPEC 2 usage graph, 3 "Usage
    entry"): one entry per cycle, zeros where nothing was metered, oldest first, ending with
    the current cycle. Reads only the rollups (at most 3 rows per cycle).
    """
    starts = recent_cycle_starts(billing_cycle_anchor, now or datetime.now(UTC), USAGE_CYCLES_SHOWN)
    totals: dict[tuple[datetime, Platform], PlatformUsage] = {
        (row.cycle_start, row.platform): PlatformUsage(runs=row.runs, credits=row.credits)
        for row in await repository.usage_since(db, account_id, starts[0])
    }
    zero = PlatformUsage(runs=0, credits=0)
    usage = []
    for start in starts:
        web, mobile, api = (totals.get((start, p), zero) for p in Platform)
        usage.append(
            UsageEntry(
                start_ms=(start - _EPOCH) // _MS,  # exact: no float rounding
                requests=web.credits + mobile.credits + api.credits,
                web=web,
                native_mobile=mobile,
                api=api,
            )
        )
    return usage
