"""Registration, invitations, payment-method changes, metering batches, invoices, API key
reveal and roll, domain Verify, SAML set-up saves, the code exchange, refresh and the
sso-accounts lookup are throttled per client address and per account, in PostgreSQL like the
sign-in limits; invitations also per recipient per day, across accounts."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest
from fastapi import FastAPI

from api.app.web import create_app
from devstack.stack import Stack
from tests.api.conftest import MakeUser, unique_domain, unique_email

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
        invoices_limit_per_account=2,
        api_key_limit_per_account=2,
        domain_verify_limit_per_account=2,
        saml_metadata_limit_per_account=2,
        saml_metadata_limit_per_address=4,
        two_step_setup_limit_per_account=2,
        session_token_limit_per_address=2,
        session_refresh_limit_per_address=2,
        sso_accounts_limit_per_address=2,
        invitations_per_recipient_per_day=2,
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


async def _third_is_refused(
    app: FastAPI, address: str, method: str, url: str, **kwargs: object
) -> tuple[list[int], httpx.Response]:
    async with _client(app, address) as client:
        statuses = [
            (await client.request(method, url, **kwargs)).status_code  # type: ignore[arg-type]
            for _ in range(2)
        ]
        refused = await client.request(method, url, **kwargs)  # type: ignore[arg-type]
    assert 429 not in statuses
    assert refused.status_code == 429, refused.text
    assert refused.json() == TOO_MANY_HOUR
    return statuses, refused


async def test_invoices_per_account(strict_app: FastAPI, make_user: MakeUser) -> None:
    me = await make_user()
    await _third_is_refused(strict_app, "198.51.100.80", "GET", "/web/invoices", headers=me.headers)


async def test_api_key_reveal_and_roll_per_account(
    strict_app: FastAPI, make_user: MakeUser
) -> None:
    me = await make_user()
    async with _client(strict_app, "198.51.100.81") as client:
        keys = (await client.get("/web/api-keys", headers=me.headers)).json()["keys"]
        reveal = await client.post(
            f"/web/api-keys/{keys[0]['id']}/reveal", json={"purpose": "reveal"}, headers=me.headers
        )
        roll = await client.post("/web/api-keys/roll", json={"overlap": "1h"}, headers=me.headers)
        refused = await client.post(
            "/web/api-keys/roll", json={"overlap": "1h"}, headers=me.headers
        )
    assert (reveal.status_code, roll.status_code) == (200, 200)
    assert refused.status_code == 429
    other = await make_user()
    async with _client(strict_app, "198.51.100.81") as client:
        theirs = await client.post(
            "/web/api-keys/roll", json={"overlap": "1h"}, headers=other.headers
        )
    assert theirs.status_code == 200


async def test_two_step_set_up_per_account(strict_app: FastAPI, make_user: MakeUser) -> None:
    # Each set-up has Cognito make a new authenticator secret (AssociateSoftwareToken).
    me = await make_user()
    async with _client(strict_app, "198.51.100.86") as client:
        setups = [
            (await client.post("/web/two-step-sign-in/setup", headers=me.headers)).status_code
            for _ in range(3)
        ]
    assert setups == [200, 200, 429]
    other = await make_user()
    async with _client(strict_app, "198.51.100.86") as client:
        theirs = await client.post("/web/two-step-sign-in/setup", headers=other.headers)
    assert theirs.status_code == 200


async def test_domain_verify_per_account(strict_app: FastAPI, make_user: MakeUser) -> None:
    me = await make_user()
    async with _client(strict_app, "198.51.100.82") as client:
        added = await client.post(
            "/web/sso/domains", json={"domain": unique_domain("verify")}, headers=me.headers
        )
    assert added.status_code == 201, added.text
    url = f"/web/sso/domains/{added.json()['domain']['id']}/verify"
    await _third_is_refused(strict_app, "198.51.100.82", "POST", url, headers=me.headers)


async def test_saml_set_up_saves_per_account_and_per_address(
    strict_app: FastAPI, make_user: MakeUser
) -> None:
    # Each save reads the identity provider's metadata (a URL is fetched) and asks Cognito;
    # every attempt counts, refused ones too.
    me, other = await make_user(), await make_user()
    body = {"metadataUrl": "https://idp.example-idp.com/app/metadata"}
    _, refused = await _third_is_refused(
        strict_app, "198.51.100.83", "PUT", "/web/sso/saml", json=body, headers=me.headers
    )
    assert refused.headers["Retry-After"]
    async with _client(strict_app, "198.51.100.83") as client:
        theirs = await client.put("/web/sso/saml", json=body, headers=other.headers)
        over_address = await client.put("/web/sso/saml", json=body, headers=other.headers)
    assert theirs.json()["code"] == "VerifiedDomainRequired"
    assert over_address.status_code == 429


@pytest.mark.parametrize(
    ("method", "url", "kwargs", "prefix"),
    [
        (
            "POST",
            "/web/session/token",
            {"json": {"code": "c", "state": "s", "redirectUri": "http://testserver/oauth/sso"}},
            "2001:db8:a1:1",
        ),
        ("POST", "/web/session/refresh", {}, "2001:db8:a1:2"),
        (
            "GET",
            "/web/sso-accounts",
            {"params": {"cognitoId": "google_1", "email": "a@b.dev"}},
            "2001:db8:a1:3",
        ),
    ],
)
async def test_session_routes_per_address(
    strict_app: FastAPI, method: str, url: str, kwargs: dict[str, object], prefix: str
) -> None:
    # Anonymous attempts count too; each comes from another address of the same /64.
    async with (
        _client(strict_app, f"{prefix}::1") as first,
        _client(strict_app, f"{prefix}::2") as second,
    ):
        statuses = [
            (await first.request(method, url, **kwargs)).status_code,  # type: ignore[arg-type]
            (await second.request(method, url, **kwargs)).status_code,  # type: ignore[arg-type]
        ]
        refused = await first.request(method, url, **kwargs)  # type: ignore[arg-type]
    async with _client(strict_app, f"{prefix}0::1") as elsewhere:
        other = await elsewhere.request(method, url, **kwargs)  # type: ignore[arg-type]
    assert 429 not in statuses
    assert refused.status_code == 429
    assert refused.json() == TOO_MANY_HOUR
    assert other.status_code != 429


async def test_invitations_per_recipient_across_accounts(
    strict_app: FastAPI, make_user: MakeUser
) -> None:
    # An email is a user of one account at a time, so a flood invites, revokes and invites
    # again from the next account, each within its own account and address limits.
    target = unique_email("inbox")
    statuses = []
    for i in range(3):
        inviter = await make_user()
        async with _client(strict_app, f"198.51.100.{110 + i}") as client:
            response = await client.post(
                "/web/users",
                headers=inviter.headers,
                json={"firstName": "In", "lastName": "Box", "email": target},
            )
            statuses.append(response.status_code)
            if response.status_code == 201:
                user_id = response.json()["user"]["id"]
                revoked = await client.delete(
                    f"/web/users/{user_id}/invitation", headers=inviter.headers
                )
                assert revoked.status_code == 204
    assert statuses == [201, 201, 429]


def test_every_throttled_route_declares_429(strict_app: FastAPI) -> None:
    paths = strict_app.openapi()["paths"]
    for method, path in [
        ("get", "/web/invoices"),
        ("get", "/web/sso-accounts"),
        ("post", "/web/api-keys/{key_id}/reveal"),
        ("post", "/web/api-keys/roll"),
        ("post", "/web/session/token"),
        ("post", "/web/session/refresh"),
        ("post", "/web/sso/domains/{domain_id}/verify"),
    ]:
        assert "429" in paths[path][method]["responses"], (method, path)


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
