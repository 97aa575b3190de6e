"""Wire shapes of User Management (SPEC 3 "Invite payload", "User")."""

from __future__ import annotations

import enum
import uuid
from datetime import datetime
from typing import Annotated

from pydantic import ConfigDict, Field

from api.kernel.schemas import REQUIRED, ApiModel, Email, PersonName, Required, ValidEmail
from api.models import Role


class UserStatus(enum.StrEnum):
    """Where a user stands (README "Roles and invitations"): ``Active`` once they have signed
    in (or when they joined without an invitation), ``Pending`` while their invitation waits
    for a first sign-in, ``Expired`` when it passed ``invitationExpiresAt`` without one."""

    ACTIVE = "Active"
    PENDING = "Pending"
    EXPIRED = "Expired"


class AccountUser(ApiModel):
    """A user of the account as listed on User Management."""

    id: uuid.UUID
    first_name: str
    last_name: str
    email: str
    auth_type: str
    role: Role
    status: UserStatus
    two_step_sign_in: bool | None = Field(
        description="Whether the user's two-step sign-in (an authenticator app) is on; null "
        "for users who sign in with an identity provider, to whom it does not apply."
    )
    invited_at: datetime | None = Field(description="When the (last) invitation was sent.")
    invitation_expires_at: datetime | None = Field(
        description="When a Pending invitation expires; null for users without one."
    )


class UserNames(ApiModel):
    """First and last name, trimmed, each required."""

    first_name: Annotated[PersonName, Required(REQUIRED)]
    last_name: Annotated[PersonName, Required(REQUIRED)]


INVITED_ROLE = Role.ADMIN
"""The role of an invitee when the invite names none (the role
invitees had before roles existed, so invitations keep meaning what they meant)."""


class UserCreate(UserNames):
    """``POST /web/users``: who to invite, and their role (Admin when left out or null). The
    email is trimmed and lowercased."""

    email: Annotated[Email, Required(REQUIRED), ValidEmail("Must be a valid email address")]
    role: Role | None = Field(default=None, description="Admin when left out or null.")


class UserUpdate(UserNames):
    """``PUT /web/users/{id}``: the names, and the role when it changes (left out: kept).
    The email is not editable (SPEC 2)."""

    model_config = ConfigDict(extra="forbid")

    role: Role | None = None


class UserResponse(ApiModel):
    """The invited or updated user."""

    user: AccountUser


class MemberSessions(ApiModel):
    """One user's live sign-in sessions, as User Management counts them (README "Sessions")."""

    user_id: uuid.UUID
    active_sessions: int


class MemberSessionsResponse(ApiModel):
    """How many live sessions each user of the account has."""

    users: list[MemberSessions]
