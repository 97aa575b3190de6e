"""Wire shapes of the account call (SPEC 3 "Account"): the account's own fields, composed
with the pieces each domain owns (usage entries, subscription and card, users, SSO)."""

from __future__ import annotations

import uuid

from pydantic import field_validator

from api.billing.schemas import Billing, Subscription
from api.schemas import ApiModel
from api.sso.schemas import Sso
from api.usage.schemas import UsageEntry
from api.users.schemas import AccountUser


class Account(ApiModel):
    """The caller's account. ``usage`` lists up to 12 billing cycles, oldest first, always
    ending with the current cycle."""

    id: uuid.UUID
    name: str
    api_key: str
    usage: list[UsageEntry]
    subscription: Subscription
    billing: Billing | None
    users: list[AccountUser]
    sso: Sso


class AccountResponse(ApiModel):
    """``GET /web/account`` body."""

    account: Account


ACCOUNT_NAME_MAX = 200


class AccountUpdate(ApiModel):
    """``PUT /web/account`` body (SPEC 3 "Account name update: name"). The name is trimmed;
    it must not be empty after trimming (SPEC 5) and has at most 200 characters."""

    name: str

    @field_validator("name")
    @classmethod
    def _trimmed_not_empty(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("Account name must not be empty")
        if len(value) > ACCOUNT_NAME_MAX:
            raise ValueError(f"Account name must be at most {ACCOUNT_NAME_MAX} characters")
        return value
