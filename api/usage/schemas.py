"""Wire shapes of usage: the metering intake (``POST /metering/usage``, the test service's
call, in the contract too) and the per-cycle entries of ``GET /web/account`` (SPEC 3
"Usage entry")."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Annotated, Literal

from pydantic import AwareDatetime, BeforeValidator, Field, WithJsonSchema

from api.models import Platform
from api.schemas import WHOLE_NUMBER, ApiModel, Required, Text

MAX_BATCH = 1000
MAX_CLOCK_SKEW = timedelta(minutes=10)


# Epoch times: seconds up to 2e10, milliseconds above (pydantic's reading), to the end of 9999.
MAX_EPOCH_MS = 253_402_300_799_999
BAD_TIME = "time must be an ISO 8601 date-time or an epoch time"


def _timestamp(value: object) -> object:
    # A string is an ISO 8601 date-time, a number an epoch time; pydantic alone would also
    # read "1700000000" as an epoch time, which the schema does not allow.
    if isinstance(value, bool):
        raise ValueError(BAD_TIME)
    if isinstance(value, int | float) and not 0 <= value <= MAX_EPOCH_MS:
        raise ValueError(BAD_TIME)
    if isinstance(value, str) and value.strip().lstrip("-").replace(".", "", 1).isdigit():
        raise ValueError(BAD_TIME)
    return value


class UsageRecordCreate(ApiModel):
    """One metered record: what one test run on one platform used.

    ``idempotency_key`` is unique per record within the account (a UUID per record is the
    intended use): sending it again, in any later batch, is never counted twice. ``runs`` is
    the number of test runs the record covers (usually 1), ``credits`` the metered ``ai()``
    requests (what the plan allowance limits). ``time`` is when it happened: ISO 8601 with a
    time zone, or epoch seconds/milliseconds; it picks the billing cycle the record counts in.
    """

    idempotency_key: Annotated[str, Text(200), Required("idempotencyKey is required")]
    platform: Platform
    runs: Annotated[int, Field(ge=0, le=1_000_000), WHOLE_NUMBER]
    credits: Annotated[int, Field(ge=0, le=1_000_000), WHOLE_NUMBER]
    time: Annotated[
        AwareDatetime,
        BeforeValidator(_timestamp),
        WithJsonSchema(
            {
                "anyOf": [
                    {"type": "string", "format": "date-time"},
                    {"type": "number", "minimum": 0, "maximum": MAX_EPOCH_MS},
                ],
                "description": "ISO 8601 with a time zone, or epoch seconds or milliseconds.",
            }
        ),
    ]


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


AlertThreshold = Literal[50, 80, 100]


class AlertRecipient(ApiModel):
    """A user of the account and whether they get the usage alerts."""

    user_id: uuid.UUID
    email: str
    first_name: str
    last_name: str
    enabled: bool


class AlertReached(ApiModel):
    """A threshold the current billing cycle reached, and when (its alert was sent then)."""

    threshold: int
    reached_at: datetime


class UsageAlertSettings(ApiModel):
    """``GET /web/usage-alerts`` (README "Usage alerts and export"): the thresholds that send an
    alert (percent of the allowance, of 50, 80 and 100), every user with whether they get them,
    and the thresholds the current cycle already reached (each alert goes once per cycle)."""

    thresholds: list[AlertThreshold]
    recipients: list[AlertRecipient]
    reached: list[AlertReached]


class UsageAlertSettingsUpdate(ApiModel):
    """``PUT /web/usage-alerts``: the thresholds to alert at (none: no alerts) and the ids of
    the users who get them (users of the account; the others do not)."""

    thresholds: Annotated[list[AlertThreshold], Field(max_length=3)]
    recipient_ids: Annotated[list[uuid.UUID], Field(max_length=1000)]
