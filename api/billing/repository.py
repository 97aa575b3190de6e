"""Queries of the billing domain. Account reads are scoped to the caller's account id, or,
for Stripe webhooks, to the Stripe customer id that identifies the account."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import Account, StripeEvent


async def lock_account(db: AsyncSession, account_id: uuid.UUID) -> Account:
    """The caller's account, row-locked until the request's transaction ends, so two billing
    writes of one account run one after the other (one Stripe customer, one subscription)."""
    account = await db.scalar(select(Account).where(Account.id == account_id).with_for_update())
    assert account is not None, "the caller's account exists (checked by CurrentUser)"
    return account


async def lock_account_by_customer(db: AsyncSession, customer_id: str) -> Account | None:
    """The account whose Stripe customer is ``customer_id`` (row-locked), or None."""
    return await db.scalar(
        select(Account).where(Account.stripe_customer_id == customer_id).with_for_update()
    )


async def record_event(db: AsyncSession, event_id: str, event_type: str) -> bool:
    """Record a webhook event as processed. Returns False when it already was.

    ``INSERT ... ON CONFLICT DO NOTHING``: a concurrent delivery of the same event waits on
    the primary key until the first transaction ends, then sees the conflict.
    """
    inserted = await db.scalar(
        insert(StripeEvent)
        .values(id=event_id, type=event_type)
        .on_conflict_do_nothing(index_elements=[StripeEvent.id])
        .returning(StripeEvent.id)
    )
    return inserted is not None


async def customer_account_ids(db: AsyncSession) -> list[uuid.UUID]:
    """The ids of the accounts that have a Stripe customer, oldest account first."""
    rows = await db.scalars(
        select(Account.id)
        .where(Account.stripe_customer_id.is_not(None))
        .order_by(Account.created_at, Account.id)
    )
    return list(rows)
