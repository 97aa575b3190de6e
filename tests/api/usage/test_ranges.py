"""The time rules of GET /web/usage (api/usage/ranges.py): buckets, widening, the retention and
the cursor, on their own (no database, no clock)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from api.usage.ranges import (
    Cursor,
    Granularity,
    decode_cursor,
    encode_cursor,
    retention,
    window,
)

ANCHOR = datetime(2026, 1, 31, 10, 15, tzinfo=UTC)  # cycles: Jan 31, Feb 28, Mar 31, Apr 30...


def test_cycles_clamp_to_month_ends_and_never_start_before_the_anchor() -> None:
    inside = window(
        Granularity.CYCLE,
        datetime(2026, 3, 1, tzinfo=UTC),
        datetime(2026, 4, 30, 10, 15, tzinfo=UTC),
        ANCHOR,
    )
    assert (inside.start, inside.end) == (
        datetime(2026, 2, 28, 10, 15, tzinfo=UTC),
        datetime(2026, 4, 30, 10, 15, tzinfo=UTC),  # a cycle's start is its own end
    )
    edges, more = inside.buckets(inside.start, 10)
    assert edges == [
        (datetime(2026, 2, 28, 10, 15, tzinfo=UTC), datetime(2026, 3, 31, 10, 15, tzinfo=UTC)),
        (datetime(2026, 3, 31, 10, 15, tzinfo=UTC), datetime(2026, 4, 30, 10, 15, tzinfo=UTC)),
    ]
    assert not more
    early = window(Granularity.CYCLE, ANCHOR - timedelta(days=5), ANCHOR, ANCHOR)
    assert early.start == ANCHOR


def test_hours_and_days_are_utc_whatever_the_offset() -> None:
    plus_5_30 = timezone(timedelta(hours=5, minutes=30))
    start = datetime(2026, 6, 1, 5, 45, tzinfo=plus_5_30)  # 00:15 UTC
    hours = window(Granularity.HOUR, start, start + timedelta(hours=1), ANCHOR)
    assert (hours.start, hours.end) == (
        datetime(2026, 6, 1, 0, tzinfo=UTC),
        datetime(2026, 6, 1, 2, tzinfo=UTC),
    )
    days = window(Granularity.DAY, start, start + timedelta(minutes=1), ANCHOR)
    assert (days.start, days.end) == (
        datetime(2026, 6, 1, tzinfo=UTC),
        datetime(2026, 6, 2, tzinfo=UTC),
    )
    edges, more = hours.buckets(hours.start, 1)
    assert edges == [(hours.start, hours.start + timedelta(hours=1))] and more


def test_the_retention_is_the_twelve_cycles_shown() -> None:
    kept = retention(ANCHOR, datetime(2027, 6, 15, tzinfo=UTC))
    assert kept.earliest == datetime(2026, 6, 30, 10, 15, tzinfo=UTC)
    assert kept.latest == datetime(2027, 6, 30, 10, 15, tzinfo=UTC)
    young = retention(ANCHOR, datetime(2026, 2, 3, tzinfo=UTC))
    assert (young.earliest, young.latest) == (ANCHOR, datetime(2026, 2, 28, 10, 15, tzinfo=UTC))


def test_a_cursor_round_trips_for_its_own_grouping_only() -> None:
    cursor = Cursor(
        Granularity.HOUR,
        datetime(2026, 6, 1, tzinfo=UTC),
        datetime(2026, 6, 4, tzinfo=UTC),
        datetime(2026, 6, 2, 7, tzinfo=UTC),
        "label:project",
    )
    text = encode_cursor(cursor)
    assert len(text) == 46 and text.replace("-", "").replace("_", "").isalnum()
    assert decode_cursor(text, "label:project") == cursor
    assert decode_cursor(text, "label:ci") is None
    assert decode_cursor(text, None) is None
    for garbage in ("", "!", "AAAA", text[:-1], text + "A"):
        assert decode_cursor(garbage, "label:project") is None
