"""Monthly billing cycles from an anchor (SPEC 9)."""

from datetime import UTC, datetime

import pytest
from fastapi import FastAPI

from api.kernel.db import driver_connection
from api.usage.cycles import (
    containing_cycle_starts,
    current_cycle_start,
    cycle_index,
    recent_cycle_starts,
    recent_cycle_starts_sql,
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


@pytest.mark.parametrize(
    ("anchor", "now", "count"),
    [
        (d(2026, 1, 15, 10), d(2026, 2, 15, 9, 59), 12),
        (d(2026, 1, 15, 10), d(2026, 2, 15, 10), 12),
        (datetime(2025, 1, 31, 12, 0, 0, 123_000, tzinfo=UTC), d(2025, 2, 28, 11, 59, 59), 12),
        (datetime(2025, 1, 31, 12, 0, 0, 123_000, tzinfo=UTC), d(2026, 2, 28, 12, 0, 0, 1), 12),
        (d(2026, 1, 31), d(2026, 4, 1), 12),
        (d(2026, 5, 1), d(2026, 4, 1), 12),  # before the anchor: its first cycle
        (d(2020, 1, 1), d(2026, 6, 10), 12),  # capped
        (d(2020, 1, 1), d(2026, 6, 10), 1),
    ],
)
async def test_the_sql_counts_cycles_as_the_python_does(
    app: FastAPI, anchor: datetime, now: datetime, count: int
) -> None:
    # The account view's statement lists the cycles in SQL (recent_cycle_starts_sql).
    starts = recent_cycle_starts_sql(
        "CAST($1 AS timestamptz)", "CAST($2 AS timestamptz)", "CAST($3 AS int)"
    )
    sql = f"SELECT s.start FROM {starts} AS s ORDER BY s.start"  # noqa: S608 - constant SQL
    async with driver_connection(app.state.resources.read_engine) as connection:
        rows = await connection.fetch(sql, anchor, now, count)
    assert [row[0] for row in rows] == recent_cycle_starts(anchor, now, count)
