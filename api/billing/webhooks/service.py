"""Stripe webhook events: keep the account's plan and payment state in step with Stripe
(ARCHITECTURE "Payments"; https://docs.stripe.com/webhooks).

Handled types (https://docs.stripe.com/api/events/types):
- ``customer.subscription.created`` / ``.updated``: units := the subscription's quantity while
  it is live (``active``, ``trialing``, ``past_due``); a subscription that ended
  (``canceled``, ``incomplete_expired``, ``unpaid``: Stripe's retries ran out) sets the free
  plan. The scheduled change follows: ``cancel_at_period_end`` schedules 0 units at the
  period's end; a subscription without a schedule, or whose quantity reached the scheduled
  units (the schedule's next phase began), has nothing scheduled any more;
- ``customer.subscription.deleted``: the free plan (0 units), if it is the account's
  subscription;
- ``invoice.payment_failed``: ``payment_failed_at`` := the event's time, and the invoice, its
  amount due and currency are kept for "pay now" (README "Billing", "Past due");
- ``invoice.payment_succeeded`` / ``invoice.paid``: payments are in order again.
Other types are acknowledged and ignored. Each event id is recorded in the same transaction as
its effect, so a redelivered event changes nothing. Stripe does not guarantee delivery order
(https://docs.stripe.com/webhooks#event-ordering): an event older than the newest one already
applied to the same state (subscription, or invoice payment) is recorded and skipped.
"""

from __future__ import annotations

from datetime import UTC, datetime

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.stripe import (
    LIVE_STATUSES,
    StripeGateway,
    SubscriptionState,
    WebhookEvent,
    WebhookSignatureError,
    subscription_state,
)
from api.billing import repository
from api.billing.errors import InvalidWebhookSignature
from api.billing.plan import FREE_PLAN, PlanState, apply_plan, at_epoch, plan_of
from api.billing.service import clear_past_due
from api.models import Account

log = structlog.get_logger(__name__)


def _plan_after(account: Account, state: SubscriptionState, *, ended: bool) -> PlanState:
    """The account's plan once Stripe's subscription is ``state`` (``ended``: deleted, or no
    longer live)."""
    ours = plan_of(account)
    if ended:
        # Only the account's own subscription ends its plan; an old one ending changes nothing.
        return FREE_PLAN if ours.subscription_id in (None, state.id) else ours
    scheduled = (ours.scheduled_units, ours.scheduled_change_at)
    if state.cancel_at_period_end:
        scheduled = (0, at_epoch(state.period_end))
    elif state.schedule_id is None or ours.scheduled_units in (0, state.quantity):
        scheduled = (None, None)
    return PlanState(
        subscription_id=state.id,
        units=state.quantity,
        scheduled_units=scheduled[0],
        scheduled_change_at=scheduled[1],
    )


def _apply_payment(account: Account, event: WebhookEvent, at: datetime) -> None:
    if event.type == "invoice.payment_failed":
        obj = event.data_object
        account.payment_failed_at = at
        account.past_due_invoice_id = str(obj.get("id") or "") or None
        account.past_due_amount = int(obj.get("amount_due") or 0)
        account.past_due_currency = str(obj.get("currency") or "usd")[:3]
    else:
        clear_past_due(account)


def _is_stale(synced_at: datetime | None, at: datetime, *, final: bool = False) -> bool:
    """Older than the state it would change (``synced_at``, to the microsecond).

    Stripe's ``created`` counts whole seconds, so an event of the same second as our own
    write cannot be ordered against it. Such an event is taken as older (the echo of a change
    we made, or of the one before it, e.g. the subscription's creation just before an
    upgrade), except a ``final`` one: a subscription that ended stays ended, so its event is
    applied unless it is from an earlier second.
    """
    if synced_at is None:
        return False
    return at < (synced_at.replace(microsecond=0) if final else synced_at)


def _apply(account: Account, event: WebhookEvent) -> bool:
    """Apply the event unless it is older than the state it would change; True if applied."""
    at = datetime.fromtimestamp(event.created, UTC)
    if event.type.startswith("customer.subscription."):
        state = subscription_state(event.data_object)
        ended = event.type.endswith(".deleted") or state.status not in LIVE_STATUSES
        if _is_stale(account.subscription_synced_at, at, final=ended):
            return False
        apply_plan(account, _plan_after(account, state, ended=ended), synced_at=at)
    else:
        if _is_stale(account.payment_synced_at, at):
            return False
        _apply_payment(account, event, at)
        account.payment_synced_at = at
    return True


HANDLED_TYPES = frozenset(
    {
        "customer.subscription.created",
        "customer.subscription.updated",
        "customer.subscription.deleted",
        "invoice.payment_failed",
        "invoice.payment_succeeded",
        "invoice.paid",
    }
)


async def process_webhook(
    *, db: AsyncSession, stripe: StripeGateway, payload: bytes, signature: str | None
) -> None:
    """``POST /webhooks/stripe``: verify, then apply the event once.

    Args:
        payload: the raw request body (the signature covers these exact bytes).
        signature: the ``Stripe-Signature`` header.

    Raises:
        InvalidWebhookSignature: no signature, a wrong one, or a body that is not an event.
    """
    try:
        event = stripe.verify_webhook(payload, signature)
    except WebhookSignatureError as exc:
        raise InvalidWebhookSignature() from exc
    if not await repository.record_event(db, event.id, event.type):
        log.info("stripe_event_duplicate", event_id=event.id, type=event.type)
        return
    if event.type not in HANDLED_TYPES:
        return
    customer_id = event.data_object.get("customer")
    account = (
        await repository.lock_account_by_customer(db, str(customer_id)) if customer_id else None
    )
    if account is None:
        log.warning("stripe_event_unknown_customer", event_id=event.id, customer=customer_id)
        return
    if not _apply(account, event):
        log.info("stripe_event_stale", event_id=event.id, type=event.type)
        return
    await db.flush()
    log.info("stripe_event_applied", event_id=event.id, type=event.type, account=str(account.id))
