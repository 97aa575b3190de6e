"""Cognito access-token verification against the pool's JWKS (ARCHITECTURE "Identity").

Checks the RS256 signature, ``iss``, ``exp``, ``token_use == "access"`` and ``client_id``.
The key set is cached in memory and fetched again only for an unknown ``kid`` (at most once
per ``refetch_interval_s``), so verifying costs no network call. A fetch that fails raises
:class:`IdentityProviderDown` (the caller's token is not known to be bad: 503, not 401) and
starts a backoff (1 s, doubling to 60 s, reset by a success) during which no fetch is tried,
so an outage of the pool is not met with a fetch per request. Verified tokens are cached
until they expire, which skips the RSA check on repeat requests without extending any token's
life (Cognito access tokens cannot be revoked before ``exp`` when verified locally either).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jwt

from api.adapters.cognito import CognitoClient, CognitoUnavailable


class InvalidToken(Exception):
    """The token is malformed, expired, signed by an unknown key or meant for someone else."""


class IdentityProviderDown(Exception):
    """The pool's key set is needed and could not be fetched (now, or within the backoff
    after a failed fetch): the token can be neither trusted nor refused."""


@dataclass(frozen=True, slots=True)
class AccessClaims:
    """What the API uses from an access token.

    ``sub`` is the pool user's immutable id (what sessions are bound to: ``user.identity_sub``);
    ``username`` the Cognito username (our ``user.identity_id``); ``issued_at`` (``iat``) and
    ``expires_at`` (``exp``) are in epoch seconds; ``authenticated_at`` (``auth_time``, epoch
    seconds) is when the user signed in, which refreshed tokens keep (OpenID Connect Core 2);
    0 when the token has none, so no check that needs it passes. ``origin_jti`` names the
    sign-in the token comes from (Cognito stamps it on every token of a sign-in and of its
    refreshes: README "Sessions"); empty when the token has none. ``by_passkey``: the token
    is of the passkey sign-in's app client, which issues tokens for a passkey sign-in only (the
    API alone can use it: docs/users/passkeys.md), and its refreshes keep the client.
    """

    sub: str
    username: str
    issued_at: int
    expires_at: int
    authenticated_at: int = 0
    origin_jti: str = ""
    by_passkey: bool = False


class AccessTokenVerifier:
    """Verify Cognito access tokens locally.

    Args:
        cognito: adapter used only to fetch the JWKS.
        issuer: expected ``iss`` (``https://cognito-idp.<region>.amazonaws.com/<pool id>``).
        client_id: expected ``client_id`` claim (the console's public app client).
        other_client_ids: further app clients of the pool whose access tokens are the
            console's too (the passkey sign-in's confidential client, docs/users/passkeys.md).
        refetch_interval_s: minimum seconds between two JWKS fetches.
        cache_size: verified tokens kept (LRU).
        backoff_initial_s: no fetch for this long after a failed one; doubles with each
            further failure up to ``backoff_max_s``; a success resets it.
        clock: monotonic seconds (tests pass their own).
    """

    def __init__(
        self,
        *,
        cognito: CognitoClient,
        issuer: str,
        client_id: str,
        other_client_ids: tuple[str, ...] = (),
        refetch_interval_s: float = 30.0,
        cache_size: int = 10_000,
        backoff_initial_s: float = 1.0,
        backoff_max_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._cognito = cognito
        self._issuer = issuer
        self._client_ids = frozenset({client_id, *other_client_ids} - {""})
        self._public_client_id = client_id
        self._refetch_interval_s = refetch_interval_s
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched_at = float("-inf")
        self._lock = asyncio.Lock()
        self._verified: OrderedDict[str, AccessClaims] = OrderedDict()
        self._cache_size = cache_size
        self._backoff_initial_s = backoff_initial_s
        self._backoff_max_s = backoff_max_s
        self._backoff_s = 0.0
        self._failed_at = float("-inf")
        self._clock = clock

    async def _key(self, kid: str) -> jwt.PyJWK:
        key = self._keys.get(kid)
        if key is not None:
            return key
        async with self._lock:
            now = self._clock()
            if kid not in self._keys and now - self._fetched_at >= self._refetch_interval_s:
                if now - self._failed_at < self._backoff_s:
                    raise IdentityProviderDown("Signing keys unavailable (backing off)")
                self._keys = await self._fetch()
                self._fetched_at = self._clock()
        key = self._keys.get(kid)
        if key is None:
            raise InvalidToken("Unknown signing key")
        return key

    async def _fetch(self) -> dict[str, jwt.PyJWK]:
        """The pool's keys by ``kid``; a failure starts or lengthens the backoff.

        Raises:
            IdentityProviderDown: unreachable, or an answer that is no key set.
        """
        try:
            jwks = await self._cognito.fetch_jwks()
            keys = {k.key_id: k for k in jwt.PyJWKSet.from_dict(jwks).keys if k.key_id}
        except (CognitoUnavailable, ValueError, TypeError, AttributeError, jwt.PyJWTError) as exc:
            # Unreachable, or an answer that is no key set (not JSON, not a JWKS).
            self._failed_at = self._clock()
            self._backoff_s = min(
                max(self._backoff_s * 2, self._backoff_initial_s), self._backoff_max_s
            )
            raise IdentityProviderDown("Signing keys unavailable") from exc
        self._backoff_s = 0.0
        return keys

    async def verify(self, token: str) -> AccessClaims:
        """Return the token's claims.

        Raises:
            InvalidToken: for any reason the token must not be trusted.
            IdentityProviderDown: the key set is needed and cannot be fetched now.
        """
        now = int(time.time())
        cached = self._verified.get(token)
        if cached is not None:
            if cached.expires_at > now:
                return cached
            del self._verified[token]
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise InvalidToken("Malformed token") from exc
        key = await self._key(str(header.get("kid", "")))
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key=key,
                algorithms=["RS256"],
                issuer=self._issuer,
                options={"require": ["exp", "iat", "iss", "sub"], "verify_aud": False},
            )
        except jwt.PyJWTError as exc:
            raise InvalidToken(str(exc)) from exc
        if claims.get("token_use") != "access" or claims.get("client_id") not in self._client_ids:
            raise InvalidToken("Not an access token of this app client")
        username = claims.get("username") or claims.get("cognito:username")
        if not isinstance(username, str) or not username:
            raise InvalidToken("Token has no username")
        result = AccessClaims(
            sub=str(claims["sub"]),
            username=username,
            issued_at=int(claims["iat"]),
            expires_at=int(claims["exp"]),
            authenticated_at=int(claims.get("auth_time") or 0),
            origin_jti=str(claims.get("origin_jti") or ""),
            by_passkey=claims.get("client_id") != self._public_client_id,
        )
        self._verified[token] = result
        if len(self._verified) > self._cache_size:
            self._verified.popitem(last=False)
        return result
