"""Access token management (README "Automation"): create (the secret shown once), list,
revoke, and the Owner's switch for all of the account's tokens.

A token's scopes never exceed what its creator's role holds when it is made
(``api.principal.roles``: the one permission table), and the role is kept with the token
(``creator_role``), so whatever the token does to members is judged as that role would be:
an Admin's token never touches an Owner. Tokens belong to the account and outlive their
creator; removing a member shows the tokens they made.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from api.audit import AuditAction, AuditTrail, Target
from api.identity.access_tokens import repository
from api.identity.access_tokens.errors import (
    AccessTokenNameTaken,
    AccessTokensTurnedOff,
    ExpiryOutOfRange,
    ScopeBeyondRole,
    TooManyAccessTokens,
)
from api.identity.access_tokens.schemas import (
    AccessTokenCreated,
    AccessTokens,
    AccessTokenView,
    NewAccessToken,
)
from api.kernel.errors import NotFound
from api.models import AccessToken, Account
from api.principal.access_tokens import hash_access_token, masked, new_access_token
from api.principal.principal import Caller
from api.principal.roles import ROLE_PERMISSIONS, Permission

MAX_TOKENS = 50
"""Live (neither revoked nor expired) tokens an account may hold: each is a standing
credential; fifty covers a pipeline per team with room to rotate."""

MAX_LIFETIME = timedelta(days=366)
"""The longest a token may live: a date up to a year from today (366 days, so a year that
holds 29 February still reaches the same day next year)."""


def _status(token: AccessToken, now: datetime) -> str:
    if token.revoked_at is not None:
        return "revoked"
    return "expired" if token.expires_at <= now else "active"


def view(token: AccessToken, creator_present: bool, now: datetime) -> AccessTokenView:
    """The list's view of ``token`` at ``now``."""
    return AccessTokenView(
        id=token.id,
        name=token.name,
        masked=masked(token.last4),
        scopes=sorted(token.scopes),
        created_by=token.created_by_name,
        created_by_user_id=token.created_by_user_id if creator_present else None,
        creator_removed=not creator_present,
        created_at=token.created_at,
        expires_at=token.expires_at,
        revoked_at=token.revoked_at,
        status=_status(token, now),
        last_used_at=token.last_used_at,
        last_used_address=token.last_used_address,
    )


def expiry(expires_on: date, now: datetime) -> datetime:
    """When a token asked for at ``now`` to work through ``expires_on`` expires: that day's
    end, UTC.

    Raises: ExpiryOutOfRange (before tomorrow, or more than a year from today).
    """
    ends = datetime.combine(expires_on + timedelta(days=1), time.min, tzinfo=UTC)
    first, last = now.date() + timedelta(days=1), now.date() + MAX_LIFETIME
    if not first <= expires_on <= last:
        raise ExpiryOutOfRange()
    return ends


async def list_tokens(db: AsyncSession, account_id: uuid.UUID, now: datetime) -> AccessTokens:
    """The account's tokens, newest first, and whether tokens are turned on."""
    account = await db.get_one(Account, account_id)
    return AccessTokens(
        enabled=account.access_tokens_enabled,
        max_tokens=MAX_TOKENS,
        tokens=[
            view(t, present, now) for t, present in await repository.list_tokens(db, account_id)
        ],
    )


async def create(
    *,
    db: AsyncSession,
    caller: Caller,
    audit: AuditTrail,
    request: NewAccessToken,
    now: datetime,
) -> AccessTokenCreated:
    """A new token of the caller's account; the secret is returned this once.

    Raises: ScopeBeyondRole (a scope the caller's role does not hold, named in the message),
    AccessTokensTurnedOff, TooManyAccessTokens (counted with the account row locked, so two
    creations at once cannot both pass), AccessTokenNameTaken, ExpiryOutOfRange.
    """
    held = ROLE_PERMISSIONS[caller.role]
    beyond = sorted(scope for scope in request.scopes if Permission(scope) not in held)
    if beyond:
        raise ScopeBeyondRole(
            f"As {'an' if caller.role.value[0] in 'AEIOU' else 'a'} {caller.role.value} you "
            f"cannot give a token {', '.join(beyond)}."
        )
    expires_at = expiry(request.expires_on, now)
    if not await repository.lock_account(db, caller.account_id):
        raise AccessTokensTurnedOff()
    if await repository.count_live(db, caller.account_id, now) >= MAX_TOKENS:
        raise TooManyAccessTokens(
            f"An account can have at most {MAX_TOKENS} access tokens. Revoke one you no "
            "longer use first."
        )
    if await repository.live_name_taken(db, caller.account_id, request.name, now):
        raise AccessTokenNameTaken(
            f"Another access token is named '{request.name}'. Choose another name."
        )
    secret = new_access_token()
    token = AccessToken(
        account_id=caller.account_id,
        name=request.name,
        token_hash=hash_access_token(secret),
        last4=secret[-4:],
        scopes=sorted(set(request.scopes)),
        creator_role=caller.role,
        created_by_user_id=caller.user_id,
        created_by_name=f"{caller.first_name} {caller.last_name} <{caller.email}>".strip(),
        created_at=now,
        expires_at=expires_at,
    )
    db.add(token)
    await db.flush()
    await audit.record(
        AuditAction.ACCESS_TOKEN_CREATED,
        Target("access_token", token.id, f"{token.name} ({masked(token.last4)})"),
        changes={"scopes": (None, token.scopes), "expiresAt": (None, expires_at.isoformat())},
    )
    return AccessTokenCreated(token=view(token, True, now), secret=secret)


async def revoke(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, token_id: uuid.UUID, now: datetime
) -> None:
    """Revoke the account's token ``token_id``: its next request is refused (401). Revoking a
    revoked token changes nothing and records nothing.

    Raises: NotFound (no such token in the caller's account).
    """
    token = await repository.revoke(db, caller.account_id, token_id, now)
    if token is None:
        raise NotFound("Access token not found")
    if token.revoked_at == now:
        await audit.record(
            AuditAction.ACCESS_TOKEN_REVOKED,
            Target("access_token", token.id, f"{token.name} ({masked(token.last4)})"),
        )


async def set_enabled(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, enabled: bool
) -> None:
    """Turn the account's access tokens on or off; recorded when it changes."""
    before = await repository.set_enabled(db, caller.account_id, enabled)
    if before != enabled:
        await audit.record(
            AuditAction.ACCESS_TOKENS_CHANGED,
            Target("account", caller.account_id, caller.account_name),
            {"enabled": (before, enabled)},
        )
