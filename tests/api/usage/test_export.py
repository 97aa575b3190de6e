"""GET /web/usage/export: one billing cycle's usage per UTC day and
platform as CSV, from the daily rollups the intake keeps."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from dateutil.relativedelta import relativedelta
from fastapi import FastAPI

from api.models import Platform
from api.usage import repository
from api.usage.cycles import containing_cycle_starts
from api.usage.repository import NewRecord
from tests.api.conftest import MakeUser, SignedIn
from tests.api.usage.test_metering import URL, key_headers, record, set_anchor


async def backfill(
    app: FastAPI, me: SignedIn, anchor: datetime, records: list[dict[str, Any]]
) -> None:
    """Store ``records`` (the intake's shape) as the intake would have when they were new:
    the intake now refuses records older than the previous cycle, and these are."""
    times = [datetime.fromisoformat(r["time"]) for r in records]
    starts = containing_cycle_starts(anchor, times)
    rows = [
        NewRecord(r["idempotencyKey"], Platform(r["platform"]), r["runs"], r["credits"], at, s)
        for r, at, s in sorted(
            zip(records, times, starts, strict=True), key=lambda t: t[0]["idempotencyKey"]
        )
    ]
    async with app.state.resources.sessionmaker() as db, db.begin():
        counted = await repository.insert_records(db, me.account.id, rows)
        assert counted.accepted == len(rows)


async def cycles(client: httpx.AsyncClient, me: SignedIn) -> list[int]:
    usage = (await client.get("/web/account", headers=me.headers)).json()["account"]["usage"]
    return [entry["startMs"] for entry in usage]


async def export(client: httpx.AsyncClient, me: SignedIn, start_ms: int) -> httpx.Response:
    return await client.get(
        "/web/usage/export", params={"cycleStartMs": start_ms}, headers=me.headers
    )


def rows(response: httpx.Response) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(response.text)))


def month_end_anchor() -> datetime:
    """10:00 UTC on the 31st of a recent month followed by a shorter one (so the next cycle
    starts on that month's last day), 2 to 12 months ago."""
    now = datetime.now(UTC)
    for back in range(2, 13):
        month = now - relativedelta(months=back)
        if month.month in (1, 3, 5, 8, 10):
            return datetime(month.year, month.month, 31, 10, tzinfo=UTC)
    raise AssertionError("every 12 months hold such a month")


class TestExport:
    async def test_every_day_and_platform_of_the_cycle_adding_up_to_its_usage(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        anchor = month_end_anchor()  # e.g. Jan 31 10:00: the next cycle starts Feb 28 10:00
        nxt = anchor + relativedelta(months=1)
        await set_anchor(app, me.account.id, anchor)
        day = anchor.date() + timedelta(days=1)
        at = lambda d, hour: datetime(d.year, d.month, d.day, hour, tzinfo=UTC)  # noqa: E731
        records = [
            record("web", runs=1, credits=4, at=at(day, 9)),
            record("web", runs=2, credits=5, at=at(day, 23)),
            record("api", runs=1, credits=7, at=at(nxt.date() - timedelta(days=1), 12)),
            # The next cycle's first day is cut in two at 10:00.
            record("nativeMobile", runs=1, credits=2, at=at(nxt.date(), 9)),
            record("nativeMobile", runs=1, credits=3, at=at(nxt.date(), 11)),
        ]
        await backfill(app, me, anchor, records)
        other = await make_user()  # another account's usage never shows
        await client.post(URL, headers=key_headers(other), json={"records": [record()]})

        first = int(anchor.timestamp() * 1000)
        assert first in await cycles(client, me)
        response = await export(client, me, first)
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/csv; charset=utf-8"
        assert response.headers["content-disposition"] == (
            f'attachment; filename="usage-{anchor.date().isoformat()}.csv"'
        )
        assert response.text.startswith("date,platform,runs,credits,key not recorded\r\n")
        table = rows(response)
        days = sorted({r["date"] for r in table})
        span = (nxt.date() - anchor.date()).days + 1
        assert (days[0], days[-1], len(days)) == (
            anchor.date().isoformat(),
            nxt.date().isoformat(),
            span,
        )
        assert len(table) == span * 3  # zeros included
        by_key = {(r["date"], r["platform"]): (int(r["runs"]), int(r["credits"])) for r in table}
        assert by_key[(day.isoformat(), "web")] == (3, 9)
        assert by_key[((nxt.date() - timedelta(days=1)).isoformat(), "api")] == (1, 7)
        assert by_key[(nxt.date().isoformat(), "nativeMobile")] == (1, 2)  # before 10:00
        assert by_key[((day + timedelta(days=1)).isoformat(), "web")] == (0, 0)
        assert sum(c for _, c in by_key.values()) == 4 + 5 + 7 + 2

        second = rows(await export(client, me, int(nxt.timestamp() * 1000)))
        second_by_key = {(r["date"], r["platform"]): int(r["credits"]) for r in second}
        assert second_by_key[(nxt.date().isoformat(), "nativeMobile")] == 3  # after 10:00

    async def test_the_current_cycle_ends_today(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await client.post(URL, headers=key_headers(me), json={"records": [record()]})
        table = rows(await export(client, me, (await cycles(client, me))[-1]))
        today = datetime.now(UTC).date().isoformat()
        assert table[-1]["date"] == today
        assert {r["date"] for r in table} == {today}
        assert [(r["platform"], r["credits"]) for r in table] == [
            ("web", "3"),
            ("nativeMobile", "0"),
            ("api", "0"),
        ]

    async def test_only_the_cycles_shown(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        start = (await cycles(client, me))[-1]
        for wrong in (start + 1, start - int(timedelta(days=400).total_seconds() * 1000)):
            response = await export(client, me, wrong)
            assert response.status_code == 404
            assert response.json()["message"] == "There is no such billing cycle in the last 12."
        assert (await client.get("/web/usage/export", headers=me.headers)).status_code == 422

    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/web/usage/export", params={"cycleStartMs": 0})
        assert response.status_code == 401
