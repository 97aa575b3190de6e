"""The dev stack's limits (devstack/bootstrap.py): every browser and test of ``make dev`` comes
from 127.0.0.1, so every per-client-address limit a feature declares is lifted there, while
the per-account ones stay as in production."""

from __future__ import annotations

import secrets

import httpx
from fastapi import FastAPI

from api.app.features import throttles
from api.identity.sign_in.throttles import EMAIL_VERIFICATION
from api.kernel.config import Settings
from devstack import bootstrap
from devstack.stack import settings_from_env

PRODUCTION_EMAIL_VERIFICATIONS_PER_ADDRESS = 50


def _dev_stack_settings() -> Settings:
    """The settings ``make dev`` gives the API (stand-ins at made-up loopback ports)."""
    stand_ins = bootstrap.StandIns(
        moto_url="http://127.0.0.1:4566",
        localstripe_url="http://127.0.0.1:8420",
        user_pool_id="us-east-1_devstack",
        client_id="devstack-client",
        dns_port=5353,
        smtp_port=2525,
        mailbox_path="/nonexistent/mailbox.jsonl",
    )
    environment = bootstrap.api_environment(
        stand_ins,
        database_url="postgresql+asyncpg://console@127.0.0.1:5432/console",
        public_url="http://127.0.0.1:8000",
    )
    return settings_from_env(environment)


def test_every_per_address_limit_is_lifted_in_the_dev_stack() -> None:
    dev, production = _dev_stack_settings(), Settings()
    per_address = [throttle for throttle in throttles() if throttle.per_address is not None]
    # The ones a hand-kept list once missed are among them.
    assert {"sign-in", "email-verification", "metering"} <= {t.name for t in per_address}
    for throttle in per_address:
        lifted = throttle.limits(dev).per_address
        assert lifted == bootstrap.LIFTED_PER_ADDRESS, throttle.name
        assert lifted > (throttle.limits(production).per_address or 0), throttle.name


def test_the_per_account_limits_stay_as_in_production() -> None:
    dev, production = _dev_stack_settings(), Settings()
    for throttle in throttles():
        assert throttle.limits(dev).per_account == throttle.limits(production).per_account


async def test_many_email_verifications_from_one_address_are_not_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    # An hour of `make dev`: 50 sign-ups from 127.0.0.1, each sending its code (every test
    # client of this session is 127.0.0.1 too; the tests' stack has the dev stack's settings).
    resources = app.state.resources
    throttle = resources.throttles[EMAIL_VERIFICATION]
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
