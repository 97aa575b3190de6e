"""Wire shapes of the subscription and payment-method calls (SPEC 3, SPEC 7)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from api.models import MAX_UNITS
from api.schemas import WHOLE_NUMBER, ApiModel


class Subscription(ApiModel):
    """The plan: ``units`` bought, requests per unit, and requests at zero units (SPEC 3).

    ``payment_failed_at``: when Stripe last reported a failed invoice payment, cleared by the
    next successful one (webhooks); None when payments are in order.
    """

    units: int = 0
    unit_plan_requests: int = 0
    free_plan_requests: int = 0
    payment_failed_at: datetime | None = None


class Billing(ApiModel):
    """The card on file (SPEC 3 "Billing")."""

    brand: str
    last4: str
    exp_month: int
    exp_year: int


class SubscriptionUpdate(ApiModel):
    """``POST /web/subscription`` body (SPEC 3 "Subscription update payload: units").

    ``units``: whole units of the $20/month plan, 0 (free plan) to 20.
    """

    units: Annotated[int, Field(ge=0, le=MAX_UNITS), WHOLE_NUMBER]


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
    """Reply to Stripe: the event was accepted (processed now, or already before)."""

    received: bool = True


INVOICES_PAGE = 12


class Invoice(ApiModel):
    """An invoice of the account (issue 11 "Invoices"): when, how much (``amount_due`` in the
    smallest unit of ``currency``, cents for USD), its status (``paid``, ``open``, ``draft``,
    ``uncollectible`` or ``void``), and Stripe's hosted page and PDF when it gives them."""

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
