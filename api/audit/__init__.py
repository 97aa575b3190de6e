"""The audit log's writing side (README "Audit log"): what every change records, in the
same transaction as the change.

A route that changes account data receives an :class:`AuditTrail`
(``api.principal.dependencies.Audit``: the
request's database transaction, the caller and the client's address) and hands it to its
service, which calls :meth:`AuditTrail.record` after its own writes. The event is added to the
same ``AsyncSession``, so it commits with the change and rolls back with it: a failed change
leaves no event, a recorded event always has its change. Sign-ins, which have no caller yet,
go through :class:`SignInLog` (a failure on a connection of its own: it is recorded although
the request fails).

Reading the log (the Activity page, filters, CSV) is ``api/activity``; retention is
``api/audit/retention.py``.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from api.models import AuditEvent, User


class AuditAction(enum.StrEnum):
    """Every action the log records; the value is stored and sent as it is."""

    SIGN_IN_SUCCEEDED = "sign_in.succeeded"
    SIGN_IN_FAILED = "sign_in.failed"
    ACCOUNT_RENAMED = "account.renamed"
    USER_INVITED = "user.invited"
    USER_JOINED = "user.joined"
    USER_EDITED = "user.edited"
    USER_ROLE_CHANGED = "user.role_changed"
    USER_DELETED = "user.deleted"
    INVITATION_RESENT = "invitation.resent"
    INVITATION_REVOKED = "invitation.revoked"
    SSO_CHANGED = "sso.changed"
    SSO_DOMAIN_ADDED = "sso.domain_added"
    SSO_DOMAIN_VERIFIED = "sso.domain_verified"
    SSO_DOMAIN_REMOVED = "sso.domain_removed"
    SSO_DOMAIN_LOST = "sso.domain_lost"
    SAML_CONNECTED = "sso.saml_connected"
    SAML_UPDATED = "sso.saml_updated"
    SAML_REMOVED = "sso.saml_removed"
    SAML_TESTED = "sso.saml_tested"
    SAML_LINKING_CONFIRMED = "sso.saml_linking_confirmed"
    USER_SSO_LINKED = "user.sso_linked"
    PLAN_CHANGED = "plan.units_changed"
    PLAN_CHANGE_SCHEDULED = "plan.change_scheduled"
    PLAN_CHANGE_CANCELLED = "plan.change_cancelled"
    PAYMENT_METHOD_ADDED = "payment_method.added"
    PAYMENT_METHOD_REMOVED = "payment_method.removed"
    INVOICE_PAID = "invoice.paid"
    API_KEY_REVEALED = "api_key.revealed"
    API_KEY_COPIED = "api_key.copied"
    API_KEY_ROLLED = "api_key.rolled"
    API_KEY_EXPIRED = "api_key.expired"
    API_KEY_LIMIT_CHANGED = "api_key.limit_changed"
    USAGE_ALERTS_CHANGED = "usage_alerts.changed"
    SCIM_TOKEN_CREATED = "scim_token.created"  # noqa: S105 - an action name, no secret
    SCIM_TOKEN_REVOKED = "scim_token.revoked"  # noqa: S105 - an action name, no secret
    ACCESS_TOKEN_CREATED = "access_token.created"  # noqa: S105 - an action name, no secret
    ACCESS_TOKEN_REVOKED = "access_token.revoked"  # noqa: S105 - an action name, no secret
    ACCESS_TOKENS_CHANGED = "access_tokens.changed"
    USER_PROVISIONED = "user.provisioned"
    DIRECTORY_GROUP_CREATED = "directory_group.created"
    DIRECTORY_GROUP_RENAMED = "directory_group.renamed"
    DIRECTORY_GROUP_DELETED = "directory_group.deleted"
    DIRECTORY_GROUP_ROLE_CHANGED = "directory_group.role_changed"
    USER_DEACTIVATED = "user.deactivated"
    USER_REACTIVATED = "user.reactivated"
    USER_SIGNED_OUT = "user.signed_out"
    USAGE_LIMIT_CHANGED = "usage_limit.changed"
    TWO_STEP_ENABLED = "two_step.enabled"
    TWO_STEP_DISABLED = "two_step.disabled"
    TWO_STEP_RECOVERY_CODES_REGENERATED = "two_step.recovery_codes_regenerated"
    TWO_STEP_RECOVERY_CODE_USED = "two_step.recovery_code_used"
    TWO_STEP_RESET = "two_step.reset"
    TWO_STEP_REQUIREMENT_CHANGED = "two_step.requirement_changed"
    PASSKEY_ADDED = "passkey.added"
    PASSKEY_REMOVED = "passkey.removed"


@dataclass(frozen=True, slots=True)
class Actor:
    """Who acts: the user, as shown, and from where (the client's IP address,
    api/kernel/http/client_address.py); or, with no user id, the console or a vendor acting by
    itself (:data:`DOMAIN_CHECK`, :data:`STRIPE`, :data:`DIRECTORY_SYNC`); or an access token
    (``token_id``, named with its creator, README "Automation")."""

    user_id: uuid.UUID | None
    name: str
    email: str
    client_address: str
    token_id: uuid.UUID | None = None

    @property
    def label(self) -> str:
        """How a notice names the actor: 'Name <email>', or the name alone when it has no
        email (the console, a vendor)."""
        return f"{self.name} <{self.email}>" if self.email else self.name


DOMAIN_CHECK = Actor(user_id=None, name="Domain check", email="", client_address="")
"""The actor of what the console does by itself: a verified domain found without its record
(the daily re-check, or another account proving the domain)."""

STRIPE = Actor(user_id=None, name="Stripe", email="", client_address="")
"""The actor of what Stripe does by itself, told by its webhooks: a plan change at the end of
the paid period (a scheduled downgrade, a plan set to end), an unpaid plan ending."""

DIRECTORY_SYNC = Actor(user_id=None, name="Directory sync", email="", client_address="")
"""The actor of what the account's identity provider changes over SCIM (README "Directory sync
(SCIM)"); each request records it with its client address (``dataclasses.replace``)."""


@dataclass(frozen=True, slots=True)
class Target:
    """What an action was done to: a kind (``user``, ``account``, ``api_key``, ``sso_domain``,
    ``subscription``, ``payment_method``, ``invoice``, ``scim_token``, ``access_token``,
    ``directory_group``), its
    id, and how the console names it."""

    type: str
    id: str | uuid.UUID | None
    label: str


Changes = Mapping[str, tuple[Any, Any]]
"""``{field: (before, after)}`` of the fields an action changed (JSON values, never secrets)."""


def _row(
    account_id: uuid.UUID,
    actor: Actor,
    action: AuditAction,
    target: Target | None,
    changes: Changes | None,
) -> dict[str, Any]:
    return {
        "account_id": account_id,
        "actor_user_id": actor.user_id,
        "actor_token_id": actor.token_id,
        "actor_name": actor.name[:201],
        "actor_email": actor.email[:320],
        "client_address": actor.client_address[:64],
        "action": action.value,
        "target_type": target.type if target else None,
        "target_id": str(target.id) if target and target.id is not None else None,
        "target_label": target.label[:600] if target else None,
        "changes": (
            {field: {"from": old, "to": new} for field, (old, new) in changes.items()}
            if changes
            else None
        ),
    }


class AuditTrail:
    """The audit log of one request: the caller's account, the actor and the request's
    transaction (``db``). Built by ``api.principal.dependencies.Audit``."""

    __slots__ = ("account_id", "actor", "db")

    def __init__(self, db: AsyncSession, account_id: uuid.UUID, actor: Actor) -> None:
        self.db = db
        self.account_id = account_id
        self.actor = actor

    async def record(
        self,
        action: AuditAction,
        target: Target | None = None,
        changes: Changes | None = None,
    ) -> None:
        """Add one event to the request's transaction (written with it, or not at all).

        ``changes`` lists only fields whose value changed; pass None (or nothing) for actions
        that change no field (a reveal, a resend)."""
        await self.db.execute(
            insert(AuditEvent).values(_row(self.account_id, self.actor, action, target, changes))
        )


@dataclass(frozen=True, slots=True)
class SigningIn:
    """The user a sign-in names: their id, account, full name and email."""

    user_id: uuid.UUID
    account_id: uuid.UUID
    name: str
    email: str


class SignInLog:
    """Sign-ins of one request (README "Audit log": "sign-in success and failure"), in the log of
    the account of the user the sign-in names; a sign-in naming nobody we know is not recorded
    (there is no account to record it in). ``method`` says how: ``password``, ``new password``,
    ``password reset``, ``two-step code``, ``recovery code`` or ``identity provider`` (Google,
    GitHub). Built by ``api.principal.dependencies.SignIns``; ``user_agent`` is the request's
    and ``console_url`` the console's address (a session a sign-in starts notes the one and
    its new-sign-in email links the other: README "Sessions")."""

    __slots__ = ("client_address", "console_url", "engine", "user_agent")

    def __init__(
        self,
        engine: AsyncEngine,
        client_address: str,
        user_agent: str = "",
        console_url: str = "",
    ) -> None:
        self.engine = engine  # the side pool in autocommit (api/principal/resources.py)
        self.client_address = client_address
        self.user_agent = user_agent
        self.console_url = console_url

    async def _insert(
        self,
        connection: AsyncConnection | AsyncSession,
        user: SigningIn,
        action: AuditAction,
        method: str,
    ) -> None:
        actor = Actor(user.user_id, user.name, user.email, self.client_address)
        values = _row(user.account_id, actor, action, None, {"method": (None, method)})
        await connection.execute(insert(AuditEvent).values(values))

    async def succeeded(self, db: AsyncSession, user: SigningIn, method: str) -> None:
        """Record ``user``'s successful sign-in in the request's transaction ``db``."""
        await self._insert(db, user, AuditAction.SIGN_IN_SUCCEEDED, method)

    def trail(self, db: AsyncSession, user: SigningIn) -> AuditTrail:
        """The audit log of a change that ``user`` makes as they sign in (a recovery code
        spent), in the request's transaction ``db``."""
        actor = Actor(user.user_id, user.name, user.email, self.client_address)
        return AuditTrail(db, user.account_id, actor)

    async def failed(self, identity_id: str, method: str) -> None:
        """Record a refused sign-in of the Cognito username ``identity_id`` on a connection of
        its own: the request fails, and its transaction rolls back, but the attempt stays in
        the log."""
        query = select(User.id, User.account_id, User.first_name, User.last_name, User.email)
        async with self.engine.connect() as connection:
            row = (await connection.execute(query.where(User.identity_id == identity_id))).first()
            if row is not None:
                user_id, account_id, first, last, email = row
                user = SigningIn(user_id, account_id, f"{first} {last}".strip(), email)
                await self._insert(connection, user, AuditAction.SIGN_IN_FAILED, method)


def changed(**fields: tuple[Any, Any]) -> dict[str, tuple[Any, Any]]:
    """The ``(before, after)`` pairs whose values differ: ``changed(name=("A", "B"))``."""
    return {field: pair for field, pair in fields.items() if pair[0] != pair[1]}
