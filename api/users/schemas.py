"""Wire shapes of User Management (SPEC 3 "Invite payload", "User")."""

from __future__ import annotations

import uuid

from email_validator import EmailNotValidError, validate_email
from pydantic import ConfigDict, Field, field_validator

from api.schemas import ApiModel


class AccountUser(ApiModel):
    """A user of the account as listed on User Management."""

    id: uuid.UUID
    first_name: str
    last_name: str
    email: str
    auth_type: str


def _name(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("Required")
    return value


class UserNames(ApiModel):
    """First and last name, trimmed, each required."""

    first_name: str = Field(max_length=100)
    last_name: str = Field(max_length=100)

    _names = field_validator("first_name", "last_name")(_name)


class UserInvite(UserNames):
    """``POST /web/users``: who to invite. The email is trimmed and lowercased."""

    email: str = Field(max_length=320)

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        value = value.strip().lower()
        if not value:
            raise ValueError("Required")
        try:
            validate_email(value, check_deliverability=False)
        except EmailNotValidError as exc:
            raise ValueError("Must be a valid email address") from exc
        return value


class UserUpdate(UserNames):
    """``PUT /web/users/{id}``: the names. The email is not editable (SPEC 2)."""

    model_config = ConfigDict(extra="forbid")


class UserResponse(ApiModel):
    """The invited or updated user."""

    user: AccountUser
