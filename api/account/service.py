"""Account Information rules (SPEC 2 "Account Information", 3 "Account"): the account's own
fields, composed with what each domain owns; and the one way an account is created."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api import models
from api.account import repository
from api.account.schemas import Account
from api.audit import AuditAction, AuditTrail, Target
from api.billing.service import payment_method_of, subscription_of
from api.identity.mfa.service import requires_two_step
from api.identity.sso.service import sso_of
from api.identity.users.service import account_users
from api.kernel.config import Settings
from api.keys.service import add_first_key, current_masked
from api.principal.errors import AccountRequired
from api.principal.tokens import AccessClaims
from api.usage.service import usage_by_cycle


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
    *, reads: AsyncEngine, claims: AccessClaims, now: datetime | None = None
) -> bytes:
    """``GET /web/account``'s body for the user a verified access token (``claims``) acts
    for: ``AccountResponse`` as UTF-8 JSON, built by PostgreSQL in one statement that also
    finds the caller and what the sign-in policy reads (api/account/repository.py), on an
    autocommit connection of ``reads``. Same content as :func:`account_summary`, which builds
    it from the domains' pydantic pieces; usage up to the cycle containing ``now`` (default:
    the current time). Reads only our database (no vendor call).

    Raises:
        AccountRequired: the identity belongs to no account yet (SPEC 4).
        SignInPolicyRefusal: the sign-in policy refuses the token (``api.principal.principal``).
    """
    body = await repository.account_view_json(reads, claims, now or datetime.now(UTC))
    if body is None:
        raise AccountRequired()
    return body


async def account_summary(
    *, db: AsyncSession, account_id: uuid.UUID, now: datetime | None = None
) -> Account:
    """The account as the console shows it, composed from what each domain owns (the
    reference for :func:`account_view`, and the body of ``PUT /web/account``). Reads only our
    database (no vendor call).

    ``usage`` has one entry per billing cycle of the last 12 (see ``usage_by_cycle``).
    """
    account = await db.get_one(models.Account, account_id)
    return Account(
        id=account.id,
        name=account.name,
        api_key=await current_masked(db=db, account_id=account.id),
        usage=await usage_by_cycle(
            db=db, account_id=account.id, billing_cycle_anchor=account.billing_cycle_anchor, now=now
        ),
        subscription=subscription_of(account, now),
        billing=payment_method_of(account),
        users=await account_users(db=db, account_id=account.id, now=now),
        sso=await sso_of(db=db, account=account),
        require_two_step_sign_in=requires_two_step(account),
    )


async def rename_account(
    *, db: AsyncSession, audit: AuditTrail, account_id: uuid.UUID, name: str
) -> Account:
    """Rename the caller's account (SPEC 2 "Editable Account Name"); ``name`` is already
    trimmed and non-empty (``AccountUpdate``). Recorded in the audit log when the name
    changes. Returns the account as ``account_summary`` shows it."""
    before = await repository.rename(db, account_id, name)
    if before != name:
        await audit.record(
            AuditAction.ACCOUNT_RENAMED,
            Target("account", account_id, name),
            {"name": (before, name)},
        )
    return await account_summary(db=db, account_id=account_id)
