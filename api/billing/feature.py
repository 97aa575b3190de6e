"""Billing (the plan, the payment method, invoices, Stripe's webhooks and the reconciliation):
what it brings to the app and the worker (api/feature.py).

The Stripe webhook task (README "Billing", "Background work") applies one event the webhook
route recorded (``api.billing.webhooks.service.process_event``), in a transaction of its own
on the worker's database pool. Any failure (the database unreachable or restarting, a lock
that cannot be had, a defect) rolls the attempt back and the job is tried again with an
exponential backoff (2 s, 4 s, ... 68 min, about 2 h 16 min in all); past that it is
``failed`` in ``procrastinate_jobs``, its event still unprocessed in ``stripe_event``, and the
daily reconciliation (``python -m api.app.commands.reconcile``) reports what it left behind.
An attempt that committed is never applied again: the event is marked processed in the same
transaction.
"""

from __future__ import annotations

import structlog

from api.billing.reconcile import reconcile, report
from api.billing.router import router
from api.billing.throttles import INVOICES, PAYMENT_METHOD
from api.billing.webhooks.router import router as webhook_router
from api.billing.webhooks.service import STRIPE_EVENT, process_event
from api.feature import BodyLimit, Feature, JobTask, PeriodicTask
from api.principal.resources import JobResources

log = structlog.get_logger(__name__)

WEBHOOK_MAX_BODY_BYTES = 512 * 1024
"""A Stripe event: Stripe documents no maximum (one is a few kilobytes, a large invoice tens of
kilobytes)."""

STRIPE_EVENT_ATTEMPTS = 12
"""Retries of the webhook task on any error: the n-th retry waits 2**n seconds (n = 1..12)."""


class BillingOutOfStep(Exception):
    """The reconciliation left differences with Stripe (report-only, or a fix failed); each
    one is in the worker's log as ``billing_difference``."""


async def reconcile_billing(resources: JobResources) -> None:
    """Compare every account with Stripe (api/billing/reconcile.py), and repair with
    ``BILLING_RECONCILE_FIX``.

    Raises:
        BillingOutOfStep: differences remain (each logged as ``billing_difference``).
    """
    fix = resources.settings.billing.reconcile_fix
    found = await reconcile(sessionmaker=resources.sessionmaker, stripe=resources.stripe, fix=fix)
    for difference in found:
        log.warning("billing_difference", difference=str(difference))
    lines, code = report(found, fix=fix)
    log.info("billing_reconciled", summary=lines[-1])
    if code:
        raise BillingOutOfStep(lines[-1])


async def process_stripe_event(resources: JobResources, *, event_id: str) -> None:
    """Apply the recorded Stripe event ``event_id`` once; subscriptions of plans other than
    ``STRIPE_PLAN_ID`` (the console's) are ignored."""
    async with resources.sessionmaker() as db, db.begin():
        await process_event(db=db, event_id=event_id, plan_id=resources.settings.stripe.plan_id)


FEATURE = Feature(
    name="billing",
    routers=(router, webhook_router),
    throttles=(PAYMENT_METHOD, INVOICES),
    body_limits=(BodyLimit("/webhooks/stripe", WEBHOOK_MAX_BODY_BYTES),),
    periodic=(PeriodicTask("reconcile_billing", "BILLING_RECONCILE_CRON", reconcile_billing),),
    tasks=(JobTask(STRIPE_EVENT, process_stripe_event, max_attempts=STRIPE_EVENT_ATTEMPTS),),
)
