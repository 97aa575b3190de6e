"""Sign-in attempts are limited per client address, back off per (email, address), and have a
loose ceiling per email, in PostgreSQL (README "Sign-in and abuse limits")."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from api.app.web import create_app
from api.kernel.errors import RateLimited
from api.models import SignInBackoff
from api.ratelimit import Backoff, Limit, RateLimiter
from devstack.stack import Stack
from tests.api.conftest import MakeUser, unique_email


@pytest.fixture(scope="module")
async def replicas(stack: Stack) -> AsyncIterator[tuple[FastAPI, FastAPI]]:
    """Two API replicas on the same database, with small limits."""
    settings = stack.with_settings(
        sign_in_limit_per_email=3,
        sign_in_limit_per_address=5,
        reset_limit_per_email_and_address=2,
        reset_emails_per_recipient_per_day=10,
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
        async with _client(limited_app, "192.0.2.99") as client:
            own = [
                (
                    await client.post("/web/session/forgot-password", json={"email": me.user.email})
                ).status_code
                for _ in range(3)
            ]
        # Per (email, address): a third request from the same place waits.
        assert own == [200, 200, 429]
        for i in range(8):  # a forgetful user, or someone flooding their mailbox
            async with _client(limited_app, f"192.0.2.{100 + i}") as client:
                await client.post("/web/session/forgot-password", json={"email": me.user.email})
        async with _client(limited_app, "192.0.2.200") as client:
            signed_in = await client.post(
                "/web/session/sign-in", json={"email": me.user.email, "password": me.password}
            )
            # The mailbox gets at most 10 reset emails a day, whoever asks.
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
        limiter = RateLimiter(app.state.resources.side_engine)
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


@pytest.fixture(scope="module")
async def backoff_app(stack: Stack) -> AsyncIterator[FastAPI]:
    """Two failures free per (email, address), then waits of 60 s doubling; a loose per-email
    ceiling far above them."""
    settings = stack.with_settings(
        sign_in_limit_per_email=50,
        sign_in_backoff_free_failures=2,
        sign_in_backoff_base_s=60,
        sign_in_backoff_max_s=900,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


class TestSignInBackoff:
    async def test_guessing_from_one_address_never_locks_the_owner_out(
        self, backoff_app: FastAPI, make_user: MakeUser
    ) -> None:
        victim = await make_user()
        async with _client(backoff_app, "198.51.100.66") as attacker:
            guesses = [(await _attempt(attacker, victim.user.email)).status_code for _ in range(20)]
        async with _client(backoff_app, "192.0.2.66") as owner:
            signed_in = await owner.post(
                "/web/session/sign-in",
                json={"email": victim.user.email, "password": victim.password},
            )
        assert guesses == [400, 400] + [429] * 18
        assert signed_in.status_code == 200, signed_in.text

    async def test_the_wait_doubles_and_a_success_clears_it(
        self, backoff_app: FastAPI, make_user: MakeUser
    ) -> None:
        me = await make_user()
        engine = backoff_app.state.resources.read_engine
        address = "198.51.100.67"
        async with _client(backoff_app, address) as client:
            for _ in range(2):
                assert (await _attempt(client, me.user.email)).status_code == 400
            first_wait = await _attempt(client, me.user.email)
            assert first_wait.status_code == 429
            assert first_wait.json()["message"] == (
                "Too many failed attempts. Please wait 60 seconds and try again."
            )
            await _expire_block(engine, me.user.email)
            assert (await _attempt(client, me.user.email)).status_code == 400
            second_wait = await _attempt(client, me.user.email)
            assert second_wait.json()["message"] == (
                "Too many failed attempts. Please wait 2 minutes and try again."
            )
            await _expire_block(engine, me.user.email)
            right = {"email": me.user.email, "password": me.password}
            assert (await client.post("/web/session/sign-in", json=right)).status_code == 200
            # The success cleared the count: two free failures again.
            assert [(await _attempt(client, me.user.email)).status_code for _ in range(3)] == [
                400,
                400,
                429,
            ]

    async def test_wrong_reset_codes_back_off_per_address(
        self, backoff_app: FastAPI, make_user: MakeUser
    ) -> None:
        me = await make_user()
        # moto checks only codes of its own form; any other code it takes as right.
        wrong_code = "moto-confirmation-code:0000"
        body = {"email": me.user.email, "code": wrong_code, "newPassword": "Another-pass-42!"}
        async with _client(backoff_app, "192.0.2.68") as owner:
            await owner.post("/web/session/forgot-password", json={"email": me.user.email})
        async with _client(backoff_app, "198.51.100.68") as client:
            statuses = [
                (await client.post("/web/session/confirm-forgot-password", json=body)).status_code
                for _ in range(4)
            ]
        async with _client(backoff_app, "192.0.2.68") as owner:
            signed_in = await owner.post(
                "/web/session/sign-in", json={"email": me.user.email, "password": me.password}
            )
        assert statuses == [400, 400, 429, 429]
        assert signed_in.status_code == 200

    async def test_a_parallel_burst_from_one_address_gets_its_free_failures_only(
        self, backoff_app: FastAPI
    ) -> None:
        email = unique_email("burst1")

        async def guess() -> int:
            async with _client(backoff_app, "198.18.1.1") as client:
                return (await _attempt(client, email)).status_code

        statuses = await asyncio.gather(*(guess() for _ in range(10)))
        # The third failure sets the wait: at most three guesses reach Cognito.
        assert statuses.count(400) <= 3
        assert statuses.count(429) >= 7

    async def test_a_free_failure_holds_no_attempt_a_moment_older(
        self, backoff_app: FastAPI
    ) -> None:
        # Two attempts at once (a double submit): the one that read the clock first may
        # count second, and must not find a wait of 0 s still running.
        settings = backoff_app.state.settings
        backoff = Backoff(
            backoff_app.state.resources.rate_limiter.engine,
            settings.sign_in.backoff_free_failures,
            settings.sign_in.backoff_base_s,
            settings.sign_in.backoff_max_s,
        )
        email, now = unique_email("clock"), datetime.now(UTC)
        await backoff.claim(email, "198.18.2.1", now)
        await backoff.claim(email, "198.18.2.1", now - timedelta(milliseconds=5))

    async def test_an_ipv6_client_backs_off_by_its_64(self, backoff_app: FastAPI) -> None:
        email = unique_email("six")
        statuses = []
        for i in range(3):
            async with _client(backoff_app, f"2001:db8:66:1::{i + 1}") as client:
                statuses.append((await _attempt(client, email)).status_code)
        assert statuses == [400, 400, 429]


async def _expire_block(engine: AsyncEngine, email: str) -> None:
    """Move the email's current wait into the past, as if it had been waited out."""
    async with engine.connect() as connection:
        await connection.execute(
            update(SignInBackoff)
            .where(SignInBackoff.email == email)
            .values(blocked_until=datetime.now(UTC) - timedelta(seconds=1))
        )
