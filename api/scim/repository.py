"""Queries of the SCIM service and its tokens; every one takes the token's (or caller's)
account id, except the email lookup, which spans accounts because an email is unique across
them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import Role, ScimToken, User


async def count_users(
    db: AsyncSession, account_id: uuid.UUID, condition: ColumnElement[bool]
) -> int:
    """How many users of the account meet ``condition``."""
    total = await db.scalar(
        select(func.count()).select_from(User).where(User.account_id == account_id, condition)
    )
    return int(total or 0)


async def list_users(
    db: AsyncSession,
    account_id: uuid.UUID,
    condition: ColumnElement[bool],
    *,
    offset: int,
    limit: int,
) -> Sequence[User]:
    """A page of the account's users meeting ``condition``, in a stable order (when they were
    added, then id): SCIM pages by position (RFC 7644 3.4.2.4)."""
    result = await db.scalars(
        select(User)
        .where(User.account_id == account_id, condition)
        .order_by(User.created_at, User.id)
        .offset(offset)
        .limit(limit)
    )
    return result.all()


async def user_in_account(
    db: AsyncSession, account_id: uuid.UUID, user_id: uuid.UUID, *, for_update: bool = False
) -> User | None:
    """The user ``user_id`` if it belongs to the account (its row locked with
    ``for_update``)."""
    query = select(User).where(User.id == user_id, User.account_id == account_id)
    return await db.scalar(query.with_for_update() if for_update else query)


async def users_in_account(
    db: AsyncSession, account_id: uuid.UUID, user_ids: Sequence[uuid.UUID]
) -> Sequence[User]:
    """The users of the account among ``user_ids``, their rows locked (``FOR UPDATE``)."""
    result = await db.scalars(
        select(User)
        .where(User.account_id == account_id, User.id.in_(user_ids))
        .order_by(User.id)
        .with_for_update()
    )
    return result.all()


async def user_with_email(db: AsyncSession, email: str) -> User | None:
    """The user of any account whose email is ``email`` (any case)."""
    return await db.scalar(select(User).where(func.lower(User.email) == email.lower()))


async def user_with_user_name(
    db: AsyncSession, account_id: uuid.UUID, user_name: str, user_name_of: ColumnElement[str]
) -> User | None:
    """The user of the account whose SCIM ``userName`` (``user_name_of``) is ``user_name``,
    case-insensitively."""
    return await db.scalar(
        select(User).where(
            User.account_id == account_id, func.lower(user_name_of) == user_name.lower()
        )
    )


async def users_with_role(db: AsyncSession, account_id: uuid.UUID, role: Role) -> Sequence[User]:
    """The account's users of ``role``, by when they were added."""
    result = await db.scalars(
        select(User)
        .where(User.account_id == account_id, User.role == role)
        .order_by(User.created_at, User.id)
    )
    return result.all()


async def list_tokens(db: AsyncSession, account_id: uuid.UUID) -> Sequence[ScimToken]:
    """The account's SCIM tokens, newest first."""
    result = await db.scalars(
        select(ScimToken)
        .where(ScimToken.account_id == account_id)
        .order_by(ScimToken.created_at.desc(), ScimToken.id)
    )
    return result.all()


async def delete_token(
    db: AsyncSession, account_id: uuid.UUID, token_id: uuid.UUID
) -> ScimToken | None:
    """Delete the account's token ``token_id``; the deleted row, or None when there is none."""
    token = await db.scalar(
        select(ScimToken).where(ScimToken.id == token_id, ScimToken.account_id == account_id)
    )
    if token is not None:
        await db.execute(delete(ScimToken).where(ScimToken.id == token.id))
    return token
