"""Billing that can't be gamed (README "Billing"), against localstripe and its shim
(devstack/stripe_shim.py): the charge preview, upgrades paid when made, downgrades and
cancelling at the end of the paid period, and paying what is past due."""

from __future__ import annotations

import asyncio
import csv
import io
import time
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from devstack import bootstrap
from devstack.stack import Stack
from tests.api.billing.test_billing import (
    VISA,
    account_json,
    add_card,
    iso,
    load_account,
    stripe_get,
)
from tests.api.billing.test_stripe_webhooks import event, process, stripes_changes
from tests.api.conftest import MakeUser, SignedIn

# Attaches, then every charge is declined (https://docs.stripe.com/testing#declined-payments).
DECLINES_CHARGES = "4000000000000341"
UNIT = 2000  # cents: the dev stack's plan is $20 per unit per month


def stripe_post(stack: Stack, path: str, **data: str) -> httpx.Response:
    return httpx.post(
        f"{stack.stand_ins.localstripe_url}/v1/{path}",
        data=data,
        auth=(bootstrap.STRIPE_SECRET_KEY, ""),
    )


async def subscribed(
    app: FastAPI, client: httpx.AsyncClient, stack: Stack, me: SignedIn, units: int
) -> str:
    """Give ``me`` a card and a plan of ``units``; returns the Stripe subscription id."""
    assert (await add_card(client, stack, me)).status_code == 200
    response = await client.post("/web/subscription", json={"units": units}, headers=me.headers)
    assert response.status_code == 200, response.text
    subscription_id = (await load_account(app, me)).stripe_subscription_id
    assert subscription_id is not None
    return subscription_id


async def preview(client: httpx.AsyncClient, me: SignedIn, units: int) -> dict[str, Any]:
    response = await client.get(f"/web/subscription/preview?units={units}", headers=me.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def invoices(stack: Stack, subscription_id: str) -> list[dict[str, Any]]:
    data = stripe_get(stack, f"invoices?subscription={subscription_id}")["data"]
    assert isinstance(data, list)
    return data


def latest_invoice(stack: Stack, subscription_id: str) -> dict[str, Any]:
    invoice_id = stripe_get(stack, f"subscriptions/{subscription_id}")["latest_invoice"]
    return stripe_get(stack, f"invoices/{invoice_id}")


def pending_items(stack: Stack, customer: str) -> list[object]:
    """Invoice items not on an invoice yet: what the next invoice would add (or credit)."""
    data = stripe_get(stack, f"invoiceitems?customer={customer}")["data"]
    assert isinstance(data, list)
    return [item for item in data if item["invoice"] is None]


async def relay(
    app: FastAPI, client: httpx.AsyncClient, event_type: str, obj: dict[str, object]
) -> None:
    """Deliver what Stripe would send about ``obj``, a second after our own last write, and
    wait until the worker has applied it."""
    await process(app, client, event(event_type, obj, created=int(time.time()) + 1))


async def invoice_statuses(client: httpx.AsyncClient, me: SignedIn) -> dict[str, str]:
    """GET /web/invoices as the Invoices panel reads it: each invoice's status by id."""
    response = await client.get("/web/invoices", headers=me.headers)
    assert response.status_code == 200, response.text
    return {i["id"]: i["status"] for i in response.json()["invoices"]}


class TestPreview:
    async def test_an_upgrade_charges_the_rest_of_the_period_and_the_change_charges_it(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 3)
        subscription = stripe_get(stack, f"subscriptions/{subscription_id}")
        shown = await preview(client, me, 5)
        start, end = subscription["current_period_start"], subscription["current_period_end"]
        assert isinstance(start, int) and isinstance(end, int)
        left = (end - shown["prorationDate"]) / (end - start)
        assert shown["change"] == "upgrade"
        assert (shown["currency"], shown["unitAmount"], shown["monthlyAmount"]) == (
            "usd",
            UNIT,
            5 * UNIT,
        )
        # Stripe's two proration lines, each rounded to the cent.
        assert shown["amountDueNow"] == round(5 * UNIT * left) - round(3 * UNIT * left)
        assert 0 < shown["amountDueNow"] <= 2 * UNIT
        assert shown["nextInvoiceAt"] == iso(end)
        assert shown["nextInvoiceAmount"] == 5 * UNIT

        await asyncio.sleep(1.1)  # the charge must follow the preview's date, not the clock
        response = await client.post(
            "/web/subscription",
            json={"units": 5, "prorationDate": shown["prorationDate"]},
            headers=me.headers,
        )
        assert response.status_code == 200, response.text
        assert response.json()["subscription"]["units"] == 5
        charged = latest_invoice(stack, subscription_id)
        assert charged["status"] == "paid"
        assert charged["amount_paid"] == shown["amountDueNow"]

    async def test_each_kind_of_change(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        start = await preview(client, me, 2)
        assert (start["change"], start["amountDueNow"], start["monthlyAmount"]) == (
            "start",
            2 * UNIT,
            2 * UNIT,
        )
        assert start["nextInvoiceAt"] is not None
        assert (await preview(client, me, 0))["change"] == "none"

        subscription_id = await subscribed(app, client, stack, me, 4)
        end = stripe_get(stack, f"subscriptions/{subscription_id}")["current_period_end"]
        down = await preview(client, me, 1)
        assert (down["change"], down["amountDueNow"], down["effectiveAt"]) == (
            "downgrade",
            0,
            iso(end),
        )
        assert (down["nextInvoiceAt"], down["nextInvoiceAmount"]) == (iso(end), UNIT)
        cancel = await preview(client, me, 0)
        assert (cancel["change"], cancel["amountDueNow"], cancel["effectiveAt"]) == (
            "cancel",
            0,
            iso(end),
        )
        assert (cancel["nextInvoiceAt"], cancel["nextInvoiceAmount"]) == (None, None)

    async def test_needs_a_card_and_whole_units(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        refused = await client.get("/web/subscription/preview?units=3", headers=me.headers)
        assert refused.status_code == 409
        assert refused.json()["code"] == "PaymentMethodRequired"
        for units in ("21", "-1", "1.5", "x"):
            bad = await client.get(f"/web/subscription/preview?units={units}", headers=me.headers)
            assert bad.status_code == 422, units

    async def test_an_old_preview_cannot_be_confirmed(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await subscribed(app, client, stack, me, 1)
        for stale in (int(time.time()) - 601, int(time.time()) + 60):
            response = await client.post(
                "/web/subscription",
                json={"units": 2, "prorationDate": stale},
                headers=me.headers,
            )
            assert response.status_code == 409
            assert response.json() == {
                "code": "PreviewExpired",
                "message": "The price shown is more than 10 minutes old. "
                "Review the new price and confirm again.",
            }
        assert (await account_json(client, me))["subscription"]["units"] == 1


class TestUpgrade:
    async def test_a_declined_charge_changes_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 2)
        assert (await add_card(client, stack, me, DECLINES_CHARGES)).status_code == 200
        response = await client.post("/web/subscription", json={"units": 6}, headers=me.headers)
        assert response.status_code == 402
        assert response.json() == {"code": "CardDeclined", "message": "Your card was declined."}
        assert (await account_json(client, me))["subscription"]["units"] == 2
        subscription = stripe_get(stack, f"subscriptions/{subscription_id}")
        assert subscription["quantity"] == 2
        assert subscription["status"] == "active"

    async def test_setting_0_after_an_upgrade_keeps_the_upgrade_paid(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        # What charging an upgrade when it is made prevents: raise the plan, use it, set 0,
        # pay nothing for the extra.
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 1)
        up = await client.post("/web/subscription", json={"units": 20}, headers=me.headers)
        assert up.status_code == 200, up.text
        paid = sorted(i["amount_paid"] for i in invoices(stack, subscription_id))
        assert paid[0] == UNIT  # the first month
        assert 18 * UNIT < paid[1] <= 19 * UNIT  # then 19 more units for the rest of it
        assert latest_invoice(stack, subscription_id)["status"] == "paid"
        down = await client.post("/web/subscription", json={"units": 0}, headers=me.headers)
        assert down.status_code == 200
        # The upgrade stays paid, nothing is credited, and the allowance paid for stays.
        assert sorted(i["amount_paid"] for i in invoices(stack, subscription_id)) == paid
        customer = latest_invoice(stack, subscription_id)["customer"]
        assert pending_items(stack, str(customer)) == []
        plan = (await account_json(client, me))["subscription"]
        assert (plan["units"], plan["scheduledUnits"]) == (20, 0)


class TestScheduledChanges:
    async def test_a_downgrade_waits_for_the_period_end_and_can_be_undone(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 10)
        end = stripe_get(stack, f"subscriptions/{subscription_id}")["current_period_end"]
        down = await client.post("/web/subscription", json={"units": 4}, headers=me.headers)
        assert down.status_code == 200, down.text
        plan = down.json()["subscription"]
        assert (plan["units"], plan["scheduledUnits"], plan["scheduledChangeAt"]) == (
            10,
            4,
            iso(end),
        )
        schedule_id = stripe_get(stack, f"subscriptions/{subscription_id}")["schedule"]
        assert isinstance(schedule_id, str)
        phases = stripe_get(stack, f"subscription_schedules/{schedule_id}")["phases"]
        assert isinstance(phases, list)
        assert [p["items"][0]["quantity"] for p in phases] == [10, 4]
        assert len(invoices(stack, subscription_id)) == 1  # nothing credited

        undo = await client.post("/web/subscription", json={"units": 10}, headers=me.headers)
        assert undo.status_code == 200
        assert undo.json()["subscription"]["scheduledUnits"] is None
        assert stripe_get(stack, f"subscriptions/{subscription_id}").get("schedule") is None
        assert stripe_get(stack, f"subscription_schedules/{schedule_id}")["status"] == "released"

        # Scheduled again, then the period ends: Stripe's next phase, relayed by its webhook.
        again = await client.post("/web/subscription", json={"units": 3}, headers=me.headers)
        assert again.json()["subscription"]["scheduledUnits"] == 3
        renewed = stripe_post(stack, f"test_helpers/subscriptions/{subscription_id}/renew")
        assert renewed.status_code == 200, renewed.text
        assert renewed.json()["quantity"] == 3
        await relay(app, client, "customer.subscription.updated", renewed.json())
        plan = (await account_json(client, me))["subscription"]
        assert (plan["units"], plan["scheduledUnits"]) == (3, None)
        assert latest_invoice(stack, subscription_id)["amount_paid"] == 3 * UNIT
        # Stripe made that change, and the account's log says so.
        assert await stripes_changes(app, me) == [
            (
                "plan.units_changed",
                {"units": {"from": 10, "to": 3}, "scheduledUnits": {"from": 3, "to": None}},
            )
        ]

    async def test_an_upgrade_drops_a_scheduled_end(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 2)
        await client.post("/web/subscription", json={"units": 0}, headers=me.headers)
        up = await client.post("/web/subscription", json={"units": 3}, headers=me.headers)
        assert up.status_code == 200, up.text
        plan = up.json()["subscription"]
        assert (plan["units"], plan["scheduledUnits"]) == (3, None)
        subscription = stripe_get(stack, f"subscriptions/{subscription_id}")
        assert (subscription["quantity"], subscription["cancel_at_period_end"]) == (3, False)

    async def test_the_plan_ends_with_the_period(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 2)
        await client.post("/web/subscription", json={"units": 0}, headers=me.headers)
        ended = stripe_post(stack, f"test_helpers/subscriptions/{subscription_id}/renew")
        assert ended.json()["status"] == "canceled"
        await relay(app, client, "customer.subscription.deleted", ended.json())
        plan = (await account_json(client, me))["subscription"]
        assert (plan["units"], plan["scheduledUnits"]) == (0, None)
        # In the Activity page and its CSV, by Stripe: no user did it.
        events = (
            await client.get(
                "/web/audit-events", params={"action": "plan.units_changed"}, headers=me.headers
            )
        ).json()["events"]
        by_stripe = [e for e in events if e["actor"]["id"] is None]
        assert [(e["actor"], e["changes"]) for e in by_stripe] == [
            (
                {"id": None, "name": "Stripe", "email": ""},
                {"units": {"from": 2, "to": 0}, "scheduledUnits": {"from": 0, "to": None}},
            )
        ]
        export = await client.get("/web/audit-events/export", headers=me.headers)
        [row] = [r for r in csv.DictReader(io.StringIO(export.text)) if r["actor_name"] == "Stripe"]
        assert (row["actor_id"], row["action"]) == ("", "plan.units_changed")


class TestPastDue:
    async def test_a_failed_renewal_shows_the_amount_and_can_be_paid(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        other = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 3)
        assert (await add_card(client, stack, me, DECLINES_CHARGES)).status_code == 200
        renewed = stripe_post(stack, f"test_helpers/subscriptions/{subscription_id}/renew")
        assert renewed.json()["status"] == "past_due"
        unpaid = latest_invoice(stack, subscription_id)
        assert unpaid["status"] == "open"
        await relay(app, client, "invoice.payment_failed", unpaid)
        plan = (await account_json(client, me))["subscription"]
        assert plan["pastDue"] == {"amountDue": 3 * UNIT, "currency": "usd"}
        assert plan["paymentFailedAt"] is not None
        assert plan["units"] == 3  # Stripe retries before the plan ends
        # Invoices says which one: the renewal is past due, the first month paid.
        statuses = await invoice_statuses(client, me)
        assert statuses[str(unpaid["id"])] == "past_due"
        assert sorted(statuses.values()) == ["paid", "past_due"]

        # Another account has nothing past due, and cannot pay this one.
        nothing = await client.post("/web/subscription/pay", headers=other.headers)
        assert nothing.status_code == 404
        assert nothing.json()["message"] == "There is no unpaid invoice."

        declined = await client.post("/web/subscription/pay", headers=me.headers)
        assert declined.status_code == 402
        assert declined.json()["message"] == "Your card was declined."
        assert (await account_json(client, me))["subscription"]["pastDue"] is not None

        assert (await add_card(client, stack, me, VISA)).status_code == 200
        paid = await client.post("/web/subscription/pay", headers=me.headers)
        assert paid.status_code == 200, paid.text
        assert paid.json()["subscription"]["pastDue"] is None
        assert paid.json()["subscription"]["paymentFailedAt"] is None
        assert latest_invoice(stack, subscription_id)["status"] == "paid"
        assert stripe_get(stack, f"subscriptions/{subscription_id}")["status"] == "active"
        assert (await invoice_statuses(client, me))[str(unpaid["id"])] == "paid"

    async def test_unpaid_past_the_retries_falls_to_the_free_plan(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 3)
        subscription = stripe_get(stack, f"subscriptions/{subscription_id}")
        await relay(
            app, client, "customer.subscription.updated", {**subscription, "status": "unpaid"}
        )
        assert (await account_json(client, me))["subscription"]["units"] == 0
        assert await stripes_changes(app, me) == [
            ("plan.units_changed", {"units": {"from": 3, "to": 0}})
        ]

    @pytest.mark.parametrize("path", ["/web/subscription/pay", "/web/subscription/preview?units=1"])
    async def test_anonymous_is_401(self, client: httpx.AsyncClient, path: str) -> None:
        method = client.post if path.endswith("pay") else client.get
        assert (await method(path)).status_code == 401


class TestStart:
    async def test_a_declined_first_month_starts_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me, DECLINES_CHARGES)).status_code == 200
        response = await client.post("/web/subscription", json={"units": 1}, headers=me.headers)
        assert response.status_code == 402
        assert response.json()["message"] == "Your card was declined."
        account = await load_account(app, me)
        assert (account.subscription_units, account.stripe_subscription_id) == (0, None)
        live = stripe_get(stack, f"subscriptions?customer={account.stripe_customer_id}")
        assert live["data"] == []
