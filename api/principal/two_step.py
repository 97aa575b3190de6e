"""Two-step sign-in's part of the sign-in policy (README "Two-step sign-in"): who it applies
to, when a user must set it up, and what a token of such a user may do. One rule, in Python:
the caller lookup reads the columns it needs (``api.principal.principal.policy_columns``) and
:func:`setup_due_since` decides, for a request as for a row already loaded.

It applies to password users only: Google, GitHub and SAML identities rely on their identity
provider's own second factor. A password user must set it up when their account requires it
(``account.two_step_required_at``) and they have not, or when a new set-up is due
(``user.two_step_reset_at``: an Owner or Admin reset it, or they signed in with a recovery
code). From then on, a token of a sign-in made before that moment (``auth_time``, which a
refresh keeps) is refused, and a token of a later sign-in may only set it up.

A passkey sign-in satisfies it: a passkey that verifies its user (the pool requires user
verification, a PIN or a biometric) is something the user has and something they know or
are, two factors in one (docs/users/passkeys.md). Its tokens are neither sent to set up an
authenticator app nor asked for its code.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from api.models import AuthType, User
from api.principal.errors import TwoStepSetupRequired, TwoStepSignInRequired
from api.principal.tokens import AccessClaims

APPLIES_TO = AuthType.EMAIL
"""The one kind of user two-step sign-in is for: those who sign in with a password."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SECOND = timedelta(seconds=1)


def setup_due_since(
    auth_type: str,
    two_step_reset_at: datetime | None,
    two_step_enabled_at: datetime | None,
    required_at: datetime | None,
) -> int | None:
    """The one definition of the duty: the epoch second (rounded down) since which a user of
    ``auth_type`` must set up two-step sign-in, or None when they need not: a password user
    whose set-up is due again (``two_step_reset_at``), or whose account requires it since
    ``required_at`` while theirs is off (``two_step_enabled_at`` None); the later of the two.
    The caller lookup reads the four columns (``api.principal.principal``); :func:`setup_due`
    asks the same of a loaded row."""
    if auth_type != APPLIES_TO:
        return None
    since = two_step_reset_at
    if two_step_enabled_at is None and required_at is not None:
        since = required_at if since is None else max(since, required_at)
    return None if since is None else (since - _EPOCH) // _SECOND


def setup_due(user: User, required_at: datetime | None) -> bool:
    """:func:`setup_due_since` for a loaded row: whether ``user`` (of an account requiring it
    since ``required_at``, None: not required) must set two-step sign-in up (again) before
    using the console."""
    return (
        setup_due_since(
            user.auth_type, user.two_step_reset_at, user.two_step_enabled_at, required_at
        )
        is not None
    )


def enforce_two_step(claims: AccessClaims, setup_due: int | None, *, setting_up: bool) -> None:
    """Refuse a token whose user must set up two-step sign-in (``setup_due``: the value of
    :func:`setup_due_since`, epoch seconds), unless it comes from a sign-in made since then
    and the request sets it up (``setting_up``).

    A token of a passkey sign-in (``claims.by_passkey``) is never refused here.

    Raises:
        TwoStepSignInRequired: the token's sign-in (``auth_time``) is older than the duty.
        TwoStepSetupRequired: a later sign-in, on a request that is not the set-up.
    """
    if setup_due is None or claims.by_passkey:
        return
    if claims.authenticated_at < setup_due:
        raise TwoStepSignInRequired()
    if not setting_up:
        raise TwoStepSetupRequired()


def two_step_on(auth_type: str, two_step_enabled_at: datetime | None) -> bool | None:
    """Whether the two-step sign-in of a user of ``auth_type`` is on (``two_step_enabled_at``
    set); None when it does not apply to them (they sign in with an identity provider)."""
    if auth_type != APPLIES_TO:
        return None
    return two_step_enabled_at is not None
