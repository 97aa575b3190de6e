"""Stripe adapter: the official ``stripe`` package, async methods over ``stripe.HTTPXClient``.

Implements the parts of the Stripe API (https://docs.stripe.com/api, legacy Plans model so the
same calls work against localstripe) that the console uses. Configured per instance (no module
globals); every write carries an idempotency key; every call has an explicit timeout. Errors
surface as :class:`StripeError` (Stripe refused; ``message`` is Stripe's text, safe to show) or
:class:`StripeUnavailable` (network failure, timeout, 5xx). Nothing else in ``api/`` imports
``stripe`` (the dev stack creates localstripe's plan through the SDK itself).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar

import stripe
from stripe.params import InvoiceListParams

from api.kernel.http.vendor_budget import within_budget

T = TypeVar("T")


class StripeError(Exception):
    """Stripe refused the request (4xx). ``message`` is Stripe's user-facing text."""

    def __init__(self, message: str, code: str | None = None, status_code: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status_code = status_code


class CardError(StripeError):
    """The card was declined or is invalid (Stripe ``card_error``)."""


class StripeUnavailable(Exception):
    """Stripe could not be reached or failed (5xx); nothing is known to have changed."""


class WebhookSignatureError(Exception):
    """A webhook payload's ``Stripe-Signature`` is missing or does not match."""


@dataclass(frozen=True, slots=True)
class Plan:
    """A recurring Plan. ``amount_cents`` per unit per ``interval``."""

    id: str
    product_id: str
    amount_cents: int
    currency: str
    interval: str


@dataclass(frozen=True, slots=True)
class WebhookEvent:
    """A verified webhook event: its id, type, creation time (epoch seconds) and
    ``data.object`` (https://docs.stripe.com/api/events/object)."""

    id: str
    type: str
    data_object: dict[str, Any]
    created: int = 0


# Card brands as SPEC 3 names them. Legacy Card objects already use these names (with
# "MasterCard" spelled "Mastercard" by newer API versions); PaymentMethod cards use the codes.
_BRANDS = {
    "visa": "Visa",
    "american express": "American Express",
    "amex": "American Express",
    "diners club": "Diners Club",
    "diners": "Diners Club",
    "discover": "Discover",
    "jcb": "JCB",
    "mastercard": "MasterCard",
    "unionpay": "UnionPay",
}


def card_brand(raw: str | None) -> str:
    """SPEC 3's name of a Stripe card brand (``"amex"`` or ``"American Express"`` ->
    ``"American Express"``); an unknown brand keeps Stripe's text, ``None`` gives "Unknown"."""
    if not raw:
        return "Unknown"
    return _BRANDS.get(raw.strip().lower(), raw)


@dataclass(frozen=True, slots=True)
class Card:
    """A customer's card (https://docs.stripe.com/api/cards/object): ``id`` (``card_...``),
    ``brand`` as SPEC 3 names it, last four digits, expiry month (1-12) and 4-digit year."""

    id: str
    brand: str
    last4: str
    exp_month: int
    exp_year: int


@dataclass(frozen=True, slots=True)
class SubscriptionState:
    """A subscription (https://docs.stripe.com/api/subscriptions/object): its id, status
    (``active``, ``past_due``, ``canceled``...), quantity of the plan (units), the end of the
    paid period (epoch seconds; None when Stripe gives none), whether it ends then
    (``cancel_at_period_end``), the schedule that changes it later (``sub_sched_...``), its
    single item's id (``si_...``), the plans (or prices) its items bill, and its latest
    invoice when the answer carried it (``expand=["latest_invoice"]``)."""

    id: str
    status: str
    quantity: int
    period_end: int | None = None
    cancel_at_period_end: bool = False
    schedule_id: str | None = None
    item_id: str | None = None
    plan_ids: frozenset[str] = frozenset()
    latest_invoice: InvoiceSummary | None = None


@dataclass(frozen=True, slots=True)
class ChangePreview:
    """What Stripe would invoice for a plan change (https://docs.stripe.com/api/invoices/
    create_preview): ``amount_due_now`` in the smallest unit of ``currency`` (the prorations of
    an existing subscription, or the first invoice of a new one) and the end of the period that
    invoice covers (epoch seconds; None when Stripe gives none)."""

    currency: str
    amount_due_now: int
    period_end: int | None


@dataclass(frozen=True, slots=True)
class InvoiceSummary:
    """An invoice as a billing history shows it (https://docs.stripe.com/api/invoices/object).

    ``created`` is epoch seconds; ``amount_due``/``amount_paid`` are in the smallest unit of
    ``currency`` (cents); ``status`` is ``draft``, ``open``, ``paid``, ``uncollectible`` or
    ``void``; the URLs are None when Stripe gives none.
    """

    id: str
    number: str | None
    created: int
    currency: str
    amount_due: int
    amount_paid: int
    status: str
    hosted_invoice_url: str | None
    invoice_pdf: str | None


@dataclass(frozen=True, slots=True)
class ScheduledPhase:
    """The next phase of a subscription schedule (https://docs.stripe.com/api/
    subscription_schedules/object#subscription_schedule_object-phases): the quantity of the
    plan from then on (the sum of its items' quantities) and when it starts (epoch seconds)."""

    quantity: int
    start: int


def invoice_summary(obj: Any) -> InvoiceSummary:
    """Read an invoice object (SDK object or webhook ``data.object`` dict).

    Raises:
        KeyError: it has no ``id`` (an upcoming invoice's preview has none).
    """
    obj = _plain(obj)
    return InvoiceSummary(
        id=str(obj["id"]),
        number=obj.get("number") or None,
        # ``created`` in today's API; localstripe's legacy objects call it ``date``.
        created=int(obj.get("created") or obj.get("date") or 0),
        currency=str(obj.get("currency") or "usd"),
        amount_due=int(obj.get("amount_due") or 0),
        amount_paid=int(obj.get("amount_paid") or 0),
        status=str(obj.get("status") or "draft"),
        hosted_invoice_url=obj.get("hosted_invoice_url") or None,
        invoice_pdf=obj.get("invoice_pdf") or None,
    )


def _plan(plan: Any) -> Plan:
    return Plan(
        id=str(plan.id),
        product_id=str(getattr(plan.product, "id", plan.product)),
        amount_cents=int(plan.amount or 0),
        currency=str(plan.currency),
        interval=str(plan.interval),
    )


def _int_or_none(value: Any) -> int | None:
    return int(value) if value else None


def _plain(obj: Any) -> dict[str, Any]:
    """An SDK object (not a dict since stripe 13) or a parsed JSON object, as a plain dict."""
    if hasattr(obj, "to_dict"):
        plain: dict[str, Any] = obj.to_dict()
        return plain
    return dict(obj)


def subscription_state(obj: Any) -> SubscriptionState:
    """Read a subscription object (SDK object or webhook ``data.object`` dict).

    The quantity is the sum of the items' quantities (the console's subscriptions have one
    item, the per-unit plan). The period end is the item's ``current_period_end`` since API
    version 2025-03-31, the subscription's before (localstripe).
    """
    obj = _plain(obj)
    items = obj["items"]["data"] if obj.get("items") else []
    quantity = sum(int(item.get("quantity") or 0) for item in items)
    if not items:
        quantity = int(obj.get("quantity") or 0)
    period_end = obj.get("current_period_end") or (
        items[0].get("current_period_end") if items else None
    )
    schedule = obj.get("schedule")
    latest = obj.get("latest_invoice")
    return SubscriptionState(
        id=str(obj["id"]),
        status=str(obj["status"]),
        quantity=quantity,
        period_end=int(period_end) if period_end else None,
        cancel_at_period_end=bool(obj.get("cancel_at_period_end")),
        schedule_id=str(getattr(schedule, "id", None) or schedule) if schedule else None,
        item_id=str(items[0]["id"]) if items else None,
        plan_ids=frozenset(
            plan for item in (items or [obj]) if (plan := _plan_id(item)) is not None
        ),
        latest_invoice=invoice_summary(latest) if isinstance(latest, dict) else None,
    )


def _plan_id(item: dict[str, Any]) -> str | None:
    """The id of what a subscription item bills: its ``price`` in today's API, its ``plan``
    in the legacy one (localstripe), either an object or an id."""
    for key in ("price", "plan"):
        billed = item.get(key)
        if isinstance(billed, dict):
            billed = billed.get("id")
        if billed:
            return str(billed)
    return None


def _is_proration(line: dict[str, Any]) -> bool:
    """A preview line that prorates: ``parent.subscription_item_details.proration`` in today's
    API, ``proration`` before 2025-03-31."""
    details = (line.get("parent") or {}).get("subscription_item_details") or {}
    return bool(details.get("proration", line.get("proration")))


def _card(obj: Any) -> Card:
    obj = _plain(obj)
    return Card(
        id=str(obj["id"]),
        brand=card_brand(obj.get("brand")),
        last4=str(obj["last4"]),
        exp_month=int(obj["exp_month"]),
        exp_year=int(obj["exp_year"]),
    )


LIVE_STATUSES = frozenset({"active", "trialing", "past_due"})


def idempotency_key(*parts: str) -> str:
    """A fresh idempotency key, prefixed with readable parts for the Stripe dashboard."""
    return ":".join([*parts, uuid.uuid4().hex])


class StripeGateway:
    """Async Stripe client for one API key.

    Args:
        api_key: secret key (``sk_...``).
        api_base: API origin, ``https://api.stripe.com`` or a localstripe URL.
        timeout_s: per-request timeout in seconds.
        webhook_secret: ``whsec_...`` used to verify webhook signatures.
    """

    def __init__(
        self, *, api_key: str, api_base: str, timeout_s: float, webhook_secret: str = ""
    ) -> None:
        self._http = stripe.HTTPXClient(timeout=timeout_s)
        self._client = stripe.StripeClient(
            api_key,
            base_addresses={"api": api_base.rstrip("/")},
            http_client=self._http,
            max_network_retries=1,
        )
        self._webhook_secret = webhook_secret

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._http.close_async()  # type: ignore[no-untyped-call]

    @staticmethod
    async def _call(awaitable: Awaitable[T]) -> T:
        try:
            async with within_budget():
                return await awaitable
        except TimeoutError as exc:
            raise StripeUnavailable("The request's time budget for vendors ran out") from exc
        except stripe.CardError as exc:
            raise CardError(exc.user_message or str(exc), exc.code, exc.http_status or 402) from exc
        except (stripe.APIConnectionError, stripe.RateLimitError) as exc:
            raise StripeUnavailable(str(exc)) from exc
        except stripe.StripeError as exc:
            status = exc.http_status or 500
            if status >= 500:
                raise StripeUnavailable(str(exc)) from exc
            raise StripeError(exc.user_message or str(exc), exc.code, status) from exc

    async def create_customer(self, *, account_id: str, name: str, email: str) -> str:
        """Create a customer for an account; returns its id (``cus_...``).

        The idempotency key is derived from the account id, so retries create one customer.
        """
        customer = await self._call(
            self._client.v1.customers.create_async(
                params={"name": name, "email": email, "metadata": {"account_id": account_id}},
                options={"idempotency_key": f"customer:{account_id}"},
            )
        )
        return str(customer.id)

    async def default_card(self, customer_id: str) -> Card | None:
        """The customer's default card, or None (``customers.retrieve`` with
        ``expand=["default_source"]``).

        Raises:
            StripeError, StripeUnavailable.
        """
        customer = await self._call(
            self._client.v1.customers.retrieve_async(
                customer_id, params={"expand": ["default_source"]}
            )
        )
        source: Any = customer.default_source
        if not source or isinstance(source, str) or _plain(source).get("object") != "card":
            return None
        return _card(source)

    async def replace_default_card(self, customer_id: str, card_token: str) -> Card:
        """Attach the card of a Stripe.js token (``tok_...``) and make it the default for
        invoices, then delete the previous default card (https://docs.stripe.com/api/cards/create,
        /api/customers/update ``default_source``).

        Returns the new card. Deleting the previous card is best effort once the new one is
        the default (a failure there leaves an unused card, never a wrong default).

        Raises:
            CardError: the card was declined or is invalid (Stripe's message).
            StripeError: another refusal (e.g. an unknown or used token).
            StripeUnavailable: Stripe unreachable before the new card became the default.
        """
        previous = await self.default_card(customer_id)
        created = await self._call(
            self._client.v1.customers.payment_sources.create_async(
                customer_id,
                params={"source": card_token},
                options={"idempotency_key": idempotency_key("card", customer_id)},
            )
        )
        card = _card(created)
        await self._call(
            self._client.v1.customers.update_async(
                customer_id,
                params={"default_source": card.id},
                options={"idempotency_key": idempotency_key("default-card", customer_id)},
            )
        )
        if previous is not None and previous.id != card.id:
            # An orphan card is harmless; the default is already the new one.
            with contextlib.suppress(StripeError, StripeUnavailable):
                await self.delete_card(customer_id, previous.id)
        return card

    async def delete_card(self, customer_id: str, card_id: str) -> None:
        """Delete one card of the customer (https://docs.stripe.com/api/cards/delete).

        Raises:
            StripeError, StripeUnavailable.
        """
        await self._call(
            self._client.v1.customers.payment_sources.delete_async(
                customer_id,
                card_id,
                options={"idempotency_key": idempotency_key("delete-card", customer_id)},
            )
        )

    async def create_subscription(
        self, *, customer_id: str, plan_id: str, quantity: int, key: str
    ) -> SubscriptionState:
        """Subscribe the customer to ``quantity`` units of the per-unit plan, charged to the
        default card (https://docs.stripe.com/api/subscriptions/create, legacy ``plan`` items).
        The answer carries the first invoice (``latest_invoice``).

        Args:
            key: the idempotency key of this change.

        Raises:
            CardError: the first invoice's payment was declined.
            StripeError: refused (e.g. the customer has no card).
            StripeUnavailable.
        """
        subscription = await self._call(
            self._client.v1.subscriptions.create_async(
                params={
                    "customer": customer_id,
                    "items": [{"plan": plan_id, "quantity": quantity}],
                    # A declined first payment is a CardError now, not an "incomplete"
                    # subscription left behind.
                    "payment_behavior": "error_if_incomplete",
                    "expand": ["latest_invoice"],
                },
                options={"idempotency_key": key},
            )
        )
        return subscription_state(subscription)

    async def invoices(
        self, customer_id: str, *, limit: int, starting_after: str | None = None
    ) -> tuple[list[InvoiceSummary], bool]:
        """A page of the customer's invoices, newest first, and whether more follow
        (https://docs.stripe.com/api/invoices/list).

        Raises:
            StripeError (e.g. an unknown ``starting_after``), StripeUnavailable.
        """
        params: InvoiceListParams = {"customer": customer_id, "limit": limit}
        if starting_after:
            params["starting_after"] = starting_after
        page = _plain(await self._call(self._client.v1.invoices.list_async(params=params)))
        return [invoice_summary(i) for i in page.get("data", [])], bool(page.get("has_more"))

    async def all_invoices(self, customer_id: str) -> list[InvoiceSummary]:
        """Every invoice of the customer, newest first, in pages of 100
        (https://docs.stripe.com/api/invoices/list).

        Raises:
            StripeError, StripeUnavailable.
        """
        found: list[InvoiceSummary] = []
        more = True
        while more:
            page, more = await self.invoices(
                customer_id, limit=100, starting_after=found[-1].id if found else None
            )
            found += page
            more = more and bool(page)
        return found

    async def live_subscriptions(self, customer_id: str) -> list[SubscriptionState]:
        """The customer's subscriptions that still bill (active, trialing, past due), newest
        first (https://docs.stripe.com/api/subscriptions/list).

        Raises:
            StripeError, StripeUnavailable.
        """
        page = await self._call(
            self._client.v1.subscriptions.list_async(params={"customer": customer_id})
        )
        # Stripe lists newest first; localstripe in the order it made them.
        data = sorted(_plain(page).get("data", []), key=lambda s: -int(s.get("created") or 0))
        states = [subscription_state(s) for s in data]
        return [s for s in states if s.status in LIVE_STATUSES]

    async def subscription(self, subscription_id: str) -> SubscriptionState:
        """The subscription as Stripe has it now (https://docs.stripe.com/api/subscriptions/
        retrieve).

        Raises:
            StripeError (404 for an unknown id), StripeUnavailable.
        """
        return subscription_state(
            await self._call(self._client.v1.subscriptions.retrieve_async(subscription_id))
        )

    async def plan(self, plan_id: str) -> Plan:
        """The per-unit plan (https://docs.stripe.com/api/plans/retrieve).

        Raises:
            StripeError, StripeUnavailable.
        """
        plan = await self._call(self._client.v1.plans.retrieve_async(plan_id))
        return _plan(plan)

    async def preview_change(
        self,
        *,
        customer_id: str,
        plan_id: str,
        quantity: int,
        subscription: SubscriptionState | None,
        proration_date: int,
    ) -> ChangePreview:
        """What changing ``subscription`` to ``quantity`` units at ``proration_date`` (epoch
        seconds) would charge now, invoiced at once as :meth:`upgrade_subscription` does; or,
        with no subscription, the first invoice of a new one
        (https://docs.stripe.com/api/invoices/create_preview; the prorations are the lines
        Stripe marks as such).

        Raises:
            StripeError, StripeUnavailable.
        """
        if subscription is None:
            preview = await self._call(
                self._client.v1.invoices.create_preview_async(
                    params={
                        "customer": customer_id,
                        "subscription_details": {
                            "items": [{"price": plan_id, "quantity": quantity}]
                        },
                    }
                )
            )
            plain = _plain(preview)
            return ChangePreview(
                currency=str(plain.get("currency") or "usd"),
                amount_due_now=int(plain.get("amount_due") or 0),
                period_end=_int_or_none(plain.get("period_end")),
            )
        preview = await self._call(
            self._client.v1.invoices.create_preview_async(
                params={
                    "customer": customer_id,
                    "subscription": subscription.id,
                    "subscription_details": {
                        "items": [{"id": subscription.item_id or "", "quantity": quantity}],
                        "proration_behavior": "always_invoice",
                        "proration_date": proration_date,
                    },
                }
            )
        )
        plain = _plain(preview)
        lines = (plain.get("lines") or {}).get("data") or []
        return ChangePreview(
            currency=str(plain.get("currency") or "usd"),
            amount_due_now=max(
                0, sum(int(i.get("amount") or 0) for i in lines if _is_proration(i))
            ),
            period_end=subscription.period_end,
        )

    async def upgrade_subscription(
        self, *, subscription: SubscriptionState, quantity: int, proration_date: int, key: str
    ) -> SubscriptionState:
        """Set the quantity of the subscription's (single) item now and invoice the prorated
        difference at once, charged to the default card
        (https://docs.stripe.com/api/subscriptions/update with ``proration_behavior=
        always_invoice``). With ``payment_behavior=error_if_incomplete`` a declined charge
        leaves the subscription unchanged and raises :class:`CardError`. The answer carries the
        invoice of the difference (``latest_invoice``).

        Args:
            proration_date: epoch seconds, the same as the preview the customer saw.
            key: the idempotency key of this change.

        Raises:
            CardError, StripeError, StripeUnavailable.
        """
        updated = await self._call(
            self._client.v1.subscriptions.update_async(
                subscription.id,
                params={
                    "items": [{"id": subscription.item_id or "", "quantity": quantity}],
                    "proration_behavior": "always_invoice",
                    "proration_date": proration_date,
                    "payment_behavior": "error_if_incomplete",
                    "expand": ["latest_invoice"],
                },
                options={"idempotency_key": key},
            )
        )
        return subscription_state(updated)

    async def schedule_quantity(
        self, *, subscription: SubscriptionState, plan_id: str, quantity: int, key: str
    ) -> None:
        """Change the subscription to ``quantity`` units when its paid period ends, through a
        subscription schedule of two phases: the current one unchanged, then ``quantity``
        (https://docs.stripe.com/billing/subscriptions/subscription-schedules#downgrading).
        No proration: nothing is refunded or credited. The schedule releases the subscription
        after the new phase's first month, so it goes on at ``quantity``.

        Args:
            key: the idempotency key of this change (suffixed per call).

        Raises:
            StripeError, StripeUnavailable.
        """
        schedule_id = subscription.schedule_id
        if schedule_id is None:
            created = await self._call(
                self._client.v1.subscription_schedules.create_async(
                    params={"from_subscription": subscription.id},
                    options={"idempotency_key": f"{key}:schedule"},
                )
            )
            schedule_id = str(created.id)
        schedule = _plain(
            await self._call(self._client.v1.subscription_schedules.retrieve_async(schedule_id))
        )
        current = schedule["phases"][0]
        await self._call(
            self._client.v1.subscription_schedules.update_async(
                schedule_id,
                params={
                    "end_behavior": "release",
                    "proration_behavior": "none",
                    "phases": [
                        {
                            "start_date": int(current["start_date"]),
                            "end_date": int(current["end_date"]),
                            "items": [{"price": plan_id, "quantity": subscription.quantity}],
                        },
                        {
                            "items": [{"price": plan_id, "quantity": quantity}],
                            "duration": {"interval": "month", "interval_count": 1},
                        },
                    ],
                },
                options={"idempotency_key": f"{key}:phases"},
            )
        )

    async def release_schedule(self, *, schedule_id: str, key: str) -> None:
        """Detach the schedule; the subscription goes on as it is now
        (https://docs.stripe.com/api/subscription_schedules/release).

        Raises:
            StripeError, StripeUnavailable.
        """
        await self._call(
            self._client.v1.subscription_schedules.release_async(
                schedule_id, options={"idempotency_key": f"{key}:release"}
            )
        )

    async def set_cancel_at_period_end(
        self, *, subscription_id: str, cancel: bool, key: str
    ) -> SubscriptionState:
        """End the subscription when its paid period ends (``cancel=True``), or keep it
        renewing (https://docs.stripe.com/api/subscriptions/update ``cancel_at_period_end``).

        Raises:
            StripeError, StripeUnavailable.
        """
        updated = await self._call(
            self._client.v1.subscriptions.update_async(
                subscription_id,
                params={"cancel_at_period_end": cancel},
                options={"idempotency_key": f"{key}:cancel-at-period-end:{cancel}"},
            )
        )
        return subscription_state(updated)

    async def pay_invoice(self, *, invoice_id: str, key: str) -> InvoiceSummary:
        """Charge an open invoice to the customer's default card now
        (https://docs.stripe.com/api/invoices/pay).

        Raises:
            CardError: declined (Stripe's message); StripeError (e.g. already paid),
            StripeUnavailable.
        """
        paid = await self._call(
            self._client.v1.invoices.pay_async(invoice_id, options={"idempotency_key": key})
        )
        return invoice_summary(paid)

    async def cancel_subscription(self, *, subscription_id: str, key: str) -> None:
        """Cancel the subscription now (https://docs.stripe.com/api/subscriptions/cancel).

        Raises:
            StripeError, StripeUnavailable.
        """
        await self._call(
            self._client.v1.subscriptions.cancel_async(
                subscription_id, options={"idempotency_key": key}
            )
        )

    def verify_webhook(self, payload: bytes, signature: str | None) -> WebhookEvent:
        """Verify a webhook's ``Stripe-Signature`` and parse it.

        Raises:
            WebhookSignatureError: missing or wrong signature, or a payload that isn't an event.
        """
        if not signature or not self._webhook_secret:
            raise WebhookSignatureError("Missing Stripe-Signature")
        try:
            event = stripe.Webhook.construct_event(payload, signature, self._webhook_secret)
        except (stripe.SignatureVerificationError, ValueError) as exc:
            raise WebhookSignatureError(str(exc)) from exc
        return WebhookEvent(
            id=str(event.id),
            type=str(event.type),
            data_object=event.data.object.to_dict(),
            created=int(event.created or 0),
        )

    async def next_phase(self, schedule_id: str, *, now: int) -> ScheduledPhase | None:
        """The first phase of the schedule that starts after ``now`` (epoch seconds), or None
        when the schedule is not active (released, canceled, completed) or has no such phase
        (https://docs.stripe.com/api/subscription_schedules/retrieve). A phase without a
        ``start_date`` starts when the phase before it ends.

        Raises:
            StripeError (404 for an unknown id), StripeUnavailable.
        """
        schedule = _plain(
            await self._call(self._client.v1.subscription_schedules.retrieve_async(schedule_id))
        )
        if schedule.get("status") not in ("active", "not_started"):
            return None
        previous_end: int | None = None
        for phase in schedule.get("phases") or []:
            start = _int_or_none(phase.get("start_date")) or previous_end
            previous_end = _int_or_none(phase.get("end_date"))
            if start is not None and start > now:
                items = phase.get("items") or []
                quantity = sum(int(item.get("quantity") or 0) for item in items)
                return ScheduledPhase(quantity=quantity, start=start)
        return None

    async def invoice(self, invoice_id: str) -> InvoiceSummary:
        """One invoice as Stripe has it now (https://docs.stripe.com/api/invoices/retrieve).

        Raises:
            StripeError (404 for an unknown id), StripeUnavailable.
        """
        return invoice_summary(
            await self._call(self._client.v1.invoices.retrieve_async(invoice_id))
        )
