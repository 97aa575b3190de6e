"""Request and response bodies of ``/web/access-tokens`` (README "Automation")."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from api.kernel.schemas import ApiModel, Required, Text
from api.principal.roles import TOKEN_SCOPES

NAME_MAX_LENGTH = 100
MAX_SCOPES = len(TOKEN_SCOPES)
NAME_REQUIRED = "Give the token a name"


def _stripped(value: str) -> str:
    return value.strip()


Scope = Literal[tuple(sorted(TOKEN_SCOPES))]  # type: ignore[valid-type]
"""A scope a token may hold: the permission's name (``usage:read``...)."""


class NewAccessToken(ApiModel):
    """A token to create: a name (unique among the account's live tokens), the last day it
    works (``expiresOn``, UTC: from tomorrow to a year from today; the console offers 7, 30
    and 90 days from today, or a date) and its scopes (each within the creator's role)."""

    name: Annotated[str, Text(NAME_MAX_LENGTH), AfterValidator(_stripped), Required(NAME_REQUIRED)]
    expires_on: date = Field(
        description="The last day the token works (it ends at that day's end, UTC): from "
        "tomorrow to a year from today."
    )
    scopes: list[Scope] = Field(  # type: ignore[valid-type]
        min_length=1, max_length=MAX_SCOPES, description="What the token may do."
    )


class AccessTokenView(ApiModel):
    """An access token as the console lists it. ``masked``: its prefix and last four
    characters; ``createdBy``: its creator's name and email as they were when it was made
    (``creatorRemoved``: that user is no longer in the account); ``status``: ``active``,
    ``expired`` or ``revoked``; ``lastUsedAt`` (to the minute; null: never) and
    ``lastUsedAddress``: its latest use."""

    id: uuid.UUID
    name: str
    masked: str
    scopes: list[str]
    created_by: str
    created_by_user_id: uuid.UUID | None = Field(
        description="Its creator's user id while they are a user of the account (User "
        "Management shows a member's tokens before removing them)."
    )
    creator_removed: bool
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None
    status: Literal["active", "expired", "revoked"]
    last_used_at: datetime | None
    last_used_address: str | None


class AccessTokens(ApiModel):
    """The account's access tokens, newest first; whether they work in this account
    (``enabled``, an Owner's switch) and how many live ones it may hold."""

    enabled: bool
    max_tokens: int
    tokens: list[AccessTokenView]


class AccessTokenCreated(ApiModel):
    """A token just created: its view and its secret, shown this once."""

    token: AccessTokenView
    secret: str = Field(description="The token. It is not shown again.")


class AccessTokenPolicy(ApiModel):
    """Whether the account's access tokens work (an Owner's switch). A JSON boolean only (the
    contract says so; ``0`` is refused, not read as false)."""

    enabled: bool = Field(strict=True)
