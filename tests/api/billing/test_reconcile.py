"""``python -m api.app.commands.reconcile`` (README "Billing", "Reconciliation"): each kind of
drift between our database and Stripe (localstripe and its shim) is found, reported once, and
repaired with ``fix``, after which the account is in step. The real state is made through
the API; then the database (the Account row written directly) or Stripe (localstripe called
with the secret key) is made to disagree."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import UTC, datetime
from urllib.parse import urlparse

import httpx
import respx
from fastapi import FastAPI
from sqlalchemy import delete, update

from api.billing.reconcile import Difference, reconcile, report
from api.models import Account, StripeInvoice
from devstack import bootstrap
from devstack.stack import Stack
from tests.api.billing.test_billing import add_card, iso, load_account, stripe_get
from tests.api.billing.test_plan_changes import latest_invoice, stripe_post, subscribed
from tests.api.conftest import MakeUser, SignedIn


async def check(app: FastAPI, *accounts: SignedIn, fix: bool = False) -> list[Difference]:
    """Reconcile only these accounts (the test database holds every other test's too)."""
    return await reconcile(
        sessionmaker=app.state.resources.sessionmaker,
        stripe=app.state.resources.stripe,
        fix=fix,
        account_ids=[me.account.id for me in accounts],
    )


def seen(found: Iterable[Difference]) -> list[tuple[str, str, str]]:
    return [(d.what, d.ours, d.stripe) for d in found]


async def write(app: FastAPI, me: SignedIn, **values: object) -> None:
    """Make our database disagree: write the account row as a lost webhook would leave it."""
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(update(Account).where(Account.id == me.account.id).values(**values))


async def fixed_and_then_in_step(
    app: FastAPI, me: SignedIn, expected: list[tuple[str, str, str]]
) -> list[Difference]:
    """Report, fix (the same differences, each fixed), then nothing is left."""
    assert seen(await check(app, me)) == expected
    repaired = await check(app, me, fix=True)
    assert seen(repaired) == expected
    assert all(d.fixed for d in repaired), repaired
    assert await check(app, me) == []
    return repaired


def customer_of(stored: Account) -> str:
    assert stored.stripe_customer_id is not None
    return stored.stripe_customer_id


def new_subscription(stack: Stack, customer: str, quantity: int) -> str:
    """A subscription made in Stripe behind our back (a call we took for failed)."""
    response = stripe_post(
        stack,
        "subscriptions",
        customer=customer,
        **{"items[0][plan]": bootstrap.PLAN_ID, "items[0][quantity]": str(quantity)},
    )
    assert response.status_code == 200, response.text
    subscription_id: str = response.json()["id"]
    return subscription_id


def stripe_delete(stack: Stack, path: str) -> httpx.Response:
    return httpx.delete(
        f"{stack.stand_ins.localstripe_url}/v1/{path}", auth=(bootstrap.STRIPE_SECRET_KEY, "")
    )


class TestInStep:
    async def test_an_account_made_through_the_api_has_no_difference(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await subscribed(app, client, stack, me, 3)
        assert (
            await client.post("/web/subscription", json={"units": 1}, headers=me.headers)
        ).status_code == 200
        assert await check(app, me) == []
        assert await check(app, me, fix=True) == []
        assert report([], fix=False) == (["0 difference(s) with Stripe in 0 account(s)"], 0)


class TestUnitsAndSubscription:
    async def test_units_follow_the_live_subscription(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await subscribed(app, client, stack, me, 3)
        await write(app, me, subscription_units=5)
        found = await check(app, me)
        assert report(found, fix=False) == (
            [
                f"{me.account.id} units: ours 5, Stripe 3",
                "1 difference(s) with Stripe in 1 account(s)",
            ],
            1,
        )
        repaired = await fixed_and_then_in_step(app, me, [("units", "5", "3")])
        assert report(repaired, fix=True) == (
            [
                f"{me.account.id} units: ours 5, Stripe 3; fixed: set to Stripe's",
                "1 difference(s) with Stripe in 1 account(s), 1 fixed, 0 left",
            ],
            0,
        )
        assert (await load_account(app, me)).subscription_units == 3

    async def test_units_without_a_live_subscription_are_0(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        await write(app, me, subscription_units=2)
        await fixed_and_then_in_step(app, me, [("units", "2", "0")])
        assert (await load_account(app, me)).subscription_units == 0

    async def test_the_subscription_id_follows_stripe(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 2)
        await write(app, me, stripe_subscription_id=None)
        await fixed_and_then_in_step(app, me, [("subscription", "none", subscription_id)])
        assert (await load_account(app, me)).stripe_subscription_id == subscription_id


class TestOrphanSubscriptions:
    async def test_a_second_live_subscription_is_cancelled(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        ours = await subscribed(app, client, stack, me, 2)
        orphan = new_subscription(stack, customer_of(await load_account(app, me)), 1)
        repaired = await fixed_and_then_in_step(
            app,
            me,
            [
                ("orphan subscription", f"{ours} only", f"also {orphan} (active, 1 units)"),
                ("invoices", "1 of 2 as in Stripe", "2 invoices"),  # the orphan's first month
            ],
        )
        assert repaired[0].fixed == f"cancelled {orphan}"
        assert stripe_get(stack, f"subscriptions/{orphan}")["status"] == "canceled"
        assert stripe_get(stack, f"subscriptions/{ours}")["status"] == "active"
        stored = await load_account(app, me)
        assert (stored.stripe_subscription_id, stored.subscription_units) == (ours, 2)

    async def test_without_one_of_ours_the_newest_is_kept(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        # The case reconciliation was written for: two subscriptions made by timed-out calls, the
        # console on the free plan.
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        customer = customer_of(await load_account(app, me))
        older = new_subscription(stack, customer, 3)
        await asyncio.sleep(1.1)  # Stripe orders by creation time, in seconds
        newest = new_subscription(stack, customer, 3)
        await fixed_and_then_in_step(
            app,
            me,
            [
                ("orphan subscription", f"{newest} only", f"also {older} (active, 3 units)"),
                ("subscription", "none", newest),
                ("units", "0", "3"),
                ("invoices", "0 of 2 as in Stripe", "2 invoices"),
            ],
        )
        assert stripe_get(stack, f"subscriptions/{older}")["status"] == "canceled"
        stored = await load_account(app, me)
        assert (stored.stripe_subscription_id, stored.subscription_units) == (newest, 3)


class TestCard:
    async def test_a_card_deleted_in_stripe_is_removed(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        customer = customer_of(await load_account(app, me))
        card = stripe_get(stack, f"customers/{customer}")["default_source"]
        deleted = stripe_delete(stack, f"customers/{customer}/sources/{card}")
        assert deleted.status_code == 200, deleted.text
        await fixed_and_then_in_step(app, me, [("card", "Visa 4242 08/2031", "none")])
        stored = await load_account(app, me)
        assert (stored.card_brand, stored.card_last4, stored.card_exp_year) == (None, None, None)

    async def test_our_card_is_stripes_default_card(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        await write(app, me, card_last4="1111", card_exp_month=1, card_exp_year=2030)
        await fixed_and_then_in_step(app, me, [("card", "Visa 1111 01/2030", "Visa 4242 08/2031")])
        stored = await load_account(app, me)
        assert (stored.card_last4, stored.card_exp_month, stored.card_exp_year) == ("4242", 8, 2031)


class TestScheduledChange:
    async def test_cancel_at_period_end_is_0_units_at_the_period_end(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 2)
        ended = stripe_post(stack, f"subscriptions/{subscription_id}", cancel_at_period_end="true")
        assert ended.status_code == 200, ended.text
        end = ended.json()["current_period_end"]
        when = datetime.fromtimestamp(end, UTC).isoformat()
        await fixed_and_then_in_step(app, me, [("scheduled change", "none", f"0 units on {when}")])
        stored = await load_account(app, me)
        assert stored.scheduled_units == 0
        assert stored.scheduled_change_at == datetime.fromtimestamp(end, UTC)

    async def test_a_schedules_next_phase_is_the_scheduled_change(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 4)
        down = await client.post("/web/subscription", json={"units": 1}, headers=me.headers)
        assert down.status_code == 200, down.text
        end = stripe_get(stack, f"subscriptions/{subscription_id}")["current_period_end"]
        await write(app, me, scheduled_units=None, scheduled_change_at=None)
        when = datetime.fromtimestamp(int(str(end)), UTC).isoformat()
        await fixed_and_then_in_step(app, me, [("scheduled change", "none", f"1 units on {when}")])
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        plan = account["subscription"]
        assert (plan["units"], plan["scheduledUnits"], plan["scheduledChangeAt"]) == (
            4,
            1,
            iso(end),
        )

    async def test_nothing_scheduled_in_stripe_is_nothing_scheduled(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await subscribed(app, client, stack, me, 3)
        at = datetime(2031, 1, 1, tzinfo=UTC)
        await write(app, me, scheduled_units=2, scheduled_change_at=at)
        await fixed_and_then_in_step(
            app, me, [("scheduled change", f"2 units on {at.isoformat()}", "none")]
        )
        stored = await load_account(app, me)
        assert (stored.scheduled_units, stored.scheduled_change_at) == (None, None)


class TestPastDue:
    async def test_an_invoice_paid_in_stripe_is_no_longer_past_due(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 3)
        invoice = str(latest_invoice(stack, subscription_id)["id"])
        await write(
            app,
            me,
            payment_failed_at=datetime.now(UTC),
            past_due_invoice_id=invoice,
            past_due_amount=6000,
            past_due_currency="usd",
        )
        repaired = await fixed_and_then_in_step(
            app, me, [("past due", f"{invoice} unpaid", f"{invoice} paid")]
        )
        assert repaired[0].fixed == "cleared"
        plan = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert (plan["subscription"]["pastDue"], plan["subscription"]["paymentFailedAt"]) == (
            None,
            None,
        )


class TestStripeErrors:
    async def test_one_account_stripe_refuses_does_not_stop_the_others(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        lost, drifted = await make_user(), await make_user()
        assert (await add_card(client, stack, lost)).status_code == 200
        await write(app, lost, stripe_customer_id=f"cus_gone{lost.account.id.hex[:8]}")
        assert (await add_card(client, stack, drifted)).status_code == 200
        await write(app, drifted, subscription_units=4)
        found = await check(app, lost, drifted, fix=True)
        assert seen(found) == [("not checked", "-", "refused: Not Found"), ("units", "4", "0")]
        assert [d.fixed for d in found] == [None, "set to Stripe's"]
        assert report(found, fix=True)[1] == 1
        assert (await load_account(app, drifted)).subscription_units == 0

    async def test_stripe_unreachable_for_one_account_does_not_stop_the_others(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        cut_off, drifted = await make_user(), await make_user()
        for me in (cut_off, drifted):
            await subscribed(app, client, stack, me, 2)
            await write(app, me, subscription_units=5)
        customer = customer_of(await load_account(app, cut_off))
        host = urlparse(stack.stand_ins.localstripe_url)
        with respx.mock(assert_all_called=False) as mock:
            mock.route(
                host=host.hostname, port=host.port, params__contains={"customer": customer}
            ).mock(side_effect=httpx.ConnectTimeout("timed out"))
            mock.route().pass_through()
            found = await check(app, cut_off, drifted, fix=True)
        assert [(d.account_id, d.what) for d in found] == [
            (cut_off.account.id, "not checked"),
            (drifted.account.id, "units"),
        ]
        assert found[0].stripe.startswith("unreachable: ")
        assert (await load_account(app, cut_off)).subscription_units == 5
        assert (await load_account(app, drifted)).subscription_units == 2


class TestInvoices:
    async def test_invoices_from_before_the_mirror_are_backfilled(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        # An account billed before the console kept its invoices: Stripe has them, we do not.
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 1)
        up = await client.post("/web/subscription", json={"units": 3}, headers=me.headers)
        assert up.status_code == 200, up.text
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(delete(StripeInvoice).where(StripeInvoice.account_id == me.account.id))
        assert (await client.get("/web/invoices", headers=me.headers)).json()["invoices"] == []
        await fixed_and_then_in_step(app, me, [("invoices", "0 of 2 as in Stripe", "2 invoices")])
        listed = (await client.get("/web/invoices", headers=me.headers)).json()["invoices"]
        in_stripe = stripe_get(stack, f"invoices?subscription={subscription_id}")["data"]
        assert isinstance(in_stripe, list)
        assert sorted((i["id"], i["status"], i["amountDue"]) for i in listed) == sorted(
            (i["id"], i["status"], i["amount_due"]) for i in in_stripe
        )

    async def test_a_mirrored_invoice_follows_stripe(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        subscription_id = await subscribed(app, client, stack, me, 2)
        invoice = str(latest_invoice(stack, subscription_id)["id"])
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(
                update(StripeInvoice)
                .where(StripeInvoice.id == invoice)
                .values(status="open", amount_paid=0)
            )
        await fixed_and_then_in_step(app, me, [("invoices", "0 of 1 as in Stripe", "1 invoices")])
        [listed] = (await client.get("/web/invoices", headers=me.headers)).json()["invoices"]
        assert (listed["id"], listed["status"], listed["amountPaid"]) == (invoice, "paid", 4000)
