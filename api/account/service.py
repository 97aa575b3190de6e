"""Account Information rules (SPEC 2 "Account Information", 3 "Account"): the account's own
fields, composed with what each domain owns; and the one way an account is created."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api import models
from api.account import repository
from api.account.view import account_body
from api.audit import AuditAction, AuditTrail, Target
from api.kernel.config import Settings
from api.keys.service import add_first_key
from api.principal.errors import AccountRequired
from api.principal.principal import Caller
from api.principal.tokens import AccessClaims


async def create_account(
    *,
    db: AsyncSession,
    settings: Settings,
    name: str,
    billing_cycle_anchor: datetime | None = None,
) -> models.Account:
    """A new account on the free plan (0 units) with a fresh API key (sealed with the key
    ring of ``settings``) and the plan constants of ``settings``; its billing cycles start at
    ``billing_cycle_anchor`` (default: now). Flushes, so the returned account has its id.
    Registration, third-party sign-up, the dev seed and the tests all create accounts here."""
    account = models.Account(
        name=name,
        unit_plan_requests=settings.account.unit_plan_requests,
        free_plan_requests=settings.account.free_plan_requests,
    )
    if billing_cycle_anchor is not None:
        account.billing_cycle_anchor = billing_cycle_anchor
    db.add(account)
    await db.flush()
    await add_first_key(db=db, settings=settings, account_id=account.id)
    return account


async def account_view(
    *, reads: AsyncEngine, claims: AccessClaims | Caller, now: datetime | None = None
) -> bytes:
    """``GET /web/account``'s body for the user a verified access token (``claims``) acts
    for (or for an access token's account, ``claims`` its caller): ``AccountResponse`` as UTF-8
    JSON (``api.account.view``), read in one statement that
    also finds the caller and what the sign-in policy reads (api/account/repository.py), on an
    autocommit connection of ``reads``; usage up to the cycle containing ``now`` (default: the
    current time). Reads only our database (no vendor call).

    Raises:
        AccountRequired: the identity belongs to no account yet (SPEC 4).
        SignInPolicyRefusal: the sign-in policy refuses the token (``api.principal.principal``).
    """
    now = now or datetime.now(UTC)
    if isinstance(claims, Caller):  # an access token: its account, no sign-in policy
        return account_body(
            await repository.account_view_row_of(reads, claims.account_id, now), now
        )
    row = await repository.account_view_row(reads, claims, now)
    if row is None:
        raise AccountRequired()
    return account_body(row, now)


async def rename_account(
    *, db: AsyncSession, audit: AuditTrail, account_id: uuid.UUID, name: str
) -> bytes:
    """Rename the caller's account (SPEC 2 "Editable Account Name"); ``name`` is already
    trimmed and non-empty (``AccountUpdate``). Recorded in the audit log when the name
    changes. Returns the account as ``GET /web/account`` shows it (``AccountResponse`` as
    UTF-8 JSON), read again through the same view in the request's transaction."""
    before = await repository.rename(db, account_id, name)
    if before != name:
        await audit.record(
            AuditAction.ACCOUNT_RENAMED,
            Target("account", account_id, name),
            {"name": (before, name)},
        )
    await db.flush()
    now = datetime.now(UTC)
    return account_body(await repository.account_view_row_in(db, account_id, now), now)
