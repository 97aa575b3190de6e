"""Typed errors of the metering intake. Class names are wire codes."""

from datetime import datetime
from typing import Any

from pydantic import ConfigDict
from pydantic.alias_generators import to_camel

from api.kernel.db import KeepsTransaction
from api.kernel.errors import AppError, ErrorBody


class RecordInTheFuture(AppError):
    """400: a record's ``time`` is more than 10 minutes ahead of the server's clock (a client
    clock gone wrong); the batch counts nothing."""

    default_message = "time must not be in the future"


class RecordTooOld(AppError):
    """400: a record's ``time`` is before the start of the previous billing cycle (the oldest
    cycle still open to late records: the ones before it are invoiced); the message names the
    oldest accepted time. The batch counts nothing."""

    default_message = "time must not be before the start of the previous billing cycle"


class UnknownAlertRecipient(AppError):
    """400: a usage-alert recipient id is not a user of the caller's account."""

    default_message = "Usage alerts can only go to users of this account."


class SpendLimitBody(ErrorBody):
    """The body of a refusal at a spend limit: the envelope, the ``limit`` (requests per billing
    cycle) and when the billing cycle it was reached in ends (``resetsAt``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    limit: int
    resets_at: datetime


class SpendLimitReached(KeepsTransaction, AppError):
    """429: a metering batch would take a billing cycle's requests past a spend limit; none of
    its records were counted (README "Metering intake"). ``Retry-After``: the seconds until
    the current billing cycle ends, when records of the next one count again. The transaction
    still commits what the refusal wrote: the notice that the limit was reached, and its
    emails."""

    status_code = 429
    body_model = SpendLimitBody

    def __init__(
        self, message: str, *, limit: int, resets_at: datetime, retry_after_s: int
    ) -> None:
        super().__init__(message)
        self.body = SpendLimitBody(
            code=self.code, message=message, limit=limit, resets_at=resets_at
        )
        self.retry_after_s = max(retry_after_s, 1)

    @property
    def headers(self) -> dict[str, str]:
        """``Retry-After``: whole seconds until the current billing cycle ends."""
        return {"Retry-After": str(self.retry_after_s)}

    @property
    def details(self) -> dict[str, Any]:
        """``limit`` and ``resetsAt``."""
        return self.body.model_dump(mode="json", by_alias=True, include={"limit", "resets_at"})


class KeyLimitReached(SpendLimitReached):
    """429: the batch would take the API key's requests this billing cycle past the key's
    monthly limit (set by the account's Owners and Admins, README "API keys")."""


class AllowanceReached(SpendLimitReached):
    """429: the account stops at its plan's allowance, and the batch would take the billing
    cycle's requests past it."""


# GET /web/usage (README "Usage API"): what a range may be.


class RangeOutOfOrder(AppError):
    """400: ``from`` is not before ``to`` (as given, or as left out: the retention's start and
    now); the message names both."""

    default_message = "from must be before to"


class RangeTooLong(AppError):
    """400: a range of hours longer than 92 days (2,208 buckets); ask for days, or split the
    range."""

    default_message = "A range of hours is at most 92 days: ask for days, or split the range."


class RetentionBody(ErrorBody):
    """The body of a range outside the retention: the envelope, the ``earliest`` time ``from``
    may be and the ``latest`` time ``to`` may be."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    earliest: datetime
    latest: datetime


class OutsideRetention(AppError):
    """400: ``from`` is before the start of the oldest of the 12 billing cycles the console
    keeps (``earliest``), or ``to`` is after the end of the current cycle (``latest``)."""

    body_model = RetentionBody

    def __init__(self, message: str, *, earliest: datetime, latest: datetime) -> None:
        super().__init__(message)
        self.body = RetentionBody(code=self.code, message=message, earliest=earliest, latest=latest)

    @property
    def details(self) -> dict[str, Any]:
        """``earliest`` and ``latest``."""
        return self.body.model_dump(mode="json", by_alias=True, include={"earliest", "latest"})


class UnknownLabelBody(ErrorBody):
    """The body of an unknown label: the envelope and the ``labels`` there are."""

    labels: list[str]


class UnknownLabel(AppError):
    """400: ``groupBy=label:<name>`` names a label no record of the 12 billing cycles kept
    carried; ``labels`` lists the ones they did."""

    body_model = UnknownLabelBody

    def __init__(self, message: str, *, labels: list[str]) -> None:
        super().__init__(message)
        self.labels = labels

    @property
    def details(self) -> dict[str, Any]:
        """``labels``."""
        return {"labels": self.labels}


class InvalidCursor(AppError):
    """400: ``cursor`` is not a ``nextCursor`` of ``GET /web/usage`` for the same query (its
    granularity, range and grouping)."""

    default_message = (
        "This cursor is not one of this query's pages: send the same query as the first page."
    )
