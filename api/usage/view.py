"""Metering's read model: ``usage`` of ``GET /web/account`` (SPEC 2 usage graph, 3 "Usage
entry"), its wire JSON built here and nowhere else.

One Python mapper (:func:`usage_entries`) over one query's rows: the account's rollups since a
bound (:func:`usage_rows_sql`, a part of the account view's statement). Python, not SQL,
builds the entries: PostgreSQL building 12 cycles of nested JSON cost about a third of
``GET /web/account``'s PostgreSQL time, the cycle starts are the same from one request to the
next (cached per anchor until the next cycle begins), and orjson writes the dicts in
microseconds (docs/contributors/performance.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from api.kernel.schemas import sql_literal
from api.models import Platform
from api.usage.cycles import USAGE_CYCLES_SHOWN, cycle_index, cycle_start, epoch_ms

PLATFORMS = (Platform.WEB, Platform.NATIVE_MOBILE, Platform.API)
"""The platforms of a usage entry, in the order :func:`usage_rows_sql` numbers them."""
_WEB, _MOBILE, _API = range(len(PLATFORMS))

OLDEST_SHOWN = timedelta(days=31 * USAGE_CYCLES_SHOWN)
"""No cycle shown starts earlier than this before now: a cycle lasts at most 31 days, so the
first of the last 12 starts less than 12 x 31 days ago. :func:`usage_rows_sql` reads the
rollups since ``now`` minus this (a few rows too many at most, which the mapper skips)."""


def usage_rows_sql(account_id: str, since: str) -> str:
    """SQL for the rollups of the account ``account_id`` (an SQL expression) whose cycle starts
    at or after ``since`` (a timestamptz SQL expression), as one two-dimensional bigint array
    of (cycle start in epoch milliseconds, platform as its index in :data:`PLATFORMS`, runs,
    credits), NULL when there is none: the rows :func:`usage_entries` maps. Numbers only,
    because asyncpg decodes an array of bigints in C at a fraction of what an array of records
    costs it (the worker's CPU, bench/api.py). An index range of the primary key. Arguments
    are constant SQL text, never values."""
    platform = " ".join(f"WHEN {sql_literal(p.value)} THEN {i}" for i, p in enumerate(PLATFORMS))
    return f"""(
        SELECT array_agg(ARRAY[floor(extract(epoch FROM u.cycle_start) * 1000)::bigint,
                               CASE u.platform {platform} END, u.runs, u.credits])
        FROM usage AS u WHERE u.account_id = {account_id} AND u.cycle_start >= {since}
    )"""  # noqa: S608 - constant SQL text only


# Per anchor: (the current cycle's start, the next's, the shown cycles' (start, startMs)).
_Cycles = tuple[datetime, datetime, tuple[tuple[datetime, int], ...]]
_CYCLES: dict[datetime, _Cycles] = {}
_CYCLES_KEPT = 4096


def shown_cycles(anchor: datetime, now: datetime) -> tuple[tuple[datetime, int], ...]:
    """The starts of the cycles the graph shows at ``now`` for an account anchored at
    ``anchor`` (``recent_cycle_starts``: up to 12, oldest first, never before the anchor), each
    with its start in epoch milliseconds. Computed once per anchor and cycle: the answer holds
    until the next cycle starts."""
    cached = _CYCLES.get(anchor)
    if cached is not None and cached[0] <= now < cached[1]:
        return cached[2]
    last = max(cycle_index(anchor, now), 0)
    first = max(last - USAGE_CYCLES_SHOWN + 1, 0)
    starts = tuple(
        (s, epoch_ms(s)) for s in (cycle_start(anchor, i) for i in range(first, last + 1))
    )
    # Before the anchor, the first cycle is shown; it holds until the second starts.
    if len(_CYCLES) >= _CYCLES_KEPT:
        _CYCLES.clear()
    _CYCLES[anchor] = (
        starts[-1][0] if now >= anchor else now,
        cycle_start(anchor, last + 1),
        starts,
    )
    return starts


def cycles_window(anchor: datetime, now: datetime) -> tuple[datetime, datetime]:
    """The span around ``now`` in which :func:`shown_cycles` (so :func:`usage_entries`, for the
    same rows) answers as at ``now``: from the current cycle's start (``now`` itself before
    the anchor) to the next cycle's, excluded."""
    shown_cycles(anchor, now)
    since, until, _ = _CYCLES[anchor]
    return since, until


def usage_entries(
    rows: Iterable[Sequence[int]] | None, anchor: datetime, now: datetime
) -> list[dict[str, Any]]:
    """``usage`` as the wire has it (``UsageEntry`` JSON): one entry per cycle of
    :func:`shown_cycles`, oldest first, zeros where nothing was metered; ``startMs`` the start
    in whole epoch milliseconds, ``requests`` the credits of all platforms. ``rows``: (cycle
    start in epoch milliseconds, platform index, runs, credits) rollups as
    :func:`usage_rows_sql` gives them, any order; those of other cycles are skipped."""
    totals: dict[tuple[int, int], tuple[int, int]] = {}
    for start_ms, platform, runs, credits in rows or ():
        totals[start_ms, platform] = (runs, credits)
    entries = []
    zero = (0, 0)
    for _, start_ms in shown_cycles(anchor, now):
        web_runs, web_credits = totals.get((start_ms, _WEB), zero)
        mobile_runs, mobile_credits = totals.get((start_ms, _MOBILE), zero)
        api_runs, api_credits = totals.get((start_ms, _API), zero)
        entries.append(
            {
                "startMs": start_ms,
                "requests": web_credits + mobile_credits + api_credits,
                "web": {"runs": web_runs, "credits": web_credits},
                "nativeMobile": {"runs": mobile_runs, "credits": mobile_credits},
                "api": {"runs": api_runs, "credits": api_credits},
            }
        )
    return entries
