"""The time rules of ``GET /web/usage`` (README "Usage API"): buckets of an hour, a UTC day or a
billing cycle, the range a query may ask for (the retention, the longest range per
granularity), how a range is widened to whole buckets, and the cursor of the next page.

Pure: no database, no clock (``now`` and the account's anchor are arguments).

- **Buckets.** ``hour``: ``[hh:00, hh+1:00)`` UTC; ``day``: ``[00:00, 24:00)`` UTC; ``cycle``: a
  billing cycle, ``[start, next start)`` counted from the account's anchor as
  ``api/usage/cycles.py`` counts them (SPEC 9 "Billing cycle is monthly").
- **The range** ``[from, to)`` is widened to whole buckets: ``from`` down to the start of its
  bucket, ``to`` up to the end of its own (unless it is a bucket's start already).
- **The retention**: the billing cycles the console shows (``USAGE_CYCLES_SHOWN``, the current
  one last): ``from`` no earlier than the start of the oldest, ``to`` no later than the end of
  the current one. **Longest ranges**: ``MAX_HOURLY_RANGE`` for hours (2,208 buckets); days and
  cycles are bounded by the retention alone (at most 366 days, 12 cycles).
"""

from __future__ import annotations

import base64
import enum
import hashlib
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from api.usage.cycles import (
    USAGE_CYCLES_SHOWN,
    current_cycle_start,
    cycle_index,
    cycle_start,
    recent_cycle_starts,
    reset_date,
)

MAX_HOURLY_RANGE = timedelta(days=92)
"""The longest range of hours one query may ask for: a quarter (92 days, 2,208 hourly
buckets), the span a week-over-week or a quarter's chart needs."""

HOURLY_ROLLUPS_KEPT = timedelta(days=400)
"""How long the hourly rollups are kept (then deleted by the periodic ``usage_hourly_retention``):
longer than any account's retention reaches back (the oldest of ``USAGE_CYCLES_SHOWN`` cycles of
at most 31 days starts at most 372 days ago)."""

_HOUR = timedelta(hours=1)
_DAY = timedelta(days=1)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Granularity(enum.StrEnum):
    """How long each bucket of ``GET /web/usage`` is."""

    HOUR = "hour"
    DAY = "day"
    CYCLE = "cycle"


@dataclass(frozen=True, slots=True)
class Retention:
    """What an account's usage can be asked for: ``earliest`` (the start of the oldest of the
    billing cycles shown) to ``latest`` (the end of the current cycle)."""

    earliest: datetime
    latest: datetime


def retention(anchor: datetime, now: datetime) -> Retention:
    """The :class:`Retention` of an account whose cycles start at ``anchor``, at ``now``."""
    return Retention(
        earliest=recent_cycle_starts(anchor, now, USAGE_CYCLES_SHOWN)[0],
        latest=reset_date(current_cycle_start(anchor, now)),
    )


def default_range(
    granularity: Granularity, kept: Retention, now: datetime
) -> tuple[datetime, datetime]:
    """``(from, to)`` of a query that leaves them out: up to ``now``, from as far back as the
    granularity allows (the retention's start; for hours ``MAX_HOURLY_RANGE`` before ``now``)."""
    if granularity is Granularity.HOUR and now > kept.earliest + MAX_HOURLY_RANGE:
        return now - MAX_HOURLY_RANGE, now
    return kept.earliest, now


def _utc(at: datetime) -> datetime:
    return at.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class Window:
    """The whole buckets of a range: ``start`` (the first bucket's start) to ``end`` (the last
    bucket's end), of ``granularity``; ``anchor`` is the account's cycle anchor (for
    cycles)."""

    granularity: Granularity
    start: datetime
    end: datetime
    anchor: datetime

    def buckets(self, first: datetime, limit: int) -> tuple[list[tuple[datetime, datetime]], bool]:
        """Up to ``limit`` buckets ``(start, end)`` from the one starting at ``first``, in
        order, and whether more follow before :attr:`end`."""
        page: list[tuple[datetime, datetime]] = []
        ends = self._ends(first)
        start = first
        while start < self.end:
            if len(page) == limit:
                return page, True
            end = next(ends)
            page.append((start, end))
            start = end
        return page, False

    def _ends(self, first: datetime) -> Iterator[datetime]:
        """The ends of the buckets from the one starting at ``first`` on (cycles counted by
        their index from the anchor: one date computation a bucket)."""
        if self.granularity is not Granularity.CYCLE:
            step = _HOUR if self.granularity is Granularity.HOUR else _DAY
            end = first
            while True:
                end += step
                yield end
        index = cycle_index(self.anchor, first)
        while True:
            index += 1
            yield _utc(cycle_start(self.anchor, index))

    def is_bucket_start(self, at: datetime) -> bool:
        """Whether ``at`` starts one of the window's buckets."""
        return self.start <= at < self.end and floor(self.granularity, at, self.anchor) == at


def floor(granularity: Granularity, at: datetime, anchor: datetime) -> datetime:
    """The start of the bucket containing ``at`` (UTC; a cycle never starts before
    ``anchor``)."""
    at = _utc(at)
    if granularity is Granularity.HOUR:
        return at.replace(minute=0, second=0, microsecond=0)
    if granularity is Granularity.DAY:
        return at.replace(hour=0, minute=0, second=0, microsecond=0)
    return _utc(cycle_start(anchor, max(cycle_index(anchor, at), 0)))


def following(granularity: Granularity, start: datetime, anchor: datetime) -> datetime:
    """The start of the bucket after the one starting at ``start``."""
    if granularity is Granularity.HOUR:
        return start + _HOUR
    if granularity is Granularity.DAY:
        return start + _DAY
    return _utc(cycle_start(anchor, cycle_index(anchor, start) + 1))


def window(granularity: Granularity, start: datetime, end: datetime, anchor: datetime) -> Window:
    """The whole buckets covering ``[start, end)`` (``start < end``)."""
    first = floor(granularity, start, anchor)
    last = floor(granularity, end, anchor)
    if last != _utc(end):
        last = following(granularity, last, anchor)
    return Window(granularity, first, last, anchor)


# The cursor of the next page: a version, the granularity, the window's start and end and the
# next bucket's start (microseconds since the epoch), and a digest of the grouping, so a cursor
# is refused with any other query. It carries no secret: whatever range it names is checked as
# a query's would be, and read in the caller's own account.
_CURSOR = struct.Struct(">BBqqq8s")
_CURSOR_VERSION = 1
_GRANULARITIES = list(Granularity)


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where the next page starts (``next``) in the window ``start`` to ``end`` of a query of
    ``granularity`` grouped by ``group_by``."""

    granularity: Granularity
    start: datetime
    end: datetime
    next: datetime
    group_by: str | None


def _micros(at: datetime) -> int:
    return (at - _EPOCH) // timedelta(microseconds=1)


def _grouping(group_by: str | None) -> bytes:
    return hashlib.blake2b((group_by or "").encode(), digest_size=8).digest()


def encode_cursor(cursor: Cursor) -> str:
    """The opaque text of ``cursor``: 46 base64url characters."""
    raw = _CURSOR.pack(
        _CURSOR_VERSION,
        _GRANULARITIES.index(cursor.granularity),
        _micros(cursor.start),
        _micros(cursor.end),
        _micros(cursor.next),
        _grouping(cursor.group_by),
    )
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str, group_by: str | None) -> Cursor | None:
    """The :class:`Cursor` that :func:`encode_cursor` wrote as ``text`` for a query grouped by
    ``group_by``; None when ``text`` is no such cursor or was made for another grouping."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        version, kind, start, end, after, grouping = _CURSOR.unpack(raw)
        times = [_EPOCH + timedelta(microseconds=m) for m in (start, end, after)]
        granularity = _GRANULARITIES[kind]
    except (ValueError, struct.error, IndexError, OverflowError):
        return None
    if version != _CURSOR_VERSION or grouping != _grouping(group_by):
        return None
    return Cursor(granularity, times[0], times[1], times[2], group_by)
