"""Wire shapes of the subscription and payment-method calls (SPEC 3, SPEC 7)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from api.kernel.schemas import WHOLE_NUMBER, ApiModel
from api.models import MAX_UNITS

UNKNOWN_CURRENCY = "usd"
"""The currency of a past-due amount when Stripe did not say (README "Billing")."""
UNKNOWN_CARD_BRAND = "Visa"
"""The brand shown for a card on file when Stripe did not say."""
UNKNOWN_EXPIRY = 0
"""The expiry month and year shown for a card on file when Stripe did not say."""


class PastDue(ApiModel):
    """An invoice Stripe could not charge (README "Billing"): ``amount_due`` in the smallest
    unit of ``currency`` (cents for USD). ``POST /web/subscription/pay`` pays it."""

    amount_due: int
    currency: str


class Subscription(ApiModel):
    """The plan: ``units`` bought, requests per unit, and requests at zero units (SPEC 3).

    ``units`` are the units paid for in the current billing period. ``scheduled_units`` and
    ``scheduled_change_at``: a lower number of units (0 = the plan ends) that takes effect when
    the paid period ends, None when nothing is scheduled (README "Billing").
    ``payment_failed_at``: when Stripe last reported a failed invoice payment, cleared by the
    next successful one (webhooks); None when payments are in order. ``past_due``: what that
    invoice asks, when Stripe told us. ``grace_ends_at``: while payments are past due, when
    the plan's units stop counting if still unpaid (14 days after the first failed payment,
    README "Billing"); ``units_in_force``: the units the allowance counts now, ``units`` or 0
    past that time.
    """

    units: int = 0
    units_in_force: int = 0
    unit_plan_requests: int = 0
    free_plan_requests: int = 0
    scheduled_units: int | None = None
    scheduled_change_at: datetime | None = None
    payment_failed_at: datetime | None = None
    past_due: PastDue | None = None
    grace_ends_at: datetime | None = None


class Billing(ApiModel):
    """The card on file (SPEC 3 "Billing")."""

    brand: str
    last4: str
    exp_month: int
    exp_year: int


Units = Annotated[int, Field(ge=0, le=MAX_UNITS), WHOLE_NUMBER]


class SubscriptionUpdate(ApiModel):
    """``POST /web/subscription`` body (SPEC 3 "Subscription update payload: units").

    ``units``: whole units of the $20/month plan, 0 (free plan) to 20. Fewer units than now
    take effect when the paid period ends; the current units undo a scheduled change.
    ``proration_date``: for an upgrade, the ``prorationDate`` of the preview the user
    confirmed (epoch seconds, at most 10 minutes old), so the charge is the one shown; without
    it the change is prorated from now.
    """

    units: Units
    proration_date: Annotated[int, Field(gt=0, le=2**53), WHOLE_NUMBER] | None = None


ChangeKind = Literal["none", "start", "upgrade", "downgrade", "cancel", "undo"]


class SubscriptionPreview(ApiModel):
    """``GET /web/subscription/preview``: what setting the plan to ``units`` would do
    (README "Billing"). Amounts are in the smallest unit of ``currency``.

    - ``change``: ``none`` (the current plan), ``start`` (a paid plan from the free plan),
      ``upgrade``, ``downgrade``, ``cancel`` (to 0 units), ``undo`` (back to the current units
      with a lower number scheduled);
    - ``monthly_amount``: the new monthly price (``units`` times ``unit_amount``);
    - ``amount_due_now``: charged today (a new plan's first month, or an upgrade's prorated
      difference for the rest of the billing period); 0 otherwise, as nothing is refunded;
    - ``effective_at``: when the change takes effect (now, or the end of the paid period);
    - ``next_invoice_at`` / ``next_invoice_amount``: the next renewal, None when the plan ends
      or is free;
    - ``proration_date``: send it back with the change so the charge is this one.
    """

    units: int
    change: ChangeKind
    currency: str
    unit_amount: int
    monthly_amount: int
    amount_due_now: int
    effective_at: datetime
    next_invoice_at: datetime | None
    next_invoice_amount: int | None
    proration_date: int


class SubscriptionResponse(ApiModel):
    """The plan after the change."""

    subscription: Subscription


class PaymentMethodUpdate(ApiModel):
    """``POST /web/subscription/payment`` body (SPEC 3 "Payment payload: cardToken"): the id
    of a Stripe.js card token (``tok_...``). Card numbers never reach the API."""

    card_token: str = Field(min_length=1, max_length=255, pattern=r"^tok_[A-Za-z0-9_]+$(?!\n)")


class PaymentMethodResponse(ApiModel):
    """The card now on file."""

    billing: Billing


class WebhookAck(ApiModel):
    """Reply to Stripe: the event was accepted (recorded now, or already before); a worker
    applies it."""

    received: bool = True


INVOICES_PAGE = 12


class Invoice(ApiModel):
    """An invoice of the account (README "Billing"): when, how much (``amount_due`` in the
    smallest unit of ``currency``, cents for USD), its status (Stripe's ``paid``, ``open``,
    ``draft``, ``uncollectible`` or ``void``, or ``past_due``: open, and a payment of it
    failed), and Stripe's hosted page and PDF when it gives them."""

    id: str
    number: str | None
    created_at: datetime
    currency: str
    amount_due: int
    amount_paid: int
    status: str
    hosted_invoice_url: str | None
    invoice_pdf: str | None


class InvoicesResponse(ApiModel):
    """A page of invoices, newest first; ``has_more`` says another page follows (ask for it
    with ``startingAfter`` set to the last invoice's id)."""

    invoices: list[Invoice]
    has_more: bool
