"""Queries of the SCIM service and its tokens; every one takes the token's (or caller's)
account id, except the address lookups, which span accounts because an email (and a password
user's Cognito username) is unique across them."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

from sqlalchemy import ColumnElement, delete, exists, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import (
    Account,
    AuthType,
    DirectoryGroup,
    DirectoryGroupMember,
    DomainState,
    Role,
    ScimToken,
    SsoDomain,
    User,
)


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


async def address_in_use(db: AsyncSession, email: str, other_than: uuid.UUID | None) -> bool:
    """Whether a user of any account other than ``other_than`` holds ``email`` (any case):
    as their email, or as the Cognito username of a password user (the address they were
    created with, which stays their username after a directory renamed them)."""
    holder = select(User.id).where(
        or_(
            func.lower(User.email) == email.lower(),
            (User.identity_id == email.lower()) & (User.auth_type == AuthType.EMAIL),
        )
    )
    if other_than is not None:
        holder = holder.where(User.id != other_than)
    return bool(await db.scalar(select(exists(holder))))


async def verified_domains(db: AsyncSession, account_id: uuid.UUID) -> list[str]:
    """The account's verified domains (lowercase), sorted."""
    result = await db.scalars(
        select(SsoDomain.domain)
        .where(SsoDomain.account_id == account_id, SsoDomain.state == DomainState.VERIFIED)
        .order_by(SsoDomain.domain)
    )
    return list(result.all())


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


# ---------------------------------------------------------------- the directory's groups


async def count_groups(
    db: AsyncSession, account_id: uuid.UUID, condition: ColumnElement[bool]
) -> int:
    """How many of the account's groups meet ``condition``."""
    total = await db.scalar(
        select(func.count())
        .select_from(DirectoryGroup)
        .where(DirectoryGroup.account_id == account_id, condition)
    )
    return int(total or 0)


async def list_groups(
    db: AsyncSession,
    account_id: uuid.UUID,
    condition: ColumnElement[bool],
    *,
    offset: int,
    limit: int,
) -> Sequence[DirectoryGroup]:
    """A page of the account's groups meeting ``condition``, in a stable order (when they
    were made, then id)."""
    result = await db.scalars(
        select(DirectoryGroup)
        .where(DirectoryGroup.account_id == account_id, condition)
        .order_by(DirectoryGroup.created_at, DirectoryGroup.id)
        .offset(offset)
        .limit(limit)
    )
    return result.all()


async def groups_with_counts(
    db: AsyncSession, account_id: uuid.UUID
) -> list[tuple[DirectoryGroup, int]]:
    """Every group of the account with its number of members, by name."""
    members = (
        select(func.count())
        .where(
            DirectoryGroupMember.account_id == DirectoryGroup.account_id,
            DirectoryGroupMember.group_id == DirectoryGroup.id,
        )
        .scalar_subquery()
    )
    rows = await db.execute(
        select(DirectoryGroup, members)
        .where(DirectoryGroup.account_id == account_id)
        .order_by(func.lower(DirectoryGroup.display_name), DirectoryGroup.id)
    )
    return [(group, int(count)) for group, count in rows.all()]


async def group_in_account(
    db: AsyncSession, account_id: uuid.UUID, group_id: str, *, for_update: bool = False
) -> DirectoryGroup | None:
    """The account's group ``group_id`` (its row locked with ``for_update``)."""
    query = select(DirectoryGroup).where(
        DirectoryGroup.account_id == account_id, DirectoryGroup.id == group_id
    )
    return await db.scalar(query.with_for_update() if for_update else query)


async def group_named(
    db: AsyncSession, account_id: uuid.UUID, display_name: str
) -> DirectoryGroup | None:
    """The account's group named ``display_name``, in any case."""
    return await db.scalar(
        select(DirectoryGroup).where(
            DirectoryGroup.account_id == account_id,
            func.lower(DirectoryGroup.display_name) == display_name.lower(),
        )
    )


async def members_of(
    db: AsyncSession, account_id: uuid.UUID, group_ids: Sequence[str]
) -> dict[str, list[tuple[User, str | None]]]:
    """The members of each of the account's groups ``group_ids``, with the ``display`` the
    directory sent for each, by when they were added to the console."""
    rows = await db.execute(
        select(DirectoryGroupMember.group_id, User, DirectoryGroupMember.display)
        .join(User, User.id == DirectoryGroupMember.user_id)
        .where(
            DirectoryGroupMember.account_id == account_id,
            DirectoryGroupMember.group_id.in_(group_ids),
        )
        .order_by(User.created_at, User.id)
    )
    members: dict[str, list[tuple[User, str | None]]] = {group_id: [] for group_id in group_ids}
    for group_id, user, display in rows:
        members[group_id].append((user, display))
    return members


async def add_members(
    db: AsyncSession, account_id: uuid.UUID, group_id: str, members: Mapping[uuid.UUID, str | None]
) -> None:
    """Put ``members`` (users of the account, with the ``display`` sent for each) in the
    group."""
    if members:
        await db.execute(
            insert(DirectoryGroupMember),
            [
                {"account_id": account_id, "group_id": group_id, "user_id": user_id, "display": d}
                for user_id, d in members.items()
            ],
        )


async def set_display(
    db: AsyncSession, account_id: uuid.UUID, group_id: str, user_id: uuid.UUID, display: str | None
) -> None:
    """Keep the ``display`` the directory now sends for a member of the group."""
    await db.execute(
        update(DirectoryGroupMember)
        .where(
            DirectoryGroupMember.account_id == account_id,
            DirectoryGroupMember.group_id == group_id,
            DirectoryGroupMember.user_id == user_id,
        )
        .values(display=display)
    )


async def remove_members(
    db: AsyncSession, account_id: uuid.UUID, group_id: str, user_ids: Sequence[uuid.UUID]
) -> None:
    """Take ``user_ids`` out of the group."""
    if user_ids:
        await db.execute(
            delete(DirectoryGroupMember).where(
                DirectoryGroupMember.account_id == account_id,
                DirectoryGroupMember.group_id == group_id,
                DirectoryGroupMember.user_id.in_(user_ids),
            )
        )


async def mapped_roles(
    db: AsyncSession, account_id: uuid.UUID, user_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, list[Role]]:
    """The roles the mapped groups of each of ``user_ids`` give (a user in no mapped group is
    left out)."""
    rows = await db.execute(
        select(DirectoryGroupMember.user_id, DirectoryGroup.role)
        .join(
            DirectoryGroup,
            (DirectoryGroup.account_id == DirectoryGroupMember.account_id)
            & (DirectoryGroup.id == DirectoryGroupMember.group_id),
        )
        .where(
            DirectoryGroupMember.account_id == account_id,
            DirectoryGroupMember.user_id.in_(user_ids),
            DirectoryGroup.role.is_not(None),
        )
    )
    roles: dict[uuid.UUID, list[Role]] = {}
    for user_id, role in rows:
        if role is not None:
            roles.setdefault(user_id, []).append(role)
    return roles


async def delete_group(db: AsyncSession, account_id: uuid.UUID, group_id: str) -> None:
    """Delete the account's group (its memberships go with it)."""
    await db.execute(
        delete(DirectoryGroup).where(
            DirectoryGroup.account_id == account_id, DirectoryGroup.id == group_id
        )
    )


async def count_live_tokens(db: AsyncSession, account_id: uuid.UUID) -> int:
    """How many of the account's SCIM tokens still have their creator, the account row locked
    (``FOR UPDATE``) until the transaction ends: generations are counted one at a time."""
    await db.execute(select(Account.id).where(Account.id == account_id).with_for_update())
    total = await db.scalar(
        select(func.count())
        .select_from(ScimToken)
        .where(ScimToken.account_id == account_id, ScimToken.created_by_user_id.is_not(None))
    )
    return int(total or 0)


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
