"""Wire shapes of usage: the metering intake (``POST /metering/usage``, the test service's
call, in the contract too), the per-cycle entries of ``GET /web/account`` (SPEC 3
"Usage entry") and usage over a range (``GET /web/usage``)."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AwareDatetime, BeforeValidator, Field, WithJsonSchema

from api.kernel.schemas import (
    NON_BLANK_PATTERN,
    WHOLE_NUMBER,
    ApiModel,
    FieldRule,
    Required,
    Text,
)
from api.models import Platform
from api.models.usage_label import (
    LABEL_NAME_MAX_LENGTH,
    LABEL_VALUE_MAX_LENGTH,
    LABEL_VALUES_PER_CYCLE,
)
from api.usage.ranges import Granularity

MAX_BATCH = 1000
MAX_CLOCK_SKEW = timedelta(minutes=10)
MAX_LABELS = 5
LABEL_NAME = re.compile(rf"[a-z][a-z0-9_]{{0,{LABEL_NAME_MAX_LENGTH - 1}}}")
BAD_LABEL_NAME = (
    f"label names are 1 to {LABEL_NAME_MAX_LENGTH} lowercase letters, digits or underscores, "
    "starting with a letter"
)
BLANK_LABEL_VALUE = "label values must not be blank"


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


@dataclass(frozen=True, slots=True)
class _LabelName(FieldRule):
    """A label's name: ``^[a-z][a-z0-9_]{0,31}$`` (README "Metering intake")."""

    schema: ClassVar[dict[str, Any]] = {"pattern": f"^{LABEL_NAME.pattern}$(?!\\n)"}

    def check(self, value: str) -> str:
        """``value``, or ``ValueError`` naming the rule."""
        if not LABEL_NAME.fullmatch(value):
            raise ValueError(BAD_LABEL_NAME)
        return value


LabelName = Annotated[str, _LabelName()]
LabelValue = Annotated[str, Text(LABEL_VALUE_MAX_LENGTH, 1), Required(BLANK_LABEL_VALUE)]
Labels = Annotated[
    dict[LabelName, LabelValue],
    Field(max_length=MAX_LABELS),
    # Stated whole: pydantic writes the names' rule as patternProperties, which leaves any
    # other name allowed to a reader of the schema.
    WithJsonSchema(
        {
            "type": "object",
            "maxProperties": MAX_LABELS,
            "propertyNames": {"pattern": f"^{LABEL_NAME.pattern}$(?!\\n)"},
            "additionalProperties": {
                "type": "string",
                "minLength": 1,
                "maxLength": LABEL_VALUE_MAX_LENGTH,
                "pattern": NON_BLANK_PATTERN,
            },
            "description": (
                f"Up to {MAX_LABELS} labels (name: value) to break usage down by, e.g. "
                '{"project": "checkout-suite", "ci": "github-actions", "branch": "main"}. '
                f"Names: 1 to {LABEL_NAME_MAX_LENGTH} lowercase letters, digits or "
                f"underscores, starting with a letter; values: 1 to {LABEL_VALUE_MAX_LENGTH} "
                "characters, no control characters, not blank. For a handful of values each "
                "(a suite, a pipeline, a branch): every value is kept per billing cycle and "
                f"day, up to {LABEL_VALUES_PER_CYCLE:,} values per label and billing cycle; "
                "a record with a new value past them is still counted, and the breakdown "
                "shows its requests in the label's otherValues."
            ),
        }
    ),
]


class UsageRecordCreate(ApiModel):
    """One metered record: what one test run on one platform used.

    ``idempotency_key`` is unique per record within the account (a UUID per record is the
    intended use): sending it again, in any later batch, is never counted twice. ``runs`` is
    the number of test runs the record covers (usually 1), ``credits`` the metered ``ai()``
    requests (what the plan allowance limits). ``time`` is when it happened: ISO 8601 with a
    time zone, or epoch seconds/milliseconds; it picks the billing cycle the record counts in.
    ``labels`` (optional) say what the usage was for; the console breaks a cycle's usage down
    by them. A record sent again with other labels is still a duplicate: the first counts.
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
    labels: Labels = Field(default_factory=dict)


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


TOP_LABEL_VALUES = 10
"""How many values of a label the breakdown names; the rest add up in ``otherValues``."""


class UsageShare(ApiModel):
    """Requests (metered ``ai()`` calls, what the allowance limits) and their share of the
    billing cycle's requests (0 to 1; 0 when the cycle has none)."""

    requests: int
    share: float


class KeyUsage(UsageShare):
    """One API key's requests in the cycle: its id and how the console shows it
    (``ak_…1a2b``), whether it still works or has expired."""

    key_id: uuid.UUID
    masked: str
    expired: bool


class LabelValueUsage(UsageShare):
    """The requests of the records labelled with ``value``."""

    value: str


class UsageBreakdown(ApiModel):
    """``GET /web/usage/breakdown`` (README "Usage alerts and export"): where one billing cycle's
    requests went, read from the rollups the intake keeps (never the records).

    ``by_key``: every key that sent requests in the cycle, most first; ``unknown_key``: requests
    whose key was not recorded (metered before keys were). ``labels``: the names of the labels
    the cycle's records carried; ``label``: the one broken down (the query's), with its
    ``TOP_LABEL_VALUES`` values of most requests in ``by_label``, the rest of its values in
    ``other_values`` (those past ``LABEL_VALUES_PER_CYCLE`` included) and the requests without
    that label in ``unlabelled``. Everything adds up to ``requests``.
    """

    cycle_start_ms: int
    requests: int
    by_key: list[KeyUsage]
    unknown_key: UsageShare
    labels: list[str]
    label: str | None
    by_label: list[LabelValueUsage]
    other_values: UsageShare = Field(
        description=(
            "The label's values not named in byLabel, and the values past the first "
            f'{LABEL_VALUES_PER_CYCLE:,} of the label in the cycle (README "Metering '
            'intake"), which are never named.'
        )
    )
    unlabelled: UsageShare


AtAllowance = Literal["keepRunning", "stop"]
"""What happens at 100 % of the plan's allowance: alerts only, or the intake refuses what
would pass it until the cycle ends (README "Metering intake")."""


class UsageLimits(ApiModel):
    """``GET /web/usage/limits``: what the account does at its plan's ``allowance`` (requests
    per billing cycle), and when the current cycle stopped at it (None: it has not)."""

    at_allowance: AtAllowance
    allowance: int
    stopped_at: datetime | None


class UsageLimitsUpdate(ApiModel):
    """``PUT /web/usage/limits``: keep running at the allowance, or stop at it."""

    at_allowance: AtAllowance


# GET /web/usage (README "Usage API"): usage over a range, per hour, day or billing cycle.

USAGE_PAGE = 100
MAX_USAGE_PAGE = 1000
GROUP_BY_PATTERN = rf"^(apiKey|label:{LABEL_NAME.pattern})$(?!\n)"
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T")
BAD_DATE_TIME = "Must be an ISO 8601 date and time with its offset, such as 2026-11-24T00:00:00Z"


def _date_time_text(value: object) -> object:
    # The contract says format: date-time (RFC 3339); pydantic would also read a number as an
    # epoch time ("1700000000"), which the contract does not promise.
    if isinstance(value, str) and not _DATE_TIME.match(value):
        raise ValueError(BAD_DATE_TIME)
    return value


RangeTime = Annotated[AwareDatetime, BeforeValidator(_date_time_text)]


class UsageQuery(ApiModel):
    """``GET /web/usage``: which range, in which buckets, grouped how, and which page."""

    granularity: Granularity = Field(
        description=(
            "How long each bucket is: `hour` and `day` (UTC, by each record's time) or `cycle` "
            "(a billing cycle, counted from the account's anchor, with the records it counted)."
        )
    )
    from_: RangeTime | None = Field(
        None,
        alias="from",
        description=(
            "The start of the range (ISO 8601 with its UTC offset), widened down to its "
            "bucket's start; not before the start of the oldest of the 12 billing cycles the "
            "console keeps. Left out: that start (for hours, 92 days before `to` if later)."
        ),
    )
    to: RangeTime | None = Field(
        None,
        description=(
            "The end of the range, not included, widened up to its bucket's end; not after the "
            "end of the current billing cycle. Left out: now. A range of hours is at most 92 "
            "days."
        ),
    )
    group_by: str | None = Field(
        None,
        pattern=GROUP_BY_PATTERN,
        description=(
            "`apiKey`: each bucket's usage per API key that sent it; `label:<name>`: per value "
            "of the label `<name>` (a label some record of the 12 billing cycles carried). "
            "Left out: totals only."
        ),
    )
    limit: int = Field(
        USAGE_PAGE, ge=1, le=MAX_USAGE_PAGE, description="Buckets per page, 1 to 1,000."
    )
    cursor: str | None = Field(
        None,
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_-]+$(?!\n)",
        description=(
            "The `nextCursor` of the previous page, sent with the same query; the first page "
            "without it."
        ),
    )


class UsageFigures(ApiModel):
    """What a bucket counted: ``requests`` (metered ``ai()`` calls: the records' credits, what
    the plan's allowance counts), ``records`` (metering records, one per idempotency key) and
    ``runs`` (the test runs those records cover)."""

    requests: int
    records: int
    runs: int


GroupKind = Literal["apiKey", "keyNotRecorded", "labelValue", "otherValues", "withoutLabel"]


class UsageGroup(ApiModel):
    """One group's usage in a bucket, all platforms and per platform."""

    kind: GroupKind = Field(
        description=(
            "`apiKey`: what one API key sent (`group` its id, in `apiKeys`); "
            "`keyNotRecorded`: what was metered before keys were recorded; `labelValue`: the "
            "records carrying the label with the value `group`; `otherValues`: the label's "
            f"values past its first {LABEL_VALUES_PER_CYCLE:,} of a billing cycle, never named; "
            "`withoutLabel`: the records without the label."
        )
    )
    group: str | None = Field(
        description="The API key's id or the label's value; null for the other kinds."
    )
    requests: int
    records: int
    runs: int
    web: UsageFigures
    native_mobile: UsageFigures
    api: UsageFigures


class UsageBucket(ApiModel):
    """One bucket ``[start, end)``: its usage, all platforms and per platform (zeros
    included), and with ``groupBy`` its groups that have any usage, the most requests first
    (then the newest key, or by value), the kinds without a ``group`` last."""

    start: datetime
    end: datetime
    requests: int
    records: int
    runs: int
    web: UsageFigures
    native_mobile: UsageFigures
    api: UsageFigures
    groups: list[UsageGroup] = Field(description="Empty without `groupBy`.")


class UsageApiKey(ApiModel):
    """An API key a group names: its id, as the console shows it (``ak_…1a2b``), and whether it
    has expired."""

    id: uuid.UUID
    masked: str
    expired: bool


class UsageResponse(ApiModel):
    """``GET /web/usage`` (README "Usage API"): a page of the buckets of the range, oldest
    first, every bucket of the page whether or not anything was metered in it."""

    granularity: Granularity
    from_: datetime = Field(alias="from", description="The first bucket's start.")
    to: datetime = Field(description="The last bucket's end (the range as widened).")
    group_by: str | None
    labels: list[str] = Field(
        description="The names of the labels the range's records carried, sorted."
    )
    api_keys: list[UsageApiKey] = Field(
        description="With `groupBy=apiKey`: the keys this page's groups name."
    )
    buckets: list[UsageBucket]
    next_cursor: str | None = Field(
        description="Send it as `cursor` with the same query for the next page; null on the last."
    )
