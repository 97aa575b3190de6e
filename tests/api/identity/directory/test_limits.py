"""A directory's invitations are User Management's (README "Sign-in and abuse limits",
"Directory sync (SCIM)"): counted per account per hour and per recipient per day."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from api.app.web import create_app
from devstack.stack import Stack
from tests.api.identity.directory.conftest import SCIM, USER_SCHEMA, MakeDirectory, scim_error


@pytest.fixture(scope="module")
async def strict_app(stack: Stack) -> AsyncIterator[FastAPI]:
    app = create_app(stack.with_settings(invite_limit_per_account=2))
    async with app.router.lifespan_context(app):
        yield app


async def test_a_directory_invites_within_the_accounts_invitations_per_hour(
    strict_app: FastAPI, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()  # an account that uses email and password
    transport = httpx.ASGITransport(app=strict_app, client=("198.51.100.90", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:

        async def create(email: str) -> httpx.Response:
            return await client.post(
                "/scim/v2/Users",
                headers={"Authorization": f"Bearer {directory.token}", "Content-Type": SCIM},
                json={"schemas": [USER_SCHEMA], "userName": email, "emails": [{"value": email}]},
            )

        statuses = [(await create(directory.email("hire"))).status_code for _ in range(2)]
        refused = await create(directory.email("hire"))
    assert statuses == [201, 201]
    scim_error(refused, 429)
    assert int(refused.headers["Retry-After"]) >= 1
