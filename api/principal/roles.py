"""What each role may do (README "Roles and invitations"): the one permission table.

Every operation of the API names the one permission it needs (``api.principal.dependencies.Permit``
in its
route's ``dependencies=``; ``x-permission`` in ``openapi.json``), and :data:`ROLE_PERMISSIONS`
says which roles hold it. Three permissions are not a role's: :attr:`Permission.PUBLIC` (no
caller), :attr:`Permission.SELF` (any signed-in person, about their own user and sign-in) and
:attr:`Permission.API_KEY` (the metering intake, by the account's API key). A SCIM token holds
the permissions of the role its creator has now (``api.principal.scim_tokens``).

Per user, :func:`require_may_manage` and :func:`require_may_grant` apply the table to a target:
managing or granting Owner needs :attr:`Permission.OWNERS_WRITE`, so an Admin manages Admins and
Members but never an Owner, and never makes anyone an Owner. The last-Owner guard and the rest
of who may join and leave are ``api.identity.membership``.
"""

from __future__ import annotations

import enum

from api.models import Role
from api.principal.errors import Forbidden


class Permission(enum.StrEnum):
    """A permission an operation needs; the value is what ``openapi.json`` shows."""

    PUBLIC = "public"
    SELF = "self"
    API_KEY = "api_key"
    ACCOUNT_READ = "account:read"
    ACCOUNT_WRITE = "account:write"
    USERS_READ = "users:read"
    USERS_WRITE = "users:write"
    OWNERS_WRITE = "owners:write"
    DIRECTORY_READ = "directory:read"
    DIRECTORY_WRITE = "directory:write"
    SSO_READ = "sso:read"
    SSO_WRITE = "sso:write"
    GOOGLE_SSO_WRITE = "google_sso:write"
    IDENTITY_PROVIDERS_WRITE = "identity_providers:write"
    SIGN_IN_POLICY_WRITE = "sign_in_policy:write"
    BILLING_READ = "billing:read"
    BILLING_WRITE = "billing:write"
    API_KEYS_READ = "api_keys:read"
    API_KEYS_WRITE = "api_keys:write"
    USAGE_READ = "usage:read"
    USAGE_WRITE = "usage:write"
    AUDIT_READ = "audit:read"
    ACCESS_TOKENS_READ = "access_tokens:read"
    ACCESS_TOKENS_WRITE = "access_tokens:write"


# What each permission lets a holder do, as the README's role table says it.
DESCRIPTIONS: dict[Permission, str] = {
    Permission.ACCOUNT_READ: "Read Account Information",
    Permission.ACCOUNT_WRITE: "Rename the account",
    Permission.USERS_READ: "Read User Management",
    Permission.USERS_WRITE: "Invite, edit, delete Admins and Members; resend and revoke "
    "invitations; reset two-step sign-in; see their sessions and sign them out everywhere",
    Permission.OWNERS_WRITE: "Make someone an Owner; edit, demote or delete an Owner",
    Permission.DIRECTORY_READ: "See the SCIM tokens",
    Permission.DIRECTORY_WRITE: "Generate and revoke SCIM tokens (a token acts with its "
    "creator's role)",
    Permission.SSO_READ: "Read the single sign-on settings and domains",
    Permission.SSO_WRITE: "Add, verify and remove domains; test a SAML connection",
    Permission.GOOGLE_SSO_WRITE: "Require Google SSO, or stop requiring it",
    Permission.IDENTITY_PROVIDERS_WRITE: "Connect, replace, remove or confirm a SAML identity "
    "provider; require SAML",
    Permission.SIGN_IN_POLICY_WRITE: "Require two-step sign-in for everyone; turn access "
    "tokens on or off",
    Permission.BILLING_READ: "Read Billing & Subscription and the invoices",
    Permission.BILLING_WRITE: "Change the plan, the card; pay an invoice",
    Permission.API_KEYS_READ: "Reveal and copy the API key",
    Permission.API_KEYS_WRITE: "Roll and expire API keys; set a key's monthly limit",
    Permission.USAGE_READ: "Read usage, its breakdown, alerts and limits; export usage",
    Permission.USAGE_WRITE: "Change usage alerts and limits",
    Permission.AUDIT_READ: "Read and export the audit log (Activity)",
    Permission.ACCESS_TOKENS_READ: "See the access tokens",
    Permission.ACCESS_TOKENS_WRITE: "Create and revoke access tokens (a token holds the scopes "
    "it was given, within its creator's role)",
}

_EVERYONE = frozenset(
    {
        Permission.ACCOUNT_READ,
        Permission.USERS_READ,
        Permission.SSO_READ,
        Permission.BILLING_READ,
        Permission.API_KEYS_READ,
        Permission.USAGE_READ,
    }
)
_ADMINS = _EVERYONE | {
    Permission.ACCOUNT_WRITE,
    Permission.USERS_WRITE,
    Permission.DIRECTORY_READ,
    Permission.DIRECTORY_WRITE,
    Permission.SSO_WRITE,
    Permission.GOOGLE_SSO_WRITE,
    Permission.API_KEYS_WRITE,
    Permission.USAGE_WRITE,
    Permission.AUDIT_READ,
    Permission.ACCESS_TOKENS_READ,
    Permission.ACCESS_TOKENS_WRITE,
}
ROLE_PERMISSIONS: dict[Role, frozenset[Permission]] = {
    Role.OWNER: frozenset(DESCRIPTIONS),
    Role.ADMIN: frozenset(_ADMINS),
    Role.MEMBER: _EVERYONE,
}
"""The roles' permissions: the only place a role is mapped to what it may do."""

TOKEN_SCOPES = frozenset(DESCRIPTIONS) - {
    Permission.DIRECTORY_READ,
    Permission.DIRECTORY_WRITE,
    Permission.GOOGLE_SSO_WRITE,
    Permission.IDENTITY_PROVIDERS_WRITE,
    Permission.SIGN_IN_POLICY_WRITE,
    Permission.ACCESS_TOKENS_READ,
    Permission.ACCESS_TOKENS_WRITE,
}
"""The permissions an access token may hold as scopes (README "Automation"). Left out: making
credentials (SCIM tokens, access tokens) and deciding how people sign in (identity providers,
requiring Google SSO, the two-step requirement), so that a leaked token can neither mint
itself a successor nor open a way in for a person; those stay with a signed-in Owner or
Admin."""

NOT_A_ROLES = frozenset({Permission.PUBLIC, Permission.SELF, Permission.API_KEY})
"""Permissions no role grants: who holds them is decided by how the caller authenticates."""

OWNER_REQUIRED = "Only an Owner of this account can do this. Ask an Owner to do it for you."
ADMIN_REQUIRED = (
    "Only an Owner or an Admin of this account can do this. Ask one of them to do it for you."
)
OWNER_MANAGES_OWNERS = "Only an Owner can change or remove another Owner."
OWNER_GRANTS_OWNER = "Only an Owner can make someone an Owner."

OWNERS_AND_ADMINS = frozenset(
    role for role, held in ROLE_PERMISSIONS.items() if Permission.USERS_WRITE in held
)
"""The roles that manage users (and so may hold a working SCIM token)."""


def holders(permission: Permission) -> frozenset[Role]:
    """The roles that hold ``permission``."""
    return frozenset(role for role, held in ROLE_PERMISSIONS.items() if permission in held)


def require(role: Role, permission: Permission) -> None:
    """Raise Forbidden (403, with the message naming the roles that may) unless ``role`` holds
    ``permission``; a permission no role grants is always held (the caller authenticated)."""
    if permission in NOT_A_ROLES or permission in ROLE_PERMISSIONS[role]:
        return
    raise Forbidden(OWNER_REQUIRED if holders(permission) == {Role.OWNER} else ADMIN_REQUIRED)


def authority(role: Role, scopes: frozenset[str] | None = None) -> frozenset[Permission]:
    """What a principal may do: the permissions of ``role``, limited to ``scopes`` for an
    access token (its scopes within its creator's role, README "Automation")."""
    held = ROLE_PERMISSIONS[role]
    return held if scopes is None else frozenset(p for p in held if p.value in scopes)


def _require_held(held: frozenset[Permission], permission: Permission) -> None:
    if permission not in held:
        raise Forbidden(OWNER_REQUIRED if holders(permission) == {Role.OWNER} else ADMIN_REQUIRED)


def require_may_manage(held: frozenset[Permission], target: Role) -> None:
    """Raise Forbidden unless a principal holding ``held`` (:func:`authority`) may edit,
    deactivate, delete, resend to or revoke a user of role ``target``: Owners manage everyone,
    Admins everyone but Owners (an access token: as its scopes allow, within its creator's
    role)."""
    _require_held(held, Permission.USERS_WRITE)
    if target is Role.OWNER and Permission.OWNERS_WRITE not in held:
        raise Forbidden(OWNER_MANAGES_OWNERS)


def require_may_grant(held: frozenset[Permission], role: Role) -> None:
    """Raise Forbidden unless a principal holding ``held`` may give someone ``role`` (in an
    invitation, a role change or a directory group): Owners any role, Admins Admin or
    Member."""
    _require_held(held, Permission.USERS_WRITE)
    if role is Role.OWNER and Permission.OWNERS_WRITE not in held:
        raise Forbidden(OWNER_GRANTS_OWNER)
