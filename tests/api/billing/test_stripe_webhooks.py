"""POST /webhooks/stripe: signature checks, once-only processing, and the state each event
type keeps in step (ARCHITECTURE "Payments"). Payloads are built and signed here the way Stripe
signs them (https://docs.stripe.com/webhooks#verify-manually), since localstripe never sends
the update and failure events."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from datetime import UTC, datetime
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from api.models import Account, StripeEvent
from devstack import bootstrap
from tests.api.conftest import MakeUser, SignedIn

URL = "/webhooks/stripe"


def event(
    event_type: str, obj: dict[str, Any], event_id: str | None = None, created: int | None = None
) -> bytes:
    return json.dumps(
        {
            "id": event_id or f"evt_{secrets.token_hex(8)}",
            "object": "event",
            "api_version": "2020-08-27",
            "created": created if created is not None else int(time.time()),
            "livemode": False,
            "type": event_type,
            "data": {"object": obj},
        }
    ).encode()


def sign(
    payload: bytes, secret: str = bootstrap.STRIPE_WEBHOOK_SECRET, at: int | None = None
) -> str:
    timestamp = at if at is not None else int(time.time())
    digest = hmac.new(
        secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256
    ).hexdigest()
    return f"t={timestamp},v1={digest}"


async def deliver(
    client: httpx.AsyncClient, payload: bytes, signature: str | None = None
) -> httpx.Response:
    headers = {"Content-Type": "application/json"}
    headers["Stripe-Signature"] = signature if signature is not None else sign(payload)
    return await client.post(URL, content=payload, headers=headers)


def subscription(
    customer: str, sub_id: str, quantity: int, status: str = "active"
) -> dict[str, Any]:
    return {
        "id": sub_id,
        "object": "subscription",
        "customer": customer,
        "status": status,
        "items": {
            "object": "list",
            "data": [
                {
                    "id": f"si_{secrets.token_hex(6)}",
                    "object": "subscription_item",
                    "plan": {"id": bootstrap.PLAN_ID, "object": "plan"},
                    "quantity": quantity,
                }
            ],
        },
    }


def invoice(customer: str) -> dict[str, Any]:
    return {"id": f"in_{secrets.token_hex(6)}", "object": "invoice", "customer": customer}


async def with_customer(app: FastAPI, me: SignedIn, **fields: Any) -> str:
    """Give the account a Stripe customer id (and other columns) as if it had added a card."""
    customer = f"cus_{secrets.token_hex(6)}"
    async with app.state.resources.sessionmaker() as db, db.begin():
        account = await db.get_one(Account, me.account.id)
        account.stripe_customer_id = customer
        for name, value in fields.items():
            setattr(account, name, value)
    return customer


async def load(app: FastAPI, me: SignedIn) -> Account:
    async with app.state.resources.sessionmaker() as db:
        return await db.get_one(Account, me.account.id)


class TestSignature:
    async def test_unsigned_is_400_and_processes_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        payload = event("invoice.payment_failed", invoice(customer))
        response = await client.post(URL, content=payload)
        assert response.status_code == 400
        assert response.json() == {
            "code": "InvalidWebhookSignature",
            "message": "Invalid webhook signature",
        }
        assert (await load(app, me)).payment_failed_at is None

    async def test_badly_signed_is_400_and_processes_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        payload = event("invoice.payment_failed", invoice(customer))
        for signature in (
            sign(payload, secret="whsec_someone_else"),
            sign(payload + b" "),  # signed other bytes
            sign(payload, at=int(time.time()) - 3600),  # replayed long after (tolerance 300 s)
            "garbage",
        ):
            response = await deliver(client, payload, signature)
            assert response.status_code == 400, signature
            assert response.json()["code"] == "InvalidWebhookSignature"
        assert (await load(app, me)).payment_failed_at is None

    async def test_signed_but_not_an_event_is_400(self, client: httpx.AsyncClient) -> None:
        payload = b"not json"
        response = await deliver(client, payload)
        assert response.status_code == 400


class TestOnceOnly:
    async def test_an_event_delivered_twice_has_one_effect(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        failed = event("invoice.payment_failed", invoice(customer))
        succeeded = event("invoice.payment_succeeded", invoice(customer))

        assert (await deliver(client, failed)).status_code == 202
        assert (await load(app, me)).payment_failed_at is not None
        assert (await deliver(client, succeeded)).status_code == 202
        assert (await load(app, me)).payment_failed_at is None
        # The first event again (Stripe retries): acknowledged, not applied a second time.
        response = await deliver(client, failed)
        assert response.status_code == 202
        assert response.json() == {"received": True}
        assert (await load(app, me)).payment_failed_at is None
        event_id = json.loads(failed)["id"]
        async with app.state.resources.sessionmaker() as db:
            count = await db.scalar(
                select(func.count()).select_from(StripeEvent).where(StripeEvent.id == event_id)
            )
        assert count == 1


class TestOrdering:
    """Stripe does not guarantee delivery order; an older event never undoes a newer one."""

    async def test_a_late_older_subscription_event_is_skipped(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        sub = f"sub_{secrets.token_hex(6)}"
        now = int(time.time())
        newer = event("customer.subscription.updated", subscription(customer, sub, 5), None, now)
        older = event(
            "customer.subscription.created", subscription(customer, sub, 2), None, now - 60
        )
        assert (await deliver(client, newer)).status_code == 202
        assert (await deliver(client, older)).status_code == 202
        assert (await load(app, me)).subscription_units == 5

    async def test_a_late_older_payment_failure_is_skipped(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        now = int(time.time())
        succeeded = event("invoice.payment_succeeded", invoice(customer), created=now)
        failed_before = event("invoice.payment_failed", invoice(customer), created=now - 60)
        await deliver(client, succeeded)
        await deliver(client, failed_before)
        assert (await load(app, me)).payment_failed_at is None
        failed_after = event("invoice.payment_failed", invoice(customer), created=now + 60)
        await deliver(client, failed_after)
        assert (await load(app, me)).payment_failed_at is not None

    async def test_events_older_than_our_own_plan_change_are_skipped(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(
            app,
            me,
            stripe_subscription_id="sub_mine",
            subscription_units=7,
            subscription_synced_at=datetime.now(UTC),
        )
        stale = event(
            "customer.subscription.updated",
            subscription(customer, "sub_mine", 3),
            created=int(time.time()) - 120,
        )
        await deliver(client, stale)
        assert (await load(app, me)).subscription_units == 7

    async def test_in_the_same_second_as_our_change_only_an_end_applies(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        # Stripe's created counts seconds: the subscription's creation (3 units), sent a
        # second later, must not undo an upgrade to 7 made in the same second...
        me = await make_user()
        synced = datetime.now(UTC).replace(microsecond=500_000)
        customer = await with_customer(
            app,
            me,
            stripe_subscription_id="sub_mine",
            subscription_units=7,
            subscription_synced_at=synced,
        )
        same_second = int(synced.timestamp())
        created = event(
            "customer.subscription.created",
            subscription(customer, "sub_mine", 3),
            created=same_second,
        )
        await deliver(client, created)
        assert (await load(app, me)).subscription_units == 7
        # ...while the subscription ending in that second ends the plan (an end is final).
        ended = event(
            "customer.subscription.deleted",
            subscription(customer, "sub_mine", 7, status="canceled"),
            created=same_second,
        )
        await deliver(client, ended)
        assert (await load(app, me)).subscription_units == 0


class TestEventTypes:
    async def test_subscription_created_updated_deleted(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        sub = f"sub_{secrets.token_hex(6)}"

        await deliver(
            client, event("customer.subscription.created", subscription(customer, sub, 2))
        )
        stored = await load(app, me)
        assert (stored.subscription_units, stored.stripe_subscription_id) == (2, sub)

        await deliver(
            client, event("customer.subscription.updated", subscription(customer, sub, 6))
        )
        assert (await load(app, me)).subscription_units == 6
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["subscription"]["units"] == 6

        # A subscription that is no longer live ends the paid plan.
        ended = subscription(customer, sub, 6, status="canceled")
        await deliver(client, event("customer.subscription.deleted", ended))
        stored = await load(app, me)
        assert (stored.subscription_units, stored.stripe_subscription_id) == (0, None)

    async def test_an_old_subscription_ending_keeps_the_current_plan(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(
            app, me, stripe_subscription_id="sub_current", subscription_units=4
        )
        old = subscription(customer, "sub_old", 1, status="canceled")
        assert (
            await deliver(client, event("customer.subscription.deleted", old))
        ).status_code == 202
        stored = await load(app, me)
        assert (stored.subscription_units, stored.stripe_subscription_id) == (4, "sub_current")

    async def test_a_failed_payment_shows_on_the_account(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        await deliver(client, event("invoice.payment_failed", invoice(customer)))
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["subscription"]["paymentFailedAt"] is not None

    async def test_events_of_unknown_customers_and_types_are_acknowledged(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        stranger = event("invoice.payment_failed", invoice("cus_nobody"))
        assert (await deliver(client, stranger)).status_code == 202
        other_type = event("invoice.created", invoice(customer))
        assert (await deliver(client, other_type)).status_code == 202
        assert (await load(app, me)).payment_failed_at is None

    async def test_the_webhook_is_not_in_the_contract(self, client: httpx.AsyncClient) -> None:
        from api.ops.openapi import contract

        assert URL not in json.loads(contract())["paths"]
