"""The invoice mirror and what is past due (README "Billing", "Invoices" and "Past due").

Stripe keeps the invoices; the ``stripe_invoice`` table keeps a copy of each invoice of each
account so that the Invoices panel reads no vendor. :func:`mirror_invoice` is its one writer,
used by the webhook events (``webhooks/service.py``), by the plan change and "pay now" for the
invoices they made Stripe charge (``service.py``) and by reconciliation (``reconcile.py``),
which also fills it for accounts billed before the mirror existed.

Order. Stripe does not deliver events in order, and ``created`` counts whole seconds (an
invoice's ``invoice.created`` and ``invoice.payment_succeeded`` often share one). An invoice's
status only moves forward (https://docs.stripe.com/invoicing/overview#invoice-statuses):
``draft`` -> ``open`` -> ``uncollectible`` -> ``paid`` or ``void``, the last two final. So a
write of a later status always applies, one of an earlier status never does, and among writes
of one status the newer (by ``synced_at``) wins.

Past due. The account shows as past due the invoice whose payment failed last among those
still owed (``open``, ``uncollectible``); only that invoice being paid or voided clears it,
and then the next such invoice, if any, is shown (:func:`refresh_past_due`).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.stripe import InvoiceSummary
from api.billing import repository
from api.models import Account, StripeInvoice

STATUS_ORDER = {"draft": 0, "open": 1, "uncollectible": 2, "paid": 3, "void": 3}
"""Stripe's invoice statuses in the order an invoice goes through them; an unknown one counts
as a draft."""

OWED = frozenset({"open", "uncollectible"})
"""Statuses of an invoice that still asks for its amount."""

SETTLED = frozenset({"paid", "void"})
"""Statuses of an invoice that asks for nothing any more."""

PAST_DUE = "past_due"
"""The status GET /web/invoices shows for an ``open`` invoice whose payment failed."""


def shown_status(row: StripeInvoice) -> str:
    """The status the Invoices panel shows: Stripe's, or :data:`PAST_DUE` for an open invoice
    whose payment failed (a failed renewal waits for Stripe's next attempt or "Pay now")."""
    if row.status == "open" and row.payment_failed_at is not None:
        return PAST_DUE
    return row.status


def _comes_after(row: StripeInvoice, status: str, synced_at: datetime) -> bool:
    """Whether Stripe's state ``status`` as of ``synced_at`` is newer than the row's."""
    new, old = STATUS_ORDER.get(status, 0), STATUS_ORDER.get(row.status, 0)
    return new > old or (new == old and synced_at >= row.synced_at)


async def mirror_invoice(
    db: AsyncSession,
    account_id: uuid.UUID,
    invoice: InvoiceSummary,
    *,
    synced_at: datetime,
    payment_failed_at: datetime | None = None,
    force: bool = False,
) -> None:
    """Keep ``invoice``, Stripe's state of it as of ``synced_at``, as the account's, unless
    the row already holds a newer state (module docstring; ``force``: Stripe's state as just
    read wins, for reconciliation). ``payment_failed_at``: a payment of it failed then; the
    row keeps the latest such time whatever the order. Flushed, so the next read sees it."""
    row = await repository.invoice(db, account_id, invoice.id)
    new = row is None
    if row is None:
        row = StripeInvoice(id=invoice.id, account_id=account_id)
        db.add(row)
    if new or force or _comes_after(row, invoice.status, synced_at):
        row.number = invoice.number
        row.created_at = datetime.fromtimestamp(invoice.created, UTC)
        row.currency = invoice.currency[:3]
        row.amount_due = invoice.amount_due
        row.amount_paid = invoice.amount_paid
        row.status = invoice.status
        row.hosted_invoice_url = invoice.hosted_invoice_url
        row.invoice_pdf = invoice.invoice_pdf
        row.synced_at = synced_at
    if payment_failed_at is not None and (
        row.payment_failed_at is None or payment_failed_at > row.payment_failed_at
    ):
        row.payment_failed_at = payment_failed_at
    await db.flush()


async def forget_invoice(db: AsyncSession, account_id: uuid.UUID, invoice_id: str) -> None:
    """The invoice no longer exists in Stripe (a deleted draft): drop the account's copy."""
    row = await repository.invoice(db, account_id, invoice_id)
    if row is not None:
        await db.delete(row)
        await db.flush()


def _clear_past_due(account: Account) -> None:
    """Payments are in order: no failed payment, nothing past due, no grace running."""
    account.payment_failed_at = None
    account.past_due_invoice_id = None
    account.past_due_amount = None
    account.past_due_currency = None
    account.past_due_since = None


async def refresh_past_due(db: AsyncSession, account: Account) -> None:
    """Make what the account shows as past due follow its mirrored invoices (module
    docstring): the invoice shown is cleared once it is paid or voided, and the invoice whose
    payment failed last among those still owed is shown (amount: what is left to pay) when it
    failed after the one shown, or nothing else is shown. An invoice shown before the mirror
    existed stays until its copy says it is settled.

    ``past_due_since`` (the grace of a past-due plan, ``api.models.account.PAST_DUE_GRACE``)
    is the failure that made the account past due: set when it becomes past due, kept while
    it stays so (Stripe's retries failing again, another invoice shown instead), cleared with
    the rest when what is shown is settled."""
    shown = account.past_due_invoice_id
    if shown is not None:
        row = await repository.invoice(db, account.id, shown)
        if row is not None and row.status in SETTLED:
            _clear_past_due(account)
    newest = await repository.newest_failed_invoice(db, account.id, OWED)
    if newest is None or newest.payment_failed_at is None:
        return
    if (
        account.past_due_invoice_id in (None, newest.id)
        or account.payment_failed_at is None
        or newest.payment_failed_at > account.payment_failed_at
    ):
        account.payment_failed_at = newest.payment_failed_at
        if account.past_due_since is None:
            account.past_due_since = newest.payment_failed_at
        account.past_due_invoice_id = newest.id
        account.past_due_amount = newest.amount_due - newest.amount_paid
        account.past_due_currency = newest.currency
