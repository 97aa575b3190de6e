"""The signed-in principal: who calls, looked up from what was verified (ARCHITECTURE
"Identity"). A ``Caller`` comes from a verified access token's username; a ``KeyHolder`` from an
API key. Both are plain records loaded with one prebuilt query on an autocommit connection:
this runs on every protected request, and loading ORM entities cost more than the rest of
``GET /web/session`` (bench/api.py). The caller's is sent with asyncpg directly
(``api.db.driver_connection``): SQLAlchemy's execution layers cost about as much CPU as the
rest of the request.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, func, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.auth.api_keys import hash_api_key, matches
from api.db import driver_connection
from api.models import Account, ApiKey, AuthType, Role


@dataclass(frozen=True, slots=True)
class Caller:
    """The signed-in user and the account every query of the request is scoped to, with the
    user's role in it (issue 15)."""

    user_id: uuid.UUID
    first_name: str
    last_name: str
    email: str
    auth_type: AuthType
    elevation_role: str | None
    account_id: uuid.UUID
    account_name: str
    role: Role
    email_verified: bool


@dataclass(frozen=True, slots=True)
class KeyHolder:
    """The account an API key belongs to, and the key: what the metering intake needs to
    count records (per account, and per key for the key's use this cycle)."""

    account_id: uuid.UUID
    billing_cycle_anchor: datetime
    key_id: uuid.UUID


# Sent as it is with asyncpg (prepared once per connection), the username as $1; the columns
# in ``Caller``'s order.
_CALLER_SQL = """
SELECT u.id, u.first_name, u.last_name, u.email, u.auth_type, u.elevation_role, a.id, a.name,
       u.role, u.email_verified
FROM "user" AS u JOIN account AS a ON a.id = u.account_id
WHERE u.identity_id = $1
"""

# A working key by its SHA-256 (unique index), with its account (issue 14).
_KEY_HOLDER_QUERY = (
    select(Account.id, Account.billing_cycle_anchor, ApiKey.id, ApiKey.key_hash)
    .join(Account, Account.id == ApiKey.account_id)
    .where(
        ApiKey.key_hash == bindparam("key_hash"),
        or_(ApiKey.expires_at.is_(None), ApiKey.expires_at > func.now()),
    )
)
# At most once a minute per key in the database, whichever replica asks.
_TOUCH_KEY = (
    update(ApiKey)
    .where(
        ApiKey.id == bindparam("key_id"),
        or_(
            ApiKey.last_used_at.is_(None),
            ApiKey.last_used_at < func.now() - text("interval '1 minute'"),
        ),
    )
    .values(last_used_at=func.now())
)
LAST_USED_EVERY_S = 60.0
_last_touched: dict[uuid.UUID, float] = {}


async def get_caller(read_engine: AsyncEngine, identity_id: str) -> Caller | None:
    """The user whose Cognito username is ``identity_id`` (from a verified access token),
    with its account, or None when the identity has no user yet. One round trip on a
    connection of ``read_engine`` (the autocommit engine)."""
    async with driver_connection(read_engine) as connection:
        row = await connection.fetchrow(_CALLER_SQL, identity_id)
    if row is None:
        return None
    user_id, first, last, email, auth_type, elevation, account_id, account_name, role, verified = (
        row
    )
    return Caller(
        user_id,
        first,
        last,
        email,
        AuthType(auth_type),
        elevation,
        account_id,
        account_name,
        Role(role),
        verified,
    )


async def get_key_holder(connection: AsyncConnection, api_key: str) -> KeyHolder | None:
    """The account whose working API key is ``api_key`` (looked up by its SHA-256, compared
    in constant time), or None. Records the key's use (``last_used_at``) at most once a
    minute per key: this process skips the write within the minute, and the statement's own
    condition holds it across replicas."""
    key_hash = hash_api_key(api_key)
    row = (await connection.execute(_KEY_HOLDER_QUERY, {"key_hash": key_hash})).first()
    if row is None or not matches(row[3], api_key):
        return None
    account_id, anchor, key_id, _ = row
    now = time.monotonic()
    if now - _last_touched.get(key_id, -LAST_USED_EVERY_S) >= LAST_USED_EVERY_S:
        _last_touched[key_id] = now
        await connection.execute(_TOUCH_KEY, {"key_id": key_id})
    return KeyHolder(account_id, anchor, key_id)
