"""Cognito access-token verification against the pool's JWKS (ARCHITECTURE "Identity").

Checks the RS256 signature, ``iss``, ``exp``, ``token_use == "access"`` and ``client_id``.
The key set is cached in memory and fetched again only for an unknown ``kid`` (at most once
per ``refetch_interval_s``), so verifying costs no network call. Verified tokens are cached
until they expire, which skips the RSA check on repeat requests without extending any token's
life (Cognito access tokens cannot be revoked before ``exp`` when verified locally either).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import jwt

from api.adapters.cognito import CognitoClient, CognitoUnavailable


class InvalidToken(Exception):
    """The token is malformed, expired, signed by an unknown key or meant for someone else."""


@dataclass(frozen=True, slots=True)
class AccessClaims:
    """What the API uses from an access token.

    ``sub`` is the pool user's immutable id (what sessions are bound to: ``user.identity_sub``);
    ``username`` the Cognito username (our ``user.identity_id``); ``issued_at`` (``iat``) and
    ``expires_at`` (``exp``) are in epoch seconds.
    """

    sub: str
    username: str
    issued_at: int
    expires_at: int


class AccessTokenVerifier:
    """Verify Cognito access tokens locally.

    Args:
        cognito: adapter used only to fetch the JWKS.
        issuer: expected ``iss`` (``https://cognito-idp.<region>.amazonaws.com/<pool id>``).
        client_id: expected ``client_id`` claim (the app client).
        refetch_interval_s: minimum seconds between two JWKS fetches.
        cache_size: verified tokens kept (LRU).
    """

    def __init__(
        self,
        *,
        cognito: CognitoClient,
        issuer: str,
        client_id: str,
        refetch_interval_s: float = 30.0,
        cache_size: int = 10_000,
    ) -> None:
        self._cognito = cognito
        self._issuer = issuer
        self._client_id = client_id
        self._refetch_interval_s = refetch_interval_s
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched_at = float("-inf")
        self._lock = asyncio.Lock()
        self._verified: OrderedDict[str, AccessClaims] = OrderedDict()
        self._cache_size = cache_size

    async def _key(self, kid: str) -> jwt.PyJWK:
        key = self._keys.get(kid)
        if key is not None:
            return key
        async with self._lock:
            if kid not in self._keys and (
                time.monotonic() - self._fetched_at >= self._refetch_interval_s
            ):
                try:
                    jwks = await self._cognito.fetch_jwks()
                except CognitoUnavailable as exc:
                    raise InvalidToken("Signing keys are unavailable") from exc
                self._fetched_at = time.monotonic()
                self._keys = {k.key_id: k for k in jwt.PyJWKSet.from_dict(jwks).keys if k.key_id}
        key = self._keys.get(kid)
        if key is None:
            raise InvalidToken("Unknown signing key")
        return key

    async def verify(self, token: str) -> AccessClaims:
        """Return the token's claims.

        Raises:
            InvalidToken: for any reason the token must not be trusted.
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
        if claims.get("token_use") != "access" or claims.get("client_id") != self._client_id:
            raise InvalidToken("Not an access token of this app client")
        username = claims.get("username") or claims.get("cognito:username")
        if not isinstance(username, str) or not username:
            raise InvalidToken("Token has no username")
        result = AccessClaims(
            sub=str(claims["sub"]),
            username=username,
            issued_at=int(claims["iat"]),
            expires_at=int(claims["exp"]),
        )
        self._verified[token] = result
        if len(self._verified) > self._cache_size:
            self._verified.popitem(last=False)
        return result
