"""Queries of access token management, always scoped to the caller's account."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import AccessToken, Account, User


async def lock_account(db: AsyncSession, account_id: uuid.UUID) -> bool:
    """Lock the account row until the transaction ends (so two creations at once count one
    after the other) and return whether its access tokens are turned on."""
    enabled = await db.scalar(
        select(Account.access_tokens_enabled).where(Account.id == account_id).with_for_update()
    )
    return bool(enabled)


async def count_live(db: AsyncSession, account_id: uuid.UUID, now: datetime) -> int:
    """The account's tokens neither revoked nor expired at ``now``."""
    count = await db.scalar(
        select(func.count())
        .select_from(AccessToken)
        .where(
            AccessToken.account_id == account_id,
            AccessToken.revoked_at.is_(None),
            AccessToken.expires_at > now,
        )
    )
    return count or 0


async def live_name_taken(
    db: AsyncSession, account_id: uuid.UUID, name: str, now: datetime
) -> bool:
    """Whether a live token of the account has ``name`` (compared without case)."""
    found = await db.scalar(
        select(AccessToken.id).where(
            AccessToken.account_id == account_id,
            func.lower(AccessToken.name) == name.lower(),
            AccessToken.revoked_at.is_(None),
            AccessToken.expires_at > now,
        )
    )
    return found is not None


async def list_tokens(db: AsyncSession, account_id: uuid.UUID) -> list[tuple[AccessToken, bool]]:
    """The account's tokens, newest first, each with whether its creator is still a user of
    the account."""
    rows = await db.execute(
        select(AccessToken, User.id.is_not(None))
        .outerjoin(
            User,
            (User.id == AccessToken.created_by_user_id) & (User.account_id == account_id),
        )
        .where(AccessToken.account_id == account_id)
        .order_by(AccessToken.created_at.desc(), AccessToken.id)
    )
    return [(token, bool(present)) for token, present in rows.all()]


async def revoke(
    db: AsyncSession, account_id: uuid.UUID, token_id: uuid.UUID, now: datetime
) -> AccessToken | None:
    """Mark the account's token revoked at ``now`` (a token revoked already keeps its time);
    None: no such token in the account."""
    token = await db.scalar(
        select(AccessToken)
        .where(AccessToken.account_id == account_id, AccessToken.id == token_id)
        .with_for_update()
    )
    if token is not None and token.revoked_at is None:
        await db.execute(
            update(AccessToken).where(AccessToken.id == token.id).values(revoked_at=now)
        )
        token.revoked_at = now
    return token


async def set_enabled(db: AsyncSession, account_id: uuid.UUID, enabled: bool) -> bool:
    """Set the account's switch; returns what it was."""
    before = await lock_account(db, account_id)
    await db.execute(
        update(Account).where(Account.id == account_id).values(access_tokens_enabled=enabled)
    )
    return before
