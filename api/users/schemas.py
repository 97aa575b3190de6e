"""Wire shapes of User Management (SPEC 3 "Invite payload", "User")."""

from __future__ import annotations

import uuid
from typing import Annotated

from pydantic import ConfigDict

from api.schemas import REQUIRED, ApiModel, Email, PersonName, Required, ValidEmail


class AccountUser(ApiModel):
    """A user of the account as listed on User Management."""

    id: uuid.UUID
    first_name: str
    last_name: str
    email: str
    auth_type: str


class UserNames(ApiModel):
    """First and last name, trimmed, each required."""

    first_name: Annotated[PersonName, Required(REQUIRED)]
    last_name: Annotated[PersonName, Required(REQUIRED)]


class UserCreate(UserNames):
    """``POST /web/users``: who to invite. The email is trimmed and lowercased."""

    email: Annotated[Email, Required(REQUIRED), ValidEmail("Must be a valid email address")]


class UserUpdate(UserNames):
    """``PUT /web/users/{id}``: the names. The email is not editable (SPEC 2)."""

    model_config = ConfigDict(extra="forbid")


class UserResponse(ApiModel):
    """The invited or updated user."""

    user: AccountUser
