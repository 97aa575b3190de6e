"""Monthly billing cycles counted from an account's anchor (SPEC 9 "Billing cycle is monthly").

Cycle ``n`` starts at ``anchor + n months``; a day that a month lacks clamps to the month's
last day (an anchor on Jan 31 gives Feb 28/29, then Mar 31), as Stripe's billing anchors do.
Every start is computed from the anchor, never from the previous start, so there is no drift.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from dateutil.relativedelta import relativedelta

USAGE_CYCLES_SHOWN = 12
"""How many billing cycles the usage graph shows (SPEC 2 usage graph), the current one last."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def epoch_ms(at: datetime) -> int:
    """``at`` (aware) in whole epoch milliseconds, rounded down, exactly: integer arithmetic on
    the timedelta, where ``int(at.timestamp() * 1000)`` can land a millisecond low through
    float rounding. A cycle's ``startMs`` on the wire (``api.usage.view``)."""
    return (at - _EPOCH) // _MS


def cycle_start(anchor: datetime, index: int) -> datetime:
    """Start of cycle ``index`` (0 = the cycle that begins at the anchor)."""
    return anchor + relativedelta(months=index)


def cycle_index(anchor: datetime, at: datetime) -> int:
    """Index of the cycle containing ``at``; negative before the anchor."""
    months = (at.year - anchor.year) * 12 + (at.month - anchor.month)
    if cycle_start(anchor, months) > at:
        months -= 1
    elif cycle_start(anchor, months + 1) <= at:
        months += 1
    return months


def current_cycle_start(anchor: datetime, now: datetime) -> datetime:
    """Start of the cycle containing ``now`` (the anchor itself if ``now`` is before it)."""
    return cycle_start(anchor, max(cycle_index(anchor, now), 0))


def oldest_accepted_time(anchor: datetime, now: datetime) -> datetime:
    """The start of the cycle before the one containing ``now``: the oldest record time the
    metering intake accepts. For an account still in its first cycle, one month before the
    anchor (such records count in the first cycle)."""
    return cycle_start(anchor, max(cycle_index(anchor, now), 0) - 1)


def recent_cycle_starts(anchor: datetime, now: datetime, count: int) -> list[datetime]:
    """Starts of up to ``count`` cycles ending with the current one, oldest first.

    Never earlier than the anchor.
    """
    last = max(cycle_index(anchor, now), 0)
    first = max(last - count + 1, 0)
    return [cycle_start(anchor, i) for i in range(first, last + 1)]


def reset_date(latest_cycle_start: datetime) -> datetime:
    """When the allowance resets: one month after the latest cycle start (SPEC 9)."""
    return latest_cycle_start + relativedelta(months=1)


def containing_cycle_starts(anchor: datetime, times: Sequence[datetime]) -> list[datetime]:
    """Start of the billing cycle containing each of ``times`` (same order).

    A time before the anchor counts in the first cycle (the anchor's). Computes the cycle
    boundaries once for the span of ``times`` and bisects, so a batch costs one date
    computation per cycle it spans, not per record.
    """
    if not times:
        return []
    first = max(cycle_index(anchor, min(times)), 0)
    last = max(cycle_index(anchor, max(times)), 0)
    starts = [cycle_start(anchor, i) for i in range(first, last + 1)]
    return [starts[max(bisect_right(starts, at) - 1, 0)] for at in times]
