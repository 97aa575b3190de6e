"""GET /web/usage (README "Usage API"): usage over any range of the 12 billing cycles kept, per
hour, UTC day or billing cycle, split by platform, grouped by API key or by a label's values,
a page at a time, as JSON or CSV; read from the rollups the intake keeps, never the records."""

from __future__ import annotations

import csv
import io
import random
import uuid
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from dateutil.relativedelta import relativedelta
from fastapi import FastAPI
from sqlalchemy import delete, func, select

from api.models import ApiKey, ApiKeyUsageHourly, Platform, UsageHourly, UsageRecord
from api.usage import repository
from api.usage.cycles import containing_cycle_starts, cycle_start
from api.usage.repository import NewRecord
from api.usage.schemas import UsageResponse
from tests.api.conftest import MakeUser, SignedIn
from tests.api.usage.test_breakdown import labelled, send
from tests.api.usage.test_metering import record, set_anchor

USAGE = "/web/usage"
PLATFORMS = ("web", "nativeMobile", "api")
HOUR = timedelta(hours=1)


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class Sent:
    """A record as stored: its time, platform, figures, key and labels."""

    at: datetime
    platform: str
    runs: int
    credits: int
    key_id: uuid.UUID | None
    labels: dict[str, str] | None


async def key_id_of(app: FastAPI, me: SignedIn) -> uuid.UUID:
    async with app.state.resources.sessionmaker() as db:
        key = await db.scalar(select(ApiKey.id).where(ApiKey.account_id == me.account.id))
    assert key is not None
    return key


async def store(app: FastAPI, me: SignedIn, anchor: datetime, sent: list[Sent]) -> None:
    """Count ``sent`` through the intake's statement, each with its key (the intake itself
    refuses records older than the previous cycle, and sends one key per batch)."""
    by_key: dict[uuid.UUID | None, list[Sent]] = defaultdict(list)
    for s in sent:
        by_key[s.key_id].append(s)
    async with app.state.resources.sessionmaker() as db, db.begin():
        for key_id, group in by_key.items():
            starts = containing_cycle_starts(anchor, [s.at for s in group])
            rows = sorted(
                (
                    NewRecord(
                        str(uuid.uuid4()),
                        Platform(s.platform),
                        s.runs,
                        s.credits,
                        s.at,
                        start,
                        s.labels,
                    )
                    for s, start in zip(group, starts, strict=True)
                ),
                key=lambda r: r.idempotency_key,
            )
            counted = await repository.insert_records(db, me.account.id, rows, key_id)
            assert counted.accepted == len(rows)


async def usage(client: httpx.AsyncClient, me: SignedIn, **params: Any) -> dict[str, Any]:
    response = await client.get(USAGE, params=params, headers=me.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    # The JSON the route writes itself is the contract's UsageResponse, field for field.
    assert UsageResponse.model_validate(body).model_dump(mode="json", by_alias=True) == body
    return body


def expected(sent: Iterable[Sent], start: datetime, end: datetime) -> dict[str, Any]:
    """What a bucket [start, end) should count of ``sent`` (by record time)."""
    figures = {p: {"requests": 0, "records": 0, "runs": 0} for p in PLATFORMS}
    for s in sent:
        if start <= s.at < end:
            figures[s.platform]["requests"] += s.credits
            figures[s.platform]["records"] += 1
            figures[s.platform]["runs"] += s.runs
    totals = {k: sum(f[k] for f in figures.values()) for k in ("requests", "records", "runs")}
    return {**totals, **figures}


def figures_of(bucket: dict[str, Any]) -> dict[str, Any]:
    return {k: bucket[k] for k in ("requests", "records", "runs", *PLATFORMS)}


def moment() -> datetime:
    """10 minutes past the hour before last: a time the intake takes, in the past."""
    return datetime.now(UTC).replace(minute=10, second=0, microsecond=0) - 2 * HOUR


def around(at: datetime) -> dict[str, str]:
    """``from`` and ``to`` of the one bucket (of any granularity) holding ``at``."""
    return {"from": iso(at), "to": iso(at + timedelta(seconds=1))}


async def history(app: FastAPI, make_user: MakeUser, months: int = 3) -> tuple[SignedIn, datetime]:
    """An account anchored ``months`` ago at :17 past an hour (cycles do not start on the
    hour), with its current API key."""
    me = await make_user()
    now = datetime.now(UTC)
    anchor = (now - relativedelta(months=months, days=2)).replace(
        minute=17, second=0, microsecond=0
    )
    await set_anchor(app, me.account.id, anchor)
    return me, anchor


def spread(
    rng: random.Random, key_id: uuid.UUID | None, since: datetime, until: datetime, count: int
) -> list[Sent]:
    span = (until - since).total_seconds()
    return [
        Sent(
            since + timedelta(seconds=rng.uniform(0, span)),
            rng.choice(PLATFORMS),
            rng.randint(0, 2),
            rng.randint(0, 9),
            key_id,
            {"project": rng.choice(("checkout", "search", "login"))}
            if rng.random() < 0.7
            else None,
        )
        for _ in range(count)
    ]


class TestFigures:
    async def test_hourly_figures_are_the_sums_of_the_records(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, anchor = await history(app, make_user)
        rng = random.Random(11)
        until = datetime.now(UTC) - HOUR
        since = until - timedelta(days=2)
        sent = spread(rng, await key_id_of(app, me), since, until, 400)
        # Two records at the very edges of an hour: 10:00:00 counts in 10:00, 10:59:59.999999 too.
        edge = since.replace(minute=0, second=0, microsecond=0) + 5 * HOUR
        sent += [
            Sent(edge, "api", 1, 7, None, None),
            Sent(edge + HOUR - timedelta(microseconds=1), "api", 1, 5, None, None),
        ]
        await store(app, me, anchor, sent)
        body = await usage(
            client, me, granularity="hour", **{"from": iso(since), "to": iso(until)}, limit=1000
        )
        first = since.replace(minute=0, second=0, microsecond=0)
        assert body["from"] == iso(first)
        assert body["to"] == iso(until.replace(minute=0, second=0, microsecond=0) + HOUR)
        assert body["nextCursor"] is None
        starts = [datetime.fromisoformat(b["start"]) for b in body["buckets"]]
        assert starts == [first + i * HOUR for i in range(len(starts))]  # every hour, in order
        for bucket in body["buckets"]:
            start = datetime.fromisoformat(bucket["start"])
            assert datetime.fromisoformat(bucket["end"]) == start + HOUR
            assert figures_of(bucket) == expected(sent, start, start + HOUR), bucket["start"]
            assert bucket["groups"] == []
        at_edge = next(b for b in body["buckets"] if b["start"] == iso(edge))
        assert at_edge["api"]["requests"] >= 12
        # And in the database, per hour, the rollup is the records' sums.
        async with app.state.resources.sessionmaker() as db:
            hour = func.date_trunc("hour", UsageRecord.recorded_at, "UTC")
            from_records = await db.execute(
                select(hour, UsageRecord.platform, func.sum(UsageRecord.credits), func.count())
                .where(UsageRecord.account_id == me.account.id)
                .group_by(hour, UsageRecord.platform)
            )
            rollup = await db.execute(
                select(
                    UsageHourly.hour, UsageHourly.platform, UsageHourly.credits, UsageHourly.records
                ).where(UsageHourly.account_id == me.account.id)
            )
            assert sorted(map(tuple, from_records)) == sorted(map(tuple, rollup))

    async def test_days_add_up_their_hours_and_cycles_are_the_graphs(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, anchor = await history(app, make_user)
        rng = random.Random(5)
        key_id = await key_id_of(app, me)
        now = datetime.now(UTC)
        sent = spread(rng, key_id, anchor - timedelta(days=3), now - HOUR, 600)
        await store(app, me, anchor, sent)

        since = (now - timedelta(days=10)).replace(hour=0, minute=0, second=0, microsecond=0)
        days = await usage(client, me, granularity="day", **{"from": iso(since)})
        hours = await usage(client, me, granularity="hour", **{"from": iso(since)}, limit=1000)
        assert days["from"] == hours["from"] == iso(since)
        assert len(days["buckets"]) == 11  # ten days and today, widened to its end
        for day in days["buckets"]:
            start = datetime.fromisoformat(day["start"])
            assert figures_of(day) == expected(sent, start, start + timedelta(days=1))
            inside = [
                h
                for h in hours["buckets"]
                if start <= datetime.fromisoformat(h["start"]) < start + timedelta(days=1)
            ]
            assert day["requests"] == sum(h["requests"] for h in inside)
            assert day["records"] == sum(h["records"] for h in inside)

        cycles = await usage(client, me, granularity="cycle")
        graph = (await client.get("/web/account", headers=me.headers)).json()["account"]["usage"]
        assert [
            (
                int(datetime.fromisoformat(c["start"]).timestamp() * 1000),
                c["requests"],
                {p: {"runs": c[p]["runs"], "credits": c[p]["requests"]} for p in PLATFORMS},
            )
            for c in cycles["buckets"]
        ] == [(e["startMs"], e["requests"], {p: e[p] for p in PLATFORMS}) for e in graph]
        # A cycle counts its records, those timed before the anchor in the first one.
        assert cycles["buckets"][0]["start"] == iso(anchor)
        first_end = cycle_start(anchor, 1)
        assert figures_of(cycles["buckets"][0]) == expected(
            sent, anchor - timedelta(days=9), first_end
        )
        assert sum(c["records"] for c in cycles["buckets"]) == len(sent)

    async def test_a_range_is_widened_to_whole_buckets(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, anchor = await history(app, make_user)
        second = cycle_start(anchor, 1)
        body = await usage(
            client,
            me,
            granularity="cycle",
            **{"from": iso(second + timedelta(days=3)), "to": iso(second + timedelta(days=4))},
        )
        assert [(b["start"], b["end"]) for b in body["buckets"]] == [
            (iso(second), iso(cycle_start(anchor, 2)))
        ]
        at = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - 5 * HOUR
        hours = await usage(
            client,
            me,
            granularity="hour",
            **{"from": iso(at + timedelta(minutes=30)), "to": iso(at + 2 * HOUR)},
        )
        assert (hours["from"], hours["to"]) == (iso(at), iso(at + 2 * HOUR))
        assert len(hours["buckets"]) == 2
        # Offsets other than UTC name the same instants.
        plus_two = (at + 2 * HOUR).astimezone(UTC).replace(tzinfo=None).isoformat() + "+02:00"
        shifted = await usage(
            client, me, granularity="hour", **{"from": plus_two, "to": iso(at + 3 * HOUR)}
        )
        assert shifted["from"] == iso(at)

    async def test_the_defaults_reach_back_over_the_retention(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        anchor = (datetime.now(UTC) - relativedelta(months=14)).replace(microsecond=0)
        await set_anchor(app, me.account.id, anchor)
        cycles = await usage(client, me, granularity="cycle")
        assert len(cycles["buckets"]) == 12  # the graph's
        assert cycles["from"] == iso(cycle_start(anchor, 3))
        hours = await usage(client, me, granularity="hour", limit=1000)
        span = datetime.fromisoformat(hours["to"]) - datetime.fromisoformat(hours["from"])
        assert timedelta(days=92) <= span <= timedelta(days=92, hours=2)
        days = await usage(client, me, granularity="day", limit=1000)
        assert days["from"] == iso(cycle_start(anchor, 3).replace(hour=0, minute=0, second=0))
        assert days["nextCursor"] is None and len(days["buckets"]) >= 334

    async def test_the_records_do_not_count_the_rollups_do(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await send(client, me.api_key, [record(credits=4), record("api", credits=2)])
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(delete(UsageRecord).where(UsageRecord.account_id == me.account.id))
        for granularity in ("hour", "day", "cycle"):
            body = await usage(client, me, granularity=granularity)
            assert sum(b["requests"] for b in body["buckets"]) == 6, granularity
            assert sum(b["records"] for b in body["buckets"]) == 2, granularity


class TestGrouping:
    async def test_by_api_key_across_a_roll_and_what_no_key_sent(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, anchor = await history(app, make_user)
        at = moment()
        await send(client, me.api_key, [record(credits=30, at=at), record("api", credits=5, at=at)])
        rolled = await client.post("/web/api-keys/roll", json={"overlap": "1h"}, headers=me.headers)
        new, old = rolled.json()["keys"]
        key = await client.post(
            f"/web/api-keys/{new['id']}/reveal", json={"purpose": "copy"}, headers=me.headers
        )
        await send(
            client, key.json()["key"], [record(credits=50, at=at), record(credits=20, at=at)]
        )
        # As for usage metered before keys were recorded (and the dev seed's): no key.
        await store(app, me, anchor, [Sent(at, "nativeMobile", 1, 9, None, None)])
        for granularity in ("hour", "day", "cycle"):
            body = await usage(client, me, granularity=granularity, groupBy="apiKey", **around(at))
            assert body["groupBy"] == "apiKey"
            assert [(k["id"], k["masked"], k["expired"]) for k in body["apiKeys"]] == [
                (new["id"], new["masked"], False),
                (old["id"], old["masked"], False),
            ]
            (bucket,) = body["buckets"]
            assert bucket["requests"] == 114
            groups = [
                (g["kind"], g["group"], g["requests"], g["records"]) for g in bucket["groups"]
            ]
            assert groups == [
                ("apiKey", new["id"], 70, 2),
                ("apiKey", old["id"], 35, 2),
                ("keyNotRecorded", None, 9, 1),
            ], granularity
            assert bucket["groups"][1]["api"] == {"requests": 5, "records": 1, "runs": 1}
            assert bucket["groups"][2]["nativeMobile"]["requests"] == 9
            for p in PLATFORMS:  # the groups make the bucket, platform by platform
                assert sum(g[p]["requests"] for g in bucket["groups"]) == bucket[p]["requests"]

    async def test_by_label_values_then_the_rest(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, _ = await history(app, make_user)
        at = moment()
        batch = [
            labelled(3, suite="b"),
            labelled(3, suite="a"),
            labelled(7, suite="c", ci="x"),
            labelled(2, ci="y"),
            record("api", credits=1),
        ]
        await send(client, me.api_key, [r | {"time": iso(at)} for r in batch])
        for granularity in ("hour", "day", "cycle"):
            body = await usage(
                client, me, granularity=granularity, groupBy="label:suite", **around(at)
            )
            assert body["labels"] == ["ci", "suite"] and body["apiKeys"] == []
            (bucket,) = body["buckets"]
            assert [(g["kind"], g["group"], g["requests"]) for g in bucket["groups"]] == [
                ("labelValue", "c", 7),
                ("labelValue", "a", 3),  # a tie: by value
                ("labelValue", "b", 3),
                ("withoutLabel", None, 3),
            ], granularity
            assert bucket["groups"][-1]["api"]["requests"] == 1
            assert bucket["groups"][-1]["records"] == 2

    async def test_values_past_the_cap_are_other_values(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, anchor = await history(app, make_user)
        at = moment()
        sent = [Sent(at, "web", 1, 1, None, {"run": f"r{i:04d}"}) for i in range(1003)]
        await store(app, me, anchor, sent)
        body = await usage(client, me, granularity="hour", groupBy="label:run", **around(at))
        (bucket,) = body["buckets"]
        kinds = [g["kind"] for g in bucket["groups"]]
        assert kinds.count("labelValue") == 1000 and kinds[-1] == "otherValues"
        assert bucket["groups"][-1] == {
            "kind": "otherValues",
            "group": None,
            "requests": 3,
            "records": 3,
            "runs": 3,
            "web": {"requests": 3, "records": 3, "runs": 3},
            "nativeMobile": {"requests": 0, "records": 0, "runs": 0},
            "api": {"requests": 0, "records": 0, "runs": 0},
        }

    async def test_an_unknown_label_is_refused_with_the_labels_there_are(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await send(client, me.api_key, [labelled(1, project="x", ci="y")])
        response = await client.get(
            USAGE, params={"granularity": "day", "groupBy": "label:branch"}, headers=me.headers
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "UnknownLabel",
            "message": "No record of the last 12 billing cycles carries the label 'branch' "
            "(labels: ci, project).",
            "labels": ["ci", "project"],
        }
        bad = await client.get(
            USAGE, params={"granularity": "day", "groupBy": "label:Bad"}, headers=me.headers
        )
        assert bad.status_code == 422
        assert bad.json()["fields"][0]["field"] == "groupBy"

    async def test_labels_are_those_of_the_range(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, anchor = await history(app, make_user)
        now = datetime.now(UTC)
        await store(
            app,
            me,
            anchor,
            [
                Sent(now - timedelta(days=20), "web", 1, 1, None, {"old": "x"}),
                Sent(now - HOUR, "web", 1, 1, None, {"new": "y"}),
            ],
        )
        recent = await usage(
            client, me, granularity="day", **{"from": iso(now - timedelta(days=2))}
        )
        assert recent["labels"] == ["new"]
        everything = await usage(client, me, granularity="day")
        assert everything["labels"] == ["new", "old"]
        # Grouping by a label of the retention but not of the range: every bucket without it.
        body = await usage(
            client,
            me,
            granularity="day",
            groupBy="label:old",
            **{"from": iso(now - timedelta(days=2))},
        )
        assert [g["kind"] for b in body["buckets"] for g in b["groups"]] == ["withoutLabel"]


class TestPages:
    async def test_pages_walk_the_range_with_the_same_query(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, anchor = await history(app, make_user)
        rng = random.Random(3)
        until = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - HOUR
        since = until - 10 * HOUR
        sent = spread(rng, await key_id_of(app, me), since, until, 80)
        await store(app, me, anchor, sent)
        query = {
            "granularity": "hour",
            "from": iso(since),
            "to": iso(until),
            "groupBy": "label:project",
        }
        whole = await usage(client, me, **query)
        pages, cursor, links = [], None, []
        while True:
            response = await client.get(
                USAGE,
                params={**query, "limit": 3, **({"cursor": cursor} if cursor else {})},
                headers=me.headers,
            )
            assert response.status_code == 200
            body = response.json()
            pages.append(body)
            links.append(response.headers.get("link"))
            cursor = body["nextCursor"]
            if cursor is None:
                break
        assert [len(p["buckets"]) for p in pages] == [3, 3, 3, 1]
        assert [b for p in pages for b in p["buckets"]] == whole["buckets"]
        assert all((p["from"], p["to"]) == (whole["from"], whole["to"]) for p in pages)
        assert links[-1] is None
        assert links[0].startswith("</web/usage?") and links[0].endswith('>; rel="next"')
        linked = httpx.URL(links[0][1 : links[0].index(">")])
        assert dict(linked.params) == {**query, "limit": "3", "cursor": pages[0]["nextCursor"]}

    async def test_a_cursor_keeps_the_first_pages_range_when_it_is_left_out(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, anchor = await history(app, make_user)
        first = await usage(client, me, granularity="cycle", limit=2)
        assert first["from"] == iso(anchor)
        cursor, seen = first["nextCursor"], [b["start"] for b in first["buckets"]]
        while cursor:
            page = await usage(client, me, granularity="cycle", limit=2, cursor=cursor)
            assert (page["from"], page["to"]) == (first["from"], first["to"])
            seen += [b["start"] for b in page["buckets"]]
            cursor = page["nextCursor"]
        assert seen == [iso(cycle_start(anchor, i)) for i in range(4)]

    async def test_a_cursor_of_another_query_is_refused(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, _ = await history(app, make_user)
        query = {"granularity": "day", "limit": 2}
        cursor = (await usage(client, me, **query))["nextCursor"]
        assert cursor
        assert (await usage(client, me, **query, cursor=cursor))["buckets"]
        for other in (
            {"granularity": "hour"},
            {"groupBy": "apiKey"},
            {"from": iso(datetime.now(UTC) - timedelta(days=3))},
        ):
            response = await client.get(
                USAGE, params={**query, **other, "cursor": cursor}, headers=me.headers
            )
            assert response.status_code == 400, other
            assert response.json()["code"] == "InvalidCursor"
        for garbage in ("x", "A" * 46, cursor[:-2] + "AA"):
            response = await client.get(
                USAGE, params={**query, "cursor": garbage}, headers=me.headers
            )
            assert response.status_code == 400
            assert response.json() == {
                "code": "InvalidCursor",
                "message": "This cursor is not one of this query's pages: send the same query "
                "as the first page.",
            }

    @pytest.mark.parametrize("limit", [0, 1001, "x"])
    async def test_the_page_size_is_checked(
        self, client: httpx.AsyncClient, make_user: MakeUser, limit: object
    ) -> None:
        me = await make_user()
        response = await client.get(
            USAGE, params={"granularity": "day", "limit": limit}, headers=me.headers
        )
        assert response.status_code == 422
        assert response.json()["fields"][0]["field"] == "limit"


class TestCsv:
    async def test_csv_with_accept_text_csv(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, _ = await history(app, make_user)
        at = moment()
        batch = [
            labelled(4, project="=cmd|'/c calc'!A1"),
            labelled(2, project="plain"),
            record("api", credits=1),
        ]
        await send(client, me.api_key, [r | {"time": iso(at)} for r in batch])
        plain = await client.get(
            USAGE,
            params={"granularity": "day", **around(at)},
            headers=me.headers | {"Accept": "text/csv"},
        )
        assert plain.status_code == 200
        assert plain.headers["content-type"] == "text/csv; charset=utf-8"
        assert plain.headers["content-disposition"].startswith('attachment; filename="usage-day-')
        table = list(csv.DictReader(io.StringIO(plain.text)))
        assert plain.text.startswith("start,end,platform,requests,records,runs\r\n")
        assert [(r["platform"], r["requests"], r["records"]) for r in table] == [
            ("web", "6", "2"),
            ("nativeMobile", "0", "0"),
            ("api", "1", "1"),
        ]
        grouped = await client.get(
            USAGE,
            params={"granularity": "hour", "groupBy": "label:project", **around(at)},
            headers=me.headers | {"Accept": "text/csv"},
        )
        lines = list(csv.reader(io.StringIO(grouped.text)))
        assert lines[0] == [
            "start",
            "end",
            "kind",
            "group",
            "platform",
            "requests",
            "records",
            "runs",
        ]
        named = [(r[2], r[3], r[4], r[5]) for r in lines[1:] if r[5] != "0"]
        assert named == [
            ("labelValue", "'=cmd|'/c calc'!A1", "web", "4"),  # never a formula
            ("labelValue", "plain", "web", "2"),
            ("withoutLabel", "", "api", "1"),
        ]
        assert len(lines) == 1 + 3 * 3  # every platform of each group
        as_json = await usage(client, me, granularity="day", **around(at))
        assert as_json["buckets"][0]["requests"] == 7

    @pytest.mark.parametrize(
        ("accept", "is_csv"),
        [
            ("text/csv", True),
            ("text/csv;q=0.9, application/json", False),
            ("application/json;q=0.5, text/csv", True),
            ("text/csv, application/json", True),
            ("*/*", False),
            ("text/csv;q=0", False),
        ],
    )
    async def test_the_accept_header_chooses(
        self, client: httpx.AsyncClient, make_user: MakeUser, accept: str, is_csv: bool
    ) -> None:
        me = await make_user()
        response = await client.get(
            USAGE, params={"granularity": "cycle"}, headers=me.headers | {"Accept": accept}
        )
        assert response.status_code == 200
        assert response.headers["content-type"].startswith(
            "text/csv" if is_csv else "application/json"
        )

    async def test_csv_pages_link_the_next(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, _ = await history(app, make_user)
        response = await client.get(
            USAGE,
            params={"granularity": "day", "limit": 5},
            headers=me.headers | {"Accept": "text/csv"},
        )
        assert len(list(csv.reader(io.StringIO(response.text)))) == 1 + 5 * 3
        link = response.headers["link"]
        assert link.startswith("</web/usage?granularity=day&limit=5&cursor=") and link.endswith(
            '>; rel="next"'
        )
        following = await client.get(
            link[1 : link.index(">")], headers=me.headers | {"Accept": "text/csv"}
        )
        assert following.status_code == 200
        first_next = next(csv.DictReader(io.StringIO(following.text)))["start"]
        last = list(csv.DictReader(io.StringIO(response.text)))[-1]["end"]
        assert first_next == last


class TestRangeErrors:
    async def test_from_must_be_before_to(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, anchor = await history(app, make_user)
        at = datetime.now(UTC) - timedelta(minutes=1)
        for start, end in ((at, at), (at, at - timedelta(seconds=1))):
            response = await client.get(
                USAGE,
                params={"granularity": "hour", "from": iso(start), "to": iso(end)},
                headers=me.headers,
            )
            assert response.status_code == 400
            body = response.json()
            assert body["code"] == "RangeOutOfOrder"
            assert (
                body["message"]
                == f"from ({start.isoformat()}) must be before to ({end.isoformat()})"
            )
        # Left out, from is the start of the retention, which a to before it is not after.
        early = anchor - timedelta(days=1)
        for granularity in ("hour", "day"):
            response = await client.get(
                USAGE, params={"granularity": granularity, "to": iso(early)}, headers=me.headers
            )
            assert response.status_code == 400
            assert response.json()["message"] == (
                f"from (left out: {anchor.isoformat()}) must be before to ({early.isoformat()})"
            )
        far = await client.get(
            USAGE,
            params={"granularity": "hour", "to": "0001-01-01T00:00:00+00:00"},
            headers=me.headers,
        )
        assert far.json()["code"] == "RangeOutOfOrder"

    async def test_the_range_stays_within_the_retention(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        anchor = (datetime.now(UTC) - relativedelta(months=13)).replace(microsecond=0)
        await set_anchor(app, me.account.id, anchor)
        earliest, latest = cycle_start(anchor, 2), cycle_start(anchor, 14)
        for params in (
            {"from": iso(earliest - timedelta(seconds=1))},
            {"to": iso(latest + timedelta(seconds=1))},
            {"from": "0001-01-01T00:00:00+14:00"},
            {"to": "9999-12-31T23:59:59-14:00"},
        ):
            response = await client.get(
                USAGE, params={"granularity": "cycle", **params}, headers=me.headers
            )
            assert response.status_code == 400, params
            body = response.json()
            assert body["code"] == "OutsideRetention"
            assert (body["earliest"], body["latest"]) == (iso(earliest), iso(latest))
            assert body["message"].startswith(f"The usage kept runs from {earliest.isoformat()}")
        ok = await usage(
            client, me, granularity="cycle", **{"from": iso(earliest), "to": iso(latest)}
        )
        assert len(ok["buckets"]) == 12

    async def test_hours_over_at_most_92_days(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me, _ = await history(app, make_user, months=5)
        to = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
        fits = await usage(
            client,
            me,
            granularity="hour",
            limit=5,
            **{"from": iso(to - timedelta(days=92)), "to": iso(to)},
        )
        assert fits["nextCursor"]
        response = await client.get(
            USAGE,
            params={
                "granularity": "hour",
                "from": iso(to - timedelta(days=92, seconds=1)),
                "to": iso(to),
            },
            headers=me.headers,
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "RangeTooLong",
            "message": "A range of hours is at most 92 days: ask for days, or split the range.",
        }
        days = await usage(client, me, granularity="day", **{"from": iso(to - timedelta(days=120))})
        assert len(days["buckets"]) == 100  # a page; days reach over the retention

    @pytest.mark.parametrize(
        ("params", "field"),
        [
            ({"granularity": "week"}, "granularity"),
            ({}, "granularity"),
            ({"granularity": "day", "from": "2026-11-01T00:00:00"}, "from"),
            ({"granularity": "day", "from": "1700000000"}, "from"),
            ({"granularity": "day", "to": "yesterday"}, "to"),
            ({"granularity": "day", "groupBy": "label:"}, "groupBy"),
            ({"granularity": "day", "groupBy": "key"}, "groupBy"),
            ({"granularity": "day", "cursor": "not a cursor"}, "cursor"),
        ],
    )
    async def test_malformed_queries_are_422(
        self, client: httpx.AsyncClient, make_user: MakeUser, params: dict[str, str], field: str
    ) -> None:
        me = await make_user()
        response = await client.get(USAGE, params=params, headers=me.headers)
        assert response.status_code == 422, response.text
        assert response.json()["fields"][0]["field"] == field


class TestIsolation:
    async def test_only_the_callers_account(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        other = await make_user(account_name="Other")
        await send(client, other.api_key, [labelled(9, secret="x")])
        await send(client, me.api_key, [record(credits=1)])
        mine = str(await key_id_of(app, me))
        for granularity in ("hour", "day", "cycle"):
            for group_by in (None, "apiKey"):
                params = {"granularity": granularity, **({"groupBy": group_by} if group_by else {})}
                body = await usage(client, me, **params)
                assert sum(b["requests"] for b in body["buckets"]) == 1
                assert body["labels"] == []
                groups = [g for b in body["buckets"] for g in b["groups"]]
                assert all(g["group"] in (None, mine) for g in groups)
        theirs = await client.get(
            USAGE, params={"granularity": "day", "groupBy": "label:secret"}, headers=me.headers
        )
        assert theirs.status_code == 400 and theirs.json()["labels"] == []
        # Their key's rollups, even were they joined by id, never reach my groups.
        async with app.state.resources.sessionmaker() as db:
            their_key = await key_id_of(app, other)
            count = await db.scalar(
                select(func.count())
                .select_from(ApiKeyUsageHourly)
                .where(ApiKeyUsageHourly.key_id == their_key)
            )
        assert count == 1

    async def test_sign_in_is_needed(self, client: httpx.AsyncClient) -> None:
        response = await client.get(USAGE, params={"granularity": "day"})
        assert response.status_code == 401


class TestContract:
    def test_every_refusal_and_both_bodies_are_declared(self, app: FastAPI) -> None:
        operation = app.openapi()["paths"][USAGE]["get"]
        assert operation["operationId"] == "getUsage"
        ok = operation["responses"]["200"]
        assert set(ok["content"]) == {"application/json", "text/csv"}
        assert ok["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/UsageResponse"
        }
        assert "Link" in ok["headers"]
        codes = operation["responses"]["400"]["description"].split(" | ")
        assert codes == sorted(
            ["InvalidCursor", "OutsideRetention", "RangeOutOfOrder", "RangeTooLong", "UnknownLabel"]
        )
        params = {p["name"]: p for p in operation["parameters"]}
        assert params["limit"]["schema"]["maximum"] == 1000
        assert params["limit"]["schema"]["minimum"] == 1
        assert params["granularity"]["required"] is True
        assert params["groupBy"]["schema"]["anyOf"][0]["pattern"].startswith("^(apiKey|label:")
        schemas = app.openapi()["components"]["schemas"]
        assert set(schemas["Error_OutsideRetention"]["required"]) >= {"earliest", "latest"}
        assert "labels" in schemas["Error_UnknownLabel"]["required"]
