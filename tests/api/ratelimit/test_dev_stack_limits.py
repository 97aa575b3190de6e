"""The dev stack's limits (devstack/bootstrap.py): every browser and test of ``make dev`` comes
from 127.0.0.1, so the per-client-address limits are lifted there, while the per-account,
per-email and per-recipient ones stay as in production."""

from __future__ import annotations

import secrets

import httpx
from fastapi import FastAPI

PRODUCTION_EMAIL_VERIFICATIONS_PER_ADDRESS = 50


async def test_many_email_verifications_from_one_address_are_not_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    # An hour of `make dev`: 50 sign-ups from 127.0.0.1, each sending its code (every test
    # client of this session is 127.0.0.1 too).
    resources = app.state.resources
    throttle = resources.throttles["email-verification"]
    for _ in range(PRODUCTION_EMAIL_VERIFICATIONS_PER_ADDRESS):
        await throttle.hit(resources.rate_limiter, "127.0.0.1")
    form = {
        "firstName": "Grace",
        "lastName": "Hopper",
        "emailAddress": f"grace-{secrets.token_hex(4)}@navy-labs.com",
        "organizationName": "Navy Labs",
        "newPassword": "Cobol-forever-1959!",
    }
    registered = await client.post("/web/registration", json=form)
    assert registered.status_code == 201, registered.text
    headers = {"Authorization": f"Bearer {registered.json()['accessToken']}"}
    sent = await client.post("/web/session/email-verification", headers=headers)
    assert sent.status_code == 200, sent.text
