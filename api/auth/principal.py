"""The signed-in principal: who calls, looked up from what was verified (ARCHITECTURE
"Identity"). A ``Caller`` comes from a verified access token's username; a ``KeyHolder`` from an
API key. Both are plain records loaded with one prebuilt query on an autocommit connection:
this runs on every protected request, and loading ORM entities cost more than the rest of
``GET /web/session`` (bench/api.py). The caller's is sent with asyncpg directly
(``api.db.driver_connection``): SQLAlchemy's execution layers cost about as much CPU as the
rest of the request.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.db import driver_connection
from api.models import Account, AuthType


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


# Sent as it is with asyncpg (prepared once per connection), the username as $1; the columns
# in ``Caller``'s order.
_CALLER_SQL = """
SELECT u.id, u.first_name, u.last_name, u.email, u.auth_type, u.elevation_role, a.id, a.name
FROM "user" AS u JOIN account AS a ON a.id = u.account_id
WHERE u.identity_id = $1
"""

_KEY_HOLDER_QUERY = select(Account.id, Account.billing_cycle_anchor).where(
    Account.api_key == bindparam("api_key")
)


async def get_caller(read_engine: AsyncEngine, identity_id: str) -> Caller | None:
    """The user whose Cognito username is ``identity_id`` (from a verified access token),
    with its account, or None when the identity has no user yet. One round trip on a
    connection of ``read_engine`` (the autocommit engine)."""
    async with driver_connection(read_engine) as connection:
        row = await connection.fetchrow(_CALLER_SQL, identity_id)
    if row is None:
        return None
    user_id, first, last, email, auth_type, role, account_id, account_name = row
    return Caller(user_id, first, last, email, AuthType(auth_type), role, account_id, account_name)


async def get_key_holder(connection: AsyncConnection, api_key: str) -> KeyHolder | None:
    """The account whose API key is ``api_key`` (unique index lookup), or None."""
    row = (await connection.execute(_KEY_HOLDER_QUERY, {"api_key": api_key})).first()
    return None if row is None else KeyHolder(*row)
