"""Who may join, leave and hold which role: the one home of those powers (README "Roles and
invitations"). Every path that adds a member (registration, an invitation, a Google join, a
SAML first sign-in, the directory over SCIM), changes a role, deactivates, reactivates or
removes someone, or links a new sign-in to an existing user goes through here, and none writes
a user's row, role or sign-in itself.

Each power takes the acting principal (:class:`Acting`): a signed-in user with their role, a
SCIM token acting with the authority of the user who generated it (capped at that user's
current role: ``api.principal.scim_tokens``), or the person themselves joining. The rules:
- nobody grants a role above their own; only Owners grant, revoke, demote, deactivate or
  remove Owners (``api.principal.roles``, the rule table);
- a user cannot change their own role, nor delete themselves;
- an account keeps at least one user and one Owner (the Owner rows are locked while it checks);
- the same email is never created twice by two racing requests (the unique email index is the
  guard; its violation answers EmailInUse);
- a removed identity stays removed until invited again (``api.principal.sessions``: an invitation
  lifts the removal, joins ask ``was_removed``);
- someone made an Owner (by a role change or an invitation as Owner) is told to every Owner
  (``api.identity.membership.owner_notices``).
"""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, func
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import CognitoClient, UserNotFoundError
from api.audit import AuditAction, AuditTrail, Target
from api.identity.cognito_errors import cognito_errors
from api.identity.membership import repository
from api.identity.membership.errors import (
    CannotChangeOwnRole,
    CannotDeleteSelf,
    LastOwnerRequired,
    LastUserRequired,
)
from api.identity.membership.owner_notices import notify_owners
from api.kernel.errors import EmailInUse
from api.models import AuthType, EndReason, Role, User
from api.principal.errors import Forbidden
from api.principal.identity import prove_identity
from api.principal.principal import Caller
from api.principal.roles import Permission, authority, require_may_grant, require_may_manage
from api.principal.sessions import end_sessions, expire_access_tokens, record_removal


@dataclass(frozen=True, slots=True)
class Acting:
    """Who asks for a change of membership.

    ``role``: the authority the change is judged by (a user's role; a SCIM token's creator's
    current role), None for a person acting only for themselves (joining an account through
    its single sign-on, registering a new one). ``user_id``: the acting user (a token's
    creator), never changed by their own request. ``name``: who did it, as the Owners' notice
    says (a name and email, or 'Directory sync (token of <name>)'). ``scopes``: an access
    token's, which limit ``role`` (its creator's role when it was made); None for the
    others."""

    role: Role | None
    user_id: uuid.UUID | None
    name: str
    scopes: frozenset[str] | None = None

    def require_may_manage(self, user: User) -> None:
        """Raise Forbidden unless this principal may edit, deactivate or remove ``user``
        (``api.principal.roles.require_may_manage``); a person acting for themselves manages
        nobody."""
        require_may_manage(self._authority(), user.role)

    def require_may_grant(self, role: Role) -> None:
        """Raise Forbidden unless this principal may give someone ``role``."""
        require_may_grant(self._authority(), role)

    @property
    def authority(self) -> frozenset[Permission]:
        """What this principal may do (``api.principal.roles.authority``)."""
        return self._authority()

    def _authority(self) -> frozenset[Permission]:
        # A person acting only for themselves has a Member's authority over others; an access
        # token its scopes within its creator's role.
        return authority(self.role or Role.MEMBER, self.scopes)


KEEPING_TOKENS = "Only an Owner can keep the access tokens of a member being removed."


def by_user(caller: Caller) -> Acting:
    """The signed-in ``caller``, with their role; or an access token, with its scopes within
    its creator's role (named as the audit log names it)."""
    if caller.token is not None:
        return Acting(
            role=caller.role, user_id=None, name=caller.token.label, scopes=caller.token.scopes
        )
    return Acting(
        role=caller.role,
        user_id=caller.user_id,
        name=f"{caller.first_name} {caller.last_name} <{caller.email}>".strip(),
    )


def joining(user_name: str) -> Acting:
    """The person themselves, joining an account through its single sign-on (as a Member) or
    registering a new account (its first Owner)."""
    return Acting(role=None, user_id=None, name=user_name)


def target(user: User) -> Target:
    """``user`` as the audit log names them."""
    return Target("user", user.id, f"{user.first_name} {user.last_name} <{user.email}>".strip())


async def keep_an_owner(db: AsyncSession, user: User) -> None:
    """Raise LastOwnerRequired when ``user`` is their account's only Owner; holds the Owner
    rows locked to the end of the transaction (``repository.lock_owners``)."""
    if user.role is Role.OWNER and await repository.lock_owners(db, user.account_id) == [user.id]:
        raise LastOwnerRequired()


async def _tell_owners_of_new_owner(db: AsyncSession, acting: Acting, user: User) -> None:
    await notify_owners(
        db,
        account_id=user.account_id,
        kind=f"owner-added.{user.id}",
        subject="A new Owner was added",
        what=(
            f"{user.first_name} {user.last_name} <{user.email}> is now an Owner of the account: "
            "they can manage every user, single sign-on and billing."
        ),
        actor=acting.name,
    )


async def add(
    db: AsyncSession,
    *,
    acting: Acting,
    user: User,
    audit: AuditTrail | None = None,
    action: AuditAction = AuditAction.USER_JOINED,
    changes: dict[str, tuple[Any, Any]] | None = None,
    founding: bool = False,
) -> User:
    """Add ``user`` (a new row: account, email, role and sign-in set by the caller) to their
    account and record ``action`` with ``changes`` in ``audit``. ``founding``: the first user
    of a new account, its Owner (nothing is recorded: the account's log starts with it). A
    person joining for themselves becomes a Member only.

    Raises:
        Forbidden: the role is above what ``acting`` may grant.
        EmailInUse: a user of any account holds the email (a racing request included).
    """
    if founding:
        assert user.role is Role.OWNER
    elif acting.role is None:
        if user.role is not Role.MEMBER:
            raise AssertionError("a person joining by themselves is a Member")
    else:
        acting.require_may_grant(user.role)
    db.add(user)
    try:
        await db.flush()
    except IntegrityError as exc:
        raise EmailInUse() from exc  # the unique email index: another request took it
    if audit is not None:
        await audit.record(action, target(user), changes or {})
    if user.role is Role.OWNER and not founding:
        await _tell_owners_of_new_owner(db, acting, user)
    return user


async def change_role(
    db: AsyncSession, *, acting: Acting, audit: AuditTrail, user: User, role: Role
) -> None:
    """Give ``user`` the ``role`` (nothing when they hold it), recorded in the audit log; their
    open sessions end, so the console they have open reloads who they are.

    Raises:
        CannotChangeOwnRole: ``user`` is the acting user.
        Forbidden: ``acting`` may not manage ``user`` or grant ``role``.
        LastOwnerRequired: the account's only Owner would stop being one.
    """
    if role is user.role:
        return
    if acting.user_id == user.id:
        raise CannotChangeOwnRole()
    acting.require_may_manage(user)
    acting.require_may_grant(role)
    await keep_an_owner(db, user)
    await audit.record(
        AuditAction.USER_ROLE_CHANGED, target(user), {"role": (user.role.value, role.value)}
    )
    user.role = role
    await expire_access_tokens(db, User.id == user.id)
    if role is Role.OWNER:
        await _tell_owners_of_new_owner(db, acting, user)


async def set_active(
    db: AsyncSession, *, acting: Acting, audit: AuditTrail, user: User, active: bool
) -> None:
    """Turn ``user``'s access off (their sessions end at their next request, refresh
    included: ``api.principal.principal``) or back on, recorded in the audit log; nothing when it
    already is.

    Raises:
        Forbidden: ``acting`` may not manage ``user``.
        LastOwnerRequired: deactivating the account's only Owner.
    """
    if active == (user.deactivated_at is None):
        return
    acting.require_may_manage(user)
    if active:
        user.deactivated_at = None
        await audit.record(AuditAction.USER_REACTIVATED, target(user))
        return
    await keep_an_owner(db, user)
    user.deactivated_at = datetime.now(UTC)
    await end_sessions(db, User.id == user.id, reason=EndReason.ENDED_BY_ADMIN)
    await audit.record(AuditAction.USER_DEACTIVATED, target(user))


async def end_sessions_of(
    db: AsyncSession, *, acting: Acting, audit: AuditTrail, user: User
) -> None:
    """Sign ``user`` out everywhere (README "Sessions"): every session of theirs ends at once,
    refresh included, recorded in the audit log; they may sign in again.

    Raises:
        Forbidden: ``acting`` may not manage ``user`` (an Admin and an Owner).
    """
    acting.require_may_manage(user)
    await end_sessions(db, User.id == user.id, reason=EndReason.ENDED_BY_ADMIN)
    await audit.record(AuditAction.USER_SIGNED_OUT, target(user))


async def remove(
    db: AsyncSession,
    *,
    cognito: CognitoClient,
    acting: Acting,
    audit: AuditTrail,
    user: User,
    action: AuditAction = AuditAction.USER_DELETED,
    keep_access_tokens: bool = False,
) -> None:
    """Remove ``user`` from their account: recorded as ``action`` (a delete, or a revoked
    invitation), the access tokens they made revoked unless an Owner keeps them
    (``keep_access_tokens``; tokens belong to the account, README "Automation"), the removal
    remembered so that joins refuse them until they are invited again
    (a federated user by the provider's own id of the person too), the row deleted (their
    sessions end with it), then their pool user deleted. If Cognito fails the request fails and
    the transaction rolls the delete back.

    Raises:
        CannotDeleteSelf: ``user`` is the acting user.
        Forbidden: ``acting`` may not manage ``user``, or keeps their access tokens without
            being an Owner.
        LastUserRequired / LastOwnerRequired: the account would lose its last user or Owner.
        VendorUnavailable: Cognito is unreachable (nothing is removed).
    """
    if acting.user_id == user.id:
        raise CannotDeleteSelf()
    acting.require_may_manage(user)
    if await repository.count_users(db, user.account_id) <= 1:
        raise LastUserRequired()
    await keep_an_owner(db, user)
    if keep_access_tokens and Permission.OWNERS_WRITE not in acting.authority:
        raise Forbidden(KEEPING_TOKENS)
    revoked = 0 if keep_access_tokens else await repository.revoke_access_tokens_of(db, user.id)
    changes: dict[str, tuple[Any, Any]] = {"role": (user.role.value, None)}
    if revoked:
        changes["accessTokensRevoked"] = (0, revoked)
    await audit.record(action, target(user), changes)
    await _remember_removal(db, cognito, user)
    await end_sessions(db, User.id == user.id, reason=EndReason.ENDED_BY_ADMIN)
    await db.delete(user)
    await db.flush()
    if user.identity_id is None:
        return  # provisioned for single sign-on and never signed in: no pool user yet
    # A user already gone from the pool: our delete still stands.
    async with cognito_errors():
        with contextlib.suppress(UserNotFoundError):
            await cognito.admin_delete_user(user.identity_id)


async def _remember_removal(db: AsyncSession, cognito: CognitoClient, user: User) -> None:
    """README "Security model": removal sticks; a federated user is remembered by the
    provider's own id of the person too, as Cognito asserts it, since their next sign-in
    creates a new pool user."""
    provider = subject = None
    if user.auth_type is not AuthType.EMAIL and user.identity_id is not None:
        async with cognito_errors():
            with contextlib.suppress(UserNotFoundError):
                proven = prove_identity(await cognito.admin_get_user(user.identity_id))
                provider, subject = proven.auth_type.value, proven.provider_subject
    await record_removal(db, user, provider=provider, provider_subject=subject)


async def link_sign_in(
    db: AsyncSession,
    *,
    audit: AuditTrail,
    user: User,
    identity_id: str,
    identity_sub: str,
    auth_type: AuthType,
) -> None:
    """Make ``identity_id`` (a Cognito username; ``identity_sub`` its ``sub``) the way
    ``user`` signs in from now on, as ``auth_type``, recorded as a linked sign-in. Whether the
    identity may claim ``user`` at all is the caller's proof (a SAML connection an Owner made,
    ``api.identity.sso.saml``); the email is then verified by it."""
    changes = {"authType": (user.auth_type.value, auth_type.value)}
    user.identity_id = identity_id
    user.identity_sub = identity_sub
    user.auth_type = auth_type
    user.email_verified = True
    user.signed_in_at = func.now()
    await db.flush()
    await audit.record(AuditAction.USER_SSO_LINKED, target(user), changes)


async def land_provisioned_user(
    db: AsyncSession,
    *,
    email: str,
    identity_id: str,
    auth_type: AuthType,
    accounts: Select[tuple[uuid.UUID]],
) -> bool:
    """Bind a person the account's directory provisioned (SCIM) to the federated identity
    ``identity_id`` signing in for the first time, so they land in the account with no join
    step: their Pending user (of ``email``, no sign-in yet, in one of ``accounts``) gets the
    identity's username and sign-in type, and the sign-in that follows makes them Active.
    Which accounts the identity proves it may land in is the caller's proof
    (``api.identity.sign_in.sso_accounts``). Returns whether a user was bound."""
    return await repository.bind_provisioned_user(
        db, email=email, identity_id=identity_id, auth_type=auth_type, accounts=accounts
    )
