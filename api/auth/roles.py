"""What each role may do (README "Roles and invitations"): the one place the rules live.

Per route, ``api/deps.py`` declares the role a change needs with ``OwnerOnly`` (billing: the
plan, the card, paying an invoice; the SAML connection: connecting, replacing, removing,
requiring and confirming it, since its identity provider can sign in as anyone of the account;
requiring two-step sign-in) or ``OwnerOrAdmin`` (users and invitations, Google single sign-on
and the domains, the account's name, rolling and expiring API keys, usage alerts, reading the
audit log). Everything else a signed-in user of any role may do: read Account Information,
User Management and Billing, and reveal or copy the API key (Members need the key to run tests).

Per user, the functions below: an Admin manages Admins and Members but never an Owner, and
never makes anyone an Owner. The last Owner of an account cannot be deleted or demoted
(``api/users/service.py`` holds the Owner rows locked while it checks).
"""

from __future__ import annotations

from api.auth.errors import Forbidden
from api.models import Role

OWNER_REQUIRED = "Only an Owner of this account can do this. Ask an Owner to do it for you."
ADMIN_REQUIRED = (
    "Only an Owner or an Admin of this account can do this. Ask one of them to do it for you."
)
OWNER_MANAGES_OWNERS = "Only an Owner can change or remove another Owner."
OWNER_GRANTS_OWNER = "Only an Owner can make someone an Owner."

OWNER_ONLY = frozenset({Role.OWNER})
OWNERS_AND_ADMINS = frozenset({Role.OWNER, Role.ADMIN})


def require(role: Role, allowed: frozenset[Role]) -> None:
    """Raise Forbidden (403, with the message naming the roles that may) unless ``role`` is
    one of ``allowed``."""
    if role not in allowed:
        raise Forbidden(OWNER_REQUIRED if allowed == OWNER_ONLY else ADMIN_REQUIRED)


def require_may_manage(actor: Role, target: Role) -> None:
    """Raise Forbidden unless a user of role ``actor`` may edit, delete, resend to or revoke
    a user of role ``target``: Owners manage everyone, Admins everyone but Owners."""
    require(actor, OWNERS_AND_ADMINS)
    if target is Role.OWNER and actor is not Role.OWNER:
        raise Forbidden(OWNER_MANAGES_OWNERS)


def require_may_grant(actor: Role, role: Role) -> None:
    """Raise Forbidden unless a user of role ``actor`` may give someone ``role`` (in an
    invitation or a role change): Owners any role, Admins Admin or Member."""
    require(actor, OWNERS_AND_ADMINS)
    if role is Role.OWNER and actor is not Role.OWNER:
        raise Forbidden(OWNER_GRANTS_OWNER)
