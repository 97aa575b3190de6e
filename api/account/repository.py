"""Queries on ``account``."""

from __future__ import annotations

import uuid

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import Account


async def rename(db: AsyncSession, account_id: uuid.UUID, name: str) -> None:
    """Set the name of the account ``account_id`` (the caller's own)."""
    await db.execute(update(Account).where(Account.id == account_id).values(name=name))
