"""Queries on ``account``: the rename, and the whole Account Information view in one statement."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api.auth.principal import POLICY_COLUMN_COUNT, fetch_acting_row, policy_columns
from api.auth.tokens import AccessClaims
from api.models import Account
from api.usage.service import USAGE_CYCLES_SHOWN


async def rename(db: AsyncSession, account_id: uuid.UUID, name: str) -> str:
    """Set the name of the account ``account_id`` (the caller's own); returns the name it had
    (the row stays locked to the end of the transaction)."""
    before = await db.scalar(select(Account.name).where(Account.id == account_id).with_for_update())
    await db.execute(update(Account).where(Account.id == account_id).values(name=name))
    return before or ""


def _iso(column: str) -> str:
    """SQL for a timestamptz ``column`` written as pydantic writes a UTC datetime (``Z``,
    microseconds only when not zero), or NULL."""
    return f"""to_char({column} AT TIME ZONE 'UTC', CASE
        WHEN extract(microseconds FROM {column})::bigint % 1000000 = 0
        THEN 'YYYY-MM-DD"T"HH24:MI:SS"Z"' ELSE 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"' END)"""


# GET /web/account in one round trip, keyed by the verified token's ``sub`` ($1; $2 is the
# time, $3 the cycles shown), so the caller lookup, with what the sign-in policy reads
# (``api.auth.principal.policy_columns``), is this statement too.
# PostgreSQL builds the response body, exactly the JSON of ``AccountResponse``
# (api/account/schemas.py), and the API sends its bytes as they come. Each part mirrors the
# rule it comes from, and a test holds the two equal for every shape of account
# (tests/api/account/test_account_view.py):
# - usage: ``api.usage.service.usage_by_cycle``: the last 12 billing cycles, oldest first,
#   ending with the one containing :now; a cycle starts at anchor + n months, the day clamped
#   to the month's end (``api.usage.cycles``; PostgreSQL's timestamp + interval clamps the same
#   way), computed in UTC as the API does; zeros where nothing was metered;
# - subscription, billing: ``api.billing.service.subscription_of`` / ``payment_method_of``
#   (no card when ``card_last4`` is null; brand Visa and expiry 0 when unknown; past due only
#   with an amount, in usd when the currency is unknown); times written as pydantic writes a
#   UTC datetime (``Z``, microseconds only when not zero);
# - apiKey: ``api.keys.service.current_masked``, the newest working key, masked;
# - users: ``api.users.service.account_users``, by last name, first name, email, each with
#   its role and its status at :now (``user_status``);
# - sso: ``api.sso.service.sso_of``: the verified domains, by name.
_ACCOUNT_VIEW = f"""
SELECT {policy_columns("caller", "a")},
convert_to(json_build_object('account', json_build_object(
    'id', a.id,
    'name', a.name,
    'apiKey', coalesce((
        SELECT 'ak_…' || k.last4 FROM api_key k
        WHERE k.account_id = a.id AND (k.expires_at IS NULL OR k.expires_at > now())
        ORDER BY k.created_at DESC, k.id LIMIT 1
    ), ''),
    'usage', (
        SELECT json_agg(json_build_object(
            'startMs', floor(extract(epoch FROM c.start) * 1000)::bigint,
            'requests', c.web_credits + c.mobile_credits + c.api_credits,
            'web', json_build_object('runs', c.web_runs, 'credits', c.web_credits),
            'nativeMobile',
                json_build_object('runs', c.mobile_runs, 'credits', c.mobile_credits),
            'api', json_build_object('runs', c.api_runs, 'credits', c.api_credits)
        ) ORDER BY c.start)
        FROM (
            SELECT s.start,
                coalesce(sum(u.runs) FILTER (WHERE u.platform = 'web'), 0) AS web_runs,
                coalesce(sum(u.credits) FILTER (WHERE u.platform = 'web'), 0) AS web_credits,
                coalesce(sum(u.runs) FILTER (WHERE u.platform = 'nativeMobile'), 0)
                    AS mobile_runs,
                coalesce(sum(u.credits) FILTER (WHERE u.platform = 'nativeMobile'), 0)
                    AS mobile_credits,
                coalesce(sum(u.runs) FILTER (WHERE u.platform = 'api'), 0) AS api_runs,
                coalesce(sum(u.credits) FILTER (WHERE u.platform = 'api'), 0) AS api_credits
            FROM (
                SELECT (t.anchor + make_interval(months => i)) AT TIME ZONE 'UTC' AS start
                FROM generate_series(
                    greatest(cur.idx - CAST($3 AS int) + 1, 0), cur.idx
                ) AS i
            ) AS s
            LEFT JOIN usage AS u ON u.account_id = a.id AND u.cycle_start = s.start
            GROUP BY s.start
        ) AS c
    ),
    'subscription', json_build_object(
        'units', a.subscription_units,
        'unitPlanRequests', a.unit_plan_requests,
        'freePlanRequests', a.free_plan_requests,
        'scheduledUnits', a.scheduled_units,
        'scheduledChangeAt', {_iso("a.scheduled_change_at")},
        'paymentFailedAt', {_iso("a.payment_failed_at")},
        'pastDue', CASE WHEN a.past_due_amount IS NOT NULL THEN json_build_object(
            'amountDue', a.past_due_amount,
            'currency', coalesce(a.past_due_currency, 'usd')
        ) END
    ),
    'billing', CASE WHEN a.card_last4 IS NOT NULL THEN json_build_object(
        'brand', coalesce(a.card_brand, 'Visa'),
        'last4', a.card_last4,
        'expMonth', coalesce(a.card_exp_month, 0),
        'expYear', coalesce(a.card_exp_year, 0)
    ) END,
    'users', (
        SELECT json_agg(json_build_object(
            'id', m.id,
            'firstName', m.first_name,
            'lastName', m.last_name,
            'email', m.email,
            'authType', m.auth_type,
            'role', m.role,
            'status', CASE
                WHEN m.invited_at IS NULL OR m.signed_in_at IS NOT NULL THEN 'Active'
                WHEN m.invitation_expires_at IS NULL
                    OR m.invitation_expires_at > CAST($2 AS timestamptz) THEN 'Pending'
                ELSE 'Expired'
            END,
            'invitedAt', {_iso("m.invited_at")},
            'invitationExpiresAt',
                CASE WHEN m.signed_in_at IS NULL THEN {_iso("m.invitation_expires_at")} END
        ) ORDER BY m.last_name, m.first_name, m.email)
        FROM "user" AS m
        WHERE m.account_id = a.id
    ),
    'sso', json_build_object(
        'isGoogleSSO', a.require_google_sso,
        'domains', (
            SELECT coalesce(json_agg(d.domain ORDER BY d.domain), '[]')
            FROM sso_domain AS d
            WHERE d.account_id = a.id AND d.state = 'Verified'
        )
    )
))::text, 'UTF8')
FROM "user" AS caller
JOIN account AS a ON a.id = caller.account_id
CROSS JOIN LATERAL (
    SELECT a.billing_cycle_anchor AT TIME ZONE 'UTC' AS anchor,
           CAST($2 AS timestamptz) AT TIME ZONE 'UTC' AS now
) AS t
CROSS JOIN LATERAL (
    SELECT ((extract(year FROM t.now) - extract(year FROM t.anchor)) * 12
            + extract(month FROM t.now) - extract(month FROM t.anchor))::int AS months
) AS guess
CROSS JOIN LATERAL (
    SELECT greatest(CASE
        WHEN t.anchor + make_interval(months => guess.months) > t.now THEN guess.months - 1
        WHEN t.anchor + make_interval(months => guess.months + 1) <= t.now
            THEN guess.months + 1
        ELSE guess.months
    END, 0) AS idx
) AS cur
WHERE caller.identity_sub = $1
"""  # noqa: S608 - only constant column names go in; values are $n parameters


async def account_view_json(
    read_engine: AsyncEngine, claims: AccessClaims, now: datetime
) -> bytes | None:
    """The ``GET /web/account`` body (``AccountResponse`` as UTF-8 JSON) of the account of the
    user a verified token acts for (its ``sub``), with usage up to the billing cycle
    containing ``now`` (aware), if the sign-in policy lets the token act; None when that
    identity has no user. One statement, one round trip on a connection of ``read_engine``
    (the autocommit engine), sent with asyncpg itself (``api.db.driver_connection``); reads
    ``user``, ``account``, ``usage`` (at most 3 rollup rows per cycle) and ``sso_domain``.

    Raises:
        SignInPolicyRefusal: the policy refuses the token (``api.auth.principal``).
    """
    row = await fetch_acting_row(
        read_engine, claims, _ACCOUNT_VIEW, claims.sub, now, USAGE_CYCLES_SHOWN
    )
    if row is None:
        return None
    body: bytes = row[POLICY_COLUMN_COUNT]
    return body
