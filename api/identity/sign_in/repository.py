"""Queries of the sign-in flows.

These run before anyone is signed in (or for an identity that has no account yet), so they
are keyed by the identity or email being signed in, not by a caller's account; they return
only what the flow needs (a flag, a name, the accounts a verified identity may join).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Select, and_, case, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from api.audit import SigningIn
from api.models import Account, AuthType, DomainState, SsoDomain, User


@dataclass(frozen=True, slots=True)
class SignInState:
    """What the password sign-in screens refuse before asking Cognito (README "Security
    model"; the same rules bind every request in ``api.principal.principal``)."""

    required: AuthType | None
    deactivated: bool
    invitation_expired: bool


async def sign_in_state(db: AsyncSession, email: str) -> SignInState | None:
    """The sign-in state of the user with this Cognito username, else of the user with this
    email (any case), or None when there is none:
    how they must sign in (their account requires Google sign-in, SPEC 6 requireGoogleSSO, or
    its SAML connection; a user of a SAML connection always signs in through it), whether
    their access is turned off, and whether they are an invited user whose invitation expired
    before their first sign-in (``api.identity.users.service.user_status``)."""
    row = (
        await db.execute(
            select(
                Account.require_google_sso,
                Account.require_saml_sso | (User.auth_type == AuthType.SAML_SSO),
                User.deactivated_at.is_not(None),
                and_(
                    User.invited_at.is_not(None),
                    User.signed_in_at.is_(None),
                    User.invitation_expires_at <= func.now(),
                ),
            )
            .join(User, User.account_id == Account.id)
            .where(or_(User.identity_id == email, func.lower(User.email) == email.lower()))
            # The user of this Cognito username first (a NULL identity sorts last too).
            .order_by(case((User.identity_id == email, 0), else_=1))
            .limit(1)
        )
    ).first()
    if row is None:
        return None
    google, saml, deactivated, expired = row
    required = AuthType.GOOGLE_SSO if google else AuthType.SAML_SSO if saml else None
    return SignInState(required, bool(deactivated), bool(expired))


async def password_username(db: AsyncSession, email: str) -> str | None:
    """The Cognito username a password sign-in of ``email`` (lowercased) uses: the username
    of the password user whose email it is (the address they were created with: a directory
    may have changed their email since, README "Directory sync (SCIM)", and a Cognito
    username cannot change); ``email`` itself when no password user has it; None when
    ``email`` is the username of a password user whose email is now another (their former
    address signs nobody in)."""
    rows = await db.execute(
        select(User.identity_id, User.email, User.auth_type).where(
            or_(func.lower(User.email) == email, User.identity_id == email)
        )
    )
    stale = False
    for identity_id, user_email, auth_type in rows:
        if user_email.lower() == email:
            if auth_type is AuthType.EMAIL and identity_id is not None:
                return str(identity_id)
        elif auth_type is AuthType.EMAIL:
            stale = True
    return None if stale else email


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
    README "Verified domains": a verified domain belongs to one account at a time, so at most one),
    by name."""
    rows = await db.execute(_joinable(domain).order_by(Account.name, Account.id))
    return [JoinableAccount(row[0], row[1], row[2]) for row in rows]


async def joinable_account(
    db: AsyncSession, account_id: uuid.UUID, domain: str
) -> JoinableAccount | None:
    """The account if it requires Google SSO and has verified ``domain``; otherwise None."""
    row = (await db.execute(_joinable(domain).where(Account.id == account_id))).first()
    return None if row is None else JoinableAccount(row[0], row[1], row[2])


async def mark_signed_in(db: AsyncSession, identity_id: str, sub: str) -> SigningIn | None:
    """Set the user's ``signed_in_at`` to now (the first one ends a Pending invitation) and
    bind the user to the pool user that signed in (``identity_sub``: the token's ``sub``);
    return who they are, for the audit log; None when the identity has no user yet."""
    row = (
        await db.execute(
            update(User)
            .where(User.identity_id == identity_id)
            .values(signed_in_at=func.now(), identity_sub=sub)
            .returning(User.id, User.account_id, User.first_name, User.last_name, User.email)
        )
    ).first()
    if row is None:
        return None
    user_id, account_id, first, last, email = row
    return SigningIn(user_id, account_id, f"{first} {last}".strip(), email)


async def identity_of(db: AsyncSession, user_id: uuid.UUID) -> str | None:
    """The Cognito username of the user ``user_id``, or None when there is no such user."""
    identity: str | None = await db.scalar(select(User.identity_id).where(User.id == user_id))
    return identity


async def mark_email_verified(db: AsyncSession, *conditions: ColumnElement[bool]) -> None:
    """Record that Cognito confirmed the email address of the users matching ``conditions``
    (a code it emailed there was entered): ``email_verified`` true."""
    await db.execute(update(User).where(*conditions).values(email_verified=True))


async def is_password_user(db: AsyncSession, username: str) -> bool:
    """Whether ``username`` is the Cognito username of one of our email-and-password users."""
    found = await db.scalar(
        select(User.id).where(User.identity_id == username, User.auth_type == AuthType.EMAIL)
    )
    return found is not None


def joinable_account_ids(domain: str) -> Select[tuple[uuid.UUID]]:
    """The ids of the accounts that require Google SSO and verified ``domain`` (those a
    Google identity of that domain may join), as a select to use in another statement."""
    return _joinable(domain).with_only_columns(Account.id)


async def may_lack_pool_user(db: AsyncSession, email: str) -> bool:
    """Whether ``email`` is one of our email-and-password users who signed in before but is
    bound to no pool user now: the people of a removed SAML connection (README "SAML single
    sign-on"; those who only ever used it have no pool user of their email), and users not
    signed in since sessions were bound to pool users."""
    found = await db.scalar(
        select(User.id).where(
            User.identity_id == email,
            User.auth_type == AuthType.EMAIL,
            User.identity_sub.is_(None),
            User.signed_in_at.is_not(None),
        )
    )
    return found is not None
