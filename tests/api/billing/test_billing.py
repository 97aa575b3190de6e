"""The plan and the card on file through Stripe (localstripe): POST /web/subscription,
POST/DELETE /web/subscription/payment (SPEC 2, 3, 5, 7, 8)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlparse

import httpx
import pytest
import respx
from fastapi import FastAPI

from api.models import Account
from devstack import bootstrap
from devstack.stack import Stack
from tests.api.conftest import MakeUser, SignedIn

VISA = "4242424242424242"
MASTERCARD = "5555555555554444"
DECLINED = "4000000000000002"


def card_token(stack: Stack, number: str = VISA, exp_month: int = 8, exp_year: int = 2031) -> str:
    """What Stripe.js's createToken does in the browser: a token for the card (publishable key)."""
    response = httpx.post(
        f"{stack.stand_ins.localstripe_url}/v1/tokens",
        data={
            "card[number]": number,
            "card[exp_month]": str(exp_month),
            "card[exp_year]": str(exp_year),
            "card[cvc]": "123",
            "key": bootstrap.STRIPE_PUBLISHABLE_KEY,
        },
    )
    response.raise_for_status()
    token: str = response.json()["id"]
    return token


def iso(epoch: object) -> str:
    """An epoch-seconds time as the API writes it (ISO 8601, UTC)."""
    assert isinstance(epoch, int)
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def stripe_get(stack: Stack, path: str) -> dict[str, object]:
    """Read an object from localstripe with the secret key (what Stripe's dashboard shows)."""
    response = httpx.get(
        f"{stack.stand_ins.localstripe_url}/v1/{path}", auth=(bootstrap.STRIPE_SECRET_KEY, "")
    )
    response.raise_for_status()
    body: dict[str, object] = response.json()
    return body


async def load_account(app: FastAPI, me: SignedIn) -> Account:
    async with app.state.resources.sessionmaker() as db:
        account = await db.get(Account, me.account.id)
        assert account is not None
        return account


async def account_json(client: httpx.AsyncClient, me: SignedIn) -> dict[str, Any]:
    """GET /web/account as the user sees it."""
    body: dict[str, Any] = (await client.get("/web/account", headers=me.headers)).json()
    account: dict[str, Any] = body["account"]
    return account


async def add_card(
    client: httpx.AsyncClient, stack: Stack, me: SignedIn, number: str = VISA
) -> httpx.Response:
    return await client.post(
        "/web/subscription/payment",
        json={"cardToken": card_token(stack, number)},
        headers=me.headers,
    )


@pytest.fixture
def stripe_down(stack: Stack) -> Iterator[respx.MockRouter]:
    """Every call to Stripe times out; everything else (ASGI, Cognito) goes through."""
    host = urlparse(stack.stand_ins.localstripe_url)
    with respx.mock(assert_all_called=False) as mock:
        mock.route(host=host.hostname, port=host.port).mock(
            side_effect=httpx.ConnectTimeout("timed out")
        )
        mock.route().pass_through()
        yield mock


class TestUpdatePaymentMethod:
    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.post("/web/subscription/payment", json={"cardToken": "tok_x"})
        assert response.status_code == 401
        assert response.json()["code"] == "NotAuthenticated"

    async def test_adds_the_card_and_the_account_shows_it(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await add_card(client, stack, me)
        assert response.status_code == 200
        assert response.json() == {
            "billing": {"brand": "Visa", "last4": "4242", "expMonth": 8, "expYear": 2031}
        }
        account = await account_json(client, me)
        assert account["billing"] == {
            "brand": "Visa",
            "last4": "4242",
            "expMonth": 8,
            "expYear": 2031,
        }
        # The account got a Stripe customer whose default card is that card.
        stored = await load_account(app, me)
        assert stored.stripe_customer_id is not None
        customer = stripe_get(stack, f"customers/{stored.stripe_customer_id}")
        assert customer["metadata"] == {"account_id": str(me.account.id)}
        assert customer["email"] == me.user.email

    async def test_a_new_card_replaces_the_previous_one(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        customer_id = (await load_account(app, me)).stripe_customer_id
        response = await add_card(client, stack, me, MASTERCARD)
        assert response.status_code == 200
        assert response.json()["billing"]["last4"] == "4444"
        # Still one customer, and only the new card is left on it, as its default.
        assert (await load_account(app, me)).stripe_customer_id == customer_id
        sources = stripe_get(stack, f"customers/{customer_id}/sources")["data"]
        assert isinstance(sources, list)
        assert [s["last4"] for s in sources] == ["4444"]
        customer = stripe_get(stack, f"customers/{customer_id}")
        assert customer["default_source"] == sources[0]["id"]

    async def test_a_declined_card_shows_stripes_message_and_changes_nothing(
        self, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        response = await add_card(client, stack, me, DECLINED)
        assert response.status_code == 402
        assert response.json() == {"code": "CardDeclined", "message": "Your card was declined."}
        account = await account_json(client, me)
        assert account["billing"]["last4"] == "4242"

    async def test_an_unknown_token_shows_stripes_message(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post(
            "/web/subscription/payment", json={"cardToken": "tok_unknown"}, headers=me.headers
        )
        assert response.status_code == 400
        body = response.json()
        assert body["code"] == "PaymentProviderRefused"
        # Stripe's own text, passed through (localstripe's; Stripe says "No such token: ...").
        assert body["message"] == "Not Found"

    async def test_a_card_number_instead_of_a_token_is_refused(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post(
            "/web/subscription/payment", json={"cardToken": VISA}, headers=me.headers
        )
        assert response.status_code == 422

    async def test_stripe_unreachable_is_503_and_nothing_changes(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        stack: Stack,
        make_user: MakeUser,
        request: pytest.FixtureRequest,
    ) -> None:
        me = await make_user()
        token = card_token(stack)
        request.getfixturevalue("stripe_down")
        response = await client.post(
            "/web/subscription/payment", json={"cardToken": token}, headers=me.headers
        )
        assert response.status_code == 503
        assert response.json()["code"] == "VendorUnavailable"
        assert "could not be reached" in response.json()["message"]
        stored = await load_account(app, me)
        assert stored.card_last4 is None and stored.stripe_customer_id is None

    async def test_other_accounts_do_not_see_the_card(
        self, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        other = await make_user()
        assert (await add_card(client, stack, owner)).status_code == 200
        account = await account_json(client, other)
        assert account["billing"] is None
        response = await client.delete("/web/subscription/payment", headers=other.headers)
        assert response.status_code == 404
        mine = await account_json(client, owner)
        assert mine["billing"]["last4"] == "4242"


class TestRemovePaymentMethod:
    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.delete("/web/subscription/payment")
        assert response.status_code == 401

    async def test_without_a_card_is_404(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.delete("/web/subscription/payment", headers=me.headers)
        assert response.status_code == 404
        assert response.json() == {
            "code": "NotFound",
            "message": "There is no payment method on file.",
        }

    async def test_removes_the_card_here_and_in_stripe(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        response = await client.delete("/web/subscription/payment", headers=me.headers)
        assert response.status_code == 204
        account = await account_json(client, me)
        assert account["billing"] is None
        customer_id = (await load_account(app, me)).stripe_customer_id
        assert stripe_get(stack, f"customers/{customer_id}/sources")["data"] == []

    async def test_a_paid_plan_keeps_its_card(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        # Once, removing the card left a paid plan renewing with nothing to charge.
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        plan = await client.post("/web/subscription", json={"units": 2}, headers=me.headers)
        assert plan.status_code == 200, plan.text
        refused = await client.delete("/web/subscription/payment", headers=me.headers)
        assert refused.status_code == 409
        assert refused.json() == {
            "code": "PaidPlanNeedsPaymentMethod",
            "message": "Set your plan to 0 units or add another card before removing this one.",
        }
        assert (await account_json(client, me))["billing"]["last4"] == "4242"
        customer_id = (await load_account(app, me)).stripe_customer_id
        assert len(stripe_get(stack, f"customers/{customer_id}/sources")["data"]) == 1
        # With the plan set to end, nothing renews: the card may go.
        free = await client.post("/web/subscription", json={"units": 0}, headers=me.headers)
        assert free.status_code == 200, free.text
        removed = await client.delete("/web/subscription/payment", headers=me.headers)
        assert removed.status_code == 204

    async def test_stripe_unreachable_keeps_the_card(
        self,
        client: httpx.AsyncClient,
        stack: Stack,
        make_user: MakeUser,
        request: pytest.FixtureRequest,
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        request.getfixturevalue("stripe_down")
        response = await client.delete("/web/subscription/payment", headers=me.headers)
        assert response.status_code == 503
        account = await account_json(client, me)
        assert account["billing"]["last4"] == "4242"


class TestUpdateSubscription:
    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.post("/web/subscription", json={"units": 3})
        assert response.status_code == 401

    async def test_without_a_card_is_refused(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post("/web/subscription", json={"units": 3}, headers=me.headers)
        assert response.status_code == 409
        assert response.json() == {
            "code": "PaymentMethodRequired",
            "message": "Add a payment method before changing your plan.",
        }
        account = await account_json(client, me)
        assert account["subscription"]["units"] == 0

    @pytest.mark.parametrize("units", [-1, 21, 2.5, "3", None])
    async def test_units_are_whole_numbers_from_0_to_20(
        self, client: httpx.AsyncClient, make_user: MakeUser, units: object
    ) -> None:
        me = await make_user()
        response = await client.post("/web/subscription", json={"units": units}, headers=me.headers)
        assert response.status_code == 422
        assert response.json()["code"] == "ValidationError"

    async def test_subscribe_change_and_cancel(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200

        response = await client.post("/web/subscription", json={"units": 3}, headers=me.headers)
        assert response.status_code == 200
        assert response.json()["subscription"]["units"] == 3
        account = await account_json(client, me)
        assert account["subscription"]["units"] == 3
        subscription_id = (await load_account(app, me)).stripe_subscription_id
        assert subscription_id is not None
        subscription = stripe_get(stack, f"subscriptions/{subscription_id}")
        items = subscription["items"]
        assert isinstance(items, dict)
        assert [(i["plan"]["id"], i["quantity"]) for i in items["data"]] == [(bootstrap.PLAN_ID, 3)]
        assert subscription["status"] == "active"

        response = await client.post("/web/subscription", json={"units": 7}, headers=me.headers)
        assert response.status_code == 200
        assert response.json()["subscription"]["units"] == 7
        assert (await load_account(app, me)).stripe_subscription_id == subscription_id
        items = stripe_get(stack, f"subscriptions/{subscription_id}")["items"]
        assert isinstance(items, dict)
        assert items["data"][0]["quantity"] == 7

        # 0 units: the plan ends with the period paid for (SPEC 2: no refunds), nothing refunded.
        response = await client.post("/web/subscription", json={"units": 0}, headers=me.headers)
        assert response.status_code == 200
        ended = response.json()["subscription"]
        assert (ended["units"], ended["scheduledUnits"]) == (7, 0)
        subscription = stripe_get(stack, f"subscriptions/{subscription_id}")
        assert subscription["cancel_at_period_end"] is True
        assert subscription["status"] == "active"
        assert ended["scheduledChangeAt"] == iso(subscription["current_period_end"])

    async def test_the_current_units_change_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post("/web/subscription", json={"units": 0}, headers=me.headers)
        assert response.status_code == 200
        assert response.json()["subscription"] == {
            "units": 0,
            "unitsInForce": 0,
            "unitPlanRequests": 1000,
            "freePlanRequests": 100,
            "scheduledUnits": None,
            "scheduledChangeAt": None,
            "paymentFailedAt": None,
            "pastDue": None,
            "graceEndsAt": None,
        }
        assert (await load_account(app, me)).stripe_customer_id is None

    async def test_stripe_unreachable_keeps_the_units(
        self,
        client: httpx.AsyncClient,
        stack: Stack,
        make_user: MakeUser,
        request: pytest.FixtureRequest,
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        assert (
            await client.post("/web/subscription", json={"units": 2}, headers=me.headers)
        ).status_code == 200
        request.getfixturevalue("stripe_down")
        response = await client.post("/web/subscription", json={"units": 5}, headers=me.headers)
        assert response.status_code == 503
        assert response.json()["code"] == "VendorUnavailable"
        account = await account_json(client, me)
        assert account["subscription"]["units"] == 2

    async def test_other_accounts_keep_their_plan(
        self, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        other = await make_user()
        assert (await add_card(client, stack, owner)).status_code == 200
        assert (
            await client.post("/web/subscription", json={"units": 4}, headers=owner.headers)
        ).status_code == 200
        account = await account_json(client, other)
        assert account["subscription"]["units"] == 0
        # The other account has no card of its own: the owner's card does not count.
        response = await client.post("/web/subscription", json={"units": 1}, headers=other.headers)
        assert response.status_code == 409


class TestInvoices:
    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        assert (await client.get("/web/invoices")).status_code == 401

    async def test_an_account_without_a_card_has_none(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.get("/web/invoices", headers=me.headers)
        assert response.status_code == 200
        assert response.json() == {"invoices": [], "hasMore": False}

    async def test_a_subscription_s_invoice_is_listed_only_for_its_account(
        self, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        other = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        plan = await client.post("/web/subscription", json={"units": 3}, headers=me.headers)
        assert plan.status_code == 200, plan.text
        body = (await client.get("/web/invoices", headers=me.headers)).json()
        assert body["hasMore"] is False
        [invoice] = body["invoices"]
        assert invoice["amountDue"] == 6000  # 3 units of 20 USD, in cents
        assert invoice["currency"] == "usd"
        assert invoice["status"] == "paid"
        assert invoice["id"].startswith("in_")
        theirs = (await client.get("/web/invoices", headers=other.headers)).json()
        assert theirs == {"invoices": [], "hasMore": False}
        # Another account's invoice id as a page cursor reveals nothing of it.
        foreign = await client.get(
            "/web/invoices", params={"startingAfter": invoice["id"]}, headers=other.headers
        )
        assert foreign.status_code == 404
        assert foreign.json()["code"] == "NotFound"
