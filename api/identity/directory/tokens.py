"""SCIM tokens in User Management (README "Directory sync (SCIM)"): list, generate (shown
once), revoke. Owners and Admins only (the routes' role dependency); every generation and
revocation is in the audit log. An account holds at most :data:`MAX_TOKENS` live tokens (one
per identity provider, and one more to rotate): each is a standing credential, and the
account's request limit is shared by all of them anyway."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from api.audit import AuditAction, AuditTrail, Target
from api.identity.directory import repository
from api.identity.directory.errors import TooManyScimTokens
from api.identity.directory.schemas import DirectorySync, ScimTokenCreated, ScimTokenView
from api.identity.membership.owner_notices import notify_owners
from api.kernel.errors import NotFound
from api.models import ScimToken, User
from api.principal.principal import Caller
from api.principal.scim_tokens import PREFIX, hash_scim_token, new_scim_token

MAX_TOKENS = 3
"""Live SCIM tokens an account may hold: those whose creator is still a user (a token
whose creator was removed works no more, and does not count)."""


def masked(last4: str) -> str:
    """How the console names a token: ``scim_…a1B2``."""
    return f"{PREFIX}…{last4}"


def _view(token: ScimToken, created_by: str | None) -> ScimTokenView:
    return ScimTokenView(
        id=token.id,
        masked=masked(token.last4),
        created_at=token.created_at,
        created_by=created_by,
        last_used_at=token.last_used_at,
    )


async def directory_sync(
    *, db: AsyncSession, account_id: uuid.UUID, base_url: str
) -> DirectorySync:
    """The base URL and the account's tokens, newest first, with who generated each."""
    tokens = await repository.list_tokens(db, account_id)
    creators = {
        user_id: f"{first} {last}".strip()
        for user_id, first, last in await db.execute(
            select(User.id, User.first_name, User.last_name).where(
                User.id.in_([t.created_by_user_id for t in tokens if t.created_by_user_id])
            )
        )
    }
    return DirectorySync(
        base_url=base_url,
        max_tokens=MAX_TOKENS,
        tokens=[
            _view(t, creators.get(t.created_by_user_id) if t.created_by_user_id else None)
            for t in tokens
        ],
    )


async def generate(*, db: AsyncSession, caller: Caller, audit: AuditTrail) -> ScimTokenCreated:
    """A new token of the caller's account; the secret is returned this once. Every Owner is
    told (``api.identity.membership.owner_notices``).

    Raises: TooManyScimTokens (the account holds :data:`MAX_TOKENS` live tokens; counted with
    the account row locked, so two requests at once cannot both pass)."""
    if await repository.count_live_tokens(db, caller.account_id) >= MAX_TOKENS:
        raise TooManyScimTokens(
            f"An account can have at most {MAX_TOKENS} SCIM tokens. Revoke one you no longer "
            "use first."
        )
    secret = new_scim_token()
    token = ScimToken(
        account_id=caller.account_id,
        token_hash=hash_scim_token(secret),
        last4=secret[-4:],
        created_by_user_id=caller.user_id,
    )
    db.add(token)
    await db.flush()
    await db.refresh(token)
    await audit.record(
        AuditAction.SCIM_TOKEN_CREATED, Target("scim_token", token.id, masked(token.last4))
    )
    name = f"{caller.first_name} {caller.last_name}".strip()
    await notify_owners(
        db,
        account_id=caller.account_id,
        kind=f"scim-token.{token.id}",
        subject="A SCIM token was generated",
        what=(
            f"A SCIM token ({masked(token.last4)}) was generated. Whoever holds it can add, "
            f"change and remove users of the account with the role of its creator, {name} "
            f"({caller.role.value}), until it is revoked."
        ),
        actor=f"{name} <{caller.email}>",
    )
    return ScimTokenCreated(token=_view(token, name), secret=secret)


async def revoke(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, token_id: uuid.UUID
) -> None:
    """Revoke the account's token ``token_id``: the next SCIM request with it is refused (401).

    Raises: NotFound (no such token in the caller's account).
    """
    token = await repository.delete_token(db, caller.account_id, token_id)
    if token is None:
        raise NotFound("SCIM token not found")
    await audit.record(
        AuditAction.SCIM_TOKEN_REVOKED, Target("scim_token", token.id, masked(token.last4))
    )
