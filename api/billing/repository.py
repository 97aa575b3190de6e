"""Queries of the billing domain. Account reads are scoped to the caller's account id, or,
for Stripe webhooks, to the Stripe customer id that identifies the account; invoice reads to
the account they belong to."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, tuple_
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import Account, Role, StripeEvent, StripeInvoice, User


async def lock_account(db: AsyncSession, account_id: uuid.UUID) -> Account:
    """The caller's account, row-locked until the request's transaction ends, so two billing
    writes of one account run one after the other (one Stripe customer, one subscription)."""
    account = await db.scalar(select(Account).where(Account.id == account_id).with_for_update())
    assert account is not None, "the caller's account exists (checked by CurrentUser)"
    return account


async def first_owner_email(db: AsyncSession, account_id: uuid.UUID) -> str:
    """The email of the account's longest-standing Owner (an account always has one)."""
    email = await db.scalar(
        select(User.email)
        .where(User.account_id == account_id, User.role == Role.OWNER)
        .order_by(User.created_at, User.id)
        .limit(1)
    )
    return email or ""


async def lock_account_by_customer(db: AsyncSession, customer_id: str) -> Account | None:
    """The account whose Stripe customer is ``customer_id`` (row-locked), or None."""
    return await db.scalar(
        select(Account).where(Account.stripe_customer_id == customer_id).with_for_update()
    )


async def record_event(
    db: AsyncSession,
    event_id: str,
    event_type: str,
    occurred_at: datetime,
    data: dict[str, Any],
    *,
    processed: bool,
) -> bool:
    """Record a webhook event (as already processed when ``processed``). Returns False when it
    was recorded before.

    ``INSERT ... ON CONFLICT DO NOTHING``: a concurrent delivery of the same event waits on
    the primary key until the first transaction ends, then sees the conflict.
    """
    inserted = await db.scalar(
        insert(StripeEvent)
        .values(
            id=event_id,
            type=event_type,
            occurred_at=occurred_at,
            data=data,
            processed_at=func.now() if processed else None,
        )
        .on_conflict_do_nothing(index_elements=[StripeEvent.id])
        .returning(StripeEvent.id)
    )
    return inserted is not None


async def lock_event(db: AsyncSession, event_id: str) -> StripeEvent | None:
    """The recorded event ``event_id`` (row-locked: one job applies it at a time), or None."""
    return await db.scalar(select(StripeEvent).where(StripeEvent.id == event_id).with_for_update())


async def customer_account_ids(db: AsyncSession) -> list[uuid.UUID]:
    """The ids of the accounts that have a Stripe customer, oldest account first."""
    rows = await db.scalars(
        select(Account.id)
        .where(Account.stripe_customer_id.is_not(None))
        .order_by(Account.created_at, Account.id)
    )
    return list(rows)


async def invoice(db: AsyncSession, account_id: uuid.UUID, invoice_id: str) -> StripeInvoice | None:
    """The account's mirrored invoice ``invoice_id``, or None (another account's is None)."""
    return await db.scalar(
        select(StripeInvoice).where(
            StripeInvoice.id == invoice_id, StripeInvoice.account_id == account_id
        )
    )


async def account_invoices(db: AsyncSession, account_id: uuid.UUID) -> Sequence[StripeInvoice]:
    """Every mirrored invoice of the account."""
    return (
        await db.scalars(select(StripeInvoice).where(StripeInvoice.account_id == account_id))
    ).all()


async def newest_failed_invoice(
    db: AsyncSession, account_id: uuid.UUID, statuses: Collection[str]
) -> StripeInvoice | None:
    """The account's invoice whose payment failed last among those of ``statuses``, or None."""
    return await db.scalar(
        select(StripeInvoice)
        .where(
            StripeInvoice.account_id == account_id,
            StripeInvoice.status.in_(sorted(statuses)),
            StripeInvoice.payment_failed_at.is_not(None),
        )
        .order_by(StripeInvoice.payment_failed_at.desc(), StripeInvoice.id.desc())
        .limit(1)
    )


async def invoice_page(
    db: AsyncSession, account_id: uuid.UUID, *, after: StripeInvoice | None, limit: int
) -> Sequence[StripeInvoice]:
    """Up to ``limit`` invoices of the account, newest first (``created_at``, then ``id``,
    descending), after the invoice ``after`` in that order. Walks
    ``ix_stripe_invoice_account_id_created_at``."""
    query = select(StripeInvoice).where(StripeInvoice.account_id == account_id)
    if after is not None:
        query = query.where(
            tuple_(StripeInvoice.created_at, StripeInvoice.id) < tuple_(after.created_at, after.id)
        )
    query = query.order_by(StripeInvoice.created_at.desc(), StripeInvoice.id.desc()).limit(limit)
    return (await db.scalars(query)).all()
