"""Queries on ``user``; every tenant query takes the caller's account id."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Row, bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from api.account.models import Account
from api.users.models import AuthType, User


@dataclass(frozen=True, slots=True)
class Caller:
    """The signed-in user and the account every query of the request is scoped to.

    A plain record loaded with one Core query: this runs on every protected request, and
    loading two ORM entities cost more than the rest of ``GET /web/session`` (bench/api.py).
    """

    user_id: uuid.UUID
    first_name: str
    last_name: str
    email: str
    auth_type: AuthType
    elevation_role: str | None
    account_id: uuid.UUID
    account_name: str


# Built once: the hot path only binds the identity id.
_CALLER_QUERY = (
    select(
        User.id,
        User.first_name,
        User.last_name,
        User.email,
        User.auth_type,
        User.elevation_role,
        Account.id,
        Account.name,
    )
    .join(Account, Account.id == User.account_id)
    .where(User.identity_id == bindparam("identity_id"))
)


async def get_caller(connection: AsyncConnection, identity_id: str) -> Caller | None:
    """The user whose Cognito username is ``identity_id``, with its account name.

    Takes a Core connection, not an ORM session: this is the authentication step of every
    protected request, and going through the ORM session tripled its cost (bench/api.py).
    """
    row = (await connection.execute(_CALLER_QUERY, {"identity_id": identity_id})).first()
    return None if row is None else Caller(*row)


async def list_users(
    db: AsyncSession, account_id: uuid.UUID
) -> Sequence[Row[uuid.UUID, str, str, str, AuthType]]:
    """Users of one account (id, names, email, auth type), by last name then first name."""
    result = await db.execute(
        select(User.id, User.first_name, User.last_name, User.email, User.auth_type)
        .where(User.account_id == account_id)
        .order_by(User.last_name, User.first_name, User.email)
    )
    return result.all()
