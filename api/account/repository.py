"""Queries on ``account``: the rename, and the whole Account Information view in one statement."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api.billing.account_view import payment_method_sql, subscription_sql
from api.identity.mfa.account_view import requires_two_step_sql
from api.identity.sso.account_view import sso_sql
from api.identity.users.account_view import account_users_sql
from api.keys.account_view import current_masked_sql
from api.models import Account
from api.principal.principal import POLICY_COLUMN_COUNT, fetch_acting_row, policy_columns
from api.principal.tokens import AccessClaims
from api.usage.account_view import usage_by_cycle_sql
from api.usage.cycles import USAGE_CYCLES_SHOWN


async def rename(db: AsyncSession, account_id: uuid.UUID, name: str) -> str:
    """Set the name of the account ``account_id`` (the caller's own); returns the name it had
    (the row stays locked to the end of the transaction)."""
    before = await db.scalar(select(Account.name).where(Account.id == account_id).with_for_update())
    await db.execute(update(Account).where(Account.id == account_id).values(name=name))
    return before or ""


# GET /web/account in one round trip, keyed by the verified token's ``sub`` ($1; $2 is the
# time, $3 the cycles shown), so the caller lookup, with what the sign-in policy reads
# (``api.principal.principal.policy_columns``), is this statement too.
# PostgreSQL builds the response body, exactly the JSON of ``AccountResponse``
# (api/account/schemas.py), and the API sends its bytes as they come. Each domain writes its
# part next to its other rules; this statement only composes them, and a test holds the whole
# equal to ``account_summary``'s composition for every shape of account
# (tests/api/account/test_account_view.py).
_NOW = "CAST($2 AS timestamptz)"
_ACCOUNT_VIEW = f"""
SELECT {policy_columns("caller", "a")},
convert_to(json_build_object('account', json_build_object(
    'id', a.id,
    'name', a.name,
    'apiKey', {current_masked_sql("a.id")},
    'usage', {usage_by_cycle_sql("a.id", "a.billing_cycle_anchor", _NOW, "CAST($3 AS int)")},
    'subscription', {subscription_sql("a", _NOW)},
    'billing', {payment_method_sql("a")},
    'users', {account_users_sql("a.id", _NOW)},
    'sso', {sso_sql("a")},
    'requireTwoStepSignIn', {requires_two_step_sql("a")}
))::text, 'UTF8')
FROM "user" AS caller
JOIN account AS a ON a.id = caller.account_id
WHERE caller.identity_sub = $1
"""  # noqa: S608 - only constant SQL text goes in; values are $n parameters


async def account_view_json(
    read_engine: AsyncEngine, claims: AccessClaims, now: datetime
) -> bytes | None:
    """The ``GET /web/account`` body (``AccountResponse`` as UTF-8 JSON) of the account of the
    user a verified token acts for (its ``sub``), with usage up to the billing cycle
    containing ``now`` (aware), if the sign-in policy lets the token act; None when that
    identity has no user. One statement, one round trip on a connection of ``read_engine``
    (the autocommit engine), sent with asyncpg itself (``api.kernel.db.driver_connection``); reads
    ``user``, ``account``, ``api_key``, ``usage`` (at most 3 rollup rows per cycle) and
    ``sso_domain``.

    Raises:
        SignInPolicyRefusal: the policy refuses the token (``api.principal.principal``).
    """
    row = await fetch_acting_row(
        read_engine, claims, _ACCOUNT_VIEW, claims.sub, now, USAGE_CYCLES_SHOWN
    )
    if row is None:
        return None
    body: bytes = row[POLICY_COLUMN_COUNT]
    return body
