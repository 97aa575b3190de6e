"""Queries of the API keys; every one takes the account id it is scoped to."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import ColumnElement, Select, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import ApiKey, ApiKeyUsage


class KeyRow(NamedTuple):
    """A working key and the records and requests it sent in the current cycle."""

    key: ApiKey
    records: int
    requests: int


async def working_keys(
    db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime
) -> list[KeyRow]:
    """The account's keys not expired, newest first, with this cycle's records and requests."""
    result = await db.execute(
        select(ApiKey, func.coalesce(ApiKeyUsage.records, 0), func.coalesce(ApiKeyUsage.credits, 0))
        .outerjoin(
            ApiKeyUsage,
            (ApiKeyUsage.key_id == ApiKey.id) & (ApiKeyUsage.cycle_start == cycle_start),
        )
        .where(
            ApiKey.account_id == account_id,
            or_(ApiKey.expires_at.is_(None), ApiKey.expires_at > func.now()),
        )
        .order_by(ApiKey.created_at.desc(), ApiKey.id)
    )
    return [KeyRow(key, int(records), int(requests)) for key, records, requests in result]


def newest_working_key_query(
    account_id: uuid.UUID | ColumnElement[uuid.UUID],
) -> Select[ApiKey]:
    """The query of the account's newest working key (its current one): at most one row. The
    account view compiles it to SQL with ``account_id`` a column of its statement
    (api/keys/account_view.py)."""
    return (
        select(ApiKey)
        .where(
            ApiKey.account_id == account_id,
            or_(ApiKey.expires_at.is_(None), ApiKey.expires_at > func.now()),
        )
        .order_by(ApiKey.created_at.desc(), ApiKey.id)
        .limit(1)
    )


async def newest_working_key(db: AsyncSession, account_id: uuid.UUID) -> ApiKey | None:
    """The account's newest working key (its current one), or None."""
    return await db.scalar(newest_working_key_query(account_id))


async def working_key(
    db: AsyncSession, account_id: uuid.UUID, key_id: uuid.UUID, *, lock: bool = False
) -> ApiKey | None:
    """One of the account's keys that still works (row-locked with ``lock``), or None."""
    query = select(ApiKey).where(
        ApiKey.id == key_id,
        ApiKey.account_id == account_id,
        or_(ApiKey.expires_at.is_(None), ApiKey.expires_at > func.now()),
    )
    return await db.scalar(query.with_for_update() if lock else query)


async def lock_working_keys(db: AsyncSession, account_id: uuid.UUID) -> list[ApiKey]:
    """The account's working keys, row-locked (a roll changes them together)."""
    result = await db.scalars(
        select(ApiKey)
        .where(
            ApiKey.account_id == account_id,
            or_(ApiKey.expires_at.is_(None), ApiKey.expires_at > func.now()),
        )
        .order_by(ApiKey.created_at.desc())
        .with_for_update()
    )
    return list(result)


async def expire(db: AsyncSession, key_ids: list[uuid.UUID], after_s: int) -> None:
    """End the keys ``after_s`` seconds from the database's now (never later than an end they
    already have). The database's clock, as every check of ``expires_at`` uses it."""
    ends = func.now() + func.make_interval(0, 0, 0, 0, 0, 0, after_s)
    await db.execute(
        update(ApiKey)
        .where(ApiKey.id.in_(key_ids))
        .values(expires_at=func.least(func.coalesce(ApiKey.expires_at, ends), ends))
    )
