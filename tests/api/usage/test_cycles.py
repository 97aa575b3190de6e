"""Monthly billing cycles from an anchor (SPEC 9)."""

from datetime import UTC, datetime

from api.usage.cycles import (
    containing_cycle_starts,
    current_cycle_start,
    cycle_index,
    recent_cycle_starts,
    reset_date,
)


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
