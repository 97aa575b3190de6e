"""Stripe adapter: the official ``stripe`` package, async methods over ``stripe.HTTPXClient``.

Implements the parts of the Stripe API (https://docs.stripe.com/api, legacy Plans model so the
same calls work against localstripe) that the console uses. Configured per instance (no module
globals); every write carries an idempotency key; every call has an explicit timeout. Errors
surface as :class:`StripeError` (Stripe refused; ``message`` is Stripe's text, safe to show) or
:class:`StripeUnavailable` (network failure, timeout, 5xx). Nothing outside ``api/adapters``
imports ``stripe``.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar

import stripe

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
    """A verified webhook event: its id, type and ``data.object``."""

    id: str
    type: str
    data_object: dict[str, Any]


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
            return await awaitable
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

    async def ensure_plan(
        self, *, product_name: str, plan_id: str, amount_cents: int, currency: str = "usd"
    ) -> Plan:
        """Create the product and monthly per-unit plan if ``plan_id`` does not exist yet.

        Returns the plan (existing or new). Used by the dev stack bootstrap and deploy scripts.
        """
        try:
            plan = await self._call(self._client.v1.plans.retrieve_async(plan_id))
        except StripeError as exc:
            if exc.status_code != 404:
                raise
            product = await self._call(
                self._client.v1.products.create_async(
                    params={"name": product_name, "type": "service"},
                    options={"idempotency_key": f"product:{plan_id}"},
                )
            )
            plan = await self._call(
                self._client.v1.plans.create_async(
                    params={
                        "id": plan_id,
                        "product": str(product.id),
                        "amount": amount_cents,
                        "currency": currency,
                        "interval": "month",
                    },
                    options={"idempotency_key": f"plan:{plan_id}"},
                )
            )
        return Plan(
            id=str(plan.id),
            product_id=str(getattr(plan.product, "id", plan.product)),
            amount_cents=int(plan.amount or 0),
            currency=str(plan.currency),
            interval=str(plan.interval),
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
            id=str(event.id), type=str(event.type), data_object=dict(event.data.object)
        )
