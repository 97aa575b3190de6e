"""Access tokens as credentials (README "Automation"): their form, checksum and hash.

A token reads ``cat_`` (console access token), then 30 random base62 characters (about 178
bits) and 6 base62 characters of the CRC32 of those 30, as GitHub's tokens are built
(github.blog, "Behind GitHub's new authentication token formats", 2021): the prefix lets a
secret scanner recognise a leaked token, and the checksum lets it (and this API) tell a real
token from a string that merely looks like one without a database lookup. The console stores
only the token's SHA-256 and its last four characters, and shows the secret once.
"""

from __future__ import annotations

import hashlib
import secrets
import string
import uuid
import zlib
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from api.kernel.db import driver_connection
from api.models import AccessToken
from api.principal.errors import (
    AccessTokenExpired,
    AccessTokenRevoked,
    AccessTokensDisabled,
    InvalidAccessToken,
)
from api.principal.last_used import LastUsed
from api.ratelimit import MINUTE_S, Throttle

PREFIX = "cat_"
_ALPHABET = string.digits + string.ascii_uppercase + string.ascii_lowercase
_RANDOM_LENGTH = 30
_CHECKSUM_LENGTH = 6
LENGTH = len(PREFIX) + _RANDOM_LENGTH + _CHECKSUM_LENGTH
"""Every token's length in characters (40)."""

REQUESTS = Throttle("access-token", window_s=MINUTE_S, per_account="ACCESS_TOKEN_LIMIT_PER_MINUTE")
"""Requests per access token per minute, each token its own limit: counted as the throttle's
per-account counter keyed by the token's id (``ThrottleLimits.hit_account``), so one busy
script never spends another's requests. Listed by api/identity/access_tokens/feature.py."""


def _base62(number: int, width: int) -> str:
    digits = []
    while number:
        number, digit = divmod(number, 62)
        digits.append(_ALPHABET[digit])
    return "".join(reversed(digits)).rjust(width, _ALPHABET[0])


def _checksum(random_part: str) -> str:
    return _base62(zlib.crc32(random_part.encode()), _CHECKSUM_LENGTH)


def new_access_token() -> str:
    """A fresh token: ``cat_``, 30 random base62 characters, their 6-character checksum."""
    random_part = "".join(secrets.choice(_ALPHABET) for _ in range(_RANDOM_LENGTH))
    return PREFIX + random_part + _checksum(random_part)


def is_access_token(value: str) -> bool:
    """Whether ``value`` has an access token's form: the prefix, the length, base62 and a
    checksum that matches (a bearer credential that fails this is not looked up)."""
    if len(value) != LENGTH or not value.startswith(PREFIX):
        return False
    body = value[len(PREFIX) :]
    if any(char not in _ALPHABET for char in body):
        return False
    random_part, checksum = body[:_RANDOM_LENGTH], body[_RANDOM_LENGTH:]
    return secrets.compare_digest(_checksum(random_part), checksum)


def hash_access_token(token: str) -> bytes:
    """The token's SHA-256 (32 bytes): what is stored and looked up."""
    return hashlib.sha256(token.encode()).digest()


def masked(last4: str) -> str:
    """How the console names a token it does not reveal: ``cat_…1a2B``."""
    return f"{PREFIX}…{last4}"


@dataclass(frozen=True, slots=True)
class TokenGrant:
    """What an access token may do, as the caller of a request (``Caller.token``): its id and
    name, its scopes (permission names), and who made it (``creator``: 'Name <email>' when it
    was made)."""

    token_id: uuid.UUID
    name: str
    scopes: frozenset[str]
    creator: str

    @property
    def label(self) -> str:
        """How the audit log and the Owners' notices name the token as an actor."""
        return f"Access token '{self.name}' (of {self.creator})"


@dataclass(frozen=True, slots=True)
class FoundToken:
    """An access token found by its hash, with its account and the role its creator had."""

    grant: TokenGrant
    account_id: uuid.UUID
    account_name: str
    creator_role: str


# Sent as it is with asyncpg, the token's SHA-256 as $1: the token, why it may not act (if it
# may not), and its account.
_TOKEN_SQL = """
SELECT t.id, t.name, t.scopes, t.created_by_name, t.creator_role,
       t.revoked_at IS NOT NULL, t.expires_at <= now(), a.access_tokens_enabled, a.id, a.name
FROM access_token AS t JOIN account AS a ON a.id = t.account_id
WHERE t.token_hash = $1
"""  # noqa: S105 - a query, the token's hash is $1
_USES = LastUsed(AccessToken, with_address=True)


async def find_token(read_engine: AsyncEngine, secret: str, address: str) -> FoundToken:
    """The access token ``secret`` names, if it may act now; its use (time and ``address``) is
    written at most once a minute. One indexed read on an autocommit connection of
    ``read_engine``.

    Raises:
        InvalidAccessToken: not a token's form, or no token has it.
        AccessTokenRevoked, AccessTokenExpired: the token's own state.
        AccessTokensDisabled: an Owner turned the account's access tokens off.
    """
    if not is_access_token(secret):
        raise InvalidAccessToken()
    async with driver_connection(read_engine) as connection:
        row = await connection.fetchrow(_TOKEN_SQL, hash_access_token(secret))
    if row is None:
        raise InvalidAccessToken()
    token_id, name, scopes, creator, role, revoked, expired, enabled, account_id, account = row
    if revoked:
        raise AccessTokenRevoked()
    if expired:
        raise AccessTokenExpired()
    if not enabled:
        raise AccessTokensDisabled()
    if _USES.due(token_id):
        async with read_engine.connect() as connection:
            await _USES.record(connection, token_id, address)
    return FoundToken(
        TokenGrant(token_id, name, frozenset(scopes), creator), account_id, account, role
    )
