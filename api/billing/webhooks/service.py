"""Stripe webhook events: keep the account's plan, payment state and invoices in step with
Stripe (ARCHITECTURE "Payments"; README "Billing", "Background work";
https://docs.stripe.com/webhooks).

Two steps. :func:`receive_webhook` (the route) verifies the signature, records the event
(``stripe_event``: id, type, time, ``data.object``) and defers the job that applies it, both in
the request's transaction, then Stripe gets its 2xx at once; a duplicate delivery finds the id
recorded and defers nothing. :func:`process_event` (the job, api/billing/feature.py) applies
it once: the event's row is marked processed in the transaction of its effect, and a failed
attempt rolls back and is retried.

Handled types (https://docs.stripe.com/api/events/types):
- ``customer.subscription.created`` / ``.updated``: units := the subscription's quantity while
  it is live (``active``, ``trialing``, ``past_due``); a subscription that ended
  (``canceled``, ``incomplete_expired``, ``unpaid``: Stripe's retries ran out) sets the free
  plan. The scheduled change follows: ``cancel_at_period_end`` schedules 0 units at the
  period's end; a subscription without a schedule, or whose quantity reached the scheduled
  units (the schedule's next phase began), has nothing scheduled any more;
- ``customer.subscription.deleted``: the free plan (0 units), if it is the account's
  subscription;
- A subscription of another plan than the console's (another product billed by the same
  Stripe account) is ignored and logged. A plan change these events make is in the account's
  audit log, by Stripe (``api.audit.STRIPE``): the console's own changes are applied when made,
  so their echoes are stale (below) and change nothing;
- ``invoice.*`` (created, finalized, updated, paid, payment_succeeded, payment_failed, voided,
  marked_uncollectible, deleted): the invoice mirror, and what is past due, follow
  (api/billing/invoices.py).
Other types are recorded and ignored. Stripe does not guarantee delivery order
(https://docs.stripe.com/webhooks#event-ordering): a subscription event older than the newest
state already applied is skipped (:func:`_is_stale`); invoices keep their own order
(``invoices.py``).
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
    invoice_summary,
    subscription_state,
)
from api.audit import STRIPE, AuditAction, AuditTrail, changed
from api.billing import invoices, repository
from api.billing.errors import InvalidWebhookSignature
from api.billing.plan import FREE_PLAN, PlanState, apply_plan, at_epoch, plan_of
from api.billing.service import account_target
from api.kernel.deferred import Task
from api.models import Account

log = structlog.get_logger(__name__)

STRIPE_EVENT = Task("process_stripe_event", "stripe-events")
"""The task that applies one recorded event (:func:`process_event`, run by the worker:
api/billing/feature.py), whose one argument is ``event_id``."""

SUBSCRIPTION_TYPES = frozenset(
    {
        "customer.subscription.created",
        "customer.subscription.updated",
        "customer.subscription.deleted",
    }
)
INVOICE_TYPES = frozenset(
    {
        "invoice.created",
        "invoice.finalized",
        "invoice.updated",
        "invoice.paid",
        "invoice.payment_succeeded",
        "invoice.payment_failed",
        "invoice.voided",
        "invoice.marked_uncollectible",
        "invoice.deleted",
    }
)
HANDLED_TYPES = SUBSCRIPTION_TYPES | INVOICE_TYPES
"""The event types the console applies (the ones its webhook endpoint should be sent)."""


async def receive_webhook(
    *,
    db: AsyncSession,
    stripe: StripeGateway,
    payload: bytes,
    signature: str | None,
    queue: str = STRIPE_EVENT.queue,
) -> None:
    """``POST /webhooks/stripe``: verify, record the event once and defer its processing on
    ``queue``, in ``db``'s transaction (a rolled-back request records and defers nothing).
    An event of a type not handled is recorded as processed, with no job.

    Args:
        payload: the raw request body (the signature covers these exact bytes).
        signature: the ``Stripe-Signature`` header.

    Raises:
        InvalidWebhookSignature: no signature, a wrong one, or a body that is not an event;
            nothing was recorded.
    """
    try:
        event = stripe.verify_webhook(payload, signature)
    except WebhookSignatureError as exc:
        raise InvalidWebhookSignature() from exc
    handled = event.type in HANDLED_TYPES
    recorded = await repository.record_event(
        db,
        event.id,
        event.type,
        datetime.fromtimestamp(event.created, UTC),
        event.data_object,
        processed=not handled,
    )
    if not recorded:
        log.info("stripe_event_duplicate", event_id=event.id, type=event.type)
    elif handled:
        await STRIPE_EVENT.defer(db, [{"event_id": event.id}], queue=queue)


async def process_event(*, db: AsyncSession, event_id: str, plan_id: str) -> None:
    """The job of one recorded event: apply it, in ``db``'s transaction, and mark it
    processed; an event already processed (a job run again) changes nothing.

    Args:
        plan_id: the console's per-unit plan (``STRIPE_PLAN_ID``); a subscription of another
            plan is ignored.

    Raises:
        Whatever the database raises: the transaction rolls back and the job is retried.
    """
    row = await repository.lock_event(db, event_id)
    if row is None or row.processed_at is not None or row.data is None:
        log.info("stripe_event_already_processed", event_id=event_id)
        return
    occurred_at = row.occurred_at or row.created_at
    event = WebhookEvent(
        id=row.id, type=row.type, data_object=row.data, created=int(occurred_at.timestamp())
    )
    outcome = await _apply_event(db, event, plan_id)
    row.processed_at = datetime.now(UTC)
    await db.flush()
    log.info(f"stripe_event_{outcome}", event_id=event.id, type=event.type)


async def _apply_event(db: AsyncSession, event: WebhookEvent, plan_id: str) -> str:
    """Apply one event; returns what became of it (``applied``, ``stale``, ``ignored``)."""
    state = None
    if event.type in SUBSCRIPTION_TYPES:
        state = subscription_state(event.data_object)
        if state.plan_ids != {plan_id}:
            log.warning(
                "stripe_event_other_plan",
                event_id=event.id,
                subscription=state.id,
                plans=sorted(state.plan_ids),
            )
            return "ignored"
    elif "id" not in event.data_object:  # an upcoming invoice: a preview, not an invoice
        return "ignored"
    customer_id = event.data_object.get("customer")
    account = (
        await repository.lock_account_by_customer(db, str(customer_id)) if customer_id else None
    )
    if account is None:
        log.warning("stripe_event_unknown_customer", event_id=event.id, customer=customer_id)
        return "ignored"
    at = datetime.fromtimestamp(event.created, UTC)
    if state is not None:
        return "applied" if await _apply_subscription(db, account, state, event, at) else "stale"
    invoice = invoice_summary(event.data_object)
    if event.type == "invoice.deleted":
        await invoices.forget_invoice(db, account.id, invoice.id)
    else:
        failed_at = at if event.type == "invoice.payment_failed" else None
        await invoices.mirror_invoice(
            db, account.id, invoice, synced_at=at, payment_failed_at=failed_at
        )
    await invoices.refresh_past_due(db, account)
    return "applied"


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


async def _apply_subscription(
    db: AsyncSession, account: Account, state: SubscriptionState, event: WebhookEvent, at: datetime
) -> bool:
    """Apply a subscription event unless it is stale; True if applied. What it changes in the
    plan is recorded in the account's audit log, by Stripe."""
    ended = event.type.endswith(".deleted") or state.status not in LIVE_STATUSES
    if _is_stale(account.subscription_synced_at, at, final=ended):
        return False
    before = plan_of(account)
    apply_plan(account, _plan_after(account, state, ended=ended), synced_at=at)
    after = plan_of(account)
    changes = changed(
        units=(before.units, after.units),
        scheduledUnits=(before.scheduled_units, after.scheduled_units),
    )
    if changes:
        if "units" in changes:
            action = AuditAction.PLAN_CHANGED
        elif after.scheduled_units is None:
            action = AuditAction.PLAN_CHANGE_CANCELLED
        else:
            action = AuditAction.PLAN_CHANGE_SCHEDULED
        await AuditTrail(db, account.id, STRIPE).record(action, account_target(account), changes)
    return True
