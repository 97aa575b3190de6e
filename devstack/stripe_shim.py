"""What localstripe lacks for the console's billing rules, added in front of it (README "Billing").

localstripe (the dev and test stand-in for Stripe) predates parts of the API the console uses.
This module adds them as an aiohttp middleware of the localstripe server, working on
localstripe's own objects, so the API's real code path runs in ``make dev`` and ``make test``.
Production never sees this module; the API does not know whether it talks to it.

Added or corrected (Stripe reference: https://docs.stripe.com/api):

- ``POST /v1/subscriptions/{id}`` with ``proration_behavior=always_invoice`` (and an optional
  ``proration_date``): Stripe's time-based proration of a quantity change, invoiced and charged
  at once (https://docs.stripe.com/billing/subscriptions/prorations). With
  ``payment_behavior=error_if_incomplete`` a declined charge leaves the subscription as it was
  and answers 402 ``card_error``, as Stripe does. localstripe answers 500 to the parameter and
  credits whole past invoices instead of unused time.
- ``POST /v1/invoices/{id}/pay``, and ``POST /v1/subscriptions`` with
  ``payment_behavior=error_if_incomplete``: a declined charge is a 402 ``card_error``.
- Events of a declined charge, as Stripe sends them (localstripe sends none): the failed
  attempt (``invoice.payment_failed``), and, when the change it paid for is not made, the
  invoice voided (``invoice.voided``).
- ``expand=["latest_invoice"]`` on a subscription update with ``proration_behavior``.
- ``POST /v1/invoices/create_preview``: the same proration arithmetic as above (localstripe's
  preview credits whole invoices), or the first invoice of a new subscription.
- Subscription schedules (https://docs.stripe.com/api/subscription_schedules), the subset the
  console uses: create ``from_subscription``, update ``phases``, ``release``, retrieve; the
  subscription shows its ``schedule``.
- ``POST /v1/test_helpers/subscriptions/{id}/renew`` (not a Stripe route; Stripe's test clocks
  play this part): end the current period now. A ``cancel_at_period_end`` subscription is
  cancelled; otherwise the schedule's next phase (if any) takes effect, the period moves on one
  month and its invoice is charged, failing as Stripe does with a card that declines charges
  (``past_due``, ``invoice.payment_failed``).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from aiohttp import web
from dateutil.relativedelta import relativedelta
from localstripe import resources, server
from localstripe.errors import UserError
from localstripe.webhooks import schedule_webhook

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class SubscriptionSchedule(resources.StripeObject):  # type: ignore[misc]
    """A subscription schedule: ``phases`` (each ``start_date``, ``end_date``, ``items`` of
    ``{price, quantity}``), ``end_behavior`` ``release``, ``status`` ``active``/``released``."""

    object = "subscription_schedule"
    _id_prefix = "sub_sched_"

    def __init__(self, subscription: Any) -> None:
        super().__init__()
        self.customer = subscription.customer
        self.subscription = subscription.id
        self.end_behavior = "release"
        self.status = "active"
        self.released_at: int | None = None
        self.released_subscription: str | None = None
        self.phases = [
            {
                "start_date": subscription.current_period_start,
                "end_date": subscription.current_period_end,
                "items": [{"price": subscription.plan.id, "quantity": subscription.quantity}],
            }
        ]


def _json(body: Any, status: int = 200) -> web.Response:
    return web.json_response(body, status=status)


def _int(value: Any, name: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise UserError(400, f"Invalid integer: {name}") from None


def _period(subscription: Any) -> tuple[int, int]:
    return int(subscription.current_period_start), int(subscription.current_period_end)


def proration_lines(
    subscription: Any, new_quantity: int, proration_date: int
) -> list[dict[str, Any]]:
    """Stripe's two proration lines for a quantity change at ``proration_date``: a credit for
    the unused time of the old quantity and a charge for the remaining time of the new one,
    each ``quantity * unit amount * remaining / period``, rounded to the cent."""
    start, end = _period(subscription)
    if not start <= proration_date <= end:
        raise UserError(400, "proration_date must be within the current billing period")
    fraction = (end - proration_date) / (end - start)
    plan = subscription.plan
    lines = []
    for sign, quantity, label in (
        (-1, subscription.quantity, "Unused time on"),
        (1, new_quantity, "Remaining time on"),
    ):
        lines.append(
            {
                "amount": sign * round(quantity * plan.amount * fraction),
                "currency": plan.currency,
                "quantity": quantity,
                "description": f"{label} {quantity} x {plan.id} after {proration_date}",
                "period": {"start": proration_date, "end": end},
            }
        )
    return lines


def _preview_line(
    amount: int, currency: str, quantity: int, period: dict[str, int], proration: bool, text: str
) -> dict[str, Any]:
    return {
        "object": "line_item",
        "amount": amount,
        "currency": currency,
        "quantity": quantity,
        "description": text,
        "period": period,
        "proration": proration,
        "parent": {
            "type": "subscription_item_details",
            "subscription_item_details": {"proration": proration},
        },
    }


async def create_preview(request: web.Request, ids: dict[str, str]) -> web.StreamResponse:
    """``POST /v1/invoices/create_preview`` for a quantity change of ``subscription`` (with
    ``subscription_details[proration_behavior]`` and ``[proration_date]``) or, without
    ``subscription``, the first invoice of a new one."""
    data = await server.get_post_data(request) or {}
    customer = data.get("customer")
    details = data.get("subscription_details") or {}
    items = details.get("items") or []
    if not customer or len(items) != 1:
        raise UserError(400, "customer and one subscription_details item are required")
    resources.Customer._api_retrieve(customer)
    quantity = _int(items[0].get("quantity", 1), "quantity")
    now = int(time.time())
    lines: list[dict[str, Any]]
    if data.get("subscription"):
        sub = resources.Subscription._api_retrieve(data["subscription"])
        proration_date = _int(details.get("proration_date", now), "proration_date")
        behavior = details.get("proration_behavior", "create_prorations")
        _, end = _period(sub)
        currency = sub.plan.currency
        lines = []
        if behavior != "none" and quantity != sub.quantity:
            lines = [
                _preview_line(
                    p["amount"], currency, p["quantity"], p["period"], True, p["description"]
                )
                for p in proration_lines(sub, quantity, proration_date)
            ]
        if behavior != "always_invoice":  # the renewal follows on the same invoice
            next_period = {"start": end, "end": _next_month(end)}
            lines.append(
                _preview_line(
                    quantity * sub.plan.amount, currency, quantity, next_period, False, "Renewal"
                )
            )
        subscription_id: str | None = sub.id
        period_start, period_end = (proration_date, end)
    else:
        plan = resources.Plan._api_retrieve(items[0].get("price") or items[0].get("plan"))
        currency = plan.currency
        period = {"start": now, "end": _next_month(now)}
        lines = [_preview_line(quantity * plan.amount, currency, quantity, period, False, "Plan")]
        subscription_id = None
        period_start, period_end = period["start"], period["end"]
    total = sum(line["amount"] for line in lines)
    return _json(
        {
            "id": f"upcoming_in_{now}",
            "object": "invoice",
            "customer": customer,
            "subscription": subscription_id,
            "currency": currency,
            "lines": {"object": "list", "data": lines, "has_more": False},
            "subtotal": total,
            "total": total,
            "amount_due": max(0, total),
            "period_start": period_start,
            "period_end": period_end,
            "status": "draft",
        }
    )


def _next_month(epoch: int) -> int:
    return int((datetime.fromtimestamp(epoch) + relativedelta(months=1)).timestamp())


def _card_error(message: str, code: str) -> web.Response:
    return _json({"error": {"type": "card_error", "message": message, "code": code}}, status=402)


def _charge_invoice(customer: str, subscription: Any, amounts: list[dict[str, Any]]) -> Any:
    """Invoice ``amounts`` (pending invoice items) now and try to charge the default card."""
    for line in amounts:
        resources.InvoiceItem(
            customer=customer,
            subscription=subscription.id,
            plan=subscription.plan.id,
            amount=line["amount"],
            currency=line["currency"],
            proration=True,
            description=line["description"],
            period_start=line["period"]["start"],
            period_end=line["period"]["end"],
        )
    invoice = resources.Invoice(customer=customer, subscription=subscription.id, items=[])
    invoice._finalize()
    if invoice.status != "paid":
        resources.Invoice._api_pay_invoice(invoice.id)
    return invoice


def _decline(invoice: Any) -> web.Response:
    """A charge of ``invoice`` was declined and the change it paid for is not made: the
    attempt failed (``invoice.payment_failed``), then the invoice is voided
    (``invoice.voided``), and the answer is Stripe's 402 ``card_error``."""
    schedule_webhook(resources.Event("invoice.payment_failed", invoice))
    invoice._voided = True
    invoice.status_transitions["voided_at"] = int(time.time())
    schedule_webhook(resources.Event("invoice.voided", invoice))
    charge = invoice.charge
    return _card_error(
        getattr(charge, "failure_message", None) or "Your card was declined.",
        getattr(charge, "failure_code", None) or "card_declined",
    )


def _set_quantity(subscription: Any, quantity: int) -> None:
    subscription.quantity = quantity
    subscription.items._list[0].quantity = quantity


async def update_subscription(
    request: web.Request, ids: dict[str, str], handler: Handler
) -> web.StreamResponse:
    """``POST /v1/subscriptions/{id}`` with ``proration_behavior``; other updates go on to
    localstripe unchanged."""
    data = await server.get_post_data(request) or {}
    behavior = data.pop("proration_behavior", None)
    if behavior is None:
        return await handler(request)
    sub = resources.Subscription._api_retrieve(ids["id"])
    proration_date = _int(data.pop("proration_date", int(time.time())), "proration_date")
    payment_behavior = data.pop("payment_behavior", "allow_incomplete")
    expand = data.pop("expand", None)
    items = data.pop("items", None)
    if behavior != "always_invoice" or not items or len(items) != 1 or data:
        raise UserError(
            400, "The stand-in supports proration_behavior=always_invoice with one item"
        )
    quantity = _int(items[0].get("quantity", 1), "quantity")
    if quantity <= 0:
        raise UserError(400, "Invalid quantity")
    if quantity == sub.quantity:
        return _json(sub._export(expand=expand))
    old_quantity, old_status = sub.quantity, sub.status
    lines = proration_lines(sub, quantity, proration_date)
    _set_quantity(sub, quantity)
    invoice = _charge_invoice(sub.customer, sub, lines)
    if invoice.status != "paid" and payment_behavior == "error_if_incomplete":
        # Stripe: "the update is not applied and an error is returned".
        _set_quantity(sub, old_quantity)
        sub.status = old_status
        return _decline(invoice)
    sub.latest_invoice = invoice.id
    schedule_webhook(resources.Event("customer.subscription.updated", sub))
    return _json(sub._export(expand=expand))


async def create_subscription(
    request: web.Request, ids: dict[str, str], handler: Handler
) -> web.StreamResponse:
    """``POST /v1/subscriptions``: as localstripe, but with ``payment_behavior=
    error_if_incomplete`` a declined first payment answers 402 ``card_error`` and leaves no
    subscription (localstripe keeps an ``incomplete`` one and answers 200)."""
    data = await server.get_post_data(request) or {}
    response = await handler(request)
    if data.get("payment_behavior") != "error_if_incomplete" or response.status != 200:
        return response
    assert isinstance(response, web.Response) and isinstance(response.body, bytes)
    sub = resources.Subscription._api_retrieve(json.loads(response.body)["id"])
    if sub.status != "incomplete":
        return response
    sub.status = "incomplete_expired"
    return _decline(resources.Invoice._api_retrieve(sub.latest_invoice))


async def pay_invoice(
    request: web.Request, ids: dict[str, str], handler: Handler
) -> web.StreamResponse:
    """``POST /v1/invoices/{id}/pay``: as localstripe, but a declined charge answers 402
    ``card_error`` and sends ``invoice.payment_failed`` as Stripe does (localstripe returns the
    invoice still open, and sends nothing)."""
    response = await handler(request)
    invoice = resources.Invoice._api_retrieve(ids["id"])
    if response.status == 200 and invoice.status != "paid":
        schedule_webhook(resources.Event("invoice.payment_failed", invoice))
        charge = invoice.charge
        return _card_error(
            getattr(charge, "failure_message", None) or "Your card was declined.",
            getattr(charge, "failure_code", None) or "card_declined",
        )
    return response


async def create_schedule(request: web.Request, ids: dict[str, str]) -> web.StreamResponse:
    """``POST /v1/subscription_schedules`` with ``from_subscription``."""
    data = await server.get_post_data(request) or {}
    sub = resources.Subscription._api_retrieve(str(data.get("from_subscription") or ""))
    if getattr(sub, "schedule", None):
        raise UserError(
            400, "You cannot migrate a subscription that is already attached to a schedule."
        )
    schedule = SubscriptionSchedule(sub)
    sub.schedule = schedule.id
    return _json(schedule._export())


def _phases(raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or not raw:
        raise UserError(400, "phases must be a non-empty list")
    phases = []
    for phase in raw:
        items = phase.get("items") or []
        if len(items) != 1:
            raise UserError(400, "The stand-in supports phases of one item")
        quantity = _int(items[0].get("quantity", 1), "quantity")
        if quantity <= 0:
            raise UserError(400, "Invalid quantity")
        phases.append(
            {
                "start_date": _int(phase["start_date"], "start_date")
                if phase.get("start_date")
                else None,
                "end_date": _int(phase["end_date"], "end_date") if phase.get("end_date") else None,
                "duration": phase.get("duration"),
                "items": [
                    {"price": items[0].get("price") or items[0].get("plan"), "quantity": quantity}
                ],
            }
        )
    return phases


async def schedule_route(request: web.Request, ids: dict[str, str]) -> web.StreamResponse:
    """``GET``/``POST /v1/subscription_schedules/{id}`` (update ``phases``, ``end_behavior``)."""
    schedule = SubscriptionSchedule._api_retrieve(ids["id"])
    if request.method == "POST":
        data = await server.get_post_data(request) or {}
        if schedule.status != "active":
            raise UserError(400, "You cannot update a released subscription schedule.")
        if "phases" in data:
            schedule.phases = _phases(data["phases"])
        schedule.end_behavior = data.get("end_behavior", schedule.end_behavior)
    return _json(schedule._export())


def _release(schedule: Any) -> None:
    schedule.status = "released"
    schedule.released_at = int(time.time())
    schedule.released_subscription = schedule.subscription
    sub = resources.Subscription._api_retrieve(schedule.subscription)
    sub.schedule = None


async def release_schedule(request: web.Request, ids: dict[str, str]) -> web.StreamResponse:
    """``POST /v1/subscription_schedules/{id}/release``: the subscription goes on as it is."""
    schedule = SubscriptionSchedule._api_retrieve(ids["id"])
    if schedule.status != "active":
        raise UserError(400, "You cannot release a subscription schedule that is not active.")
    _release(schedule)
    sub = resources.Subscription._api_retrieve(schedule.subscription)
    schedule_webhook(resources.Event("customer.subscription.updated", sub))
    return _json(schedule._export())


async def renew(request: web.Request, ids: dict[str, str]) -> web.StreamResponse:
    """``POST /v1/test_helpers/subscriptions/{id}/renew``: the current period ends now."""
    sub = resources.Subscription._api_retrieve(ids["id"])
    if sub.status == "canceled":
        raise UserError(400, "The subscription has ended.")
    if sub.cancel_at_period_end:
        sub.ended_at = sub.canceled_at = int(time.time())
        sub.status = "canceled"
        schedule_webhook(resources.Event("customer.subscription.deleted", sub))
        return _json(sub._export())
    schedule_id = getattr(sub, "schedule", None)
    if schedule_id:
        schedule = SubscriptionSchedule._api_retrieve(schedule_id)
        if len(schedule.phases) > 1:
            schedule.phases = schedule.phases[1:]
            _set_quantity(sub, schedule.phases[0]["items"][0]["quantity"])
        else:
            _release(schedule)
    # The next period starts now: localstripe counts periods from ``start_date``.
    sub.start_date = int(time.time())
    invoice = resources.Invoice(
        customer=sub.customer, subscription=sub.id, items=list(sub.items._list)
    )
    invoice._finalize()
    resources.Invoice._api_pay_invoice(invoice.id)
    sub.latest_invoice = invoice.id
    if invoice.status != "paid":
        sub.status = "past_due"
        schedule_webhook(resources.Event("invoice.payment_failed", invoice))
    else:
        sub.status = "active"
    schedule_webhook(resources.Event("customer.subscription.updated", sub))
    return _json(sub._export())


Route = Callable[[web.Request, dict[str, str]], Awaitable[web.StreamResponse]]
ROUTES: list[tuple[str, re.Pattern[str], Route]] = [
    ("POST", re.compile(r"^/v1/invoices/create_preview$"), create_preview),
    ("POST", re.compile(r"^/v1/subscription_schedules$"), create_schedule),
    ("POST", re.compile(r"^/v1/subscription_schedules/(?P<id>[^/]+)/release$"), release_schedule),
    ("GET", re.compile(r"^/v1/subscription_schedules/(?P<id>[^/]+)$"), schedule_route),
    ("POST", re.compile(r"^/v1/subscription_schedules/(?P<id>[^/]+)$"), schedule_route),
    ("POST", re.compile(r"^/v1/test_helpers/subscriptions/(?P<id>[^/]+)/renew$"), renew),
]
WRAPPED: list[tuple[re.Pattern[str], Callable[..., Awaitable[web.StreamResponse]]]] = [
    (re.compile(r"^/v1/subscriptions$"), create_subscription),
    (re.compile(r"^/v1/subscriptions/(?P<id>sub_[^/]+)$"), update_subscription),
    (re.compile(r"^/v1/invoices/(?P<id>in_[^/]+)/pay$"), pay_invoice),
]


@web.middleware
async def shim(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Serve the routes above; everything else goes on to localstripe."""
    for method, pattern, route in ROUTES:
        match = pattern.match(request.path)
        if match and request.method == method:
            return await route(request, match.groupdict())
    for pattern, wrapper in WRAPPED:
        match = pattern.match(request.path)
        if match and request.method == "POST":
            return await wrapper(request, match.groupdict(), handler)
    return await handler(request)
