"""Queries on ``user``; every tenant query takes the caller's account id."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import SignInSession, User


async def user_in_account(
    db: AsyncSession, account_id: uuid.UUID, user_id: uuid.UUID
) -> User | None:
    """The user ``user_id`` if it belongs to ``account_id``, else None."""
    return await db.scalar(select(User).where(User.id == user_id, User.account_id == account_id))


async def email_taken(db: AsyncSession, email: str) -> bool:
    """True when any account has a user with ``email`` (lowercased)."""
    return await db.scalar(select(User.id).where(func.lower(User.email) == email)) is not None


async def live_session_counts(
    db: AsyncSession, account_id: uuid.UUID
) -> list[tuple[uuid.UUID, int]]:
    """How many live sign-in sessions each user of ``account_id`` has (README "Sessions"), as
    ``(user id, count)``; one index range per user (the live sessions' partial index)."""
    result = await db.execute(
        select(User.id, func.count(SignInSession.id))
        .outerjoin(
            SignInSession,
            (SignInSession.identity_sub == User.identity_sub) & SignInSession.ended_at.is_(None),
        )
        .where(User.account_id == account_id)
        .group_by(User.id)
        .order_by(User.id)
    )
    return [(user_id, int(count)) for user_id, count in result.all()]
