"""Queries on ``account``: the rename, and the Account Information view in one statement."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api.account.view import VIEW_COLUMNS, since
from api.kernel.db import driver_connection, session_driver_connection
from api.models import Account
from api.principal.principal import (
    POLICY_COLUMN_COUNT,
    fetch_acting_row,
    policy_columns,
    session_join,
)
from api.principal.tokens import AccessClaims


async def rename(db: AsyncSession, account_id: uuid.UUID, name: str) -> str:
    """Set the name of the account ``account_id`` (the caller's own); returns the name it had
    (the row stays locked to the end of the transaction)."""
    before = await db.scalar(select(Account.name).where(Account.id == account_id).with_for_update())
    await db.execute(update(Account).where(Account.id == account_id).values(name=name))
    return before or ""


# GET /web/account in one round trip, keyed by the verified token's ``sub`` ($1; $2 the oldest
# cycle start read; $3 the token's origin_jti): the caller lookup, with what the sign-in policy
# reads (``api.principal.principal.policy_columns``), is this statement too.
_VIEW_BY_SUB = f"""
SELECT {policy_columns("caller", "a")}, {VIEW_COLUMNS}
FROM "user" AS caller
JOIN account AS a ON a.id = caller.account_id
{session_join("caller", "$3")}
WHERE caller.identity_sub = $1
"""  # noqa: S608 - only constant SQL text goes in; values are $n parameters

# The same view of the account $1, for the answer of a change (PUT /web/account).
_VIEW_BY_ID = f"""
SELECT {VIEW_COLUMNS} FROM account AS a WHERE a.id = $1
"""  # noqa: S608 - only constant SQL text goes in; values are $n parameters


async def account_view_row(
    read_engine: AsyncEngine, claims: AccessClaims, now: datetime
) -> Sequence[Any] | None:
    """The values of ``api.account.view.VIEW_COLUMNS`` for the account of the user a verified
    token acts for (its ``sub``), read for a view at ``now`` (aware), if the sign-in policy lets
    the token act; None when that identity has no user. One statement, one round trip on a
    connection of ``read_engine`` (the autocommit engine), sent with asyncpg itself
    (``api.kernel.db.driver_connection``); reads ``user``, ``account``, ``api_key``, ``usage``
    (the rollups of about 13 cycles) and ``sso_domain``.

    Raises:
        SignInPolicyRefusal: the policy refuses the token (``api.principal.principal``).
    """
    row = await fetch_acting_row(
        read_engine, claims, _VIEW_BY_SUB, claims.sub, since(now), claims.origin_jti
    )
    return None if row is None else row[POLICY_COLUMN_COUNT:]


async def account_view_row_of(
    read_engine: AsyncEngine, account_id: uuid.UUID, now: datetime
) -> Sequence[Any]:
    """As :func:`account_view_row` for the account ``account_id`` (an access token's, which
    no sign-in policy applies to), on a connection of ``read_engine``."""
    async with driver_connection(read_engine) as connection:
        row: Sequence[Any] = await connection.fetchrow(_VIEW_BY_ID, account_id, since(now))
    return row


async def account_view_row_in(
    db: AsyncSession, account_id: uuid.UUID, now: datetime
) -> Sequence[Any]:
    """As :func:`account_view_row` for the account ``account_id``, in ``db``'s transaction (so
    it sees the request's own change)."""
    connection = await session_driver_connection(db)
    row: Sequence[Any] = await connection.fetchrow(_VIEW_BY_ID, account_id, since(now))
    return row
