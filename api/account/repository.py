"""Queries on ``account``."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from api.account.models import Account


@dataclass(frozen=True, slots=True)
class KeyHolder:
    """The account an API key belongs to: what the metering intake needs to count records."""

    account_id: uuid.UUID
    billing_cycle_anchor: datetime


_KEY_HOLDER_QUERY = select(Account.id, Account.billing_cycle_anchor).where(
    Account.api_key == bindparam("api_key")
)


async def get_key_holder(connection: AsyncConnection, api_key: str) -> KeyHolder | None:
    """The account whose API key is ``api_key`` (unique index lookup), or None."""
    row = (await connection.execute(_KEY_HOLDER_QUERY, {"api_key": api_key})).first()
    return None if row is None else KeyHolder(*row)


async def rename(db: AsyncSession, account_id: uuid.UUID, name: str) -> None:
    """Set the name of the account ``account_id`` (the caller's own)."""
    await db.execute(update(Account).where(Account.id == account_id).values(name=name))
