"""Account Information rules (SPEC 2 "Account Information", 3 "Account", 9 billing cycle)."""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from api.account import repository
from api.account.schemas import (
    AccountOut,
    AccountUser,
    Billing,
    PlatformUsage,
    Sso,
    Subscription,
    UsageEntry,
)
from api.models import Account, Platform
from api.usage.cycles import recent_cycle_starts
from api.usage.repository import usage_since
from api.users.repository import list_users

USAGE_CYCLES_SHOWN = 12


def new_api_key() -> str:
    """A fresh API key: ``ak_`` and 40 hex characters (160 random bits)."""
    return "ak_" + secrets.token_hex(20)


def _billing(account: Account) -> Billing | None:
    if account.card_last4 is None:
        return None
    return Billing(
        brand=account.card_brand or "Visa",
        last4=account.card_last4,
        exp_month=account.card_exp_month or 0,
        exp_year=account.card_exp_year or 0,
    )


async def account_summary(
    db: AsyncSession, account_id: uuid.UUID, now: datetime | None = None
) -> AccountOut:
    """The account as the console shows it. Reads only our database (no vendor call).

    ``usage`` has one entry per billing cycle for the last ``USAGE_CYCLES_SHOWN`` cycles
    (zeros where nothing was metered), oldest first, ending with the current cycle.
    """
    account = await db.get_one(Account, account_id)
    now = now or datetime.now(UTC)
    starts = recent_cycle_starts(account.billing_cycle_anchor, now, USAGE_CYCLES_SHOWN)
    totals: dict[tuple[datetime, Platform], PlatformUsage] = {
        (row.cycle_start, row.platform): PlatformUsage(runs=row.runs, credits=row.credits)
        for row in await usage_since(db, account.id, starts[0])
    }
    zero = PlatformUsage(runs=0, credits=0)
    usage = []
    for start in starts:
        web, mobile, api = (totals.get((start, p), zero) for p in Platform)
        usage.append(
            UsageEntry(
                start_ms=int(start.timestamp() * 1000),
                requests=web.credits + mobile.credits + api.credits,
                web=web,
                native_mobile=mobile,
                api=api,
            )
        )
    users = await list_users(db, account.id)
    return AccountOut(
        id=account.id,
        name=account.name,
        api_key=account.api_key,
        usage=usage,
        subscription=Subscription(
            units=account.subscription_units,
            unit_plan_requests=account.unit_plan_requests,
            free_plan_requests=account.free_plan_requests,
            payment_failed_at=account.payment_failed_at,
        ),
        billing=_billing(account),
        users=[AccountUser.model_validate(u) for u in users],
        sso=Sso(is_google_sso=account.require_google_sso, domains=list(account.sso_domains)),
    )


async def rename_account(db: AsyncSession, account_id: uuid.UUID, name: str) -> AccountOut:
    """Rename the caller's account (SPEC 2 "Editable Account Name"); ``name`` is already
    trimmed and non-empty (``UpdateAccountRequest``). Returns the account as
    ``account_summary`` shows it."""
    await repository.rename(db, account_id, name)
    return await account_summary(db, account_id)
