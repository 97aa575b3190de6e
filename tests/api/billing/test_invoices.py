"""The invoice mirror behind GET /web/invoices (README "Billing", "Invoices"): Stripe's invoice
webhooks (and the console's own charges) keep a copy of each invoice in our database, so the
Invoices panel reads no vendor. What localstripe and its shim send is relayed here from its
event log, as Stripe would deliver it."""

from __future__ import annotations

import secrets
import time
from typing import Any
from urllib.parse import urlparse

import httpx
import respx
from fastapi import FastAPI

from devstack.stack import Stack
from tests.api.billing.test_billing import add_card, load_account, stripe_get
from tests.api.billing.test_plan_changes import DECLINES_CHARGES, UNIT, subscribed
from tests.api.billing.test_stripe_webhooks import event, invoice, process, with_customer
from tests.api.conftest import MakeUser, SignedIn

URL = "/web/invoices"


async def relay_stripes_events(
    app: FastAPI, client: httpx.AsyncClient, stack: Stack, customer: str, since: int
) -> list[str]:
    """Deliver every event localstripe recorded about ``customer``'s invoices since ``since``
    (epoch seconds), newest first as its log lists them; returns their types."""
    listed = stripe_get(stack, f"events?created[gte]={since}&limit=100")["data"]
    assert isinstance(listed, list)
    relayed = []
    for item in listed:
        obj = item["data"]["object"]
        if item["type"].startswith("invoice.") and obj.get("customer") == customer:
            payload = event(item["type"], obj, event_id=item["id"], created=item["created"])
            await process(app, client, payload)
            relayed.append(item["type"])
    return relayed


async def page(
    client: httpx.AsyncClient, me: SignedIn, starting_after: str | None = None
) -> dict[str, Any]:
    params = {"startingAfter": starting_after} if starting_after else {}
    response = await client.get(URL, params=params, headers=me.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


class TestRead:
    async def test_read_from_our_database_with_stripe_unreachable(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await subscribed(app, client, stack, me, 2)
        host = urlparse(stack.stand_ins.localstripe_url)
        with respx.mock(assert_all_called=False) as mock:
            stripe = mock.route(host=host.hostname, port=host.port).mock(
                side_effect=httpx.ConnectTimeout("timed out")
            )
            mock.route().pass_through()
            [shown] = (await page(client, me))["invoices"]
        assert (shown["amountDue"], shown["status"]) == (2 * UNIT, "paid")
        assert not stripe.called

    async def test_pages_of_12_newest_first_for_the_account_only(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, other = await make_user(), await make_user()
        customer = await with_customer(app, me)
        now = int(time.time())
        made = []
        for age in range(14):  # one a month, the newest first
            paid = {**invoice(customer, status="paid"), "created": now - age * 30 * 86400}
            await process(app, client, event("invoice.paid", paid))
            made.append(paid["id"])
        first = await page(client, me)
        assert [i["id"] for i in first["invoices"]] == made[:12]
        assert first["hasMore"] is True
        second = await page(client, me, first["invoices"][-1]["id"])
        assert ([i["id"] for i in second["invoices"]], second["hasMore"]) == (made[12:], False)
        assert await page(client, other) == {"invoices": [], "hasMore": False}
        # Another account's invoice as a cursor is not found, as an unknown one.
        for cursor in (made[0], f"in_{secrets.token_hex(6)}"):
            foreign = await client.get(URL, params={"startingAfter": cursor}, headers=other.headers)
            assert foreign.status_code == 404, cursor
            assert foreign.json() == {"code": "NotFound", "message": "There is no such invoice."}


class TestMirror:
    async def test_events_of_one_second_in_any_order_end_paid(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        # localstripe sends invoice.created (a draft) and invoice.payment_succeeded in the same
        # second, each after a pause of its own: either may arrive first.
        me = await make_user()
        customer = await with_customer(app, me)
        now = int(time.time())
        draft = invoice(customer, status="draft")
        paid = {**draft, "status": "paid", "amount_paid": draft["amount_due"]}
        await process(app, client, event("invoice.payment_succeeded", paid, created=now))
        await process(app, client, event("invoice.created", draft, created=now))
        [shown] = (await page(client, me))["invoices"]
        assert (shown["id"], shown["status"], shown["amountPaid"]) == (
            draft["id"],
            "paid",
            draft["amount_due"],
        )

    async def test_each_status_change(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        now = int(time.time())
        draft = invoice(customer, status="draft")
        steps = [
            ("invoice.created", draft, "draft"),
            ("invoice.updated", {**draft, "amount_due": 2500}, "draft"),
            ("invoice.finalized", {**draft, "amount_due": 2500, "status": "open"}, "open"),
            ("invoice.payment_failed", {**draft, "amount_due": 2500, "status": "open"}, "past_due"),
            (
                "invoice.marked_uncollectible",
                {**draft, "amount_due": 2500, "status": "uncollectible"},
                "uncollectible",
            ),
            ("invoice.voided", {**draft, "amount_due": 2500, "status": "void"}, "void"),
        ]
        for second, (event_type, obj, shown) in enumerate(steps):
            await process(app, client, event(event_type, obj, created=now + second))
            [listed] = (await page(client, me))["invoices"]
            assert (listed["status"], listed["amountDue"]) == (shown, obj["amount_due"])
        another = invoice(customer, status="draft")
        await process(app, client, event("invoice.created", another))
        await process(app, client, event("invoice.deleted", another))
        assert [i["id"] for i in (await page(client, me))["invoices"]] == [draft["id"]]

    async def test_an_upcoming_invoice_is_not_one(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        upcoming = {k: v for k, v in invoice(customer, status="draft").items() if k != "id"}
        await process(app, client, event("invoice.upcoming", upcoming))
        assert (await page(client, me))["invoices"] == []

    async def test_a_declined_upgrade_leaves_a_void_invoice_and_nothing_past_due(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        # Stripe voids the invoice of a change made with payment_behavior=error_if_incomplete
        # whose payment fails: it tried a charge (invoice.payment_failed), and nothing is owed.
        me = await make_user()
        await subscribed(app, client, stack, me, 2)
        assert (await add_card(client, stack, me, DECLINES_CHARGES)).status_code == 200
        since = int(time.time())
        declined = await client.post("/web/subscription", json={"units": 5}, headers=me.headers)
        assert declined.status_code == 402
        customer = (await load_account(app, me)).stripe_customer_id
        assert customer is not None
        relayed = await relay_stripes_events(app, client, stack, customer, since)
        assert {"invoice.payment_failed", "invoice.voided"} <= set(relayed), relayed
        statuses = sorted(i["status"] for i in (await page(client, me))["invoices"])
        assert statuses == ["paid", "void"]
        plan = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert (plan["subscription"]["pastDue"], plan["subscription"]["paymentFailedAt"]) == (
            None,
            None,
        )

    async def test_our_own_charges_are_listed_at_once(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        # No webhook needed for what the console itself charged: the first month, an upgrade.
        me = await make_user()
        await subscribed(app, client, stack, me, 1)
        up = await client.post("/web/subscription", json={"units": 4}, headers=me.headers)
        assert up.status_code == 200, up.text
        shown = (await page(client, me))["invoices"]
        assert [i["status"] for i in shown] == ["paid", "paid"]
        first_month, upgrade = sorted(
            shown,
            key=lambda i: i["amountDue"] != UNIT,  # made in one second: any order
        )
        assert first_month["amountDue"] == UNIT
        assert 0 < upgrade["amountDue"] <= 3 * UNIT  # the prorated difference
