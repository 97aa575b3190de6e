"""Domain Verify against a slow nameserver, and the read path beside it, on ONE uvicorn worker.

    python -m bench.verify_dns [--verifies 30] [--delay 4] [--rate 25]

Starts the stand-in stack (throwaway database, moto, localstripe), seeds one account with
``--verifies`` Pending domains whose TXT records a DNS stand-in of its own serves, each answer
``--delay`` seconds late (``devstack/dns_server.py`` with ``delay_s``), and starts
``uvicorn --factory api.app.web:create_app --workers 1`` with production settings and the default
database pool (``DB_POOL_SIZE`` 20, fewer connections than there are Verify calls), pointed at
that nameserver, with ``DNS_LOOKUPS_PER_REPLICA`` at ``--verifies`` so every call reaches DNS.

Then ``GET /web/session`` is sent ``--rate`` times a second on a fixed schedule (an open
loop, so a stall counts for every request it delays), latency measured from each request's
scheduled moment:

1. alone, for ``--delay`` seconds: p50 and p99;
2. while all the Verify calls are sent at once and wait on DNS, until the last one answers:
   p50 and p99, and how the Verify calls ended.

The figure to watch is the p99 under (2): it stays near (1) when Verify holds no database
connection while it waits (the target is under 100 ms); a Verify that held one through the
lookup would exhaust the pool and make every read wait seconds. A script that prints figures,
not a test: the machine's load moves them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import httpx

from api.account.service import create_account
from api.identity.sso.verification import record_value
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker
from api.models import AuthType, DomainState, Role, SsoDomain, User
from bench.server import Worker, access_token, one_worker
from devstack.services import free_port
from devstack.stack import running_stack

EMAIL = "verify@bench-dns.dev"
PASSWORD = "Bench-password-1!"


async def seed(settings: Settings, count: int) -> tuple[str, list[str], dict[str, list[str]]]:
    """One account with an Owner and ``count`` Pending domains. Returns an access token of the
    Owner, the domains' ids, and the zone that proves them (name to TXT values)."""
    engine = create_engine(settings.database_url, 1)
    zone: dict[str, list[str]] = {}
    ids: list[str] = []
    async with create_sessionmaker(engine)() as db, db.begin():
        account = await create_account(db=db, settings=settings, name="Bench DNS")
        db.add(
            User(
                account_id=account.id,
                identity_id=EMAIL,
                first_name="Bench",
                last_name="Dns",
                email=EMAIL,
                auth_type=AuthType.EMAIL,
                role=Role.OWNER,
            )
        )
        for i in range(count):
            token = secrets.token_hex(16)
            domain = SsoDomain(
                account_id=account.id,
                domain=f"bench-{i}-{secrets.token_hex(3)}.dev",
                token=token,
                state=DomainState.PENDING,
            )
            db.add(domain)
            await db.flush()
            ids.append(str(domain.id))
            zone[domain.domain] = [record_value(token)]
    await engine.dispose()
    return await access_token(settings, EMAIL, PASSWORD), ids, zone


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def probe(
    client: httpx.AsyncClient, headers: dict[str, str], rate: float, until: asyncio.Event
) -> list[float]:
    """``GET /web/session`` at ``rate`` requests per second until ``until`` is set, each sent
    on schedule whether or not the earlier ones have answered (an open loop: a stalled server
    shows as the wait of every request scheduled during the stall, not as one slow request);
    latencies in ms, from the scheduled moment to the answer."""

    async def one(scheduled: float) -> float:
        response = await client.get("/web/session", headers=headers)
        assert response.status_code == 200, response.text
        return (time.perf_counter() - scheduled) * 1000

    tasks = []
    start = time.perf_counter()
    while not until.is_set():
        scheduled = start + len(tasks) / rate
        await asyncio.sleep(max(0.0, scheduled - time.perf_counter()))
        tasks.append(asyncio.create_task(one(scheduled)))
    return list(await asyncio.gather(*tasks))


def send_verifies(url: str, headers: dict[str, str], ids: list[str]) -> list[tuple[int, float]]:
    """Send Verify of every domain of ``ids`` at once; each one's status and seconds."""

    async def all_at_once() -> list[tuple[int, float]]:
        limits = httpx.Limits(max_connections=len(ids))
        async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:

            async def verify(domain_id: str) -> tuple[int, float]:
                sent = time.perf_counter()
                path = f"/web/sso/domains/{domain_id}/verify"
                response = await client.post(path, headers=headers)
                return response.status_code, time.perf_counter() - sent

            return list(await asyncio.gather(*(verify(i) for i in ids)))

    return asyncio.run(all_at_once())


async def measure(worker: Worker, token: str, ids: list[str], delay_s: float, rate: float) -> None:
    """Print the read path alone, then beside the Verify calls."""
    url = worker.url
    headers = {"Authorization": f"Bearer {token}"}
    limits = httpx.Limits(max_connections=len(ids) + int(rate) * 10)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        for _ in range(20):  # warm-up: connections, the token cache
            await client.get("/web/session", headers=headers)
        stop = asyncio.Event()
        alone = asyncio.create_task(probe(client, headers, rate, stop))
        await asyncio.sleep(delay_s)
        stop.set()
        quiet = await alone

        sender = ProcessPoolExecutor(1)
        sender.submit(time.sleep, 0).result()  # started before the measurement
        stop = asyncio.Event()
        beside = asyncio.create_task(probe(client, headers, rate, stop))
        start = time.perf_counter()
        cpu_before = worker.cpu_seconds()
        # From a process of its own, so sending them costs the probe's loop nothing.
        outcomes = await asyncio.get_running_loop().run_in_executor(
            sender, send_verifies, url, headers, ids
        )
        wall_s = time.perf_counter() - start
        cpu_s = worker.cpu_seconds() - cpu_before
        stop.set()
        busy = await beside
        sender.shutdown()

    statuses = Counter(status for status, _ in outcomes)
    print(
        f"one uvicorn worker, DB_POOL_SIZE 20; DNS answers after {delay_s:g} s; "
        f"GET /web/session at {rate:g}/s"
    )
    for label, latencies in (("alone", quiet), (f"beside {len(ids)} Verify", busy)):
        print(
            f"GET /web/session {label:<17} {len(latencies):5d} requests  "
            f"p50 {statistics.median(latencies):7.2f} ms  "
            f"p99 {_percentile(latencies, 0.99):7.2f} ms  "
            f"max {max(latencies):7.2f} ms"
        )
    print(
        f"POST verify x{len(ids)}: statuses {dict(sorted(statuses.items()))}, "
        f"each {min(s for _, s in outcomes):.2f}-{max(s for _, s in outcomes):.2f} s, "
        f"all done in {wall_s:.2f} s; worker CPU meanwhile {cpu_s * 1000:.0f} ms "
        f"(reads included)"
    )


def main() -> None:
    """Seed, start the slow nameserver and the worker, measure, print."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--verifies", type=int, default=30, help="concurrent Verify calls")
    parser.add_argument("--delay", type=float, default=4.0, help="seconds DNS takes to answer")
    parser.add_argument("--rate", type=float, default=25, help="session reads per second")
    args = parser.parse_args()
    with running_stack() as stack, tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "zone.json"
        token, ids, zone = asyncio.run(seed(stack.settings, args.verifies))
        store.write_text(json.dumps(zone))
        dns_port = free_port()
        # In a process of its own, so its answers cost the probe's process nothing.
        nameserver = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "devstack.dns_server",
                "--port",
                str(dns_port),
                "--store",
                str(store),
                "--delay-s",
                str(args.delay),
            ]
        )
        overrides = {
            "DNS_NAMESERVERS": '["127.0.0.1"]',
            "DNS_PORT": str(dns_port),
            # One slow answer must not be taken for a lost one (no retry before it comes).
            "DNS_TIMEOUT_S": str(args.delay + 2),
            "DNS_LIFETIME_S": str(args.delay + 3),
            "DNS_LOOKUPS_PER_REPLICA": str(args.verifies),
            "DOMAIN_VERIFY_LIMIT_PER_ACCOUNT": "100000",
            "DOMAIN_VERIFY_LIMIT_PER_ADDRESS": "100000",
        }
        try:
            with one_worker(stack, overrides) as worker:
                asyncio.run(measure(worker, token, ids, args.delay, args.rate))
        finally:
            nameserver.terminate()
            nameserver.wait(10)


if __name__ == "__main__":
    main()
