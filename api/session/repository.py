"""Queries of the sign-in flows.

These run before anyone is signed in (or for an identity that has no account yet), so they
are keyed by the identity or email being signed in, not by a caller's account; they return
only what the flow needs (a flag, a name, the accounts a verified identity may join).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import Select, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from api.audit import SigningIn
from api.models import Account, DomainState, SsoDomain, User


async def account_requires_google(db: AsyncSession, email: str) -> bool:
    """True when the user with this email (any case) is in an account that requires Google
    sign-in (SPEC 6 requireGoogleSSO)."""
    required = await db.scalar(
        select(Account.require_google_sso)
        .join(User, User.account_id == Account.id)
        .where(func.lower(User.email) == email.lower())
    )
    return bool(required)


async def user_names(db: AsyncSession, identity_id: str) -> tuple[str, str] | None:
    """(first name, last name) of the user with this Cognito username, if any."""
    row = (
        await db.execute(
            select(User.first_name, User.last_name).where(User.identity_id == identity_id)
        )
    ).first()
    return None if row is None else (row[0], row[1])


async def identity_has_user(db: AsyncSession, identity_id: str) -> bool:
    """Whether this Cognito username already belongs to a user of some account."""
    return await db.scalar(select(User.id).where(User.identity_id == identity_id)) is not None


@dataclass(frozen=True, slots=True)
class JoinableAccount:
    """An account with Google SSO on and a domain verified, and its number of users."""

    id: uuid.UUID
    name: str
    users_count: int


def _joinable(domain: str) -> Select[uuid.UUID, str, int]:
    users = select(func.count(User.id)).where(User.account_id == Account.id).scalar_subquery()
    return (
        select(Account.id, Account.name, users)
        .join(SsoDomain, SsoDomain.account_id == Account.id)
        .where(Account.require_google_sso.is_(True))
        .where(SsoDomain.domain == domain, SsoDomain.state == DomainState.VERIFIED)
    )


async def joinable_accounts(db: AsyncSession, domain: str) -> list[JoinableAccount]:
    """Accounts that require Google SSO and have verified ``domain`` (SPEC 7 sso-accounts;
    issue 17: a verified domain belongs to one account at a time, so at most one), by name."""
    rows = await db.execute(_joinable(domain).order_by(Account.name, Account.id))
    return [JoinableAccount(row[0], row[1], row[2]) for row in rows]


async def joinable_account(
    db: AsyncSession, account_id: uuid.UUID, domain: str
) -> JoinableAccount | None:
    """The account if it requires Google SSO and has verified ``domain``; otherwise None."""
    row = (await db.execute(_joinable(domain).where(Account.id == account_id))).first()
    return None if row is None else JoinableAccount(row[0], row[1], row[2])


async def mark_signed_in(db: AsyncSession, identity_id: str) -> SigningIn | None:
    """Set the user's ``signed_in_at`` to now (the first one ends a Pending invitation,
    issue 15) and return who they are, for the audit log; None when the identity has no user
    yet."""
    row = (
        await db.execute(
            update(User)
            .where(User.identity_id == identity_id)
            .values(signed_in_at=func.now())
            .returning(User.id, User.account_id, User.first_name, User.last_name, User.email)
        )
    ).first()
    if row is None:
        return None
    user_id, account_id, first, last, email = row
    return SigningIn(user_id, account_id, f"{first} {last}".strip(), email)


async def invitation_expired(db: AsyncSession, identity_id: str) -> bool:
    """True when this username is an invited user who never signed in and whose invitation
    expired (issue 15; ``api.users.service.user_status``)."""
    expired = await db.scalar(
        select(User.id).where(
            User.identity_id == identity_id,
            User.invited_at.is_not(None),
            User.signed_in_at.is_(None),
            User.invitation_expires_at <= func.now(),
        )
    )
    return expired is not None
