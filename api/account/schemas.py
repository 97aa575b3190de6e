"""Wire shapes of the account call (SPEC 3 "Account"): the account's own fields, composed
with the pieces each domain owns (usage entries, subscription and card, users, SSO)."""

from __future__ import annotations

import uuid
from typing import Annotated

from pydantic import Field

from api.billing.schemas import Billing, Subscription
from api.identity.sso.schemas import Sso
from api.identity.users.schemas import AccountUser
from api.kernel.schemas import ACCOUNT_NAME_REQUIRED, AccountName, ApiModel, Required
from api.usage.schemas import UsageEntry


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
    require_two_step_sign_in: bool = Field(
        description="Whether the account requires two-step sign-in of its password users "
        '(README "Two-step sign-in").'
    )


class AccountResponse(ApiModel):
    """``GET /web/account`` body."""

    account: Account


class AccountUpdate(ApiModel):
    """``PUT /web/account`` body (SPEC 3 "Account name update: name"). The name is trimmed;
    it must not be empty after trimming (SPEC 5) and has at most 200 characters."""

    name: Annotated[AccountName, Required(ACCOUNT_NAME_REQUIRED)]
