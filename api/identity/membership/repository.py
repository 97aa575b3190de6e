"""The membership rules' reads (``api.identity.membership.service``)."""

from __future__ import annotations

import uuid

from sqlalchemy import Select, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import AccessToken, AuthType, Role, User


async def lock_owners(db: AsyncSession, account_id: uuid.UUID) -> list[uuid.UUID]:
    """The ids of the account's Owners, their rows locked (``FOR UPDATE``) until the
    transaction ends: two requests that would each remove an Owner (a delete, a demotion, a
    deactivation) run one after the other, and the second sees the first's result (READ
    COMMITTED re-reads a locked row once it is released), so an account never loses its last
    Owner."""
    result = await db.scalars(
        select(User.id)
        .where(User.account_id == account_id, User.role == Role.OWNER)
        .order_by(User.id)
        .with_for_update()
    )
    return list(result.all())


async def count_users(db: AsyncSession, account_id: uuid.UUID) -> int:
    """How many users the account has."""
    count = await db.scalar(
        select(func.count()).select_from(User).where(User.account_id == account_id)
    )
    return count or 0


async def bind_provisioned_user(
    db: AsyncSession,
    *,
    email: str,
    identity_id: str,
    auth_type: AuthType,
    accounts: Select[tuple[uuid.UUID]],
) -> bool:
    """Give the identity ``identity_id`` (its sign-in type ``auth_type``) to the user the
    directory provisioned with ``email`` who has no sign-in yet, in one of ``accounts`` (a
    select of account ids); returns whether there was one."""
    bound = await db.execute(
        update(User)
        .where(
            func.lower(User.email) == email.lower(),
            User.identity_id.is_(None),
            User.directory_attributes.is_not(None),
            User.signed_in_at.is_(None),
            User.account_id.in_(accounts),
        )
        .values(identity_id=identity_id, auth_type=auth_type)
        .returning(User.id)
    )
    return bound.first() is not None


async def revoke_access_tokens_of(db: AsyncSession, user_id: uuid.UUID) -> int:
    """Revoke the live access tokens ``user_id`` made; returns how many."""
    revoked = await db.execute(
        update(AccessToken)
        .where(AccessToken.created_by_user_id == user_id, AccessToken.revoked_at.is_(None))
        .values(revoked_at=func.now())
        .returning(AccessToken.id)
    )
    return len(revoked.all())
