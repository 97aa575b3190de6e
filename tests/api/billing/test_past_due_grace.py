"""A past-due plan keeps its units for 14 days from its first failed payment, the window of
Stripe's recommended Smart Retries (8 tries within 2 weeks), and no longer (README "Billing",
"Past due"): after it the account has the free plan's allowance until the invoice is paid,
whatever Stripe's settings do with the subscription. Times are moved in the database (the
failure's time is Stripe's event time, so moving it back is the time passing), never slept."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import text

from api.models import Account
from api.models.account import PAST_DUE_GRACE
from tests.api.billing.test_stripe_webhooks import event, invoice, process, with_customer
from tests.api.conftest import MakeUser, SignedIn
from tests.api.usage.test_metering import URL, key_headers, record

DAY = 86400
UNITS = 3


async def _limits(client: httpx.AsyncClient, me: SignedIn) -> dict[str, Any]:
    response = await client.get("/web/usage/limits", headers=me.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _subscription(client: httpx.AsyncClient, me: SignedIn) -> dict[str, Any]:
    response = await client.get("/web/account", headers=me.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()["account"]["subscription"]
    return body


async def _days_pass(app: FastAPI, me: SignedIn, days: int) -> None:
    """As if ``days`` had passed since the account's payments began to fail."""
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            text(
                "UPDATE account SET past_due_since = past_due_since - make_interval(days => :d), "
                "payment_failed_at = payment_failed_at - make_interval(days => :d) "
                "WHERE id = :id"
            ),
            {"d": days, "id": me.account.id},
        )


async def _paid_plan(app: FastAPI, make_user: MakeUser) -> tuple[SignedIn, str, int, int]:
    """An account on ``UNITS`` units that stops at its allowance; its customer id, the
    allowance of its plan and the free plan's."""
    me = await make_user()
    customer = await with_customer(
        app, me, subscription_units=UNITS, stripe_subscription_id="sub_grace"
    )
    async with app.state.resources.sessionmaker() as db, db.begin():
        row = (
            await db.execute(
                text(
                    "UPDATE account SET stop_at_allowance = true WHERE id = :id "
                    "RETURNING unit_plan_requests, free_plan_requests"
                ),
                {"id": me.account.id},
            )
        ).one()
    return me, customer, UNITS * row.unit_plan_requests, row.free_plan_requests


class TestGracePeriod:
    async def test_units_count_for_14_days_after_the_first_failure_then_the_free_plan(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, customer, paid, free = await _paid_plan(app, make_user)
        now = int(time.time())
        renewal = invoice(customer, amount_due=UNITS * 2000)
        # The renewal failed 13 days ago, and Stripe's retries have failed since, the last
        # one an hour ago: the grace counts from the first failure.
        await process(app, client, event("invoice.payment_failed", renewal, created=now - 13 * DAY))
        await process(app, client, event("invoice.payment_failed", renewal, created=now - 3600))
        plan = await _subscription(client, me)
        assert (plan["units"], plan["unitsInForce"]) == (UNITS, UNITS)
        grace_ends = datetime.fromisoformat(plan["graceEndsAt"])
        assert abs(grace_ends.timestamp() - (now - 13 * DAY + 14 * DAY)) < 2
        assert (await _limits(client, me))["allowance"] == paid
        batch = {"records": [record(credits=free + 1)]}
        assert (await client.post(URL, headers=key_headers(me), json=batch)).status_code == 200

        await _days_pass(app, me, 1)  # 14 days and a few seconds since the first failure
        plan = await _subscription(client, me)
        # The plan is still what Stripe bills (Billing shows it, with what is past due); what
        # the account may use is the free plan's.
        assert (plan["units"], plan["unitsInForce"]) == (UNITS, 0)
        assert plan["pastDue"] == {"amountDue": UNITS * 2000, "currency": "usd"}
        assert (await _limits(client, me))["allowance"] == free
        refused = await client.post(URL, headers=key_headers(me), json={"records": [record()]})
        assert refused.status_code == 429
        assert (refused.json()["code"], refused.json()["limit"]) == ("AllowanceReached", free)

        # Paid: the units count again at once.
        paid_invoice = {**renewal, "status": "paid", "amount_paid": UNITS * 2000}
        await process(app, client, event("invoice.paid", paid_invoice, created=now + 1))
        plan = await _subscription(client, me)
        assert (plan["unitsInForce"], plan["graceEndsAt"]) == (UNITS, None)
        assert (await _limits(client, me))["allowance"] == paid
        batch = {"records": [record()]}
        assert (await client.post(URL, headers=key_headers(me), json=batch)).status_code == 200

    async def test_a_later_unpaid_invoice_does_not_start_the_grace_again(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, customer, _, free = await _paid_plan(app, make_user)
        now = int(time.time())
        older, newer = invoice(customer), invoice(customer)
        await process(app, client, event("invoice.payment_failed", older, created=now - 20 * DAY))
        await process(app, client, event("invoice.payment_failed", newer, created=now - 60))
        plan = await _subscription(client, me)
        assert plan["unitsInForce"] == 0
        grace_ends = datetime.fromisoformat(plan["graceEndsAt"]).timestamp()
        assert abs(grace_ends - (now - 20 * DAY + 14 * DAY)) < 2
        assert (await _limits(client, me))["allowance"] == free

    async def test_payments_in_order_have_no_grace(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        plan = await _subscription(client, me)
        assert (plan["unitsInForce"], plan["graceEndsAt"]) == (0, None)

    def test_the_rule_in_python_matches_at_the_edge(self) -> None:
        # subscription_of (the billing calls' answers) uses the Python form of the rule.
        failed = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
        account = Account(subscription_units=UNITS, past_due_since=failed)
        assert (
            account.grace_ends_at()
            == failed + PAST_DUE_GRACE
            == datetime(2026, 11, 15, 12, 0, tzinfo=UTC)
        )
        assert account.units_in_force(failed + PAST_DUE_GRACE) == UNITS
        assert account.units_in_force(failed + PAST_DUE_GRACE + timedelta(microseconds=1)) == 0
        assert (
            Account(subscription_units=UNITS).units_in_force(failed + 100 * PAST_DUE_GRACE) == UNITS
        )
