"""Monthly billing cycles from an anchor (SPEC 9)."""

from datetime import UTC, datetime, timedelta

import pytest

from api.usage.cycles import (
    USAGE_CYCLES_SHOWN,
    containing_cycle_starts,
    current_cycle_start,
    cycle_index,
    cycle_start,
    epoch_ms,
    recent_cycle_starts,
    reset_date,
)
from api.usage.view import _CYCLES, shown_cycles


def d(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_cycle_contains_its_start_and_not_the_next() -> None:
    anchor = d(2026, 1, 15, 10)
    assert cycle_index(anchor, d(2026, 1, 15, 10)) == 0
    assert cycle_index(anchor, d(2026, 2, 15, 9, 59)) == 0
    assert cycle_index(anchor, d(2026, 2, 15, 10)) == 1
    assert cycle_index(anchor, d(2027, 1, 15, 10)) == 12


def test_month_end_anchor_clamps_without_drift() -> None:
    anchor = d(2026, 1, 31)
    starts = recent_cycle_starts(anchor, d(2026, 4, 1), 12)
    assert starts == [d(2026, 1, 31), d(2026, 2, 28), d(2026, 3, 31)]


def test_before_the_anchor_is_the_first_cycle() -> None:
    anchor = d(2026, 5, 1)
    assert current_cycle_start(anchor, d(2026, 4, 1)) == anchor
    assert recent_cycle_starts(anchor, d(2026, 4, 1), 12) == [anchor]


def test_recent_cycles_are_capped() -> None:
    starts = recent_cycle_starts(d(2020, 1, 1), d(2026, 6, 10), 12)
    assert len(starts) == 12
    assert starts[-1] == d(2026, 6, 1)
    assert starts[0] == d(2025, 7, 1)


def test_reset_date_is_one_month_after_the_latest_start() -> None:
    assert reset_date(d(2026, 1, 31)) == d(2026, 2, 28)
    assert reset_date(d(2026, 11, 5)) == d(2026, 12, 5)


def test_containing_cycle_starts_places_each_time_in_its_cycle_in_order() -> None:
    anchor = d(2026, 1, 31)
    times = [
        d(2026, 3, 31),  # the March cycle's first instant
        d(2026, 2, 27, 23, 59),  # still January's cycle (Jan 31 - Feb 28)
        d(2025, 12, 1),  # before the anchor: the first cycle
        d(2026, 2, 28),  # February's cycle (clamped to the 28th)
        d(2026, 3, 30, 23, 59),  # still February's cycle
    ]
    assert containing_cycle_starts(anchor, times) == [
        d(2026, 3, 31),
        d(2026, 1, 31),
        d(2026, 1, 31),
        d(2026, 2, 28),
        d(2026, 2, 28),
    ]
    assert containing_cycle_starts(anchor, []) == []
    assert all(
        containing_cycle_starts(anchor, [t]) == [current_cycle_start(anchor, t)] for t in times
    )


@pytest.mark.parametrize(
    ("anchor", "now"),
    [
        (d(2026, 1, 15, 10), d(2026, 2, 15, 9, 59)),
        (d(2026, 1, 15, 10), d(2026, 2, 15, 10)),
        (datetime(2025, 1, 31, 12, 0, 0, 123_000, tzinfo=UTC), d(2025, 2, 28, 11, 59, 59)),
        (datetime(2025, 1, 31, 12, 0, 0, 123_000, tzinfo=UTC), d(2026, 2, 28, 12, 0, 0, 1)),
        (d(2026, 1, 31), d(2026, 4, 1)),
        (d(2026, 5, 1), d(2026, 4, 1)),  # before the anchor: its first cycle
        (d(2020, 1, 1), d(2026, 6, 10)),  # capped
    ],
)
def test_the_usage_view_shows_these_cycles_and_reuses_them_within_one(
    anchor: datetime, now: datetime
) -> None:
    # The usage view (api/usage/view.py) keeps the shown cycles per anchor until the next
    # cycle starts: asked at ``now``, then a microsecond before the next start, then at it.
    _CYCLES.clear()
    expected = recent_cycle_starts(anchor, now, USAGE_CYCLES_SHOWN)
    assert [start for start, _ in shown_cycles(anchor, now)] == expected
    assert [ms for _, ms in shown_cycles(anchor, now)] == [epoch_ms(s) for s in expected]
    following = cycle_start(anchor, max(cycle_index(anchor, now), 0) + 1)
    for at in (following - timedelta(microseconds=1), following):
        assert [start for start, _ in shown_cycles(anchor, at)] == recent_cycle_starts(
            anchor, at, USAGE_CYCLES_SHOWN
        )
