"""User Management rules (SPEC 2 "User Management", 5 "Other", 6; README "Roles and
invitations": roles, the invitation lifecycle; README "Audit log").

Who may change whom is ``api/auth/roles.py``; the last Owner's guard is here (``keep_an_owner``).
An invited user is Pending until their first sign-in (``api/session``), Expired once
``invitation_expires_at`` passes; Resend sends a new temporary password (the old one stops
working) and starts a new validity period; Revoke removes the user, as Delete does, but only
while the invitation is not accepted.

Invite, delete and resend span our database and Cognito; each either completes or is undone:
- invite creates the Cognito user (Cognito emails the temporary password), then our row; if
  the request's transaction does not commit, the Cognito user is deleted again
  (``api.db.undo_on_rollback``);
- delete removes our row first (flushed, not committed), then the Cognito user; if Cognito
  fails the request fails and the transaction rolls our delete back.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import string
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import structlog
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import (
    CognitoClient,
    CognitoError,
    CognitoUnavailable,
    UserNotFoundError,
)
from api.audit import AuditAction, AuditTrail, Target, changed
from api.auth.identity import prove_identity
from api.auth.pool_users import PoolUserLedger
from api.auth.principal import Caller
from api.auth.roles import require_may_grant, require_may_manage
from api.auth.sessions import end_sessions, lift_removal, record_removal
from api.auth.two_step import two_step_on
from api.cognito_errors import cognito_errors
from api.db import undo_on_rollback
from api.errors import EmailInUse, NotFound
from api.models import Account, AuthType, Role, User
from api.users import repository
from api.users.errors import (
    SIGNS_IN_WITH_SSO,
    CannotDeleteSelf,
    InvitationNotPending,
    InviteRefusedWithSso,
    LastOwnerRequired,
    LastUserRequired,
)
from api.users.schemas import INVITED_ROLE, AccountUser, UserCreate, UserStatus, UserUpdate
from api.users.status import user_status

log = structlog.get_logger(__name__)
_SYMBOLS = "!#$%&*+-=?@^_"


def account_user(user: User, now: datetime | None = None) -> AccountUser:
    """``user`` as User Management lists it, its status at ``now`` (default: the time)."""
    return AccountUser(
        id=user.id,
        first_name=user.first_name,
        last_name=user.last_name,
        email=user.email,
        auth_type=user.auth_type,
        role=user.role,
        status=user_status(user, now or datetime.now(UTC)),
        invited_at=user.invited_at,
        invitation_expires_at=user.invitation_expires_at if user.signed_in_at is None else None,
        two_step_sign_in=two_step_on(user),
    )


async def account_users(
    *, db: AsyncSession, account_id: uuid.UUID, now: datetime | None = None
) -> list[AccountUser]:
    """The users of one account as User Management lists them (SPEC 2), by last name."""
    return [account_user(u, now) for u in await repository.list_users(db, account_id)]


def temporary_password(length: int = 16) -> str:
    """A random password meeting the pool policy: 12+ characters, a digit, a symbol (SPEC 9)."""
    alphabet = string.ascii_letters + string.digits + _SYMBOLS
    chars = [secrets.choice(alphabet) for _ in range(length - 3)]
    chars += [secrets.choice(string.digits), secrets.choice(_SYMBOLS)]
    chars += [secrets.choice(string.ascii_lowercase)]
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)


def _target(user: User) -> Target:
    return Target("user", user.id, f"{user.first_name} {user.last_name} <{user.email}>")


async def _user_in_account(db: AsyncSession, caller: Caller, user_id: uuid.UUID) -> User:
    user = await repository.user_in_account(db, caller.account_id, user_id)
    if user is None:
        raise NotFound("User not found")
    return user


async def keep_an_owner(db: AsyncSession, user: User) -> None:
    """Raise LastOwnerRequired when ``user`` is their account's only Owner; holds the Owner
    rows locked to the end of the transaction (``repository.lock_owners``). Every change that
    removes an Owner (a delete, a demotion, from the console or the directory) asks this."""
    if user.role is Role.OWNER and await repository.lock_owners(db, user.account_id) == [user.id]:
        raise LastOwnerRequired()


def _invitation_attributes(user: User) -> dict[str, str]:
    return {
        "email": user.email,
        "email_verified": "true",
        "given_name": user.first_name,
        "family_name": user.last_name,
    }


async def invite(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    caller: Caller,
    audit: AuditTrail,
    body: UserCreate,
    validity: timedelta,
    count_email: Callable[[str], Awaitable[None]],
    pool_users: PoolUserLedger,
) -> AccountUser:
    """Invite a user into the caller's account with ``body.role`` (Admin when None); the
    invitation is Pending for ``validity`` (``INVITATION_VALIDITY_DAYS``). ``count_email``
    counts the invitation email against its recipient's daily cap before it is sent;
    ``pool_users`` records the pool user's creation until its row commits (a crash in between
    is undone by the worker: ``api.auth.pool_users``).

    Raises:
        RateLimited: the recipient had its invitations for today (from any account).
        Forbidden: an Admin inviting an Owner.
        InviteRefusedWithSso: the account requires Google or SAML SSO (SPEC 5 tooltip text).
        EmailInUse: the email belongs to a user of any account (409).
        ProviderRefused / VendorUnavailable: Cognito refused or is unreachable.
    """
    role = body.role or INVITED_ROLE
    require_may_grant(caller.role, role)
    account = await db.get_one(Account, caller.account_id)
    if account.required_auth_type is not None:
        raise InviteRefusedWithSso()
    if await repository.email_taken(db, body.email):
        raise EmailInUse()
    await count_email(body.email)
    await lift_removal(db, caller.account_id, body.email)
    user = User(
        account_id=caller.account_id,
        first_name=body.first_name,
        last_name=body.last_name,
        email=body.email,
        role=role,
    )
    await add_invited_user(
        db=db, cognito=cognito, pool_users=pool_users, user=user, validity=validity
    )
    await audit.record(
        AuditAction.USER_INVITED,
        _target(user),
        {"email": (None, user.email), "role": (None, user.role.value)},
    )
    return account_user(user)


async def add_invited_user(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    pool_users: PoolUserLedger,
    user: User,
    validity: timedelta,
) -> None:
    """Add ``user`` (account, names, email and role set) as an email-and-password user whose
    invitation is Pending for ``validity``: Cognito creates the pool user and emails the
    temporary password (SPEC's invite flow), then the row is flushed. If the request's
    transaction does not commit, the pool user is deleted again, so the email can be retried;
    ``pool_users`` records the creation until the row commits, so a crash in between is undone
    by the worker (``api.auth.pool_users``).

    Raises:
        EmailInUse: another user took the email meanwhile (409).
        ProviderRefused / VendorUnavailable: Cognito refused or is unreachable.
    """
    now = datetime.now(UTC)
    user.identity_id = user.email
    user.auth_type = AuthType.EMAIL
    user.invited_at = now
    user.invitation_expires_at = now + validity
    await pool_users.creating(db, user.email)
    async with cognito_errors():
        created = await cognito.admin_create_user(
            user.email, _invitation_attributes(user), temporary_password=temporary_password()
        )
    user.identity_sub = created.sub
    undo_on_rollback(db, functools.partial(_undo_cognito_user, cognito, user.email))
    db.add(user)
    try:
        await db.flush()
    except IntegrityError as exc:
        raise EmailInUse() from exc  # lost a race with another invite of this email


async def _undo_cognito_user(cognito: CognitoClient, username: str) -> None:
    try:
        await cognito.admin_delete_user(username)
    except (CognitoError, CognitoUnavailable):
        log.exception("cognito_undo_failed", username=username)


async def update(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, user_id: uuid.UUID, body: UserUpdate
) -> AccountUser:
    """Rename a user of the caller's account and, when ``body.role`` differs, change their
    role.

    Raises:
        NotFound: not a user of the caller's account.
        Forbidden: an Admin changing an Owner, or making someone an Owner.
        LastOwnerRequired: the account's only Owner would stop being one.
    """
    user = await _user_in_account(db, caller, user_id)
    require_may_manage(caller.role, user.role)
    names = changed(
        first_name=(user.first_name, body.first_name), last_name=(user.last_name, body.last_name)
    )
    if body.role is not None and body.role is not user.role:
        require_may_grant(caller.role, body.role)
        await change_role(db=db, audit=audit, user=user, role=body.role)
    if names:
        await audit.record(AuditAction.USER_EDITED, _target(user), names)
        user.first_name = body.first_name
        user.last_name = body.last_name
    await db.flush()
    return account_user(user)


async def change_role(*, db: AsyncSession, audit: AuditTrail, user: User, role: Role) -> None:
    """Give ``user`` the ``role`` (a different one), recorded in the audit log; their open
    sessions end, so the console they have open reloads who they are. Who may grant it is
    the caller's business (``api.auth.roles``).

    Raises:
        LastOwnerRequired: the account's only Owner would stop being one.
    """
    await keep_an_owner(db, user)
    await audit.record(
        AuditAction.USER_ROLE_CHANGED, _target(user), {"role": (user.role.value, role.value)}
    )
    user.role = role
    await end_sessions(db, User.id == user.id)


async def _remove(db: AsyncSession, cognito: CognitoClient, caller: Caller, user: User) -> None:
    if user.id == caller.user_id:
        raise CannotDeleteSelf()
    await remove_user(db=db, cognito=cognito, user=user)


async def remove_user(*, db: AsyncSession, cognito: CognitoClient, user: User) -> None:
    """Delete ``user``'s row (flushed) and then their pool user, if they have one; if Cognito
    fails the request fails and the transaction rolls the delete back.

    Raises:
        LastUserRequired / LastOwnerRequired: the account would lose its last user or Owner.
        VendorUnavailable: Cognito is unreachable.
    """
    remaining = await db.scalar(
        select(func.count()).select_from(User).where(User.account_id == user.account_id)
    )
    if (remaining or 0) <= 1:
        raise LastUserRequired()
    await keep_an_owner(db, user)
    await db.delete(user)
    await db.flush()
    if user.identity_id is None:
        return  # provisioned for single sign-on and never signed in: no pool user yet
    # A user already gone from the pool: our delete still stands.
    async with cognito_errors():
        with contextlib.suppress(UserNotFoundError):
            await cognito.admin_delete_user(user.identity_id)


async def delete(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    caller: Caller,
    audit: AuditTrail,
    user_id: uuid.UUID,
    stand_in_pool: bool = False,
) -> None:
    """Remove a user from the account and from Cognito, and remember the removal so that
    auto-join refuses them (``api.auth.sessions.record_removal``); their open sessions end
    with their row. ``stand_in_pool``: the pool is the development stand-in
    (``api.auth.identity.prove_identity``).

    Raises:
        NotFound: not a user of the caller's account.
        Forbidden: an Admin deleting an Owner.
        CannotDeleteSelf / LastUserRequired / LastOwnerRequired: the account would lose its
            caller, its last user or its last Owner.
        VendorUnavailable: Cognito is unreachable (nothing is deleted).
    """
    user = await _user_in_account(db, caller, user_id)
    require_may_manage(caller.role, user.role)
    await audit.record(AuditAction.USER_DELETED, _target(user), {"role": (user.role.value, None)})
    await record_user_removal(cognito, db, user, stand_in_pool)
    await _remove(db, cognito, caller, user)


async def record_user_removal(
    cognito: CognitoClient, db: AsyncSession, user: User, stand_in_pool: bool
) -> None:
    """Remember the removal (README "Security model": removal sticks): a federated user by
    the provider's own id of the person too, as Cognito asserts it, since their next
    sign-in creates a new pool user."""
    provider = subject = None
    if user.auth_type is not AuthType.EMAIL and user.identity_id is not None:
        async with cognito_errors():
            with contextlib.suppress(UserNotFoundError):
                proven = prove_identity(
                    await cognito.admin_get_user(user.identity_id), stand_in_pool=stand_in_pool
                )
                provider, subject = proven.auth_type.value, proven.provider_subject
    await record_removal(db, user, provider=provider, provider_subject=subject)


async def _pending_invitation(db: AsyncSession, caller: Caller, user_id: uuid.UUID) -> User:
    user = await _user_in_account(db, caller, user_id)
    require_may_manage(caller.role, user.role)
    if user_status(user, datetime.now(UTC)) is UserStatus.ACTIVE:
        raise InvitationNotPending()
    return user


async def resend_invitation(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    caller: Caller,
    audit: AuditTrail,
    user_id: uuid.UUID,
    validity: timedelta,
    count_email: Callable[[str], Awaitable[None]],
) -> AccountUser:
    """Send a Pending or Expired invitation again: Cognito emails a new temporary password
    (AdminCreateUser with MessageAction RESEND; the previous one stops working) and the
    invitation is Pending for ``validity`` from now. ``count_email`` counts the email against
    its recipient's daily cap first.

    Raises: RateLimited (the recipient's daily cap), NotFound, Forbidden (an Admin and an
    invited Owner), InvitationNotPending (the user has signed in), ProviderRefused /
    VendorUnavailable (nothing changes).
    """
    user = await _pending_invitation(db, caller, user_id)
    if user.identity_id is None:
        raise InvitationNotPending(SIGNS_IN_WITH_SSO)
    await count_email(user.email)
    now = datetime.now(UTC)
    before = user.invitation_expires_at
    user.invited_at = now
    user.invitation_expires_at = now + validity
    await db.flush()
    await audit.record(
        AuditAction.INVITATION_RESENT,
        _target(user),
        {"expiresAt": (_iso(before), _iso(user.invitation_expires_at))},
    )
    async with cognito_errors():
        await cognito.admin_resend_invitation(
            user.identity_id, _invitation_attributes(user), temporary_password()
        )
    return account_user(user, now)


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


async def revoke_invitation(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    caller: Caller,
    audit: AuditTrail,
    user_id: uuid.UUID,
) -> None:
    """Withdraw a Pending or Expired invitation: the Cognito user is removed, the row goes.

    Raises: NotFound, Forbidden, InvitationNotPending, VendorUnavailable (nothing changes).
    """
    user = await _pending_invitation(db, caller, user_id)
    await audit.record(AuditAction.INVITATION_REVOKED, _target(user))
    await _remove(db, cognito, caller, user)
