"""A hung vendor answers 503 within 8 s, never a 500, and changes nothing here (issue 10)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from api.devstack.services import ChildProcess
from api.devstack.stack import Stack
from api.models import Account
from tests.api.conftest import MakeUser, unique_email

BUDGET_S = 8.0


@contextmanager
def hung(child: ChildProcess) -> Iterator[None]:
    """The stand-in stops answering (SIGSTOP) but keeps its connections open."""
    os.kill(child.process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(child.process.pid, signal.SIGCONT)


async def test_a_hung_stripe_is_503_within_the_budget(
    stack: Stack, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    me = await make_user()
    with hung(stack.localstripe):
        started = time.monotonic()
        response = await client.post(
            "/web/subscription/payment", json={"cardToken": "tok_visa"}, headers=me.headers
        )
        elapsed = time.monotonic() - started
    assert response.status_code == 503, response.text
    assert response.json()["code"] == "VendorUnavailable"
    assert elapsed < BUDGET_S, elapsed  # Stripe's own timeout and retry took 20 s
    account = (await client.get("/web/account", headers=me.headers)).json()["account"]
    assert account["billing"] is None


async def test_a_hung_cognito_is_503_within_the_budget_and_registers_nothing(
    app: FastAPI, stack: Stack, client: httpx.AsyncClient
) -> None:
    email = unique_email("hung")
    with hung(stack.moto):
        started = time.monotonic()
        response = await client.post(
            "/web/registration",
            json={
                "firstName": "Hung",
                "lastName": "Vendor",
                "emailAddress": email,
                "organizationName": "Hung Co",
                "newPassword": "Hung-vendor-42!",
            },
        )
        elapsed = time.monotonic() - started
    assert response.status_code == 503, response.text
    assert response.json()["code"] == "VendorUnavailable"
    assert elapsed < BUDGET_S, elapsed
    async with app.state.sessionmaker() as db:
        assert await db.scalar(select(func.count()).where(Account.name == "Hung Co")) == 0
