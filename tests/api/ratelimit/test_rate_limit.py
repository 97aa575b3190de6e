"""Sign-in attempts are limited per email and per client address, in PostgreSQL (issue 3)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from api.devstack.stack import Stack
from api.errors import RateLimited
from api.main import create_app
from api.ratelimit.service import Limit, RateLimiter
from tests.api.conftest import MakeUser, unique_email


@pytest.fixture(scope="module")
async def replicas(stack: Stack) -> AsyncIterator[tuple[FastAPI, FastAPI]]:
    """Two API replicas on the same database, with small limits."""
    settings = stack.with_settings(
        sign_in_limit_per_email=3, sign_in_limit_per_address=5, reset_limit_per_email=10
    )
    first, second = create_app(settings), create_app(settings)
    async with first.router.lifespan_context(first), second.router.lifespan_context(second):
        yield first, second


@pytest.fixture
def limited_app(replicas: tuple[FastAPI, FastAPI]) -> FastAPI:
    return replicas[0]


def _client(app: FastAPI, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def _attempt(client: httpx.AsyncClient, email: str) -> httpx.Response:
    return await client.post(
        "/web/session/sign-in", json={"email": email, "password": "Wrong-pass-1!"}
    )


class TestSignInRateLimit:
    async def test_per_email_across_addresses(self, limited_app: FastAPI) -> None:
        email = unique_email("victim")
        for i in range(3):
            async with _client(limited_app, f"198.51.100.{i + 1}") as client:
                assert (await _attempt(client, email)).status_code == 400
        async with _client(limited_app, "198.51.100.99") as client:
            response = await _attempt(client, email)
            other_email = await _attempt(client, unique_email())
        assert response.status_code == 429
        assert response.json() == {
            "code": "RateLimited",
            "message": "Too many attempts. Please wait 15 minutes and try again.",
        }
        assert other_email.status_code == 400

    async def test_only_failures_count_per_email(
        self, limited_app: FastAPI, make_user: MakeUser
    ) -> None:
        me = await make_user()
        right = {"email": me.user.email, "password": me.password}
        wrong = {"email": me.user.email, "password": "Wrong-pass-1!"}
        for i in range(5):  # more successes than the per-email limit of 3
            async with _client(limited_app, f"192.0.2.{i + 1}") as client:
                response = await client.post("/web/session/sign-in", json=right)
                assert response.status_code == 200
        for i in range(3):
            async with _client(limited_app, f"192.0.2.{i + 10}") as client:
                response = await client.post("/web/session/sign-in", json=wrong)
                assert response.status_code == 400
        async with _client(limited_app, "192.0.2.20") as client:
            locked = await client.post("/web/session/sign-in", json=right)
        assert locked.status_code == 429

    async def test_per_address_across_emails_and_replicas(
        self, replicas: tuple[FastAPI, FastAPI]
    ) -> None:
        address = "203.0.113.7"
        for i in range(5):
            async with _client(replicas[i % 2], address) as client:
                assert (await _attempt(client, unique_email())).status_code == 400
        async with _client(replicas[1], address) as client:
            blocked = await _attempt(client, unique_email())
        assert blocked.status_code == 429
        # A forgot-password attempt from this address counts under the same limit.
        async with _client(replicas[0], address) as client:
            reset = await client.post(
                "/web/session/forgot-password", json={"email": unique_email()}
            )
        assert reset.status_code == 429
        async with _client(replicas[0], "203.0.113.8") as client:
            assert (await _attempt(client, unique_email())).status_code == 400

    async def test_reset_requests_never_lock_a_user_out_of_signing_in(
        self, limited_app: FastAPI, make_user: MakeUser
    ) -> None:
        me = await make_user()
        for i in range(10):  # a forgetful user, or someone flooding their mailbox
            async with _client(limited_app, f"192.0.2.{100 + i}") as client:
                await client.post("/web/session/forgot-password", json={"email": me.user.email})
        async with _client(limited_app, "192.0.2.200") as client:
            signed_in = await client.post(
                "/web/session/sign-in", json={"email": me.user.email, "password": me.password}
            )
            # Reset requests have a limit of their own.
            flooded = await client.post(
                "/web/session/forgot-password", json={"email": me.user.email}
            )
        assert signed_in.status_code == 200, signed_in.text
        assert flooded.status_code == 429

    async def test_a_parallel_burst_cannot_exceed_the_limit(self, limited_app: FastAPI) -> None:
        email = unique_email("burst")

        async def guess(i: int) -> int:
            async with _client(limited_app, f"198.18.0.{i + 1}") as client:
                return (await _attempt(client, email)).status_code

        statuses = await asyncio.gather(*(guess(i) for i in range(12)))
        # The per-email limit is 3: however the 12 guesses interleave, 3 reach Cognito.
        assert sorted(statuses) == [400] * 3 + [429] * 9


class TestRateLimiter:
    async def test_windows_are_fixed_and_old_rows_go(self, app: FastAPI) -> None:
        limiter = RateLimiter(app.state.read_engine)
        limit = Limit("test", 2, 60)
        key = unique_email()
        start = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
        assert await limiter.hit(limit, key, start) == 1
        assert await limiter.hit(limit, key, start + timedelta(seconds=59)) == 2
        with pytest.raises(RateLimited, match="60 seconds"):
            await limiter.hit(limit, key, start + timedelta(seconds=30))
        assert await limiter.hit(limit, key, start + timedelta(seconds=60)) == 1
        # A new window two days later deletes the rows of windows that ended a day ago.
        later = start + timedelta(days=2)
        assert await limiter.hit(limit, key, later) == 1
        assert await limiter.hit(limit, key, start + timedelta(seconds=1)) == 1
