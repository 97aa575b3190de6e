"""Billing rules: the plan (units of the $20/unit monthly Stripe plan) and the card on file
(SPEC 2 "Billing & Subscription", "Update payment page"; SPEC 4 "Plan slider"; SPEC 5
"Slider"; SPEC 7 subscription and payment calls; SPEC 8 "Payment", "Billing").

Stripe is written first and our database only after Stripe accepted the change, inside the
request's transaction: when Stripe refuses or cannot be reached, the request fails and our
state stays as it was. Every Stripe write carries an idempotency key (api/adapters/stripe.py).
"""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.stripe import (
    Card,
    CardError,
    StripeError,
    StripeGateway,
    StripeUnavailable,
)
from api.auth.principal import Caller
from api.billing import repository
from api.billing.schemas import (
    INVOICES_PAGE,
    Billing,
    Invoice,
    InvoicesResponse,
    Subscription,
)
from api.errors import (
    CardDeclined,
    NotFound,
    PaidPlanNeedsPaymentMethod,
    PaymentMethodRequired,
    PaymentProviderRefused,
    VendorUnavailable,
)
from api.models import Account

T = TypeVar("T")

STRIPE_UNAVAILABLE = (
    "Our payment provider could not be reached, so nothing was changed. Please try again shortly."
)


async def _stripe(call: Awaitable[T]) -> T:
    """Await a gateway call, turning its errors into the API's (SPEC 8: Stripe's message)."""
    try:
        return await call
    except CardError as exc:
        raise CardDeclined(exc.message) from exc
    except StripeError as exc:
        raise PaymentProviderRefused(exc.message) from exc
    except StripeUnavailable as exc:
        raise VendorUnavailable(STRIPE_UNAVAILABLE) from exc


def subscription_of(account: Account) -> Subscription:
    """The plan as GET /web/account shows it (SPEC 3 "Subscription")."""
    return Subscription(
        units=account.subscription_units,
        unit_plan_requests=account.unit_plan_requests,
        free_plan_requests=account.free_plan_requests,
        payment_failed_at=account.payment_failed_at,
    )


def payment_method_of(account: Account) -> Billing | None:
    """The card on file as GET /web/account shows it (SPEC 3 "Billing"), None without one."""
    if account.card_last4 is None:
        return None
    return Billing(
        brand=account.card_brand or "Visa",
        last4=account.card_last4,
        exp_month=account.card_exp_month or 0,
        exp_year=account.card_exp_year or 0,
    )


def _store_card(account: Account, card: Card | None) -> None:
    account.card_brand = card.brand if card else None
    account.card_last4 = card.last4 if card else None
    account.card_exp_month = card.exp_month if card else None
    account.card_exp_year = card.exp_year if card else None


async def _ensure_customer(
    db: AsyncSession, stripe: StripeGateway, account: Account, caller: Caller
) -> str:
    """The account's Stripe customer id, creating the customer on first use (idempotency key
    derived from the account id, so a retried request finds the same customer)."""
    if account.stripe_customer_id is None:
        account.stripe_customer_id = await _stripe(
            stripe.create_customer(
                account_id=str(account.id), name=account.name, email=caller.email
            )
        )
        await db.flush()
    return account.stripe_customer_id


async def update_payment_method(
    db: AsyncSession, stripe: StripeGateway, caller: Caller, card_token: str
) -> Billing:
    """``POST /web/subscription/payment``: make the card of a Stripe.js token the account's
    card for invoices, replacing the previous one.

    Args:
        card_token: a Stripe.js token id (``tok_...``); card data never reaches us.

    Returns:
        The card now on file (brand as SPEC 3 names it, last4, expiry month and 4-digit year).

    Raises:
        CardDeclined: Stripe declined the card (402, Stripe's message).
        PaymentProviderRefused: Stripe refused the token (400, Stripe's message).
        VendorUnavailable: Stripe unreachable (503); nothing changed here.
    """
    account = await repository.lock_account(db, caller.account_id)
    customer_id = await _ensure_customer(db, stripe, account, caller)
    card = await _stripe(stripe.replace_default_card(customer_id, card_token))
    _store_card(account, card)
    await db.flush()
    return Billing(
        brand=card.brand, last4=card.last4, exp_month=card.exp_month, exp_year=card.exp_year
    )


async def remove_payment_method(db: AsyncSession, stripe: StripeGateway, caller: Caller) -> None:
    """``DELETE /web/subscription/payment``: delete the account's card in Stripe and here.

    Only on the free plan: a paid plan renews every month, so its card stays until the plan is
    set to 0 units or another card replaces it (on /payment, in one step).

    Raises:
        NotFound: there is no card on file.
        PaidPlanNeedsPaymentMethod: the account is on a paid plan (409).
        PaymentProviderRefused, VendorUnavailable: as above; the card stays on file.
    """
    account = await repository.lock_account(db, caller.account_id)
    if account.card_last4 is None or account.stripe_customer_id is None:
        raise NotFound("There is no payment method on file.")
    if account.subscription_units > 0:
        raise PaidPlanNeedsPaymentMethod()
    card = await _stripe(stripe.default_card(account.stripe_customer_id))
    if card is not None:
        await _stripe(stripe.delete_card(account.stripe_customer_id, card.id))
    _store_card(account, None)
    await db.flush()


async def update_subscription(
    db: AsyncSession, stripe: StripeGateway, caller: Caller, units: int, plan_id: str
) -> Subscription:
    """``POST /web/subscription``: set the plan to ``units`` (0-20) units of ``plan_id``.

    0 units is the free plan: the paid subscription is cancelled. From 0 to N a subscription
    of quantity N is created (its first invoice charged to the card on file); between paid
    quantities the quantity is updated (Stripe prorates). The account's units change only after
    Stripe accepted the change. Asking for the current units changes nothing and calls no one.

    A Stripe call that timed out may still have happened (issue 11). So the idempotency key
    of a change is derived from the account, its count of accepted changes and the units:
    a retry replays the same request. And before creating a subscription, one the customer
    already has (made by such a call) is adopted, never duplicated.

    Raises:
        PaymentMethodRequired: no card on file (SPEC 5: "The plan can change only when the
            value differs from the current one and a card is on file").
        CardDeclined: the first payment was declined (Stripe's message).
        PaymentProviderRefused, VendorUnavailable: as above; units unchanged.
    """
    account = await repository.lock_account(db, caller.account_id)
    if units == account.subscription_units:
        return subscription_of(account)
    if account.card_last4 is None or account.stripe_customer_id is None:
        raise PaymentMethodRequired()
    key = f"subscription:{account.id}:{account.subscription_change_seq}:{units}"
    if units == 0:
        if account.stripe_subscription_id is not None:
            await _stripe(
                stripe.cancel_subscription(subscription_id=account.stripe_subscription_id, key=key)
            )
        account.stripe_subscription_id = None
        account.subscription_units = 0
    elif account.stripe_subscription_id is None:
        live = await _stripe(stripe.live_subscriptions(account.stripe_customer_id))
        if live:  # made by a call we took for failed: adopt it
            adopted = await _stripe(
                stripe.update_subscription_quantity(
                    subscription_id=live[0].id, quantity=units, key=key
                )
            )
            account.stripe_subscription_id = adopted.id
            account.subscription_units = adopted.quantity
        else:
            created = await _stripe(
                stripe.create_subscription(
                    customer_id=account.stripe_customer_id,
                    plan_id=plan_id,
                    quantity=units,
                    key=key,
                )
            )
            account.stripe_subscription_id = created.id
            account.subscription_units = created.quantity
    else:
        updated = await _stripe(
            stripe.update_subscription_quantity(
                subscription_id=account.stripe_subscription_id, quantity=units, key=key
            )
        )
        account.subscription_units = updated.quantity
    # Events Stripe sends for this change are no newer than it (webhooks.py).
    account.subscription_synced_at = datetime.now(UTC)
    account.subscription_change_seq += 1
    await db.flush()
    return subscription_of(account)


async def invoices(
    db: AsyncSession, stripe: StripeGateway, caller: Caller, starting_after: str | None
) -> InvoicesResponse:
    """The account's invoices, :data:`INVOICES_PAGE` at a time, newest first (issue 11).

    Asks Stripe (the one read that does: invoices live there, and this view is opened on
    purpose, not on every page). An account that never had a card has none.

    Raises:
        PaymentProviderRefused: Stripe refused the request (e.g. an unknown ``starting_after``).
        VendorUnavailable.
    """
    account = await db.get_one(Account, caller.account_id)
    if account.stripe_customer_id is None:
        return InvoicesResponse(invoices=[], has_more=False)
    page, has_more = await _stripe(
        stripe.invoices(
            account.stripe_customer_id, limit=INVOICES_PAGE, starting_after=starting_after
        )
    )
    return InvoicesResponse(
        invoices=[
            Invoice(
                id=i.id,
                number=i.number,
                created_at=datetime.fromtimestamp(i.created, UTC),
                currency=i.currency,
                amount_due=i.amount_due,
                amount_paid=i.amount_paid,
                status=i.status,
                hosted_invoice_url=i.hosted_invoice_url,
                invoice_pdf=i.invoice_pdf,
            )
            for i in page
        ],
        has_more=has_more,
    )
