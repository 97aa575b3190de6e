"""The account's plan as our ``account`` row keeps it in step with Stripe, the source of truth
(ARCHITECTURE "Payments"): one typed state and the one function that writes it, used by the
plan change (``service.py``), the webhooks (``webhooks/service.py``) and reconciliation
(``reconcile.py``). Each of them builds the state at its edge from what Stripe answered (the
subscription object, a schedule's next phase) and the rules it owns.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from api.models import MAX_UNITS, Account


def at_epoch(epoch: int | None) -> datetime | None:
    """A Stripe time (epoch seconds) as an aware UTC datetime; None for none (or 0)."""
    return datetime.fromtimestamp(epoch, UTC) if epoch else None


@dataclass(frozen=True, slots=True)
class PlanState:
    """The plan of one account.

    Attributes:
        subscription_id: the Stripe subscription that bills it (``sub_...``), None on the
            free plan.
        units: the units paid for now (0-20; :func:`apply_plan` clamps Stripe's quantity).
        scheduled_units: the units the plan changes to when the paid period ends (0 when it
            ends), None when nothing is scheduled.
        scheduled_change_at: when that change happens (UTC; None when unknown, and always
            None when nothing is scheduled).
    """

    subscription_id: str | None
    units: int
    scheduled_units: int | None = None
    scheduled_change_at: datetime | None = None


FREE_PLAN = PlanState(subscription_id=None, units=0)
"""No subscription, 0 units, nothing scheduled."""


def plan_of(account: Account) -> PlanState:
    """The plan the account's row holds now."""
    return PlanState(
        subscription_id=account.stripe_subscription_id,
        units=account.subscription_units,
        scheduled_units=account.scheduled_units,
        scheduled_change_at=account.scheduled_change_at,
    )


def apply_plan(account: Account, plan: PlanState, *, synced_at: datetime) -> None:
    """Make the account's row hold ``plan``, as of ``synced_at``.

    ``synced_at`` becomes ``subscription_synced_at``: webhook events about the subscription
    older than it are stale (``webhooks/service.py``). A plan change passes now, a webhook its
    event's time, reconciliation the time it read Stripe (never earlier than before).
    """
    account.stripe_subscription_id = plan.subscription_id
    account.subscription_units = max(0, min(MAX_UNITS, plan.units))
    scheduled = plan.scheduled_units is not None
    account.scheduled_units = plan.scheduled_units
    account.scheduled_change_at = plan.scheduled_change_at if scheduled else None
    account.subscription_synced_at = synced_at
