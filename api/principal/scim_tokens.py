"""SCIM bearer tokens as credentials (README "Directory sync (SCIM)"): their form, and the
account a token speaks for. Stored as their SHA-256 and compared in constant time, the way API
keys are (``api.principal.api_keys``); unlike a key, a token is shown once and never again, so
nothing else of it is kept but its last four characters.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection

from api.models import Role, ScimToken, User
from api.principal.api_keys import hash_api_key, matches
from api.principal.errors import ScimTokenCreatorLeft
from api.principal.last_used import LastUsed
from api.principal.roles import OWNERS_AND_ADMINS

PREFIX = "scim_"


def new_scim_token() -> str:
    """A fresh token: ``scim_`` and 43 URL-safe characters (256 random bits)."""
    return PREFIX + secrets.token_urlsafe(32)


def hash_scim_token(token: str) -> bytes:
    """The token's SHA-256 (32 bytes), what is stored and looked up."""
    return hash_api_key(token)


@dataclass(frozen=True, slots=True)
class DirectoryClient:
    """Who calls the SCIM service: the account's identity provider, by the token it holds,
    acting with the authority of the user who generated it (README "Directory sync (SCIM)"):
    ``creator_role`` is that user's current role (an Owner or an Admin), ``creator_id`` and
    ``creator_name`` who they are."""

    account_id: uuid.UUID
    token_id: uuid.UUID
    creator_id: uuid.UUID
    creator_role: Role
    creator_name: str


_TOKEN_QUERY = (
    select(
        ScimToken.account_id,
        ScimToken.id,
        ScimToken.token_hash,
        User.id,
        User.role,
        User.deactivated_at,
        User.first_name,
        User.last_name,
        User.email,
    )
    .outerjoin(User, User.id == ScimToken.created_by_user_id)
    .where(ScimToken.token_hash == bindparam("token_hash"))
)
_TOKEN_USES = LastUsed(ScimToken)


async def get_directory_client(connection: AsyncConnection, token: str) -> DirectoryClient | None:
    """The account whose SCIM token is ``token`` (looked up by its SHA-256, compared in
    constant time), or None. Records the token's use (``last_used_at``) at most once a minute
    per token (this process skips the write within the minute; the statement's own condition
    holds it across replicas).

    Raises:
        ScimTokenCreatorLeft: the user who generated the token was removed, deactivated, or is
            no longer an Owner or Admin; the token stops with their authority (401).
    """
    digest = hash_scim_token(token)
    row = (await connection.execute(_TOKEN_QUERY, {"token_hash": digest})).first()
    if row is None or not matches(row[2], token):
        return None
    account_id, token_id, _, creator_id, role, deactivated_at, first, last, email = row
    if creator_id is None or deactivated_at is not None or role not in OWNERS_AND_ADMINS:
        raise ScimTokenCreatorLeft()
    await _TOKEN_USES.record(connection, token_id)
    return DirectoryClient(
        account_id, token_id, creator_id, role, f"{first} {last} <{email}>".strip()
    )
