"""Wire shapes of the account call (SPEC 3 "Account")."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field, field_validator

from api.schemas import ApiModel


class PlatformUsage(ApiModel):
    """One platform's totals in a billing cycle: test runs and metered ``ai()`` requests."""

    runs: int
    credits: int


class UsageEntry(ApiModel):
    """One billing cycle. ``start_ms`` is the cycle start in epoch milliseconds; ``requests``
    is the number of metered requests of all platforms (what the plan allowance limits)."""

    start_ms: int
    requests: int
    web: PlatformUsage
    native_mobile: PlatformUsage
    api: PlatformUsage


class Subscription(ApiModel):
    """The plan: ``units`` bought, requests per unit, and requests at zero units (SPEC 3).

    ``payment_failed_at``: when Stripe last reported a failed invoice payment, cleared by the
    next successful one (webhooks); None when payments are in order.
    """

    units: int = 0
    unit_plan_requests: int = 0
    free_plan_requests: int = 0
    payment_failed_at: datetime | None = None


class Billing(ApiModel):
    """The card on file (SPEC 3 "Billing")."""

    brand: str
    last4: str
    exp_month: int
    exp_year: int


class AccountUser(ApiModel):
    """A user of the account as listed on User Management."""

    id: uuid.UUID
    first_name: str
    last_name: str
    email: str
    auth_type: str


class Sso(ApiModel):
    """Google single sign-on state: whether it is required, and for which email domains."""

    is_google_sso: bool = Field(alias="isGoogleSSO")
    domains: list[str]


class AccountOut(ApiModel):
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

    account: AccountOut


ACCOUNT_NAME_MAX = 200


class UpdateAccountRequest(ApiModel):
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
