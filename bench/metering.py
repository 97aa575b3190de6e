"""Metering benchmark (README "Metering intake", "Performance"): intake throughput, and
``GET /web/account`` latency for an account with 1k records and one with 1M records.

    python -m bench.metering [--records 1000000] [--batch 1000] [--concurrency 4]
                             [--samples 300] [--labels] [--limits]

Starts the stand-in stack (throwaway database, moto, localstripe) and ONE production-configured
uvicorn worker, seeds two accounts (anchored 11 months ago, so the graph shows 12 billing
cycles) with a user each, then sends ``--records`` records to ``POST /metering/usage`` in
batches of ``--batch`` from ``--concurrency`` concurrent clients (httpx, keep-alive) and prints
records/s and the worker's CPU time per 1,000 records (user + system, ``/proc``: steadier than
records/s on a shared machine), at random times in the previous and the current billing cycle
(the intake refuses older ones); the small account gets 1,000 records the same way. Finally it reads
``GET /web/account`` ``--samples`` times per account, one request at a time alternating
between the accounts, and prints p50/p95 latency. It checks that the graph's totals equal the
credits sent (every record counted once). With ``--labels`` every record carries three labels
(``project`` of 5 values, ``ci`` of 2, ``branch`` of 4), so the intake also keeps the rollups per
label value. With ``--limits`` the large account's key has a monthly limit and the account
stops at its allowance, both far above what is sent: every batch takes the checked path (a
savepoint, the conditional upserts) and none is refused. The load generator shares the machine
with the API and PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta

import httpx
from dateutil.relativedelta import relativedelta
from sqlalchemy import update

from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker
from api.keys.service import key_ring, open_current_key
from api.models import ApiKey, Role
from bench.server import access_token, one_worker
from devstack.seed import add_account
from devstack.stack import running_stack

PASSWORD = "Bench-password-1!"
PLATFORMS = ("web", "nativeMobile", "api")
LABELS = {
    "project": ("checkout-suite", "search-suite", "login-suite", "admin-suite", "cart-suite"),
    "ci": ("github-actions", "nightly"),
    "branch": ("main", "release", "feature-a", "feature-b"),
}


async def seed_account(
    settings: Settings, name: str, email: str, limits: bool = False
) -> tuple[str, str, datetime]:
    """An account anchored 11 months ago with one user, with spend limits far above what the
    bench sends when ``limits``; returns (API key, token, anchor)."""
    engine = create_engine(settings.database_url, 1)
    anchor = (datetime.now(UTC) - relativedelta(months=11, days=3)).replace(microsecond=0)
    async with create_sessionmaker(engine)() as db, db.begin():
        account = await add_account(
            db, settings, name, [(email, "Bench", "Mark", Role.OWNER)], anchor
        )
        if limits:
            account.stop_at_allowance = True
            account.free_plan_requests = 2**31 - 1
            await db.execute(
                update(ApiKey).where(ApiKey.account_id == account.id).values(monthly_limit=10**12)
            )
        api_key = await open_current_key(db=db, ring=key_ring(settings), account_id=account.id)
    await engine.dispose()
    return api_key, await access_token(settings, email, PASSWORD), anchor


def batch_body(
    rng: random.Random, size: int, since: datetime, span_s: float, labels: bool
) -> bytes:
    """One request body of ``size`` records (one test run each) at random times, each with
    ``LABELS`` (a random value of each) when ``labels``."""
    records = [
        {
            "idempotencyKey": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "platform": rng.choice(PLATFORMS),
            "runs": 1,
            "credits": rng.randint(1, 8),
            "time": (since + timedelta(seconds=rng.uniform(0, span_s))).isoformat(),
        }
        | ({"labels": {k: rng.choice(v) for k, v in LABELS.items()}} if labels else {})
        for _ in range(size)
    ]
    return json.dumps({"records": records}).encode()


async def ingest(
    base: str,
    api_key: str,
    anchor: datetime,
    total: int,
    batch: int,
    concurrency: int,
    labels: bool = False,
) -> tuple[float, int]:
    """Send ``total`` records; returns (seconds taken, credits sent)."""
    since = anchor + relativedelta(months=10)  # the previous cycle's start
    span_s = (datetime.now(UTC) - timedelta(minutes=1) - since).total_seconds()
    batches = [min(batch, total - i) for i in range(0, total, batch)]
    queue: asyncio.Queue[int] = asyncio.Queue()
    for size in batches:
        queue.put_nowait(size)
    credits = 0

    async def worker(seed: int) -> None:
        nonlocal credits
        rng = random.Random(seed)
        headers = {"X-API-Key": api_key, "Content-Type": "application/json"}
        async with httpx.AsyncClient(base_url=base, timeout=120) as client:
            while not queue.empty():
                size = queue.get_nowait()
                body = batch_body(rng, size, since, span_s, labels)
                response = await client.post("/metering/usage", content=body, headers=headers)
                assert response.status_code == 200, response.text
                assert response.json()["accepted"] == size, response.text
                credits += sum(r["credits"] for r in json.loads(body)["records"])

    started = time.perf_counter()
    await asyncio.gather(*(worker(random.getrandbits(32)) for _ in range(concurrency)))
    return time.perf_counter() - started, credits


def read_latency(
    base: str, accounts: list[tuple[str, int]], samples: int
) -> list[tuple[float, float]]:
    """p50 and p95 (ms) of ``GET /web/account`` per (token, credits sent) account.

    Requests go one at a time, alternating between the accounts, so background work (autovacuum
    after the bulk load, other processes on the machine) weighs on every account alike. Checks
    that each account's 12 cycles add up to the credits sent.
    """
    times: list[list[float]] = [[] for _ in accounts]
    clients = [
        httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"})
        for token, _ in accounts
    ]
    try:
        for i in range(samples + 20):
            for client, measured in zip(clients, times, strict=True):
                started = time.perf_counter()
                response = client.get("/web/account")
                elapsed = (time.perf_counter() - started) * 1000
                assert response.status_code == 200
                if i >= 20:  # warm-up
                    measured.append(elapsed)
        for client, (_, credits) in zip(clients, accounts, strict=True):
            usage = client.get("/web/account").json()["account"]["usage"]
            assert len(usage) == 12, "expected 12 billing cycles"
            assert sum(e["requests"] for e in usage) == credits, "totals differ from credits sent"
    finally:
        for client in clients:
            client.close()
    results = []
    for measured in times:
        quantiles = statistics.quantiles(measured, n=100)
        results.append((quantiles[49], quantiles[94]))
    return results


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--labels", action="store_true", help="three labels on every record")
    parser.add_argument("--limits", action="store_true", help="spend limits that never refuse")
    args = parser.parse_args()
    # One account sends far more than its records per minute (METERING_RECORDS_LIMIT_PER_ACCOUNT)
    # here on purpose: what is measured is the intake with the cap counted, never refusing.
    os.environ.setdefault("METERING_RECORDS_LIMIT_PER_ACCOUNT", str(10**12))
    with running_stack() as stack:
        small = asyncio.run(seed_account(stack.settings, "Small Co", "small@bench-corp.dev"))
        large = asyncio.run(
            seed_account(stack.settings, "Large Co", "large@bench-corp.dev", args.limits)
        )
        with one_worker(stack) as worker:
            base = worker.url
            _, small_credits = asyncio.run(
                ingest(base, small[0], small[2], 1000, args.batch, args.concurrency)
            )
            cpu_before = worker.cpu_seconds()
            seconds, large_credits = asyncio.run(
                ingest(
                    base,
                    large[0],
                    large[2],
                    args.records,
                    args.batch,
                    args.concurrency,
                    args.labels,
                )
            )
            cpu_ms = (worker.cpu_seconds() - cpu_before) * 1000 * 1000 / args.records
            print(
                f"intake: {args.records:,} records in {seconds:.1f} s = "
                f"{args.records / seconds:,.0f} records/s, worker CPU {cpu_ms:.1f} ms per 1,000 "
                f"records (batches of {args.batch}, {args.concurrency} concurrent clients, "
                f"one worker{', three labels a record' if args.labels else ''}"
                f"{', spend limits checked' if args.limits else ''})"
            )
            latencies = read_latency(
                base, [(small[1], small_credits), (large[1], large_credits)], args.samples
            )
            for label, (p50, p95) in zip(("1,000", f"{args.records:,}"), latencies, strict=True):
                print(
                    f"GET /web/account, account with {label} records: p50 {p50:.2f} ms  "
                    f"p95 {p95:.2f} ms  ({args.samples} requests, one at a time, interleaved)"
                )


if __name__ == "__main__":
    main()
