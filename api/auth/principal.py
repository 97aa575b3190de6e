"""The signed-in principal: who calls, looked up from what was verified (ARCHITECTURE
"Identity"). A ``Caller`` comes from a verified access token's username; a ``KeyHolder`` from an
API key. Both are plain records loaded with one prebuilt Core query on an autocommit
connection: this runs on every protected request, and loading ORM entities cost more than the
rest of ``GET /web/session`` (bench/api.py).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection

from api.models import Account, AuthType, User


@dataclass(frozen=True, slots=True)
class Caller:
    """The signed-in user and the account every query of the request is scoped to."""

    user_id: uuid.UUID
    first_name: str
    last_name: str
    email: str
    auth_type: AuthType
    elevation_role: str | None
    account_id: uuid.UUID
    account_name: str


@dataclass(frozen=True, slots=True)
class KeyHolder:
    """The account an API key belongs to: what the metering intake needs to count records."""

    account_id: uuid.UUID
    billing_cycle_anchor: datetime


# Built once: the hot path only binds the parameter.
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

_KEY_HOLDER_QUERY = select(Account.id, Account.billing_cycle_anchor).where(
    Account.api_key == bindparam("api_key")
)


async def get_caller(connection: AsyncConnection, identity_id: str) -> Caller | None:
    """The user whose Cognito username is ``identity_id`` (from a verified access token),
    with its account, or None when the identity has no user yet."""
    row = (await connection.execute(_CALLER_QUERY, {"identity_id": identity_id})).first()
    return None if row is None else Caller(*row)


async def get_key_holder(connection: AsyncConnection, api_key: str) -> KeyHolder | None:
    """The account whose API key is ``api_key`` (unique index lookup), or None."""
    row = (await connection.execute(_KEY_HOLDER_QUERY, {"api_key": api_key})).first()
    return None if row is None else KeyHolder(*row)
