"""The counters never wait on the request transactions' pool (README "Sign-in and abuse
limits"): a password sign-in holds its transaction's connection while it asks Cognito, then
counts or clears its attempt and records refusals on a connection that commits on its own. When
both came from one pool, as many sign-ins at once as the pool has connections each held one and
waited for a second: every request of the replica stalled until the pool's 30 s timeout."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from api.app.web import create_app
from devstack.stack import Stack
from tests.api.conftest import PASSWORD, MakeUser

POOL = 2


@pytest.fixture(scope="module")
async def small_pool_app(stack: Stack) -> AsyncIterator[FastAPI]:
    app = create_app(stack.with_settings(db_pool_size=POOL))
    async with app.router.lifespan_context(app):
        yield app


async def test_more_sign_ins_at_once_than_the_pool_has_connections(
    small_pool_app: FastAPI, make_user: MakeUser
) -> None:
    users = [await make_user() for _ in range(4 * POOL)]
    transport = httpx.ASGITransport(app=small_pool_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:

        async def sign_in(email: str, password: str) -> int:
            body = {"email": email, "password": password}
            return (await client.post("/web/session/sign-in", json=body)).status_code

        # Right and wrong passwords (of different users: an attempt in flight counts as a
        # failure of its email): a success clears the attempt's backoff, a refusal is recorded
        # in the account's audit log; both need a connection besides the request's.
        half = len(users) // 2
        attempts = [sign_in(u.user.email, PASSWORD) for u in users[:half]] + [
            sign_in(u.user.email, "Wrong-password-42!") for u in users[half:]
        ]
        statuses = await asyncio.wait_for(asyncio.gather(*attempts), timeout=20)
    assert statuses == [200] * half + [400] * (len(users) - half)
