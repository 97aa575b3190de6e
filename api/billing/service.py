"""Billing rules: the plan (units of the $20/unit monthly Stripe plan) and the card on file
(SPEC 2 "Billing & Subscription", "Update payment page"; SPEC 4 "Plan slider"; SPEC 5
"Slider"; SPEC 7 subscription and payment calls; SPEC 8 "Payment", "Billing").

Stripe is written first and our database only after Stripe accepted the change, inside the
request's transaction: when Stripe refuses or cannot be reached, the request fails and our
state stays as it was. Every Stripe write carries an idempotency key (api/adapters/stripe.py).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.stripe import (
    Card,
    CardError,
    StripeError,
    StripeGateway,
    StripeUnavailable,
    SubscriptionState,
    idempotency_key,
)
from api.audit import AuditAction, AuditTrail, Target
from api.billing import invoices, repository, view
from api.billing.errors import (
    CardDeclined,
    PaidPlanNeedsPaymentMethod,
    PaymentMethodRequired,
    PaymentProviderRefused,
    PreviewExpired,
)
from api.billing.plan import PlanState, apply_plan, at_epoch, plan_of
from api.billing.schemas import (
    INVOICES_PAGE,
    Billing,
    ChangeKind,
    Invoice,
    InvoicesResponse,
    Subscription,
    SubscriptionPreview,
)
from api.kernel.errors import NotFound, VendorUnavailable
from api.kernel.views import values_of
from api.models import Account
from api.principal.principal import Caller

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


def subscription_of(account: Account, now: datetime | None = None) -> Subscription:
    """The plan as GET /web/account shows it at ``now`` (aware; default: the clock), from the
    loaded row: :func:`api.billing.view.subscription`, the one mapper."""
    values = values_of(account, view.SUBSCRIPTION_COLUMNS)
    return Subscription.model_validate(view.subscription(values, now or datetime.now(UTC)))


def payment_method_of(account: Account) -> Billing | None:
    """The card on file as GET /web/account shows it, None without one, from the loaded row:
    :func:`api.billing.view.card`, the one mapper."""
    found = view.card(values_of(account, view.CARD_COLUMNS))
    return None if found is None else Billing.model_validate(found)


def store_card(account: Account, card: Card | None) -> None:
    """Keep ``card``'s summary as the account's card on file (None: no card)."""
    account.card_brand = card.brand if card else None
    account.card_last4 = card.last4 if card else None
    account.card_exp_month = card.exp_month if card else None
    account.card_exp_year = card.exp_year if card else None


async def _ensure_customer(
    db: AsyncSession, stripe: StripeGateway, account: Account, caller: Caller
) -> str:
    """The account's Stripe customer id, creating the customer on first use (idempotency key
    derived from the account id, so a retried request finds the same customer). Its email,
    where Stripe sends receipts, is the caller's; an access token is nobody's sign-in and has
    none, so a customer a token creates gets the account's longest-standing Owner's."""
    if account.stripe_customer_id is None:
        email = caller.email or await repository.first_owner_email(db, account.id)
        account.stripe_customer_id = await _stripe(
            stripe.create_customer(account_id=str(account.id), name=account.name, email=email)
        )
        await db.flush()
    return account.stripe_customer_id


def _card_on_file(
    account: Account, *, missing: Callable[[], Exception] = PaymentMethodRequired
) -> str:
    """The Stripe customer whose default card is the account's card on file.

    A card is on file when we hold its summary and the customer it belongs to; a plan change
    (and its preview, and paying what is past due) needs one (SPEC 5 "Slider": "a card is on
    file"), and only one on file can be removed.

    Raises:
        ``missing()``: no card on file (by default PaymentMethodRequired, 409).
    """
    if account.card_last4 is None or account.stripe_customer_id is None:
        raise missing()
    return account.stripe_customer_id


def _card_label(account: Account) -> str | None:
    """The card on file as the audit log names it (``Visa ending in 4242``), or None."""
    if account.card_last4 is None:
        return None
    return f"{account.card_brand or 'Card'} ending in {account.card_last4}"


def account_target(account: Account) -> Target:
    """The account as the audit log names the target of a billing change."""
    return Target("account", account.id, account.name)


async def update_payment_method(
    *, db: AsyncSession, stripe: StripeGateway, caller: Caller, audit: AuditTrail, card_token: str
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
    before = _card_label(account)
    store_card(account, card)
    await audit.record(
        AuditAction.PAYMENT_METHOD_ADDED,
        account_target(account),
        {"card": (before, _card_label(account))},
    )
    await db.flush()
    return Billing(
        brand=card.brand, last4=card.last4, exp_month=card.exp_month, exp_year=card.exp_year
    )


async def remove_payment_method(
    *, db: AsyncSession, stripe: StripeGateway, caller: Caller, audit: AuditTrail
) -> None:
    """``DELETE /web/subscription/payment``: delete the account's card in Stripe and here.

    Not while a paid plan renews (README "Billing": Stripe charges the renewal to it): its
    card stays until the plan is set to 0 units (it then ends with the paid period) or another
    card replaces it (on /payment, one step).

    Raises:
        NotFound: there is no card on file.
        PaidPlanNeedsPaymentMethod: the account is on a paid plan (409).
        PaymentProviderRefused, VendorUnavailable: as above; the card stays on file.
    """
    account = await repository.lock_account(db, caller.account_id)
    customer_id = _card_on_file(
        account, missing=lambda: NotFound("There is no payment method on file.")
    )
    if account.subscription_units > 0 and account.scheduled_units != 0:
        raise PaidPlanNeedsPaymentMethod()
    card = await _stripe(stripe.default_card(customer_id))
    if card is not None:
        await _stripe(stripe.delete_card(customer_id, card.id))
    await audit.record(
        AuditAction.PAYMENT_METHOD_REMOVED,
        account_target(account),
        {"card": (_card_label(account), None)},
    )
    store_card(account, None)
    await db.flush()


PREVIEW_VALID_S = 600
"""How long a charge preview's ``proration_date`` may be confirmed (seconds): the amount shown
is then the amount charged, give or take nothing."""


def _change_kind(account: Account, units: int) -> ChangeKind:
    """What setting the plan to ``units`` means for this account (see SubscriptionPreview)."""
    current = account.subscription_units
    if units == current:
        return "undo" if account.scheduled_units is not None else "none"
    if units > current:
        return "start" if account.stripe_subscription_id is None else "upgrade"
    return "cancel" if units == 0 else "downgrade"


def _proration_date(asked: int | None, now: int) -> int:
    """The proration date of an upgrade: the preview's, if recent enough, or now.

    Raises:
        PreviewExpired: older than :data:`PREVIEW_VALID_S`, or later than now.
    """
    if asked is None:
        return now
    if not now - PREVIEW_VALID_S <= asked <= now + 5:  # 5 s for clocks of other replicas
        raise PreviewExpired()
    return asked


async def _clear_scheduled(
    stripe: StripeGateway,
    subscription: SubscriptionState,
    plan_id: str,
    scheduled_units: int | None,
    key: str,
) -> Callable[[], Awaitable[None]]:
    """Drop the change scheduled for the end of the period (release the schedule, or keep the
    subscription renewing). Returns what schedules it again, for when the next step fails
    (best effort: ``python -m api.app.commands.reconcile`` reports what it could not restore)."""
    if subscription.schedule_id is not None:
        await _stripe(stripe.release_schedule(schedule_id=subscription.schedule_id, key=key))
    if subscription.cancel_at_period_end:
        await _stripe(
            stripe.set_cancel_at_period_end(subscription_id=subscription.id, cancel=False, key=key)
        )

    async def restore() -> None:
        with contextlib.suppress(StripeError, StripeUnavailable):
            if subscription.cancel_at_period_end:
                await stripe.set_cancel_at_period_end(
                    subscription_id=subscription.id, cancel=True, key=f"{key}:restore"
                )
            elif subscription.schedule_id is not None and scheduled_units:
                released = replace(subscription, schedule_id=None)
                await stripe.schedule_quantity(
                    subscription=released,
                    plan_id=plan_id,
                    quantity=scheduled_units,
                    key=f"{key}:restore",
                )

    return restore


async def update_subscription(
    *,
    db: AsyncSession,
    stripe: StripeGateway,
    caller: Caller,
    audit: AuditTrail,
    units: int,
    plan_id: str,
    proration_date: int | None = None,
) -> Subscription:
    """``POST /web/subscription``: set the plan to ``units`` (0-20) units of ``plan_id``.

    The rules (README "Billing"; SPEC 2: "no refunds or credits for partial months"):

    - from the free plan, a subscription of ``units`` starts now, its first month charged now;
    - more units (an upgrade) take effect now, and the prorated difference for the rest of the
      billing period is invoiced and charged now (at ``proration_date``, the preview's); a
      declined charge changes nothing;
    - fewer units (a downgrade) or 0 (the plan ends) take effect when the paid period ends,
      through a Stripe schedule or ``cancel_at_period_end``: the account keeps the units it
      paid for until then, and nothing is refunded or credited;
    - the current units undo a scheduled change; asking for the current units with nothing
      scheduled changes nothing and calls no one.

    A Stripe call that timed out may still have happened (its request reached Stripe before
    the answer was lost). So the idempotency key of a change is derived from the account, its
    count of accepted changes and the units: a retry replays the same requests. And before
    creating a subscription, one the customer already has (made by such a call) is adopted,
    never duplicated.

    Raises:
        PaymentMethodRequired: no card on file (SPEC 5: "The plan can change only when the
            value differs from the current one and a card is on file").
        PreviewExpired: ``proration_date`` is not a recent preview's.
        CardDeclined: the charge was declined (Stripe's message); nothing changed.
        PaymentProviderRefused, VendorUnavailable: as above; units unchanged.
    """
    account = await repository.lock_account(db, caller.account_id)
    kind = _change_kind(account, units)
    if kind == "none":
        return subscription_of(account)
    before = (account.subscription_units, account.scheduled_units)
    customer_id = _card_on_file(account)
    prorate_at = _proration_date(proration_date, int(time.time()))
    key = f"subscription:{account.id}:{account.subscription_change_seq}:{units}"
    ours = plan_of(account)
    charged = None  # the invoice Stripe charged for the change, when it made one
    if kind == "start":
        state = await _start_subscription(stripe, customer_id, plan_id, units, key)
        plan = PlanState(subscription_id=state.id, units=state.quantity)
        charged = state.latest_invoice
    else:
        assert account.stripe_subscription_id is not None
        subscription = await _stripe(stripe.subscription(account.stripe_subscription_id))
        if kind == "downgrade":
            if subscription.cancel_at_period_end:
                await _stripe(
                    stripe.set_cancel_at_period_end(
                        subscription_id=subscription.id, cancel=False, key=key
                    )
                )
            await _stripe(
                stripe.schedule_quantity(
                    subscription=subscription, plan_id=plan_id, quantity=units, key=key
                )
            )
            plan = _scheduled(ours, units, subscription.period_end)
        elif kind == "cancel":
            if subscription.schedule_id is not None:
                await _stripe(
                    stripe.release_schedule(schedule_id=subscription.schedule_id, key=key)
                )
            await _stripe(
                stripe.set_cancel_at_period_end(
                    subscription_id=subscription.id, cancel=True, key=key
                )
            )
            plan = _scheduled(ours, 0, subscription.period_end)
        else:  # upgrade, or undo: what was scheduled is dropped
            restore = await _clear_scheduled(
                stripe, subscription, plan_id, account.scheduled_units, key
            )
            plan = _scheduled(ours, None, None)
            if kind == "upgrade":
                try:
                    upgraded = await _stripe(
                        stripe.upgrade_subscription(
                            subscription=subscription,
                            quantity=units,
                            proration_date=prorate_at,
                            key=key,
                        )
                    )
                except (CardDeclined, PaymentProviderRefused, VendorUnavailable):
                    await restore()
                    raise
                plan = replace(plan, units=upgraded.quantity)
                charged = upgraded.latest_invoice
    # Events Stripe sends for this change are no newer than it (webhooks/service.py).
    now = datetime.now(UTC)
    apply_plan(account, plan, synced_at=now)
    if charged is not None:  # listed in Invoices at once, before Stripe's webhook
        await invoices.mirror_invoice(db, account.id, charged, synced_at=now)
    account.subscription_change_seq += 1
    await _record_plan_change(audit, account, kind, before)
    await db.flush()
    return subscription_of(account)


def _scheduled(plan: PlanState, units: int | None, at: int | None) -> PlanState:
    """``plan`` with ``units`` scheduled for ``at`` (epoch seconds), or nothing for None."""
    return replace(
        plan, scheduled_units=units, scheduled_change_at=at_epoch(at) if units is not None else None
    )


async def _record_plan_change(
    audit: AuditTrail, account: Account, kind: ChangeKind, before: tuple[int, int | None]
) -> None:
    """The audit event of a plan change: units changed now (start, upgrade), a change
    scheduled for the period's end (downgrade, cancel), or a scheduled change undone."""
    units, scheduled = before
    target = account_target(account)
    if kind in ("start", "upgrade"):
        await audit.record(
            AuditAction.PLAN_CHANGED, target, {"units": (units, account.subscription_units)}
        )
    elif kind in ("downgrade", "cancel"):
        at = account.scheduled_change_at
        await audit.record(
            AuditAction.PLAN_CHANGE_SCHEDULED,
            target,
            {
                "scheduledUnits": (scheduled, account.scheduled_units),
                "scheduledChangeAt": (None, at.isoformat() if at else None),
            },
        )
    else:
        await audit.record(
            AuditAction.PLAN_CHANGE_CANCELLED, target, {"scheduledUnits": (scheduled, None)}
        )


async def _start_subscription(
    stripe: StripeGateway, customer_id: str, plan_id: str, units: int, key: str
) -> SubscriptionState:
    """A paid plan from the free plan: adopt a live subscription a timed-out call made, or
    create one (its first month charged now, a decline raising CardDeclined). Returns the
    subscription now billing ``units``."""
    live = await _stripe(stripe.live_subscriptions(customer_id))
    if live:  # made by a call we took for failed: adopt it
        state = live[0]
        if state.quantity != units:
            state = await _stripe(
                stripe.upgrade_subscription(
                    subscription=state, quantity=units, proration_date=int(time.time()), key=key
                )
            )
        return state
    return await _stripe(
        stripe.create_subscription(
            customer_id=customer_id, plan_id=plan_id, quantity=units, key=key
        )
    )


async def preview_subscription(
    *, db: AsyncSession, stripe: StripeGateway, caller: Caller, units: int, plan_id: str
) -> SubscriptionPreview:
    """``GET /web/subscription/preview``: what ``POST /web/subscription`` with ``units`` would
    charge and when (README "Billing", "Preview first"), from Stripe's preview of the same
    change at the same proration date. Changes nothing.

    Raises:
        PaymentMethodRequired: no card on file (no change could be made).
        PaymentProviderRefused, VendorUnavailable.
    """
    account = await db.get_one(Account, caller.account_id)
    customer_id = _card_on_file(account)
    kind = _change_kind(account, units)
    now = int(time.time())
    plan = await _stripe(stripe.plan(plan_id))
    subscription = (
        await _stripe(stripe.subscription(account.stripe_subscription_id))
        if account.stripe_subscription_id
        else None
    )
    period_end = subscription.period_end if subscription else None
    monthly = units * plan.amount_cents
    due_now, effective_at, next_at = 0, now, period_end
    if kind in ("start", "upgrade"):
        preview = await _stripe(
            stripe.preview_change(
                customer_id=customer_id,
                plan_id=plan_id,
                quantity=units,
                subscription=subscription if kind == "upgrade" else None,
                proration_date=now,
            )
        )
        due_now = preview.amount_due_now
        next_at = preview.period_end if kind == "start" else period_end
    elif kind in ("downgrade", "cancel"):
        effective_at = period_end or now
    renews = units > 0 and next_at is not None
    return SubscriptionPreview(
        units=units,
        change=kind,
        currency=plan.currency,
        unit_amount=plan.amount_cents,
        monthly_amount=monthly,
        amount_due_now=due_now,
        effective_at=datetime.fromtimestamp(effective_at, UTC),
        next_invoice_at=at_epoch(next_at) if renews else None,
        next_invoice_amount=monthly if renews else None,
        proration_date=now,
    )


async def pay_past_due(
    *, db: AsyncSession, stripe: StripeGateway, caller: Caller, audit: AuditTrail
) -> Subscription:
    """``POST /web/subscription/pay``: charge the invoice that is past due to the card on file
    now (README "Billing", "Past due"; after a new card on /payment, that card). Once it is
    paid, another failed invoice still unpaid, if any, is past due in its place.

    Raises:
        NotFound: nothing is past due.
        PaymentMethodRequired: no card on file.
        CardDeclined: declined again (Stripe's message); it stays past due.
        PaymentProviderRefused, VendorUnavailable.
    """
    account = await repository.lock_account(db, caller.account_id)
    if account.past_due_invoice_id is None:
        raise NotFound("There is no unpaid invoice.")
    _card_on_file(account)
    # A fresh key per attempt: a retry after a decline (say, with a new card) must try again,
    # and Stripe never charges a paid invoice twice.
    paid = await _stripe(
        stripe.pay_invoice(
            invoice_id=account.past_due_invoice_id,
            key=idempotency_key("pay", account.past_due_invoice_id),
        )
    )
    await audit.record(
        AuditAction.INVOICE_PAID,
        Target("invoice", account.past_due_invoice_id, account.past_due_invoice_id),
        {"amountDue": (account.past_due_amount, 0)},
    )
    await invoices.mirror_invoice(db, account.id, paid, synced_at=datetime.now(UTC))
    await invoices.refresh_past_due(db, account)
    await db.flush()
    return subscription_of(account)


async def list_invoices(
    *, db: AsyncSession, caller: Caller, starting_after: str | None
) -> InvoicesResponse:
    """The account's invoices, :data:`INVOICES_PAGE` at a time, newest first, for the
    Invoices panel of /billing, from the invoice mirror (api/billing/invoices.py: no vendor
    is asked). An account that never had a card has none.

    Args:
        starting_after: the id of the last invoice of the previous page.

    Raises:
        NotFound: ``starting_after`` is not an invoice of the account.
    """
    after = None
    if starting_after is not None:
        after = await repository.invoice(db, caller.account_id, starting_after)
        if after is None:
            raise NotFound("There is no such invoice.")
    rows = await repository.invoice_page(
        db, caller.account_id, after=after, limit=INVOICES_PAGE + 1
    )
    return InvoicesResponse(
        invoices=[
            Invoice(
                id=row.id,
                number=row.number,
                created_at=row.created_at,
                currency=row.currency,
                amount_due=row.amount_due,
                amount_paid=row.amount_paid,
                status=invoices.shown_status(row),
                hosted_invoice_url=row.hosted_invoice_url,
                invoice_pdf=row.invoice_pdf,
            )
            for row in rows[:INVOICES_PAGE]
        ],
        has_more=len(rows) > INVOICES_PAGE,
    )
