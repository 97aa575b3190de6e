"""What the hourly rollups cost the metering intake (README "Usage API", "Performance"): the
intake's counting statement (``api/usage/repository.py`` ``_INGEST``) timed with and without
its three hourly CTEs (``hourly``, ``key_hourly``, ``label_hourly``), batch by batch.

    python -m bench.intake_hourly [--batches 150] [--batch 1000]

Migrates a throwaway database (the ``DATABASE_URL`` server, or an embedded one), makes two
accounts with a key each, and sends the same batches to both, one statement at a time on one
connection, alternating which goes first: the statement as it is to one account, the statement
without the hourly CTEs to the other (so each keeps its own rollups growing alike). Four kinds
of batch, ``--batches`` each:

- ``recent``: records of the last 10 minutes (what the test service sends: a batch touches a
  few hourly rows);
- ``spread``: records over the previous and the current billing cycle, as ``bench.metering``
  sends them (a batch touches about a thousand hourly rows, the worst case);
- each of those with the three labels of ``bench.metering`` on every record.

Prints, per kind, the median and p90 of each statement's time (the client's wall time for the
round trip on loopback: PostgreSQL's work, on a machine shared with other processes) and the
ratio of the medians. Interleaving the two statements batch by batch keeps the machine's load
out of the comparison.
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

import orjson
from dateutil.relativedelta import relativedelta
from sqlalchemy import TextClause, text

from api.kernel.db import create_engine, create_sessionmaker
from api.models.usage_label import LABEL_VALUES_PER_CYCLE, OTHER_LABEL_VALUE
from api.usage.cycles import containing_cycle_starts
from api.usage.repository import _INGEST
from bench.metering import LABELS
from devstack import services
from devstack.stack import TEST_DATA

HOURLY_CTES = ("hourly AS (", "key_hourly AS (", "label_hourly AS (")
PLATFORMS = ("web", "nativeMobile", "api")


def without_hourly(statement: TextClause) -> TextClause:
    """``statement`` less its hourly CTEs (the members of its WITH list named in
    ``HOURLY_CTES``): the intake as it counted before them."""
    members = statement.text.split("\n), ")
    kept = [m for m in members if not m.startswith(HOURLY_CTES)]
    assert len(kept) == len(members) - len(HOURLY_CTES), "the statement's CTEs have moved"
    return text("\n), ".join(kept))


def batch_params(
    rng: random.Random,
    account_id: uuid.UUID,
    key_id: uuid.UUID,
    anchor: datetime,
    size: int,
    since: datetime,
    until: datetime,
    labels: bool,
) -> dict[str, Any]:
    """The statement's parameters for ``size`` records at random times in ``[since, until)``."""
    span = (until - since).total_seconds()
    times = sorted(since + timedelta(seconds=rng.uniform(0, span)) for _ in range(size))
    starts = containing_cycle_starts(anchor, times)
    keys = [str(uuid.uuid4()) for _ in range(size)]
    return {
        "account_id": account_id,
        "key_id": key_id,
        "allowance": None,
        "key_limit": None,
        "keys": keys,
        "platforms": [rng.choice(PLATFORMS) for _ in range(size)],
        "runs": [1] * size,
        "credits": [rng.randint(1, 8) for _ in range(size)],
        "recorded_at": times,
        "cycle_starts": starts,
        "labels": [
            orjson.dumps({k: rng.choice(v) for k, v in LABELS.items()}).decode() if labels else None
            for _ in range(size)
        ],
        "values_per_cycle": LABEL_VALUES_PER_CYCLE,
        "other_value": OTHER_LABEL_VALUE,
    }


async def run(database_url: str, batches: int, size: int) -> None:
    engine = create_engine(database_url, 2)
    sessions = create_sessionmaker(engine)
    now = datetime.now(UTC)
    anchor = (now - relativedelta(months=11, days=3)).replace(microsecond=0)
    accounts: list[tuple[uuid.UUID, uuid.UUID]] = []
    async with sessions() as db, db.begin():
        for name in ("with", "without"):
            account_id, key_id = uuid.uuid4(), uuid.uuid4()
            await db.execute(
                text(
                    "INSERT INTO account (id, name, billing_cycle_anchor) VALUES (:id, :name, :at)"
                ),
                {"id": account_id, "name": f"Intake {name} hourly", "at": anchor},
            )
            await db.execute(
                text(
                    "INSERT INTO api_key (id, account_id, key_hash, sealed, encryption_key_id,"
                    " last4) VALUES (:id, :account, :hash, 'x', 'k1', '0000')"
                ),
                {"id": key_id, "account": account_id, "hash": uuid.uuid4().bytes * 2},
            )
            accounts.append((account_id, key_id))
    statements = (_INGEST, without_hourly(_INGEST))
    previous_cycle = anchor + relativedelta(months=10)
    kinds = {
        "recent": (now - timedelta(minutes=10), now, False),
        "recent, 3 labels": (now - timedelta(minutes=10), now, True),
        "spread": (previous_cycle, now, False),
        "spread, 3 labels": (previous_cycle, now, True),
    }
    rng = random.Random(42)
    print(f"statement time per batch of {size} records, {batches} batches of each kind:")
    for kind, (since, until, labels) in kinds.items():
        times: tuple[list[float], list[float]] = ([], [])
        for i in range(batches + 5):
            order = (0, 1) if i % 2 else (1, 0)
            for which in order:
                account_id, key_id = accounts[which]
                params = batch_params(rng, account_id, key_id, anchor, size, since, until, labels)
                async with sessions() as db, db.begin():
                    started = time.perf_counter()
                    await db.execute(statements[which], params)
                    elapsed = (time.perf_counter() - started) * 1000
                if i >= 5:  # warm-up
                    times[which].append(elapsed)
        (with_p50, with_p90), (without_p50, without_p90) = (
            (statistics.median(t), statistics.quantiles(t, n=10)[8]) for t in times
        )
        print(
            f"  {kind:<17} with the hourly CTEs p50 {with_p50:6.1f} ms p90 {with_p90:6.1f} ms;"
            f" without p50 {without_p50:6.1f} ms p90 {without_p90:6.1f} ms;"
            f" {with_p50 / without_p50:.2f}x"
        )
    await engine.dispose()


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=150)
    parser.add_argument("--batch", type=int, default=1000)
    args = parser.parse_args()
    postgres = services.start_postgres(TEST_DATA / "pg")
    database = f"console_bench_{services.random_suffix()}"
    try:
        url = postgres.create_database(database)
        services.migrate(url)
        asyncio.run(run(url, args.batches, args.batch))
    finally:
        postgres.drop_database(database)
        postgres.stop()


if __name__ == "__main__":
    main()
