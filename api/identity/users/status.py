"""Where a user stands (``UserStatus``; SPEC 2 "User Management", README "Roles and
invitations"): one rule, in Python, for a loaded ``User`` and for the columns the account
view's statement reads (``api.identity.users.view``).

The rule reads three facts of a user at a time ``now``: whether they were invited, whether
they have signed in, and whether their invitation has lapsed (``invitation_expires_at`` set and
not after ``now``). :func:`status_of` decides from the facts; :func:`status_at` reads them
from the three columns, :func:`user_status` from a row.
"""

from __future__ import annotations

from datetime import datetime

from api.identity.users.schemas import UserStatus
from api.models import User


def status_of(*, invited: bool, signed_in: bool, lapsed: bool) -> UserStatus:
    """Active once signed in (or when the user joined without an invitation), Pending while the
    invitation waits for a first sign-in, Expired when it lapsed without one."""
    if not invited or signed_in:
        return UserStatus.ACTIVE
    return UserStatus.EXPIRED if lapsed else UserStatus.PENDING


def status_at(
    invited_at: datetime | None,
    signed_in_at: datetime | None,
    invitation_expires_at: datetime | None,
    now: datetime,
) -> UserStatus:
    """The status at ``now`` (aware) of a user with these three columns: :func:`status_of`
    over the facts they give."""
    return status_of(
        invited=invited_at is not None,
        signed_in=signed_in_at is not None,
        lapsed=invitation_expires_at is not None and invitation_expires_at <= now,
    )


def user_status(user: User, now: datetime) -> UserStatus:
    """The status of ``user`` at ``now`` (aware)."""
    return status_at(user.invited_at, user.signed_in_at, user.invitation_expires_at, now)
