"""Usage API benchmark (README "Usage API", "Performance"): ``GET /web/usage`` over 90 days,
per hour, grouped by a label, for an account with a year of usage.

    python -m bench.usage_query [--records-per-hour 20] [--runs 300] [--days 90]

Starts the stand-in stack (throwaway database, moto, localstripe) and ONE production-configured
uvicorn worker, seeds an account anchored a year ago whose every hour of the year holds
``--records-per-hour`` records (random platform, 1 to 8 credits, the three labels of
``bench.metering``: ``project`` of 5 values, ``ci`` of 2, ``branch`` of 4), counted through the
intake's own statement (so every rollup is as the intake keeps it). Then, one request at a time
over keep-alive, it asks for the last ``--days`` days per hour grouped by ``label:project``:

- the whole range, page after page, at the largest page (1,000 buckets) and at the default one
  (100), ``--runs`` walks each: per request p50, p99 and max, and per walk;
- the Usage Overview's read (``granularity=cycle``, the 12 cycles) for reference.

Every walk is checked: its buckets add up to the credits seeded in the range. Prints the
figures, and the worker's CPU time per request (``/proc``). The load generator shares the
machine with the API and PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from dateutil.relativedelta import relativedelta
from sqlalchemy import select

from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker
from api.models import ApiKey, Platform, Role
from api.usage.cycles import containing_cycle_starts
from api.usage.repository import NewRecord, insert_records
from bench.metering import LABELS, PASSWORD
from bench.server import Worker, access_token, one_worker
from devstack.seed import add_account
from devstack.stack import running_stack

EMAIL = "year@bench-corp.dev"
BATCH = 1000


async def seed(settings: Settings, per_hour: int) -> tuple[str, list[tuple[datetime, int]]]:
    """The account with a year of usage; returns (access token, (time, credits) of every
    record)."""
    now = datetime.now(UTC)
    anchor = (now - relativedelta(years=1, days=3)).replace(microsecond=0)
    engine = create_engine(settings.database_url, 1)
    rng = random.Random(2026)
    sent: list[tuple[datetime, int]] = []
    sessions = create_sessionmaker(engine)
    async with sessions() as db, db.begin():
        account = await add_account(
            db, settings, "Year Co", [(EMAIL, "Bench", "Mark", Role.OWNER)], anchor
        )
        key_id = await db.scalar(select(ApiKey.id).where(ApiKey.account_id == account.id))
    hour = anchor.replace(minute=0, second=0)
    batch: list[tuple[datetime, Platform, int, dict[str, str]]] = []

    async def flush() -> None:
        starts = containing_cycle_starts(anchor, [at for at, *_ in batch])
        records = sorted(
            (
                NewRecord(str(uuid.uuid4()), platform, 1, credits, at, start, labels)
                for (at, platform, credits, labels), start in zip(batch, starts, strict=True)
            ),
            key=lambda r: r.idempotency_key,
        )
        async with sessions() as db, db.begin():
            await insert_records(db, account.id, records, key_id)
        batch.clear()

    while hour < now - timedelta(hours=1):
        for _ in range(per_hour):
            at = hour + timedelta(seconds=rng.uniform(0, 3599))
            credits = rng.randint(1, 8)
            labels = {name: rng.choice(values) for name, values in LABELS.items()}
            batch.append((at, rng.choice(list(Platform)), credits, labels))
            sent.append((at, credits))
            if len(batch) == BATCH:
                await flush()
        hour += timedelta(hours=1)
    if batch:
        await flush()
    await engine.dispose()
    return await access_token(settings, EMAIL, PASSWORD), sent


def quantiles(times: list[float]) -> str:
    cuts = statistics.quantiles(times, n=100)
    return f"p50 {cuts[49]:.1f} ms  p99 {cuts[98]:.1f} ms  max {max(times):.1f} ms"


def walk(client: httpx.Client, params: dict[str, Any]) -> tuple[list[float], int, int]:
    """Every page of the query: (ms per request, buckets, requests counted)."""
    times, buckets, requests = [], 0, 0
    cursor = None
    while True:
        started = time.perf_counter()
        page = {**params, **({"cursor": cursor} if cursor else {})}
        response = client.get("/web/usage", params=page)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text
        body = response.json()
        buckets += len(body["buckets"])
        requests += sum(b["requests"] for b in body["buckets"])
        cursor = body["nextCursor"]
        if cursor is None:
            return times, buckets, requests


def measure(
    worker: Worker, token: str, sent: list[tuple[datetime, int]], days: int, runs: int
) -> None:
    """Print the figures of the walks and of the graph's read."""
    now = datetime.now(UTC)
    start = now - timedelta(days=days)
    expected = sum(c for at, c in sent if start.replace(minute=0, second=0, microsecond=0) <= at)
    with httpx.Client(
        base_url=worker.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
    ) as client:
        for limit in (1000, 100):
            params = {
                "granularity": "hour",
                "from": start.isoformat(),
                "to": now.isoformat(),
                "groupBy": "label:project",
                "limit": limit,
            }
            for _ in range(3):  # warm-up
                walk(client, params)
            per_request: list[float] = []
            per_walk: list[float] = []
            cpu_before = worker.cpu_seconds()
            for _ in range(runs):
                times, buckets, requests = walk(client, params)
                assert requests == expected, (requests, expected)
                per_request += times
                per_walk.append(sum(times))
            cpu_ms = (worker.cpu_seconds() - cpu_before) * 1000 / len(per_request)
            pages = len(per_request) // runs
            print(
                f"{days} days per hour by label:project, limit {limit} ({pages} pages, "
                f"{buckets:,} buckets): per request {quantiles(per_request)}, worker CPU "
                f"{cpu_ms:.1f} ms; per walk {quantiles(per_walk)} ({runs} walks)"
            )
        graph: list[float] = []
        for i in range(runs + 20):
            started = time.perf_counter()
            response = client.get("/web/usage", params={"granularity": "cycle"})
            if i >= 20:
                graph.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200 and len(response.json()["buckets"]) == 12
        print(f"the Usage Overview's read (granularity=cycle, 12 cycles): {quantiles(graph)}")


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--records-per-hour", type=int, default=20)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--days", type=int, default=90)
    args = parser.parse_args()
    with running_stack() as stack:
        started = time.perf_counter()
        token, sent = asyncio.run(seed(stack.settings, args.records_per_hour))
        print(
            f"seeded a year of usage: {len(sent):,} records ({args.records_per_hour} an hour) "
            f"in {time.perf_counter() - started:.0f} s"
        )
        with one_worker(stack) as worker:
            measure(worker, token, sent, args.days, args.runs)


if __name__ == "__main__":
    main()
