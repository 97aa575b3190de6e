"""The signed-in principal: who calls, looked up from what was verified (ARCHITECTURE
"Identity", README "Security model"). A ``Caller`` comes from a verified access token's ``sub``,
and only if the account's sign-in policy lets that token act now; a ``KeyHolder`` from an API
key. Both are plain records loaded with one prebuilt query on an autocommit connection:
this runs on every protected request, and loading ORM entities cost more than the rest of
``GET /web/session`` (bench/api.py). The caller's is sent with asyncpg directly
(``api.kernel.db.driver_connection``): SQLAlchemy's execution layers cost about as much CPU as the
rest of the request.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, bindparam, func, literal_column, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.kernel.db import driver_connection
from api.kernel.errors import AppError
from api.models import Account, ApiKey, AuthType, Role
from api.models.account import allowance_sql, required_auth_type
from api.principal.access_tokens import FoundToken, TokenGrant
from api.principal.api_keys import hash_api_key, matches
from api.principal.errors import (
    AccessDeactivated,
    GoogleSignInRequired,
    InvitationLapsed,
    SamlConnectionRemoved,
    SamlSignInRequired,
    SessionEnded,
    SignInPolicyRefusal,
    UserRemoved,
)
from api.principal.last_used import LastUsed, RawLastUsed
from api.principal.roles import Permission, authority
from api.principal.tokens import AccessClaims
from api.principal.two_step import enforce_two_step, setup_due_since


@dataclass(frozen=True, slots=True)
class Caller:
    """The signed-in user and the account every query of the request is scoped to, with the
    user's role in it (README "Roles and invitations").

    Or an access token (``token`` set, README "Automation"): ``user_id`` is None (a token is
    nobody's sign-in and outlives its creator), ``first_name`` is the token's name, ``email``
    empty, ``role`` its creator's role when it was made, which its scopes limit
    (:attr:`authority`)."""

    user_id: uuid.UUID | None
    first_name: str
    last_name: str
    email: str
    auth_type: AuthType
    elevation_role: str | None
    account_id: uuid.UUID
    account_name: str
    role: Role
    email_verified: bool
    token: TokenGrant | None = None

    @property
    def authority(self) -> frozenset[Permission]:
        """What the caller may do (``api.principal.roles.authority``)."""
        return authority(self.role, self.token.scopes if self.token else None)

    @classmethod
    def of_token(cls, found: FoundToken) -> Caller:
        """The caller an access token is: its account, its creator's role, its grant."""
        return cls(
            None,
            found.grant.name,
            "",
            "",
            AuthType.EMAIL,
            None,
            found.account_id,
            found.account_name,
            Role(found.creator_role),
            True,
            found.grant,
        )


@dataclass(frozen=True, slots=True)
class KeyHolder:
    """The account an API key belongs to, and the key: what the metering intake needs to
    count records (per account, and per key for the key's use this cycle) and to hold them to
    the spend limits (README "Metering intake"): the key's ``monthly_limit`` (None: none), its
    last four characters (to name it), the plan's ``allowance`` and whether the account stops
    at it."""

    account_id: uuid.UUID
    billing_cycle_anchor: datetime
    key_id: uuid.UUID
    key_last4: str
    monthly_limit: int | None
    allowance: int
    stop_at_allowance: bool


def policy_columns(user: str, account: str) -> str:
    """The SQL select list the sign-in policy reads (:func:`enforce_policy`), for a statement
    where ``user`` and ``account`` alias the caller's ``"user"`` and ``account`` rows and
    ``session`` the token's sign-in session (:func:`session_join`): the caller lookup here, and
    ``GET /web/account``'s one statement, which finds its caller by the token's ``sub`` too.
    Columns as stored: every rule over them is Python's (:func:`enforce_policy`), written once
    for the request and for rows already loaded."""
    return f"""{account}.require_google_sso, {account}.require_saml_sso, {user}.auth_type,
       {user}.deactivated_at, {user}.signed_in_at, {user}.invitation_expires_at,
       {user}.tokens_valid_after, {user}.two_step_reset_at, {user}.two_step_enabled_at,
       {account}.two_step_required_at, session.id, session.ended_at"""


def session_join(user: str, origin_jti: str) -> str:
    """The join that finds the token's sign-in session (README "Sessions") as ``session``, by
    the token's ``origin_jti`` (the statement's parameter ``origin_jti``, e.g. ``$2``) and the
    pool user of ``user`` (unique index): none for a token of a sign-in the console never
    recorded."""
    return (
        f"LEFT JOIN sign_in_session AS session ON session.origin_jti = {origin_jti} "
        f"AND session.identity_sub = {user}.identity_sub"
    )


# What the policy answers a user who signs in some other way than the account requires.
_REQUIRED: dict[str, type[SignInPolicyRefusal]] = {
    AuthType.GOOGLE_SSO.value: GoogleSignInRequired,
    AuthType.SAML_SSO.value: SamlSignInRequired,
}
POLICY_COLUMN_COUNT = 12
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


# Sent as it is with asyncpg (prepared once per connection), the token's sub as $1 and its
# origin_jti as $2: what the sign-in policy reads, then the columns of ``Caller``.
_CALLER_SQL = f"""
SELECT {policy_columns("u", "a")},
       u.id, u.first_name, u.last_name, u.email, u.auth_type, u.elevation_role, a.id, a.name,
       u.role, u.email_verified
FROM "user" AS u JOIN account AS a ON a.id = u.account_id
{session_join("u", "$2")}
WHERE u.identity_sub = $1
"""  # noqa: S608 - constant column names only; the values are $1 and $2

# Why a verified token matches no user, first match wins: the pool user was removed from an
# account ($1, its sub: 'removed' and the account's name); it is the SAML identity of a user
# whose account removed its SAML connection ('saml_removed'); a user of that username is bound
# to another pool user now ($2: 'rebound') — the token is of an earlier pool user of the same
# username, or of the password user (username: the email) whom a SAML sign-in linked to its
# identity since. None: an identity with no account yet.
_NO_USER_SQL = """
(SELECT 'removed', a.name FROM removed_identity AS r JOIN account AS a ON a.id = r.account_id
 WHERE r.identity_sub = $1 ORDER BY r.removed_at DESC LIMIT 1)
UNION ALL
(SELECT 'saml_removed', NULL FROM "user" WHERE retired_identity_sub = $1 LIMIT 1)
UNION ALL
(SELECT 'rebound', NULL FROM "user" WHERE identity_id = $2 OR lower(email) = lower($2))
LIMIT 1
"""

# A working key by its SHA-256 (unique index), with its account (README "API keys").
_KEY_HOLDER_QUERY = (
    select(
        Account.id,
        Account.billing_cycle_anchor,
        ApiKey.id,
        ApiKey.last4,
        ApiKey.monthly_limit,
        literal_column(allowance_sql("account"), BigInteger),
        Account.stop_at_allowance,
        ApiKey.key_hash,
    )
    .join(Account, Account.id == ApiKey.account_id)
    .where(
        ApiKey.key_hash == bindparam("key_hash"),
        or_(ApiKey.expires_at.is_(None), ApiKey.expires_at > func.now()),
    )
)
_KEY_USES = LastUsed(ApiKey)
_SESSION_ID, _SESSION_ENDED = POLICY_COLUMN_COUNT - 2, POLICY_COLUMN_COUNT - 1
SESSION_ACTIVITY = RawLastUsed("sign_in_session", "last_active_at")
"""A session's latest request (README "Sessions"), written at most once a minute."""


def enforce_policy(
    claims: AccessClaims, values: Sequence[Any], *, setting_up_two_step: bool = False
) -> None:
    """The sign-in policy (README "Security model"), on the values of :func:`policy_columns`
    (the caller's row as stored).
    In order: the account requires a way of signing in (Google or its SAML connection, SPEC 4
    "SSO setting") and the user signs in another way; the user's access is turned off; an
    invitee's invitation lapsed before their first sign-in; the token was issued before the
    user's ``tokens_valid_after`` (whole seconds, as ``iat``) or its sign-in session ended
    (README "Sessions": every token of the session, whenever issued); the user must set up two-step
    sign-in (``api.principal.two_step``: only a request that sets it up, ``setting_up_two_step``,
    may go on, with a token of a sign-in since).

    Raises:
        GoogleSignInRequired, SamlSignInRequired, AccessDeactivated, InvitationLapsed,
        SessionEnded, TwoStepSignInRequired, TwoStepSetupRequired (all 401).
    """
    (
        require_google,
        require_saml,
        auth_type,
        deactivated_at,
        signed_in_at,
        invitation_expires_at,
        valid_after,
        reset_at,
        enabled_at,
        two_step_required_at,
        _session_id,
        session_ended_at,
    ) = values
    if require_google or require_saml:
        required = required_auth_type(
            require_google_sso=require_google, require_saml_sso=require_saml
        )
        if required is not None and auth_type != required:
            raise _REQUIRED[required]()
    if deactivated_at is not None:
        raise AccessDeactivated()
    if (
        signed_in_at is None
        and invitation_expires_at is not None
        and invitation_expires_at <= datetime.now(UTC)
    ):
        raise InvitationLapsed()
    # ``tokens_valid_after`` is a whole second (api/principal/sessions.py), as ``iat`` is.
    if valid_after is not None and claims.issued_at < (valid_after - _EPOCH).total_seconds():
        raise SessionEnded()
    if session_ended_at is not None:
        raise SessionEnded()
    two_step = setup_due_since(auth_type, reset_at, enabled_at, two_step_required_at)
    enforce_two_step(claims, two_step, setting_up=setting_up_two_step)


async def explain_missing_user(connection: Any, claims: AccessClaims) -> AppError | None:
    """Why no user matches a verified token, on an asyncpg ``connection``: the refusal to
    raise (UserRemoved when its pool user was removed from an account; SamlConnectionRemoved
    when it is the SAML identity of a user whose account removed the connection; SessionEnded
    when the user of its username, or of that email, is bound to another pool user now), or
    None for an identity with no account yet (SPEC 4 needsAccount)."""
    why = await connection.fetchrow(_NO_USER_SQL, claims.sub, claims.username)
    if why is None:
        return None
    kind, account_name = why
    if kind == "removed":
        return UserRemoved.from_account(account_name)
    return SamlConnectionRemoved() if kind == "saml_removed" else SessionEnded()


async def fetch_acting_row(
    read_engine: AsyncEngine,
    claims: AccessClaims,
    sql: str,
    *args: Any,
    setting_up_two_step: bool = False,
) -> Sequence[Any] | None:
    """Run ``sql`` (one row whose first :data:`POLICY_COLUMN_COUNT` columns are
    :func:`policy_columns` of the token's user, found by ``sub``) and apply the sign-in policy
    to it: the row when the token may act, None when its identity has no user yet.

    Raises: as :func:`enforce_policy`, and UserRemoved / SamlConnectionRemoved / SessionEnded
    when no user matches (:func:`explain_missing_user`).
    """
    # Refusals are raised outside the block: an exception inside it discards the connection.
    async with driver_connection(read_engine) as connection:
        row = await connection.fetchrow(sql, *args)
        missing = await explain_missing_user(connection, claims) if row is None else None
        if row is not None and row[_SESSION_ENDED] is None and row[_SESSION_ID] is not None:
            await SESSION_ACTIVITY.record(connection, row[_SESSION_ID])
    if row is None:
        if missing is not None:
            raise missing
        return None
    enforce_policy(claims, row[:POLICY_COLUMN_COUNT], setting_up_two_step=setting_up_two_step)
    result: Sequence[Any] = row
    return result


async def get_caller(
    read_engine: AsyncEngine, claims: AccessClaims, *, setting_up_two_step: bool = False
) -> Caller | None:
    """The user a verified access token acts for, with its account, if the account's sign-in
    policy lets the token act now; None when the identity has no user yet (a federated
    identity choosing an account, SPEC 4 needsAccount). ``setting_up_two_step``: the request
    sets up two-step sign-in, which a user who must do so may (``api.principal.two_step``).

    One indexed read by the token's ``sub`` on a connection of ``read_engine`` (the
    autocommit engine); a second only when no user matches, to tell why.

    Raises:
        GoogleSignInRequired, SamlSignInRequired, AccessDeactivated, InvitationLapsed,
            SessionEnded, TwoStepSignInRequired, TwoStepSetupRequired: the policy refuses the
            token (:func:`enforce_policy`; all 401).
        UserRemoved, SamlConnectionRemoved, SessionEnded: no user matches and
            :func:`explain_missing_user` says why.
    """
    row = await fetch_acting_row(
        read_engine,
        claims,
        _CALLER_SQL,
        claims.sub,
        claims.origin_jti,
        setting_up_two_step=setting_up_two_step,
    )
    if row is None:
        return None
    user_id, first, last, email, auth_type, elevation, account_id, account_name, role, verified = (
        row[POLICY_COLUMN_COUNT:]
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
    if row is None or not matches(row[-1], api_key):
        return None
    holder = KeyHolder(*row[:-1])
    await _KEY_USES.record(connection, holder.key_id)
    return holder
