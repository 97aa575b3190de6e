"""Queries on ``user``; every tenant query takes the caller's account id."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import User


async def user_in_account(
    db: AsyncSession, account_id: uuid.UUID, user_id: uuid.UUID
) -> User | None:
    """The user ``user_id`` if it belongs to ``account_id``, else None."""
    return await db.scalar(select(User).where(User.id == user_id, User.account_id == account_id))


async def email_taken(db: AsyncSession, email: str) -> bool:
    """True when any account has a user with ``email`` (lowercased)."""
    return await db.scalar(select(User.id).where(func.lower(User.email) == email)) is not None
