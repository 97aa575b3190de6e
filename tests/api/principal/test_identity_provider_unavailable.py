"""The pool's signing keys cannot be fetched: callers get 503 IdentityProviderUnavailable (the
provider is down, their session is not wrong), and the verifier backs off instead of fetching
the key set again on every request."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import jwt
import pytest
from fastapi import FastAPI

from api.adapters.cognito import CognitoUnavailable
from api.app.commands.openapi import contract
from api.principal.tokens import AccessTokenVerifier, IdentityProviderDown, InvalidToken
from devstack.stack import Stack
from tests.api.conftest import MakeUser
from tests.api.identity.sign_in.test_session import _forge


class UnreachablePool:
    """A Cognito adapter whose JWKS endpoint cannot be reached; counts the attempts."""

    def __init__(self) -> None:
        self.fetches = 0
        self.jwks: dict[str, Any] | None = None

    async def fetch_jwks(self) -> dict[str, Any]:
        self.fetches += 1
        if self.jwks is None:
            raise CognitoUnavailable("JWKS: ConnectError")
        return self.jwks


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def verifier(stack: Stack, pool: UnreachablePool, clock: Clock) -> AccessTokenVerifier:
    return AccessTokenVerifier(
        cognito=pool,  # type: ignore[arg-type]
        issuer=stack.settings.cognito.issuer,
        client_id=stack.settings.cognito.client_id,
        refetch_interval_s=30.0,
        clock=clock,
    )


class TestBackoff:
    async def test_a_failed_fetch_is_not_retried_until_its_backoff_ends(self, stack: Stack) -> None:
        pool, clock = UnreachablePool(), Clock()
        tokens = verifier(stack, pool, clock)

        async def fetches_after(seconds: float, attempts: int = 1) -> int:
            clock.now += seconds
            for _ in range(attempts):
                with pytest.raises(IdentityProviderDown):
                    await tokens.verify(_forge(stack))
            return pool.fetches

        assert await fetches_after(0, attempts=20) == 1
        assert await fetches_after(1.01) == 2
        # The wait grows after each failure (1 s, then 2 s).
        assert await fetches_after(1.5) == 2
        assert await fetches_after(0.6) == 3

    async def test_the_wait_is_capped_and_a_success_resets_it(
        self, app: FastAPI, stack: Stack
    ) -> None:
        pool, clock = UnreachablePool(), Clock()
        tokens = verifier(stack, pool, clock)
        for _ in range(12):  # 1, 2, 4, ... capped at 60 s
            with pytest.raises(IdentityProviderDown):
                await tokens.verify(_forge(stack))
            clock.now += 61
        assert pool.fetches == 12
        pool.jwks = await app.state.resources.cognito.fetch_jwks()
        claims = await tokens.verify(_forge(stack))
        assert claims.username == "nobody@example-corp.com"
        assert pool.fetches == 13

    async def test_an_unknown_key_id_is_still_invalid_not_unavailable(
        self, app: FastAPI, stack: Stack
    ) -> None:
        pool, clock = UnreachablePool(), Clock()
        pool.jwks = await app.state.resources.cognito.fetch_jwks()
        tokens = verifier(stack, pool, clock)
        await tokens.verify(_forge(stack))
        forged = jwt.encode({"sub": "x"}, "s" * 32, algorithm="HS256", headers={"kid": "other"})
        with pytest.raises(InvalidToken):
            await tokens.verify(forged)


@pytest.fixture
def pool_down(app: FastAPI, stack: Stack) -> Iterator[UnreachablePool]:
    pool = UnreachablePool()
    saved = app.state.resources
    app.state.resources = replace(saved, token_verifier=verifier(stack, pool, Clock()))
    try:
        yield pool
    finally:
        app.state.resources = saved


class TestApi:
    async def test_a_signed_in_call_is_503_not_401(
        self, client: httpx.AsyncClient, make_user: MakeUser, pool_down: UnreachablePool
    ) -> None:
        me = await make_user()
        for path in ("/web/session", "/web/account"):
            response = await client.get(path, headers=me.headers)
            assert response.status_code == 503, response.text
            assert response.json()["code"] == "IdentityProviderUnavailable"
            assert "sign-in service" in response.json()["message"]
        assert pool_down.fetches == 1

    def test_every_route_that_declares_not_authenticated_declares_it(self) -> None:
        document = json.loads(contract())
        for path, operations in document["paths"].items():
            for method, operation in operations.items():
                responses = operation["responses"]
                unauthenticated = responses.get("401", {}).get("description", "")
                if "NotAuthenticated" not in unauthenticated.split(" | "):
                    continue
                assert "IdentityProviderUnavailable" in responses["503"]["description"], (
                    f"{method.upper()} {path}"
                )
