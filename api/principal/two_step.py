"""Two-step sign-in's part of the sign-in policy (README "Two-step sign-in"): who it applies
to, when a user must set it up, and what a token of such a user may do. One rule, in SQL for
the caller lookup's statement (``api.principal.principal.policy_columns``) and the users list, and
in Python for rows already loaded.

It applies to password users only: Google, GitHub and SAML identities rely on their identity
provider's own second factor. A password user must set it up when their account requires it
(``account.two_step_required_at``) and they have not, or when a new set-up is due
(``user.two_step_reset_at``: an Owner or Admin reset it, or they signed in with a recovery
code). From then on, a token of a sign-in made before that moment (``auth_time``, which a
refresh keeps) is refused, and a token of a later sign-in may only set it up.
"""

from __future__ import annotations

from datetime import datetime

from api.kernel.schemas import sql_literal
from api.models import AuthType, User
from api.principal.errors import TwoStepSetupRequired, TwoStepSignInRequired
from api.principal.tokens import AccessClaims

APPLIES_TO = AuthType.EMAIL
"""The one kind of user two-step sign-in is for: those who sign in with a password."""


def setup_due_sql(user: str, account: str) -> str:
    """SQL for the epoch second since which the ``"user"`` row aliased ``user`` (of the
    ``account`` row aliased ``account``) must set up two-step sign-in, or NULL when they need
    not (not a password user, or it is on and no new set-up is due). Aliases only, never
    values."""
    return f"""CASE WHEN {user}.auth_type = {sql_literal(APPLIES_TO.value)}
       THEN extract(epoch FROM date_trunc('second', greatest({user}.two_step_reset_at,
            CASE WHEN {user}.two_step_enabled_at IS NULL
                 THEN {account}.two_step_required_at END)))::bigint END"""


def setup_due(user: User, required_at: datetime | None) -> bool:
    """:func:`setup_due_sql` for a loaded row: whether ``user`` (of an account requiring it
    since ``required_at``, None: not required) must set two-step sign-in up (again) before
    using the console."""
    if user.auth_type is not APPLIES_TO:
        return False
    return user.two_step_reset_at is not None or (
        required_at is not None and user.two_step_enabled_at is None
    )


def enforce_two_step(claims: AccessClaims, setup_due: int | None, *, setting_up: bool) -> None:
    """Refuse a token whose user must set up two-step sign-in (``setup_due``: the value of
    :func:`setup_due_sql`, epoch seconds), unless it comes from a sign-in made since then
    and the request sets it up (``setting_up``).

    Raises:
        TwoStepSignInRequired: the token's sign-in (``auth_time``) is older than the duty.
        TwoStepSetupRequired: a later sign-in, on a request that is not the set-up.
    """
    if setup_due is None:
        return
    if claims.authenticated_at < setup_due:
        raise TwoStepSignInRequired()
    if not setting_up:
        raise TwoStepSetupRequired()


def two_step_on(user: User) -> bool | None:
    """Whether ``user``'s two-step sign-in is on; None when it does not apply to them (they
    sign in with an identity provider)."""
    if user.auth_type is not APPLIES_TO:
        return None
    return user.two_step_enabled_at is not None


def two_step_on_sql(user: str) -> str:
    """:func:`two_step_on` in SQL for the ``"user"`` row aliased ``user`` (a boolean or
    NULL)."""
    return f"""CASE WHEN {user}.auth_type = {sql_literal(APPLIES_TO.value)}
       THEN {user}.two_step_enabled_at IS NOT NULL END"""
