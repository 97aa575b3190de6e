"""Where a user stands (``UserStatus``; SPEC 2 "User Management", README "Roles and
invitations"): one rule, in Python for a ``User`` row and in SQL for the bodies PostgreSQL
builds (``GET /web/account``).

The rule reads three facts of a user at a time ``now``: whether they were invited, whether
they have signed in, and whether their invitation has lapsed (``invitation_expires_at`` set and
not after ``now``). :func:`status_of` decides from the facts; :func:`user_status` reads them
from a row and :func:`user_status_sql` writes them in SQL, its CASE spelled out from
:func:`status_of` for every combination, so the two cannot disagree.
"""

from __future__ import annotations

from datetime import datetime
from itertools import product

from api.identity.users.schemas import UserStatus
from api.kernel.schemas import sql_literal
from api.models import User


def status_of(*, invited: bool, signed_in: bool, lapsed: bool) -> UserStatus:
    """Active once signed in (or when the user joined without an invitation), Pending while the
    invitation waits for a first sign-in, Expired when it lapsed without one."""
    if not invited or signed_in:
        return UserStatus.ACTIVE
    return UserStatus.EXPIRED if lapsed else UserStatus.PENDING


def user_status(user: User, now: datetime) -> UserStatus:
    """The status of ``user`` at ``now`` (aware)."""
    expires = user.invitation_expires_at
    return status_of(
        invited=user.invited_at is not None,
        signed_in=user.signed_in_at is not None,
        lapsed=expires is not None and expires <= now,
    )


def user_status_sql(user: str, now: str) -> str:
    """SQL for the status (``'Active'``, ``'Pending'`` or ``'Expired'``) of the ``"user"`` row
    aliased ``user`` at the timestamptz SQL expression ``now``: :func:`user_status` in SQL.
    Both arguments are constant SQL text (an alias, a ``$n`` parameter), never values."""
    facts = (
        f"{user}.invited_at IS NOT NULL",
        f"{user}.signed_in_at IS NOT NULL",
        f"coalesce({user}.invitation_expires_at <= {now}, false)",
    )
    whens = []
    for invited, signed_in, lapsed in product((False, True), repeat=3):
        condition = " AND ".join(
            f"({fact})" if holds else f"NOT ({fact})"
            for fact, holds in zip(facts, (invited, signed_in, lapsed), strict=True)
        )
        status = status_of(invited=invited, signed_in=signed_in, lapsed=lapsed)
        whens.append(f"WHEN {condition} THEN {sql_literal(status.value)}")
    return "CASE " + " ".join(whens) + " END"
