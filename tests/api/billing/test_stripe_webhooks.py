"""POST /webhooks/stripe and the job that applies each event (README "Billing", "Background
work"): the route checks the signature, records the event id and defers its processing in the
same transaction, and answers 202 at once; a worker applies the event, once, keeping the
ordering rules, and retries when it fails. Payloads are built and signed here the way Stripe
signs them (https://docs.stripe.com/webhooks#verify-manually), since localstripe never sends
the update and failure events."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import time
from datetime import UTC, datetime
from typing import Any

import httpx
import procrastinate
from fastapi import FastAPI
from sqlalchemy import Row, func, select, text
from structlog.testing import capture_logs

from api.app.worker import create_job_app
from api.billing.webhooks.service import process_event, receive_webhook
from api.models import Account, AuditEvent, StripeEvent
from api.principal.resources import JobResources
from devstack import bootstrap
from devstack.stack import Stack
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


def event_id_of(payload: bytes) -> str:
    event_id: str = json.loads(payload)["id"]
    return event_id


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


async def stored_event(app: FastAPI, event_id: str) -> Row[Any] | None:
    """The ``stripe_event`` row of ``event_id`` (its id and ``processed_at``), or None."""
    async with app.state.resources.sessionmaker() as db:
        row: Row[Any] | None = (
            await db.execute(
                select(StripeEvent.id, StripeEvent.processed_at).where(StripeEvent.id == event_id)
            )
        ).first()
        return row


async def jobs_of_event(app: FastAPI, event_id: str) -> list[Row[Any]]:
    """The job rows processing ``event_id``."""
    async with app.state.resources.sessionmaker() as db:
        rows = await db.execute(
            text(
                "SELECT id, status, attempts FROM procrastinate_jobs "
                "WHERE args->>'event_id' = :event_id ORDER BY id"
            ),
            {"event_id": event_id},
        )
        return list(rows)


async def processed(app: FastAPI, event_id: str, wait_s: float = 10.0) -> None:
    """Wait until the worker beside the app (tests/api/conftest.py) has applied the event."""
    deadline = time.monotonic() + wait_s
    while (row := await stored_event(app, event_id)) is None or row.processed_at is None:
        assert time.monotonic() < deadline, f"{event_id} was not processed within {wait_s} s"
        await asyncio.sleep(0.05)


async def process(app: FastAPI, client: httpx.AsyncClient, payload: bytes) -> None:
    """Deliver a signed event as Stripe does, then wait until the worker has applied it."""
    response = await deliver(client, payload)
    assert response.status_code == 202, response.text
    await processed(app, event_id_of(payload))


def subscription(
    customer: str,
    sub_id: str,
    quantity: int,
    status: str = "active",
    plan: str = bootstrap.PLAN_ID,
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
                    "plan": {"id": plan, "object": "plan"},
                    "quantity": quantity,
                }
            ],
        },
    }


def invoice(
    customer: str,
    status: str = "open",
    invoice_id: str | None = None,
    amount_due: int = 4000,
) -> dict[str, Any]:
    """An invoice object as a webhook carries it (https://docs.stripe.com/api/invoices/object)."""
    return {
        "id": invoice_id or f"in_{secrets.token_hex(6)}",
        "object": "invoice",
        "customer": customer,
        "status": status,
        "created": int(time.time()) - 5,
        "currency": "usd",
        "amount_due": amount_due,
        "amount_paid": amount_due if status == "paid" else 0,
    }


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


async def stripes_changes(app: FastAPI, me: SignedIn) -> list[tuple[str, dict[str, Any]]]:
    """The audit events Stripe is the actor of in the account's log: action and changes."""
    async with app.state.resources.sessionmaker() as db:
        rows = await db.execute(
            select(AuditEvent.action, AuditEvent.changes)
            .where(AuditEvent.account_id == me.account.id, AuditEvent.actor_name == "Stripe")
            .order_by(AuditEvent.occurred_at)
        )
        return [(action, changes or {}) for action, changes in rows]


class TestSignature:
    async def test_unsigned_is_400_and_records_nothing(
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
        assert await stored_event(app, event_id_of(payload)) is None
        assert await jobs_of_event(app, event_id_of(payload)) == []

    async def test_badly_signed_is_400_and_records_nothing(
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
        assert await stored_event(app, event_id_of(payload)) is None
        assert await jobs_of_event(app, event_id_of(payload)) == []
        assert (await load(app, me)).payment_failed_at is None

    async def test_signed_but_not_an_event_is_400(self, client: httpx.AsyncClient) -> None:
        payload = b"not json"
        response = await deliver(client, payload)
        assert response.status_code == 400


class TestOnTheJobEngine:
    async def test_answered_at_once_and_applied_by_a_worker(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        payload = event("invoice.payment_failed", invoice(customer))
        event_id = event_id_of(payload)
        # A billing write holds the account's row: applying the event waits for it, the answer
        # to Stripe does not.
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(
                select(Account.id).where(Account.id == me.account.id).with_for_update()
            )
            response = await asyncio.wait_for(deliver(client, payload), 10)
            assert response.status_code == 202
            assert response.json() == {"received": True}
            row = await stored_event(app, event_id)
            assert row is not None and row.processed_at is None
            assert len(await jobs_of_event(app, event_id)) == 1
        await processed(app, event_id)
        assert (await load(app, me)).payment_failed_at is not None

    async def test_a_rolled_back_request_enqueues_nothing(
        self, app: FastAPI, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        payload = event("invoice.payment_failed", invoice(customer))
        event_id = event_id_of(payload)
        async with app.state.resources.sessionmaker() as db:
            await receive_webhook(
                db=db, stripe=app.state.resources.stripe, payload=payload, signature=sign(payload)
            )
            deferred = await db.scalar(
                text("SELECT count(*) FROM procrastinate_jobs WHERE args->>'event_id' = :id"),
                {"id": event_id},
            )
            assert deferred == 1  # in the request's transaction...
            await db.rollback()  # ...which fails after all
        assert await stored_event(app, event_id) is None
        assert await jobs_of_event(app, event_id) == []

    async def test_a_duplicate_delivery_is_recorded_once_and_applied_once(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        sub = f"sub_{secrets.token_hex(6)}"
        payload = event("customer.subscription.updated", subscription(customer, sub, 4))
        event_id = event_id_of(payload)
        # Stripe retries and may send the same event twice at once.
        first, second = await asyncio.gather(deliver(client, payload), deliver(client, payload))
        assert (first.status_code, second.status_code) == (202, 202)
        await processed(app, event_id)
        again = await deliver(client, payload)  # and again, once it was applied
        assert again.status_code == 202
        assert again.json() == {"received": True}
        async with app.state.resources.sessionmaker() as db:
            count = await db.scalar(
                select(func.count()).select_from(StripeEvent).where(StripeEvent.id == event_id)
            )
        assert count == 1
        [job] = await jobs_of_event(app, event_id)
        assert job.status == "succeeded"
        assert (await load(app, me)).subscription_units == 4
        assert await stripes_changes(app, me) == [
            ("plan.units_changed", {"units": {"from": 0, "to": 4}})
        ]

    async def test_a_job_run_again_changes_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        # A worker that dies after its commit, before the engine marks the job done, leaves it
        # to be run again (api/app/jobs/stalled.py).
        me = await make_user()
        customer = await with_customer(app, me)
        sub = f"sub_{secrets.token_hex(6)}"
        payload = event("customer.subscription.updated", subscription(customer, sub, 2))
        await process(app, client, payload)
        async with app.state.resources.sessionmaker() as db, db.begin():
            await process_event(
                db=db, event_id=event_id_of(payload), plan_id=app.state.settings.stripe.plan_id
            )
        assert len(await stripes_changes(app, me)) == 1

    async def test_a_failed_attempt_is_retried(
        self, app: FastAPI, make_user: MakeUser, stack: Stack
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        payload = event("invoice.payment_failed", invoice(customer))
        event_id = event_id_of(payload)
        queue = f"test-{secrets.token_hex(6)}"  # not the app's worker's: this test runs it
        async with app.state.resources.sessionmaker() as db, db.begin():
            await receive_webhook(
                db=db,
                stripe=app.state.resources.stripe,
                payload=payload,
                signature=sign(payload),
                queue=queue,
            )
        resources = JobResources(stack.settings)
        jobs = create_job_app(stack.settings, resources=resources)
        try:
            async with jobs.open_async():
                await _fail_first_attempt(app, me, jobs, queue)
                [job] = await jobs_of_event(app, event_id)
                assert (job.status, job.attempts) == ("todo", 1)  # to be tried again later
                row = await stored_event(app, event_id)
                assert row is not None and row.processed_at is None
                assert (await load(app, me)).payment_failed_at is None
                async with app.state.resources.sessionmaker() as db, db.begin():
                    await db.execute(  # as if the backoff had passed
                        text("UPDATE procrastinate_jobs SET scheduled_at = now() WHERE id = :id"),
                        {"id": job.id},
                    )
                await _work_off(jobs, queue)
        finally:
            await resources.aclose()
        [job] = await jobs_of_event(app, event_id)
        assert (job.status, job.attempts) == ("succeeded", 2)
        assert (await load(app, me)).payment_failed_at is not None


async def _work_off(jobs: procrastinate.App, queue: str) -> None:
    """Run a worker on ``queue`` until nothing there is due (wait=False)."""
    await jobs.run_worker_async(queues=[queue], wait=False, install_signal_handlers=False)


async def _fail_first_attempt(
    app: FastAPI, me: SignedIn, jobs: procrastinate.App, queue: str
) -> None:
    """Run the queue's job while the account's row is held, and cut the job's database
    connection while it waits for the row (a database restart, a failover)."""
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(select(Account.id).where(Account.id == me.account.id).with_for_update())
        worker = asyncio.create_task(_work_off(jobs, queue))
        deadline = time.monotonic() + 10
        while True:
            # The activity view is read once per transaction unless its snapshot is cleared.
            await db.execute(text("SELECT pg_stat_clear_snapshot()"))
            blocked = await db.scalar(
                text(
                    "SELECT pid FROM pg_stat_activity "
                    "WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))"
                )
            )
            if blocked is not None:
                break
            assert time.monotonic() < deadline, "the job never waited for the account's row"
            await asyncio.sleep(0.05)
        await db.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": blocked})
        await asyncio.wait_for(worker, 10)


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
        await process(app, client, newer)
        await process(app, client, older)
        assert (await load(app, me)).subscription_units == 5

    async def test_a_late_failure_of_an_invoice_since_paid_is_skipped(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        now = int(time.time())
        failed = invoice(customer)
        paid = {**failed, "status": "paid", "amount_paid": failed["amount_due"]}
        await process(app, client, event("invoice.paid", paid, created=now))
        await process(app, client, event("invoice.payment_failed", failed, created=now - 60))
        assert (await load(app, me)).payment_failed_at is None
        # Events of one second: paid is final, whichever comes last.
        other = invoice(customer)
        other_paid = {**other, "status": "paid", "amount_paid": other["amount_due"]}
        await process(app, client, event("invoice.paid", other_paid, created=now))
        await process(app, client, event("invoice.payment_failed", other, created=now))
        assert (await load(app, me)).payment_failed_at is None

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
        await process(app, client, stale)
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
        await process(app, client, created)
        assert (await load(app, me)).subscription_units == 7
        # ...while the subscription ending in that second ends the plan (an end is final).
        ended = event(
            "customer.subscription.deleted",
            subscription(customer, "sub_mine", 7, status="canceled"),
            created=same_second,
        )
        await process(app, client, ended)
        assert (await load(app, me)).subscription_units == 0


class TestEventTypes:
    async def test_subscription_created_updated_deleted(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        sub = f"sub_{secrets.token_hex(6)}"

        await process(
            app, client, event("customer.subscription.created", subscription(customer, sub, 2))
        )
        stored = await load(app, me)
        assert (stored.subscription_units, stored.stripe_subscription_id) == (2, sub)

        await process(
            app, client, event("customer.subscription.updated", subscription(customer, sub, 6))
        )
        assert (await load(app, me)).subscription_units == 6
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["subscription"]["units"] == 6

        # A subscription that is no longer live ends the paid plan.
        ended = subscription(customer, sub, 6, status="canceled")
        await process(app, client, event("customer.subscription.deleted", ended))
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
        await process(app, client, event("customer.subscription.deleted", old))
        stored = await load(app, me)
        assert (stored.subscription_units, stored.stripe_subscription_id) == (4, "sub_current")
        assert await stripes_changes(app, me) == []

    async def test_a_subscription_to_another_plan_is_ignored_and_logged(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        # The Stripe account may bill other products: their subscriptions are not the console's
        # plan, whatever their quantity.
        me = await make_user()
        customer = await with_customer(
            app, me, stripe_subscription_id="sub_console", subscription_units=2
        )
        other = subscription(customer, "sub_other_product", 9, plan="plan_other_product")
        payload = event("customer.subscription.created", other)
        with capture_logs() as logs:
            await process(app, client, payload)
        stored = await load(app, me)
        assert (stored.subscription_units, stored.stripe_subscription_id) == (2, "sub_console")
        [logged] = [entry for entry in logs if entry["event"] == "stripe_event_other_plan"]
        assert logged["event_id"] == event_id_of(payload)
        assert logged["plans"] == ["plan_other_product"]
        assert logged["log_level"] == "warning"
        ended = {**other, "status": "canceled"}
        await process(app, client, event("customer.subscription.deleted", ended))
        assert (await load(app, me)).subscription_units == 2
        assert await stripes_changes(app, me) == []

    async def test_a_failed_payment_shows_on_the_account(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        await process(app, client, event("invoice.payment_failed", invoice(customer)))
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["subscription"]["paymentFailedAt"] is not None
        assert account["subscription"]["pastDue"] == {"amountDue": 4000, "currency": "usd"}

    async def test_events_of_unknown_customers_and_other_types_are_acknowledged(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        await process(app, client, event("invoice.payment_failed", invoice("cus_nobody")))
        await process(app, client, event("customer.updated", {"id": customer}))
        assert (await load(app, me)).payment_failed_at is None

    async def test_the_webhook_is_not_in_the_contract(self, client: httpx.AsyncClient) -> None:
        from api.app.commands.openapi import contract

        assert URL not in json.loads(contract())["paths"]


class TestPastDue:
    """README "Billing", "Past due": the warning is about one invoice, and only that invoice's
    payment (or its voiding) ends it."""

    async def test_paying_another_invoice_does_not_clear_it(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        now = int(time.time())
        renewal = invoice(customer, amount_due=6000)
        await process(app, client, event("invoice.payment_failed", renewal, created=now))
        # Another invoice is paid later (an upgrade's proration, a one-off charge)...
        upgrade = invoice(customer, status="paid", amount_due=1500)
        await process(app, client, event("invoice.payment_succeeded", upgrade, created=now + 1))
        await process(app, client, event("invoice.paid", upgrade, created=now + 1))
        plan = (await client.get("/web/account", headers=me.headers)).json()["account"]
        # ...and the renewal is still owed.
        assert plan["subscription"]["pastDue"] == {"amountDue": 6000, "currency": "usd"}
        assert plan["subscription"]["paymentFailedAt"] is not None

        paid = {**renewal, "status": "paid", "amount_paid": 6000}
        await process(app, client, event("invoice.paid", paid, created=now + 2))
        plan = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert (plan["subscription"]["pastDue"], plan["subscription"]["paymentFailedAt"]) == (
            None,
            None,
        )

    async def test_a_voided_invoice_is_no_longer_owed(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        failed = invoice(customer)
        await process(app, client, event("invoice.payment_failed", failed))
        assert (await load(app, me)).past_due_invoice_id == failed["id"]
        await process(app, client, event("invoice.voided", {**failed, "status": "void"}))
        assert (await load(app, me)).past_due_invoice_id is None

    async def test_the_newest_unpaid_failure_is_shown_until_each_is_paid(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        customer = await with_customer(app, me)
        now = int(time.time())
        older, newer = invoice(customer, amount_due=2000), invoice(customer, amount_due=3000)
        await process(app, client, event("invoice.payment_failed", older, created=now - 60))
        await process(app, client, event("invoice.payment_failed", newer, created=now))
        assert (await load(app, me)).past_due_invoice_id == newer["id"]
        paid = {**newer, "status": "paid", "amount_paid": 3000}
        await process(app, client, event("invoice.paid", paid, created=now + 1))
        stored = await load(app, me)
        # The older one is still owed.
        assert (stored.past_due_invoice_id, stored.past_due_amount) == (older["id"], 2000)
