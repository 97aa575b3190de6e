"""The Stripe webhook task (README "Billing", "Background work"): applies one event the
webhook route recorded (``api.billing.webhooks.service.process_event``), in a transaction of
its own on the worker's database pool.

Any failure (the database unreachable or restarting, a lock that cannot be had, a defect)
rolls the attempt back and the job is tried again with an exponential backoff
(:data:`STRIPE_EVENT_RETRY`: 2 s, 4 s, ... 68 min, about 2 h 16 min in all); past that it is
``failed`` in ``procrastinate_jobs``, its event still unprocessed in ``stripe_event``, and the
daily reconciliation (``python -m api.app.commands.reconcile``) reports what it left behind. An
attempt
that committed is never applied again: the event is marked processed in the same transaction.
"""

from __future__ import annotations

import procrastinate
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from api.billing.webhooks.service import process_event
from api.kernel.deferred import STRIPE_EVENT_QUEUE, STRIPE_EVENT_TASK

STRIPE_EVENT_RETRY = procrastinate.RetryStrategy(max_attempts=12, exponential_wait=2)
"""Retries of the webhook task on any error: the n-th retry waits 2**n seconds (n = 1..12)."""


def register(
    app: procrastinate.App, sessionmaker: async_sessionmaker[AsyncSession], plan_id: str
) -> None:
    """Add the webhook task to ``app``: events applied through ``sessionmaker``'s transactions,
    subscriptions of plans other than ``plan_id`` (the console's) ignored."""

    @app.task(name=STRIPE_EVENT_TASK, queue=STRIPE_EVENT_QUEUE, retry=STRIPE_EVENT_RETRY)
    async def process_stripe_event(event_id: str) -> None:
        """Apply the recorded Stripe event ``event_id`` once."""
        async with sessionmaker() as db, db.begin():
            await process_event(db=db, event_id=event_id, plan_id=plan_id)
