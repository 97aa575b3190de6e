"""A hung vendor answers 503 within 8 s, never a 500, and changes nothing here (README
"Configuration (production)")."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from api.models import Account
from devstack.services import ChildProcess
from devstack.stack import Stack
from tests.api.billing.test_billing import card_token, load_account, stripe_get
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
    async with app.state.resources.sessionmaker() as db:
        assert await db.scalar(select(func.count()).where(Account.name == "Hung Co")) == 0


async def test_a_plan_change_that_timed_out_but_happened_is_not_made_twice(
    app: FastAPI, stack: Stack, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    # Stripe paused mid-request: the API answers 503, Stripe then does the work
    # anyway, and the user retries. Exactly one subscription may come of it.
    me = await make_user()
    token = card_token(stack)
    added = await client.post(
        "/web/subscription/payment", json={"cardToken": token}, headers=me.headers
    )
    assert added.status_code == 200, added.text
    with hung(stack.localstripe):
        timed_out = await client.post("/web/subscription", json={"units": 3}, headers=me.headers)
    assert timed_out.status_code == 503, timed_out.text
    customer_id = (await load_account(app, me)).stripe_customer_id
    for _ in range(50):  # the resumed stand-in works through what it was sent
        subscriptions = stripe_get(stack, f"subscriptions?customer={customer_id}")["data"]
        if subscriptions:
            break
        await asyncio.sleep(0.1)
    retried = await client.post("/web/subscription", json={"units": 3}, headers=me.headers)
    assert retried.status_code == 200, retried.text
    assert retried.json()["subscription"]["units"] == 3
    live = [
        s
        for s in stripe_get(stack, f"subscriptions?customer={customer_id}")["data"]
        if isinstance(s, dict) and s["status"] == "active"
    ]
    assert len(live) == 1, live
    account = await load_account(app, me)
    assert account.stripe_subscription_id == live[0]["id"]
    assert account.subscription_units == 3
