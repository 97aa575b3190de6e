"""User Management rules (SPEC 2 "User Management", 5 "Other", 6; README "Roles and
invitations": roles, the invitation lifecycle; README "Audit log").

Who may join, leave and hold which role is ``api/identity/membership`` (the one home of those
powers, the last Owner's guard included); this module is User Management's use of it.
An invited user is Pending until their first sign-in (``api/identity/sign_in``), Expired once
``invitation_expires_at`` passes; Resend sends a new temporary password (the old one stops
working) and starts a new validity period; Revoke removes the user, as Delete does, but only
while the invitation is not accepted.

Invite, delete and resend span our database and Cognito; each either completes or is undone:
- invite creates the Cognito user (Cognito emails the temporary password), then our row; if
  the request's transaction does not commit, the Cognito user is deleted again
  (``api.kernel.db.undo_on_rollback``);
- delete removes our row first (flushed, not committed), then the Cognito user; if Cognito
  fails the request fails and the transaction rolls our delete back.
"""

from __future__ import annotations

import functools
import secrets
import string
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import (
    CognitoClient,
    CognitoError,
    CognitoUnavailable,
)
from api.audit import AuditAction, AuditTrail, changed
from api.identity.cognito_errors import cognito_errors
from api.identity.membership import service as membership
from api.identity.membership.pool_users import PoolUserLedger
from api.identity.users import repository, view
from api.identity.users.errors import SIGNS_IN_WITH_SSO, InvitationNotPending, InviteRefusedWithSso
from api.identity.users.schemas import (
    INVITED_ROLE,
    AccountUser,
    MemberSessions,
    MemberSessionsResponse,
    UserCreate,
    UserStatus,
    UserUpdate,
)
from api.identity.users.status import user_status
from api.kernel.db import undo_on_rollback
from api.kernel.errors import EmailInUse, NotFound
from api.kernel.views import values_of
from api.models import Account, AuthType, User
from api.principal.principal import Caller
from api.principal.sessions import lift_removal

log = structlog.get_logger(__name__)
_SYMBOLS = "!#$%&*+-=?@^_"


def account_user(user: User, now: datetime | None = None) -> AccountUser:
    """``user`` as User Management lists it, its status at ``now`` (default: the time): the
    one mapper, :func:`api.identity.users.view.account_user`, over the loaded row."""
    values = values_of(user, view.USER_COLUMNS)
    return AccountUser.model_validate(view.account_user(values, now or datetime.now(UTC)))


def temporary_password(length: int = 16) -> str:
    """A random password meeting the pool policy: 12+ characters, a digit, a symbol (SPEC 9)."""
    alphabet = string.ascii_letters + string.digits + _SYMBOLS
    chars = [secrets.choice(alphabet) for _ in range(length - 3)]
    chars += [secrets.choice(string.digits), secrets.choice(_SYMBOLS)]
    chars += [secrets.choice(string.ascii_lowercase)]
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)


async def _user_in_account(db: AsyncSession, caller: Caller, user_id: uuid.UUID) -> User:
    user = await repository.user_in_account(db, caller.account_id, user_id)
    if user is None:
        raise NotFound("User not found")
    return user


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
    is undone by the worker: ``api.identity.membership.pool_users``).

    Raises:
        RateLimited: the recipient had its invitations for today (from any account).
        Forbidden: an Admin inviting an Owner.
        InviteRefusedWithSso: the account requires Google or SAML SSO (SPEC 5 tooltip text).
        EmailInUse: the email belongs to a user of any account (409).
        ProviderRefused / VendorUnavailable: Cognito refused or is unreachable.
    """
    role = body.role or INVITED_ROLE
    acting = membership.by_user(caller)
    acting.require_may_grant(role)  # before Cognito is asked for anything
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
        db=db,
        cognito=cognito,
        pool_users=pool_users,
        user=user,
        validity=validity,
        acting=acting,
        audit=audit,
        action=AuditAction.USER_INVITED,
    )
    return account_user(user)


async def add_invited_user(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    pool_users: PoolUserLedger,
    user: User,
    validity: timedelta,
    acting: membership.Acting,
    audit: AuditTrail,
    action: AuditAction,
) -> None:
    """Add ``user`` (account, names, email and role set) as an email-and-password user whose
    invitation is Pending for ``validity``: Cognito creates the pool user and emails the
    temporary password (SPEC's invite flow), then the membership home adds the row for
    ``acting`` and records ``action`` (its email and role) in ``audit``. If the request's
    transaction does not commit, the pool user is deleted again, so the email can be retried;
    ``pool_users`` records the creation until the row commits, so a crash in between is undone
    by the worker (``api.identity.membership.pool_users``).

    Raises:
        Forbidden: ``acting`` may not grant the user's role.
        EmailInUse: another user took the email meanwhile (409).
        ProviderRefused / VendorUnavailable: Cognito refused or is unreachable.
    """
    acting.require_may_grant(user.role)
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
    await membership.add(
        db,
        acting=acting,
        audit=audit,
        user=user,
        action=action,
        changes={"email": (None, user.email), "role": (None, user.role.value)},
    )


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
        CannotChangeOwnRole: ``body.role`` differs from the caller's own.
        LastOwnerRequired: the account's only Owner would stop being one.
    """
    user = await _user_in_account(db, caller, user_id)
    acting = membership.by_user(caller)
    acting.require_may_manage(user)
    names = changed(
        first_name=(user.first_name, body.first_name), last_name=(user.last_name, body.last_name)
    )
    if body.role is not None:
        await membership.change_role(db, acting=acting, audit=audit, user=user, role=body.role)
    if names:
        await audit.record(AuditAction.USER_EDITED, membership.target(user), names)
        user.first_name = body.first_name
        user.last_name = body.last_name
    await db.flush()
    return account_user(user)


async def delete(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    caller: Caller,
    audit: AuditTrail,
    user_id: uuid.UUID,
    keep_access_tokens: bool = False,
) -> None:
    """Remove a user from the account and from Cognito (``api.identity.membership.service.remove``:
    the removal is remembered so that auto-join refuses them; their open sessions end with
    their row; the access tokens they made are revoked unless an Owner keeps them).

    Raises:
        NotFound: not a user of the caller's account.
        Forbidden: an Admin deleting an Owner.
        CannotDeleteSelf / LastUserRequired / LastOwnerRequired: the account would lose its
            caller, its last user or its last Owner.
        VendorUnavailable: Cognito is unreachable (nothing is deleted).
    """
    user = await _user_in_account(db, caller, user_id)
    await membership.remove(
        db,
        cognito=cognito,
        acting=membership.by_user(caller),
        audit=audit,
        user=user,
        keep_access_tokens=keep_access_tokens,
    )


async def member_sessions(db: AsyncSession, caller: Caller) -> MemberSessionsResponse:
    """How many live sign-in sessions each user of the caller's account has (README
    "Sessions")."""
    counts = await repository.live_session_counts(db, caller.account_id)
    return MemberSessionsResponse(
        users=[MemberSessions(user_id=user_id, active_sessions=n) for user_id, n in counts]
    )


async def end_member_sessions(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, user_id: uuid.UUID
) -> None:
    """Sign a user of the caller's account out everywhere (``membership.end_sessions_of``).

    Raises:
        NotFound: not a user of the caller's account.
        Forbidden: an Admin and an Owner.
    """
    user = await _user_in_account(db, caller, user_id)
    await membership.end_sessions_of(db, acting=membership.by_user(caller), audit=audit, user=user)


async def _pending_invitation(db: AsyncSession, caller: Caller, user_id: uuid.UUID) -> User:
    user = await _user_in_account(db, caller, user_id)
    membership.by_user(caller).require_may_manage(user)
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
        membership.target(user),
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
    await membership.remove(
        db,
        cognito=cognito,
        acting=membership.by_user(caller),
        audit=audit,
        user=user,
        action=AuditAction.INVITATION_REVOKED,
    )
