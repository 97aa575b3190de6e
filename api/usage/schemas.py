"""Wire shapes of usage: the metering intake (``POST /metering/usage``, outside the /web
contract) and the per-cycle entries of ``GET /web/account`` (SPEC 3 "Usage entry")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pydantic import AwareDatetime, Field, field_validator

from api.models import Platform
from api.schemas import ApiModel

MAX_BATCH = 1000
MAX_CLOCK_SKEW = timedelta(minutes=10)


class UsageRecordCreate(ApiModel):
    """One metered record: what one test run on one platform used.

    ``idempotency_key`` is unique per record within the account (a UUID per record is the
    intended use): sending it again, in any later batch, is never counted twice. ``runs`` is
    the number of test runs the record covers (usually 1), ``credits`` the metered ``ai()``
    requests (what the plan allowance limits). ``time`` is when it happened: ISO 8601 with a
    time zone, or epoch seconds/milliseconds; it picks the billing cycle the record counts in.
    """

    idempotency_key: str = Field(min_length=1, max_length=200)
    platform: Platform
    runs: int = Field(ge=0, le=1_000_000)
    credits: int = Field(ge=0, le=1_000_000)
    time: AwareDatetime

    @field_validator("time")
    @classmethod
    def _not_in_the_future(cls, value: datetime) -> datetime:
        if value > datetime.now(UTC) + MAX_CLOCK_SKEW:
            raise ValueError("time must not be in the future")
        return value


class UsageBatchCreate(ApiModel):
    """A batch of 1 to 1000 records, counted all or nothing."""

    records: list[UsageRecordCreate] = Field(min_length=1, max_length=MAX_BATCH)


class UsageBatchResponse(ApiModel):
    """``accepted``: records counted now; ``duplicates``: records whose idempotency key was
    already counted (in an earlier batch or earlier in this one), ignored."""

    accepted: int
    duplicates: int


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
