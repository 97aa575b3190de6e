"""Registration, invitations, payment-method changes and metering batches are throttled per
client address and per account, in PostgreSQL like the sign-in limits (issue 10)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest
from fastapi import FastAPI

from api.devstack.stack import Stack
from api.main import create_app
from tests.api.conftest import MakeUser, unique_email

TOO_MANY_HOUR = {
    "code": "RateLimited",
    "message": "Too many attempts. Please wait 60 minutes and try again.",
}


@pytest.fixture(scope="module")
async def strict_app(stack: Stack) -> AsyncIterator[FastAPI]:
    settings = stack.with_settings(
        registration_limit_per_address=2,
        invite_limit_per_account=2,
        invite_limit_per_address=4,
        card_limit_per_account=2,
        metering_limit_per_account=2,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


def _client(app: FastAPI, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def test_registrations_per_address(strict_app: FastAPI) -> None:
    def form() -> dict[str, str]:
        return {
            "firstName": "Reg",
            "lastName": "Ister",
            "emailAddress": unique_email("reg"),
            "organizationName": "Throttled Co",
            "newPassword": "Throttle-test-42!",
        }

    async with _client(strict_app, "198.51.100.40") as client:
        statuses = [
            (await client.post("/web/registration", json=form())).status_code for _ in range(3)
        ]
        refused = await client.post("/web/registration", json=form())
    async with _client(strict_app, "198.51.100.41") as other:
        elsewhere = await other.post("/web/registration", json=form())
    assert statuses == [201, 201, 429]
    assert refused.json() == TOO_MANY_HOUR
    assert elsewhere.status_code == 201


async def test_invitations_per_account_and_per_address(
    strict_app: FastAPI, make_user: MakeUser
) -> None:
    me = await make_user()
    other = await make_user()

    async def invite(client: httpx.AsyncClient, who: MakeUser | object) -> int:
        response = await client.post(
            "/web/users",
            headers=who.headers,  # type: ignore[attr-defined]
            json={"firstName": "In", "lastName": "Vitee", "email": unique_email("inv")},
        )
        return response.status_code

    async with _client(strict_app, "198.51.100.50") as client:
        mine = [await invite(client, me) for _ in range(3)]
        # Another account from the same address: within its own account limit, until the
        # address passes its limit (every attempt counts there, refused ones too).
        theirs = await invite(client, other)
        over_address = await invite(client, other)
    assert mine == [201, 201, 429]
    assert theirs == 201
    assert over_address == 429


async def test_payment_method_changes_per_account(strict_app: FastAPI, make_user: MakeUser) -> None:
    me = await make_user()
    async with _client(strict_app, "198.51.100.60") as client:
        statuses = [
            (
                await client.post(
                    "/web/subscription/payment", json={"cardToken": "tok_x"}, headers=me.headers
                )
            ).status_code
            for _ in range(3)
        ]
    # The first two reach Stripe (which refuses the made-up token); the third does not.
    assert 429 not in statuses[:2]
    assert statuses[2] == 429


async def test_metering_batches_per_account(strict_app: FastAPI, make_user: MakeUser) -> None:
    me = await make_user()
    headers = {"X-API-Key": me.api_key}

    def batch(i: int) -> dict[str, object]:
        record = {"idempotencyKey": f"k-{i}", "platform": "web", "runs": 1, "credits": 1}
        return {"records": [{**record, "time": datetime.now(UTC).isoformat()}]}

    async with _client(strict_app, "198.51.100.70") as client:
        statuses = [
            (await client.post("/metering/usage", json=batch(i), headers=headers)).status_code
            for i in range(2)
        ]
        refused = await client.post("/metering/usage", json=batch(2), headers=headers)
    assert statuses == [200, 200]
    assert refused.status_code == 429
    assert refused.json() == {
        "code": "RateLimited",
        "message": "Too many attempts. Please wait 60 seconds and try again.",
    }
    assert 1 <= int(refused.headers["retry-after"]) <= 60


@pytest.fixture(scope="module")
async def records_app(stack: Stack) -> AsyncIterator[FastAPI]:
    app = create_app(stack.with_settings(metering_records_limit_per_account=5))
    async with app.router.lifespan_context(app):
        yield app


async def test_metering_records_per_account(records_app: FastAPI, make_user: MakeUser) -> None:
    """Beside the batches: the records of an account per minute, however they are batched."""
    me, other = await make_user(), await make_user()

    def batch(size: int) -> dict[str, object]:
        now = datetime.now(UTC).isoformat()
        return {
            "records": [
                {"idempotencyKey": str(uuid.uuid4()), "platform": "api", "runs": 1, "credits": 1}
                | {"time": now}
                for _ in range(size)
            ]
        }

    async with _client(records_app, "198.51.100.80") as client:
        first = await client.post(
            "/metering/usage", json=batch(3), headers={"X-API-Key": me.api_key}
        )
        refused = await client.post(
            "/metering/usage", json=batch(3), headers={"X-API-Key": me.api_key}
        )
        # A refused batch counted nothing, so what is left of the minute is still usable.
        rest = await client.post(
            "/metering/usage", json=batch(2), headers={"X-API-Key": me.api_key}
        )
        theirs = await client.post(
            "/metering/usage", json=batch(5), headers={"X-API-Key": other.api_key}
        )
    assert first.json() == {"accepted": 3, "duplicates": 0}
    assert refused.status_code == 429
    assert refused.json()["code"] == "RateLimited"
    assert "at most 5 usage records per minute" in refused.json()["message"]
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert rest.json() == {"accepted": 2, "duplicates": 0}
    assert theirs.json() == {"accepted": 5, "duplicates": 0}


def test_a_429_declares_retry_after(app: FastAPI) -> None:
    declared = app.openapi()["paths"]["/metering/usage"]["post"]["responses"]["429"]
    assert declared["headers"]["Retry-After"]["schema"] == {"type": "integer", "minimum": 1}
