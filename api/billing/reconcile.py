"""Reconcile our billing state with Stripe's (README "Billing", "Reconciliation").

    python -m api.app.commands.reconcile [--fix]

Webhooks and our own writes keep each account's plan and card in step with Stripe, but an
event can be lost and a Stripe call that timed out may still have happened. This command
compares, for every account with a Stripe customer, our ``account`` row with Stripe, the source
of truth, and prints one line per difference, then a summary line::

    <account id> <what>: ours <our value>, Stripe <Stripe's value>[; fixed: <what was done>]

What it compares (``what``), with what ``--fix`` does:

- ``orphan subscription``: the customer has more than one live subscription (``active``,
  ``trialing``, ``past_due``), e.g. made by a call we took for failed. The one the account
  references is kept (the newest if it references none live); the others bill twice, so
  they are cancelled at once (https://docs.stripe.com/api/subscriptions/cancel).
- ``subscription``: ``stripe_subscription_id`` is not the kept live subscription (None
  without one): set to it.
- ``units``: ``subscription_units`` is not the kept subscription's quantity (0 without a live
  subscription): set to it (https://docs.stripe.com/api/subscriptions/object).
- ``card``: the card on file is not the customer's default card (none when Stripe has none):
  copied from Stripe (https://docs.stripe.com/api/customers/object#customer_object-default_source).
- ``scheduled change``: ``scheduled_units``/``scheduled_change_at`` is not what Stripe will do
  when the period ends: 0 units then for ``cancel_at_period_end``; the quantity of the
  schedule's next phase at its start when it differs from today's
  (https://docs.stripe.com/api/subscription_schedules/object); otherwise nothing. Set to it.
- ``past due``: the invoice recorded as past due is ``paid`` or ``void`` in Stripe
  (https://docs.stripe.com/api/invoices/object#invoice_object-status): cleared (its copy in
  the invoice mirror is made Stripe's, api/billing/invoices.py).
- ``invoices``: the invoice mirror (what GET /web/invoices lists) lacks some of the customer's
  invoices, shows them otherwise than Stripe (status, amounts, number, links), or has one
  Stripe no longer has (a deleted draft): every invoice is copied from Stripe, and those
  Stripe no longer has are dropped. This is also how the mirror is filled for accounts billed
  before it existed (a migration cannot read Stripe): run ``--fix`` once after upgrading.
- ``not checked``: Stripe refused or could not be reached for this account (its message);
  nothing was changed for it, and the run goes on with the next account.

Each account is checked (and fixed) in a transaction of its own, its row locked with
``SELECT ... FOR UPDATE`` as the API's billing writes and the webhooks lock it, so the command
is safe to run beside them. The plan is written as the service and the webhooks write it
(``api/billing/plan.py``). Exit code: 0 when everything is in step (or was fixed), 1 when
differences remain (always the case without ``--fix`` when any were found).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from api.adapters.stripe import (
    Card,
    InvoiceSummary,
    StripeError,
    StripeGateway,
    StripeUnavailable,
    SubscriptionState,
)
from api.billing import repository
from api.billing.invoices import SETTLED, forget_invoice, mirror_invoice, refresh_past_due
from api.billing.plan import PlanState, apply_plan, at_epoch
from api.billing.service import store_card, subscription_of
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker
from api.models import MAX_UNITS, Account

What = Literal[
    "orphan subscription",
    "subscription",
    "units",
    "card",
    "scheduled change",
    "past due",
    "invoices",
    "not checked",
]


@dataclass(frozen=True, slots=True)
class Difference:
    """One way an account's row disagrees with Stripe.

    ``ours`` and ``stripe`` are the two values as text (``none`` for no value); ``fixed`` says
    what ``--fix`` did about it, None when nothing was done (not asked, or it failed).
    """

    account_id: uuid.UUID
    what: What
    ours: str
    stripe: str
    fixed: str | None = None

    def __str__(self) -> str:
        line = f"{self.account_id} {self.what}: ours {self.ours}, Stripe {self.stripe}"
        return f"{line}; fixed: {self.fixed}" if self.fixed else line


@dataclass(frozen=True, slots=True)
class _StripeSide:
    """What Stripe has for one customer, read before anything is compared."""

    live: list[SubscriptionState]
    kept: SubscriptionState | None
    scheduled: tuple[int | None, int | None]  # units, epoch seconds
    card: Card | None
    past_due_invoice: InvoiceSummary | None  # the account's past-due invoice, if it has one
    invoices: list[InvoiceSummary]  # every invoice of the customer


def _card_text(card: tuple[str | None, str | None, int | None, int | None]) -> str:
    brand, last4, month, year = card
    if last4 is None:
        return "none"
    return f"{brand} {last4} {month or 0:02d}/{year}"


def _scheduled_text(units: int | None, at: int | None) -> str:
    if units is None:
        return "none"
    when = datetime.fromtimestamp(at, UTC).isoformat() if at else "an unknown date"
    return f"{units} units on {when}"


def _epoch(at: datetime | None) -> int | None:
    return int(at.timestamp()) if at else None


async def _read_stripe(
    stripe: StripeGateway, account: Account, customer_id: str, now: int
) -> _StripeSide:
    """Read the customer's live subscriptions, the kept one's scheduled change, the default
    card, the past-due invoice and every invoice.

    Raises:
        StripeError, StripeUnavailable.
    """
    live = await stripe.live_subscriptions(customer_id)  # newest first
    kept = next((s for s in live if s.id == account.stripe_subscription_id), None)
    if kept is None and live:
        kept = live[0]
    scheduled: tuple[int | None, int | None] = (None, None)
    if kept is not None and kept.cancel_at_period_end:
        scheduled = (0, kept.period_end)
    elif kept is not None and kept.schedule_id is not None:
        phase = await stripe.next_phase(kept.schedule_id, now=now)
        if phase is not None and phase.quantity != kept.quantity:
            scheduled = (max(0, min(MAX_UNITS, phase.quantity)), phase.start)
    card = await stripe.default_card(customer_id)
    invoices = await stripe.all_invoices(customer_id)
    # The invoice shown as past due is one of the customer's: read from the list, not again.
    past_due = next((i for i in invoices if i.id == account.past_due_invoice_id), None)
    return _StripeSide(live, kept, scheduled, card, past_due, invoices)


async def _cancel_orphans(
    stripe: StripeGateway, account: Account, side: _StripeSide, *, fix: bool
) -> list[Difference]:
    """A difference per live subscription other than the kept one; with ``fix``, each is
    cancelled now (idempotency key derived from its id, so a rerun replays the same call)."""
    found = []
    for orphan in side.live:
        if side.kept is None or orphan.id == side.kept.id:
            continue
        theirs = f"also {orphan.id} ({orphan.status}, {orphan.quantity} units)"
        fixed = None
        if fix:
            try:
                await stripe.cancel_subscription(
                    subscription_id=orphan.id, key=f"reconcile:cancel:{orphan.id}"
                )
            except StripeError as exc:
                theirs += f" (cancelling it was refused: {exc.message})"
            except StripeUnavailable as exc:
                theirs += f" (cancelling it failed: {exc})"
            else:
                fixed = f"cancelled {orphan.id}"
        found.append(
            Difference(account.id, "orphan subscription", f"{side.kept.id} only", theirs, fixed)
        )
    return found


async def _reconcile_account(
    db: AsyncSession, stripe: StripeGateway, account_id: uuid.UUID, *, fix: bool
) -> list[Difference]:
    """Compare one account with Stripe and, with ``fix``, repair it (flushed; the caller
    commits). With ``fix`` the row stays locked from before Stripe is read until the commit.

    Raises:
        StripeError, StripeUnavailable: reading Stripe failed; nothing was changed.
    """
    if fix:
        account = await repository.lock_account(db, account_id)
    else:
        account = await db.get_one(Account, account_id)
    customer_id = account.stripe_customer_id
    if customer_id is None:  # lost its customer since it was listed: nothing to compare
        return []
    # Whole seconds, as Stripe's event times: an event of this second or later is newer than
    # what is read here, and the webhooks will still apply it.
    read_at = int(time.time())
    side = await _read_stripe(stripe, account, customer_id, read_at)
    found = await _cancel_orphans(stripe, account, side, fix=fix)
    done = "set to Stripe's" if fix else None
    ours = subscription_of(account)
    found_before = len(found)

    kept_id = side.kept.id if side.kept else None
    if account.stripe_subscription_id != kept_id:
        found.append(
            Difference(
                account.id,
                "subscription",
                account.stripe_subscription_id or "none",
                kept_id or "none",
                done,
            )
        )

    units = max(0, min(MAX_UNITS, side.kept.quantity)) if side.kept else 0
    if ours.units != units:
        found.append(Difference(account.id, "units", str(ours.units), str(units), done))

    scheduled_ours: tuple[int | None, int | None] = (None, None)
    if ours.scheduled_units is not None:
        scheduled_ours = (ours.scheduled_units, _epoch(ours.scheduled_change_at))
    if scheduled_ours != side.scheduled:
        found.append(
            Difference(
                account.id,
                "scheduled change",
                _scheduled_text(*scheduled_ours),
                _scheduled_text(*side.scheduled),
                done,
            )
        )
    if fix and len(found) > found_before:
        apply_plan(
            account,
            _plan_of_stripe(side),
            synced_at=_later(account.subscription_synced_at, read_at),
        )

    card_ours = (
        account.card_brand,
        account.card_last4,
        account.card_exp_month,
        account.card_exp_year,
    )
    card = side.card
    card_stripe = (card.brand, card.last4, card.exp_month, card.exp_year) if card else (None,) * 4
    if card_ours != card_stripe:
        found.append(
            Difference(account.id, "card", _card_text(card_ours), _card_text(card_stripe), done)
        )
        if fix:
            store_card(account, card)

    synced_at = datetime.fromtimestamp(read_at, UTC)
    past_due = side.past_due_invoice
    if past_due is not None and past_due.status in SETTLED:
        found.append(
            Difference(
                account.id,
                "past due",
                f"{past_due.id} unpaid",
                f"{past_due.id} {past_due.status}",
                "cleared" if fix else None,
            )
        )

    # With ``fix`` the mirror copies every invoice, the settled past-due one included, and
    # refresh_past_due then clears what is no longer owed.
    found += await _reconcile_invoices(db, account, side.invoices, synced_at, fix=fix)
    if fix:
        await refresh_past_due(db, account)
        await db.flush()
    return found


def _as_mirrored(invoice: InvoiceSummary) -> tuple[object, ...]:
    """What the mirror keeps of an invoice, as ``stripe_invoice`` holds it."""
    return (
        invoice.number,
        datetime.fromtimestamp(invoice.created, UTC),
        invoice.currency[:3],
        invoice.amount_due,
        invoice.amount_paid,
        invoice.status,
        invoice.hosted_invoice_url,
        invoice.invoice_pdf,
    )


async def _reconcile_invoices(
    db: AsyncSession,
    account: Account,
    invoices: list[InvoiceSummary],
    synced_at: datetime,
    *,
    fix: bool,
) -> list[Difference]:
    """The ``invoices`` difference, if the mirror is not what Stripe has; with ``fix`` every
    invoice is copied from Stripe (the one shown as past due keeping its failure) and those
    Stripe no longer has are dropped."""
    ours = {
        row.id: (
            row.number,
            row.created_at,
            row.currency,
            row.amount_due,
            row.amount_paid,
            row.status,
            row.hosted_invoice_url,
            row.invoice_pdf,
        )
        for row in await repository.account_invoices(db, account.id)
    }
    in_step = sum(1 for i in invoices if ours.get(i.id) == _as_mirrored(i))
    gone = ours.keys() - {i.id for i in invoices}
    if in_step == len(invoices) and not gone:
        return []
    text = f"{in_step} of {len(invoices)} as in Stripe"
    if gone:
        text += f", {len(gone)} Stripe does not have"
    if fix:
        for invoice in invoices:
            failed_at = (
                account.payment_failed_at if invoice.id == account.past_due_invoice_id else None
            )
            await mirror_invoice(
                db,
                account.id,
                invoice,
                synced_at=synced_at,
                payment_failed_at=failed_at,
                force=True,
            )
        for invoice_id in gone:
            await forget_invoice(db, account.id, invoice_id)
    return [
        Difference(
            account.id, "invoices", text, f"{len(invoices)} invoices", "mirrored" if fix else None
        )
    ]


def _plan_of_stripe(side: _StripeSide) -> PlanState:
    """The plan as Stripe has it: the kept subscription (none: the free plan) and the change
    it makes when the period ends."""
    return PlanState(
        subscription_id=side.kept.id if side.kept else None,
        units=side.kept.quantity if side.kept else 0,
        scheduled_units=side.scheduled[0],
        scheduled_change_at=at_epoch(side.scheduled[1]),
    )


def _later(synced_at: datetime | None, epoch: int) -> datetime:
    """The later of a ``*_synced_at`` and ``epoch``: webhook events older than what was read
    from Stripe are stale (api/billing/webhooks/service.py)."""
    at = datetime.fromtimestamp(epoch, UTC)
    return max(synced_at, at) if synced_at else at


async def reconcile(
    *,
    sessionmaker: async_sessionmaker[AsyncSession],
    stripe: StripeGateway,
    fix: bool,
    account_ids: Iterable[uuid.UUID] | None = None,
) -> list[Difference]:
    """Compare every account with a Stripe customer (or only ``account_ids``) with Stripe
    and, with ``fix``, repair each difference (see the module docstring).

    Each account runs in its own transaction, committed before the next one starts. A Stripe
    error while reading an account is reported as a ``not checked`` difference (never fixed)
    and the run goes on; a failed cancel of an orphan is reported unfixed and the account's
    other fixes are still committed.

    Returns:
        The differences found, account after account, in the order of the module docstring.
    """
    if account_ids is None:
        async with sessionmaker() as db:
            account_ids = await repository.customer_account_ids(db)
    found: list[Difference] = []
    for account_id in account_ids:
        try:
            async with sessionmaker() as db, db.begin():
                found += await _reconcile_account(db, stripe, account_id, fix=fix)
        except StripeError as exc:
            found.append(Difference(account_id, "not checked", "-", f"refused: {exc.message}"))
        except StripeUnavailable as exc:
            found.append(Difference(account_id, "not checked", "-", f"unreachable: {exc}"))
    return found


def report(found: list[Difference], *, fix: bool) -> tuple[list[str], int]:
    """The lines to print (one per difference, then a summary) and the exit code: 0 when
    nothing remains to fix, 1 otherwise."""
    remaining = sum(1 for d in found if d.fixed is None)
    accounts = len({d.account_id for d in found})
    summary = f"{len(found)} difference(s) with Stripe in {accounts} account(s)"
    if fix:
        summary += f", {len(found) - remaining} fixed, {remaining} left"
    return [*(str(d) for d in found), summary], 1 if remaining else 0


async def run(settings: Settings, *, fix: bool) -> tuple[list[str], int]:
    """Reconcile against the configured database and Stripe account; returns what
    :func:`report` returns. Used by :func:`main` and the dev stack at start-up."""
    settings.check()
    settings.check_database()
    engine = create_engine(settings.database_url, 2)
    stripe = StripeGateway(
        api_key=settings.stripe.secret_key.get_secret_value(),
        api_base=settings.stripe.api_base,
        timeout_s=settings.stripe.timeout_s,
    )
    try:
        found = await reconcile(sessionmaker=create_sessionmaker(engine), stripe=stripe, fix=fix)
    finally:
        await stripe.aclose()
        await engine.dispose()
    return report(found, fix=fix)
