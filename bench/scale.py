"""``make scale-check``: three API replicas behind nginx survive a rolling restart and a crash.

    python -m bench.scale [--duration 25] [--concurrency 12] [--replicas 3]

Starts the stand-in stack (throwaway database, moto, localstripe, DNS stand-in), seeds one
account with a password user, then runs ``--replicas`` production replicas
(``python -m api.ops.serve``, devstack/replicas.py) on loopback behind Debian's nginx
(bench/nginx.py, the proxy rules of deploy/nginx/console-proxy.conf). For ``--duration``
seconds ``--concurrency`` clients send a mix through nginx: ``GET /web/session`` and
``GET /web/account`` with the user's bearer token, metering batches (20 records with
idempotency keys; one batch in ten is a batch sent before, again) with the account's API key,
and password sign-ins, each from an address of its own (``X-Forwarded-For``). Meanwhile it
sends SIGTERM to replica 1 and starts it again once it has exited, then SIGKILLs replica 2 and
starts it again.

Checks, each printed PASS or FAIL, then ``N passed, M failed`` (exit status 1 if any failed):
- every request got its expected answer (0 failed requests seen by the clients);
- the SIGTERMed replica exited 0; both restarted replicas became ready;
- the database holds exactly the records sent, once each, and the rollups add up to the
  credits sent (nothing lost, nothing counted twice);
- rate limits hold across replicas: an address that used up its sign-in attempts through
  nginx (spread over the replicas) is refused (429) by every replica, asked directly.
Also prints the request counts per kind, requests/s, and the replicas' CPU time per request
(user + system from /proc, while serving: start-up excluded; the load generator, nginx,
PostgreSQL and moto share the machine's cores, so these figures are for sizing, not for
comparing commits).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from api.auth.api_keys import hash_api_key
from bench.metering import PASSWORD, seed_account
from bench.nginx import Nginx
from devstack.replicas import Replica, replica_environment
from devstack.services import ROOT, connect, free_port
from devstack.stack import Stack, running_stack

EMAIL = "scale@bench-corp.dev"
BATCH = 20
SIGN_IN_LIMIT = 20  # SIGN_IN_LIMIT_PER_ADDRESS of the replicas (production: 100)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Tally:
    """What the clients saw."""

    sent: Counter[str] = field(default_factory=Counter)
    failed: list[str] = field(default_factory=list)
    records: set[str] = field(default_factory=set)
    credits: int = 0
    batches: list[bytes] = field(default_factory=list)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (``/proc/<pid>/stat`` fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _batch(rng: random.Random, tally: Tally) -> bytes:
    now = datetime.now(UTC)
    records = []
    for _ in range(BATCH):
        key = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        credits = rng.randint(1, 8)
        records.append(
            {
                "idempotencyKey": key,
                "platform": rng.choice(("web", "nativeMobile", "api")),
                "runs": 1,
                "credits": credits,
                "time": (now - timedelta(seconds=rng.uniform(0, 60))).isoformat(),
            }
        )
    return json.dumps({"records": records}).encode()


async def drive(
    base: str, token: str, api_key: str, until: float, workers: int, tally: Tally
) -> None:
    """Send the mixed traffic until ``until`` (monotonic seconds) from ``workers`` clients."""
    addresses = (f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}" for i in itertools.count(1))
    bearer = {"Authorization": f"Bearer {token}"}
    key = {"X-API-Key": api_key, "Content-Type": "application/json"}

    async def one(client: httpx.AsyncClient, rng: random.Random) -> None:
        kind = rng.choices(("session", "account", "metering", "sign-in"), (4, 3, 2, 1))[0]
        try:
            if kind == "session":
                response = await client.get("/web/session", headers=bearer)
                ok = response.status_code == 200
            elif kind == "account":
                response = await client.get("/web/account", headers=bearer)
                ok = response.status_code == 200
            elif kind == "metering":
                again = bool(tally.batches) and rng.random() < 0.1
                body = rng.choice(tally.batches) if again else _batch(rng, tally)
                response = await client.post("/metering/usage", content=body, headers=key)
                answer = response.json() if response.status_code == 200 else {}
                # A batch nginx sent twice (its first replica died after committing) comes
                # back as duplicates: fine. The database totals check the counting.
                ok = answer.get("accepted", -1) + answer.get("duplicates", -1) == BATCH
                if ok and not again:
                    records = json.loads(body)["records"]
                    tally.records.update(r["idempotencyKey"] for r in records)
                    tally.credits += sum(r["credits"] for r in records)
                    tally.batches.append(body)
                if again:
                    ok = ok and answer.get("accepted") == 0
                kind = "metering (again)" if again else kind
            else:
                response = await client.post(
                    "/web/session/sign-in",
                    json={"email": EMAIL, "password": PASSWORD},
                    headers={"X-Forwarded-For": next(addresses)},
                )
                ok = response.status_code == 200
            detail = f"{kind}: {response.status_code} {response.text[:200]}"
        except httpx.HTTPError as exc:
            ok, detail = False, f"{kind}: {exc!r}"
        tally.sent[kind] += 1
        if not ok:
            tally.failed.append(detail)

    async def worker(seed: int) -> None:
        rng = random.Random(seed)
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            while time.monotonic() < until:
                await one(client, rng)

    await asyncio.gather(*(worker(seed) for seed in range(workers)))


@dataclass
class ChaosReport:
    """What happened to the replicas."""

    graceful_exit: int | None = None
    killed_exit: int | None = None
    restarted: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    cpu_s: float = 0.0  # serving only: each process's CPU once ready is subtracted
    cpu_at_ready: dict[int, float] = field(default_factory=dict)

    def ready(self, replica: Replica) -> None:
        """Note the CPU ``replica`` spent starting (imports, app, pool), not serving."""
        assert replica.process is not None
        self.cpu_at_ready[replica.process.pid] = cpu_seconds(replica.process.pid)

    def stopping(self, replica: Replica) -> None:
        """Add what ``replica`` spent serving since it was ready."""
        assert replica.process is not None
        pid = replica.process.pid
        self.cpu_s += cpu_seconds(pid) - self.cpu_at_ready.get(pid, 0.0)


def chaos(replicas: list[Replica], duration_s: float, report: ChaosReport) -> None:
    """SIGTERM replica 1 and restart it, then SIGKILL replica 2 and restart it (blocking)."""
    started = time.monotonic()
    plan = [(0.2, replicas[0], signal.SIGTERM), (0.55, replicas[1], signal.SIGKILL)]
    for at, replica, sig in plan:
        time.sleep(max(0.0, started + at * duration_s - time.monotonic()))
        report.stopping(replica)
        replica.signal(sig)
        status = replica.wait(60)
        if sig == signal.SIGTERM:
            report.graceful_exit = status
        else:
            report.killed_exit = status
        replica.start()
        try:
            replica.wait_ready(30)
            report.ready(replica)
            report.restarted.append(replica.name)
        except RuntimeError as exc:
            report.errors.append(str(exc))


async def database_totals(database_url: str, api_key: str) -> tuple[int, int, int]:
    """(usage records, distinct idempotency keys, credits in the rollups) of the account."""
    connection = await connect(database_url)
    try:
        account_id = await connection.fetchval(
            "SELECT account_id FROM api_key WHERE key_hash = $1", hash_api_key(api_key)
        )
        records, keys = await connection.fetchrow(
            "SELECT count(*), count(DISTINCT idempotency_key) FROM usage_record "
            "WHERE account_id = $1",
            account_id,
        )
        credits = await connection.fetchval(
            "SELECT coalesce(sum(credits), 0) FROM usage WHERE account_id = $1", account_id
        )
        return int(records), int(keys), int(credits)
    finally:
        await connection.close()


def rate_limit_holds(nginx_url: str, replicas: list[Replica]) -> tuple[bool, str]:
    """Use up one address's sign-in attempts through nginx, then ask every replica directly."""
    address = {"X-Forwarded-For": "10.250.0.1"}
    body = {"email": EMAIL, "password": PASSWORD}
    through = [
        httpx.post(f"{nginx_url}/web/session/sign-in", json=body, headers=address, timeout=30)
        for _ in range(SIGN_IN_LIMIT)
    ]
    direct = [
        httpx.post(f"{r.url}/web/session/sign-in", json=body, headers=address, timeout=30)
        for r in replicas
    ]
    statuses = f"{[r.status_code for r in through]} then {[r.status_code for r in direct]}"
    holds = all(r.status_code == 200 for r in through) and all(r.status_code == 429 for r in direct)
    return holds, statuses


LOGS = ROOT / ".testdata" / "scale-check"


def run(stack: Stack, args: argparse.Namespace, folder: Path) -> list[tuple[str, bool, str]]:
    """Everything after the stack is up; returns the checks as (name, passed, detail).

    nginx's configuration, logs and temporary files go to ``folder`` (removed afterwards);
    the replicas' logs to ``.testdata/scale-check/`` (kept until the next run).
    """
    api_key, token, _ = asyncio.run(seed_account(stack.settings, "Scale Co", EMAIL))
    ports = [free_port() for _ in range(args.replicas)]
    nginx = Nginx(folder / "nginx", ports)
    env = replica_environment(
        stack,
        nginx.url,
        TRUSTED_PROXIES='["127.0.0.1"]',
        SIGN_IN_LIMIT_PER_ADDRESS=str(SIGN_IN_LIMIT),
        SHUTDOWN_DRAIN_S="1",
        SHUTDOWN_GRACE_S="20",
        DB_POOL_SIZE="10",
    )
    shutil.rmtree(LOGS, ignore_errors=True)
    replicas = [Replica(f"replica-{i + 1}", env, LOGS, port) for i, port in enumerate(ports)]
    checks: list[tuple[str, bool, str]] = []
    try:
        for replica in replicas:
            replica.start()
        tally, report = Tally(), ChaosReport()
        for replica in replicas:
            replica.wait_ready(60)
            report.ready(replica)
        nginx.start()

        async def traffic_and_chaos() -> float:
            started = time.monotonic()
            await asyncio.gather(
                drive(nginx.url, token, api_key, started + args.duration, args.concurrency, tally),
                asyncio.to_thread(chaos, replicas, args.duration, report),
            )
            return time.monotonic() - started

        elapsed = asyncio.run(traffic_and_chaos())
        for replica in replicas:
            report.stopping(replica)
        total = sum(tally.sent.values())
        checks.append(
            (
                "0 failed requests seen by clients",
                not tally.failed,
                f"{len(tally.failed)} of {total}: {tally.failed[:5]}",
            )
        )
        checks.append(
            ("SIGTERM: the replica exited 0", report.graceful_exit == 0, f"{report.graceful_exit}")
        )
        checks.append(
            ("SIGKILL: the replica died of it", report.killed_exit == -9, f"{report.killed_exit}")
        )
        checks.append(
            (
                "both replicas restarted and became ready",
                len(report.restarted) == 2 and not report.errors,
                f"{report.restarted} {report.errors}",
            )
        )
        records, keys, credits = asyncio.run(database_totals(stack.settings.database_url, api_key))
        checks.append(
            (
                "metering: every record once, totals equal to what was sent",
                records == keys == len(tally.records) and credits == tally.credits,
                f"{records} rows, {keys} keys, {credits} credits in the database; "
                f"{len(tally.records)} records, {tally.credits} credits sent",
            )
        )
        holds, statuses = rate_limit_holds(nginx.url, replicas)
        checks.append(("rate limit holds across replicas", holds, statuses))
        print(
            f"requests: {total} in {elapsed:.1f} s = {total / elapsed:,.0f} req/s through nginx "
            f"({args.concurrency} clients, {args.replicas} replicas); "
            + ", ".join(f"{kind} {n}" for kind, n in sorted(tally.sent.items()))
        )
        print(
            f"replica CPU: {report.cpu_s:.1f} s for {total} requests = "
            f"{report.cpu_s / total * 1000:.2f} ms per request of this mix "
            f"({BATCH}-record batches)"
        )
    finally:
        nginx.stop()
        shutil.copy(nginx.folder / "error.log", LOGS / "nginx-error.log")
        for replica in replicas:
            replica.stop()
    return checks


def main() -> None:
    """Run the check and print its results; exit 1 if any check failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=25.0, help="seconds of traffic")
    parser.add_argument("--concurrency", type=int, default=12, help="concurrent clients")
    parser.add_argument("--replicas", type=int, default=3)
    args = parser.parse_args()
    if args.replicas < 3:
        parser.error("--replicas must be at least 3 (one stopped, one killed, one serving)")
    with (
        tempfile.TemporaryDirectory(prefix="scale-check-") as temp,
        running_stack() as stack,
    ):
        checks = run(stack, args, Path(temp))
    for name, passed, detail in checks:
        print(f"{'PASS' if passed else 'FAIL'}  {name}: {detail}")
    failed = sum(not passed for _, passed, _ in checks)
    print(f"{len(checks) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
