"""``make scale-check``: three API replicas behind nginx survive a rolling restart and a crash.

    python -m bench.scale [--duration 25] [--concurrency 12] [--replicas 3]

Starts the stand-in stack (throwaway database, moto, localstripe, DNS stand-in, an SMTP sink
that holds each message 150 ms as a relay would), seeds one account with a password user and
twelve accounts of three users each, allowed 300 credits each, whose alert thresholds the
traffic crosses one account after another all through the run, then runs ``--replicas``
production replicas (``python -m api.app.commands.serve``, devstack/replicas.py) on loopback behind
Debian's nginx (bench/nginx.py, the proxy rules of deploy/nginx/console-proxy.conf) and two job
workers (``python -m api.app.commands.worker``). For ``--duration`` seconds ``--concurrency``
clients
send a mix through nginx: ``GET /web/session`` and ``GET /web/account`` with the user's bearer
token, metering batches (20 records with idempotency keys, half to the first account, half to
the alert account whose twelfth of the run it is; one batch in ten is a batch sent before,
again) with the accounts' API keys, and password sign-ins, each from an address of its own
(``X-Forwarded-For``). Meanwhile it sends SIGTERM to replica 1 and starts it again once it has
exited, SIGKILLs worker 1 while it sends an email (waiting up to 10 s for one) and starts it
again, then SIGKILLs replica 2 and starts it again.

The promise it holds the stack to (README "Running replicas"): a request whose replica is
SIGKILLed while it is in flight may be cut off once (nginx can repeat a request on another
replica only until the response header has arrived); the client sends it once more, as the
SPA repeats a read that failed on the network and a metering client resends a batch, and the
repeat gets the expected answer. Writes are never lost or counted twice.

Checks, each printed PASS or FAIL, then ``N passed, M failed`` (exit status 1 if any failed):
- every request got its expected answer, at the latest on its one repeat after a cut, and
  every cut hit a request in flight when the SIGKILL was sent (a cut at any other time, a
  second cut or a wrong answer fails; :func:`judge`);
- the SIGTERMed replica exited 0; both restarted replicas became ready;
- the database holds exactly the metering records whose batches were answered, once each,
  and the rollups add up to their credits: nothing lost, nothing counted twice, nothing stored
  that no answer confirmed (:func:`metering_verdict`);
- rate limits hold across replicas: an address that used up its sign-in attempts through
  nginx (spread over the replicas) is refused (429) by every replica, asked directly;
- the killed worker died of the SIGKILL and came back ready; once the email queue is empty
  (the killed worker's jobs run again when found stalled, 30 to 35 s later), every usage
  alert the database recorded reached each of its recipients once, under its Message-ID; a
  second copy only of an email the killed worker was sending (it may have reached the relay
  before the worker died), never a third; no email job failed (:func:`alert_verdict`);
- SIGTERM stops both workers with exit status 0.
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
from typing import Any

import httpx

from api.adapters.mail import Mailer
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker
from api.kernel.deferred import EMAIL_QUEUE
from api.keys.service import key_ring, open_current_key
from api.models import Role
from api.principal.api_keys import hash_api_key
from api.usage.alerts import message_key
from bench.metering import PASSWORD, seed_account
from bench.nginx import Nginx
from devstack.replicas import JobWorker, Replica, replica_environment
from devstack.seed import add_account
from devstack.services import ROOT, connect, free_port
from devstack.stack import PERIODIC_SCHEDULES, Stack, running_stack

EMAIL = "scale@bench-corp.dev"
BATCH = 20
SIGN_IN_LIMIT = 20  # SIGN_IN_LIMIT_PER_ADDRESS of the replicas (production: 100)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Accounts whose usage alerts the check follows: each gets the alert accounts' batches for its
# twelfth of the run, and a free allowance of a few batches, so 50, 80 and 100 % are crossed
# all through the run whatever its pace; each alert goes to 3 users.
ALERT_ACCOUNTS = 12
ALERT_ALLOWANCE = 300  # credits; a batch carries about 90
ALERT_USERS = 3
SMTP_DELAY_MS = 150  # the relay's latency: a killed worker is likely to be mid-send
DRAIN_S = 120.0  # a job of the killed worker runs again once its heartbeat is 30 s old


# The connection to nginx closed or was reset before the whole answer came: what a client sees
# when the replica serving it dies after sending the status line (nginx may repeat a request
# on another replica only until the response header has arrived, so it has to pass the cut on).
CUT_ERRORS = (httpx.RemoteProtocolError, httpx.ReadError)


@dataclass(frozen=True)
class Attempt:
    """One try of a request: when it was sent and ended (monotonic seconds) and how it went.

    ``cut``: the answer was cut off (:data:`CUT_ERRORS`); ``ok``: the expected answer came.
    """

    started: float
    ended: float
    ok: bool
    cut: bool
    detail: str


def judge(attempts: list[Attempt], kill_window: tuple[float, float] | None) -> str | None:
    """Whether one request kept the promise of README "Running replicas"; None if it did.

    The promise: every request gets its expected answer, except that one whose replica is
    SIGKILLed while it is in flight may be cut off once, and the client's one repeat of it
    (same body, same idempotency keys) gets the expected answer. ``kill_window`` is (just
    before, just after) the SIGKILL was sent, monotonic seconds; None if none was sent. A cut
    at any other time (a SIGTERM is graceful), a second cut, a wrong answer or a third try
    breaks it.

    Returns:
        Why the request failed the promise, else None.
    """
    if not attempts:
        return "never sent"
    *earlier, last = attempts
    if len(earlier) > 1:
        return f"{len(attempts)} tries; at most 2 (one repeat after a cut)"
    for attempt in earlier:
        if not attempt.cut:
            return f"repeated after an answer that was not a cut: {attempt.detail}"
        in_flight_at_kill = kill_window is not None and (
            attempt.started <= kill_window[1] and attempt.ended >= kill_window[0]
        )
        if not in_flight_at_kill:
            return f"cut while no replica was being killed: {attempt.detail}"
    if not last.ok:
        return ("cut twice: " if earlier and last.cut else "") + last.detail
    return None


def metering_verdict(
    confirmed: dict[str, int],
    unconfirmed: set[str],
    stored: Counter[str],
    rollup_credits: int,
) -> str | None:
    """Compare the metering records the clients sent with what the database holds; None if equal.

    Args:
        confirmed: idempotency key -> credits of each record whose batch was answered as
            expected (accepted or duplicate), repeats after a cut included.
        unconfirmed: keys of batches that never got an expected answer (their requests fail
            :func:`judge` already; listed so that the message says where rows came from).
        stored: rows in ``usage_record`` per idempotency key of the account.
        rollup_credits: the credits in the account's per-cycle rollups (``usage``).

    Returns:
        What was lost (confirmed, not stored), doubled (stored or counted twice) or stored
        without being confirmed, else None.
    """
    problems = []
    lost = confirmed.keys() - stored.keys()
    doubled = [key for key, rows in stored.items() if rows > 1]
    stranger = stored.keys() - confirmed.keys()
    if lost:
        problems.append(f"{len(lost)} confirmed records missing")
    if doubled:
        problems.append(f"{len(doubled)} records stored more than once")
    if stranger:
        from_cut = len(stranger & unconfirmed)
        problems.append(
            f"{len(stranger)} records stored that no answer confirmed "
            f"({from_cut} of batches whose answer never came)"
        )
    credits = sum(confirmed.values())
    if rollup_credits != credits:
        problems.append(f"rollups hold {rollup_credits} credits, {credits} were confirmed")
    return "; ".join(problems) or None


def alert_verdict(
    expected: set[str], delivered: Counter[str], in_flight_at_kill: set[str]
) -> str | None:
    """Compare the usage alerts the database recorded with the mailbox; None if each arrived
    once (README "Running replicas": a worker killed mid-send may have handed a message to the
    relay before it died; that job runs again and its copy carries the same Message-ID).

    Args:
        expected: the Message-IDs the database calls for (each ``usage_alert`` row of the
            check's accounts, to each of their users who get alerts).
        delivered: copies in the mailbox per Message-ID of the alerts to those accounts.
        in_flight_at_kill: Message-IDs of the jobs the killed worker was running.

    Returns:
        What was missing, unexpected, or copied without a kill to explain it, else None.
    """
    problems = []
    missing = expected - delivered.keys()
    stranger = delivered.keys() - expected
    copied = {m for m, n in delivered.items() if n > 1}
    if missing:
        problems.append(f"{len(missing)} alerts never arrived")
    if stranger:
        problems.append(f"{len(stranger)} alerts arrived that no crossing called for")
    if copied - in_flight_at_kill:
        problems.append(f"{len(copied - in_flight_at_kill)} alerts arrived twice with no kill")
    if any(n > 2 for n in delivered.values()):
        problems.append("an alert arrived more than twice")
    return "; ".join(problems) or None


@dataclass
class Tally:
    """What the clients sent and saw."""

    sent: Counter[str] = field(default_factory=Counter)
    requests: list[tuple[str, list[Attempt]]] = field(default_factory=list)
    confirmed: dict[str, int] = field(default_factory=dict)
    unconfirmed: set[str] = field(default_factory=set)
    batches: list[bytes] = field(default_factory=list)

    def failures(self, kill_window: tuple[float, float] | None) -> list[str]:
        """``kind: why`` of every request that broke the promise (:func:`judge`)."""
        verdicts = ((kind, judge(attempts, kill_window)) for kind, attempts in self.requests)
        return [f"{kind}: {why}" for kind, why in verdicts if why is not None]

    def repeated(self) -> Counter[str]:
        """Requests per kind that were cut once and sent again."""
        return Counter(kind for kind, attempts in self.requests if len(attempts) > 1)


async def seed_alert_accounts(settings: Settings) -> list[str]:
    """:data:`ALERT_ACCOUNTS` accounts allowed :data:`ALERT_ALLOWANCE` credits, each with
    :data:`ALERT_USERS` users who get alerts; returns their API keys."""
    engine = create_engine(settings.database_url, 1)
    keys = []
    anchor = datetime.now(UTC) - timedelta(days=3)
    ring = key_ring(settings)
    async with create_sessionmaker(engine)() as db, db.begin():
        for n in range(ALERT_ACCOUNTS):
            users = [
                (f"alerts-{n}-{u}@bench-corp.dev", "Alert", f"Reader {u}", Role.OWNER)
                for u in range(ALERT_USERS)
            ]
            account = await add_account(db, settings, f"Alerts {n}", users, anchor)
            account.free_plan_requests = ALERT_ALLOWANCE
            keys.append(await open_current_key(db=db, ring=ring, account_id=account.id))
    await engine.dispose()
    return keys


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
    base: str,
    token: str,
    api_keys: list[str],
    span: tuple[float, float],
    workers: int,
    tally: Tally,
) -> None:
    """Send the mixed traffic from ``workers`` clients through ``span`` (monotonic seconds: its
    start and end); metering batches go to the first key's account half the time, else to the
    alert account (the other keys, in turn) whose share of the span it is."""
    begun, until = span
    addresses = (f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}" for i in itertools.count(1))
    bearer = {"Authorization": f"Bearer {token}"}
    sent_with: dict[bytes, str] = {}

    async def one(client: httpx.AsyncClient, rng: random.Random) -> None:
        kind = rng.choices(("session", "account", "metering", "sign-in"), (4, 3, 2, 1))[0]
        again = kind == "metering" and bool(tally.batches) and rng.random() < 0.1
        body = b""
        options: dict[str, Any]
        if kind in ("session", "account"):
            method, url, options = "GET", f"/web/{kind}", {"headers": bearer}
        elif kind == "metering":
            body = rng.choice(tally.batches) if again else _batch(rng, tally)
            if body not in sent_with:
                share = (time.monotonic() - begun) / (until - begun)
                turn = 1 + min(len(api_keys) - 2, int(share * (len(api_keys) - 1)))
                sent_with[body] = api_keys[0] if rng.random() < 0.5 else api_keys[turn]
            key = {"X-API-Key": sent_with[body], "Content-Type": "application/json"}
            method, url, options = "POST", "/metering/usage", {"content": body, "headers": key}
        else:
            # The same address on a repeat: a person signing in again from where they are.
            address = {"X-Forwarded-For": next(addresses)}
            body = json.dumps({"email": EMAIL, "password": PASSWORD}).encode()
            headers = {**address, "Content-Type": "application/json"}
            method, url = "POST", "/web/session/sign-in"
            options = {"content": body, "headers": headers}

        def expected(response: httpx.Response) -> bool:
            if response.status_code != 200:
                return False
            if kind != "metering":
                return True
            try:
                answer = response.json()
            except ValueError:
                return False
            # A batch nginx sent twice (its first replica died after committing), or that we
            # sent again after a cut, comes back as duplicates: fine; the database check
            # counts. A batch sent again on purpose was answered before: all duplicates.
            complete = answer.get("accepted", -1) + answer.get("duplicates", -1) == BATCH
            return complete and (not again or answer.get("accepted") == 0)

        attempts: list[Attempt] = []
        # One repeat after a cut, as the SPA repeats a read that failed on the network
        # (web/src/api/query-client.ts) and a metering client resends a batch.
        while len(attempts) < 2 and (not attempts or attempts[-1].cut):
            started = time.monotonic()
            try:
                response = await client.request(method, url, **options)
                ok, cut = expected(response), False
                detail = f"{response.status_code} {response.text[:200]}"
            except httpx.HTTPError as exc:
                ok, cut, detail = False, isinstance(exc, CUT_ERRORS), repr(exc)
            attempts.append(Attempt(started, time.monotonic(), ok, cut, detail))
        kind = "metering (again)" if again else kind
        tally.sent[kind] += 1
        tally.requests.append((kind, attempts))
        if kind == "metering":
            records = json.loads(body)["records"]
            if attempts[-1].ok:
                tally.confirmed.update((r["idempotencyKey"], r["credits"]) for r in records)
                tally.batches.append(body)
            else:
                tally.unconfirmed.update(r["idempotencyKey"] for r in records)

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
    # Monotonic seconds just before and just after the SIGKILL was sent.
    kill_window: tuple[float, float] | None = None
    # The job worker SIGKILLed under load: its exit status, the message keys of the email jobs
    # it was running then, and whether it came back.
    worker_killed_exit: int | None = None
    worker_in_flight: set[str] = field(default_factory=set)
    worker_restarted: bool = False

    def ready(self, replica: Replica) -> None:
        """Note the CPU ``replica`` spent starting (imports, app, pool), not serving."""
        assert replica.process is not None
        self.cpu_at_ready[replica.process.pid] = cpu_seconds(replica.process.pid)

    def stopping(self, replica: Replica) -> None:
        """Add what ``replica`` spent serving since it was ready."""
        assert replica.process is not None
        pid = replica.process.pid
        self.cpu_s += cpu_seconds(pid) - self.cpu_at_ready.get(pid, 0.0)


async def worker_id_of_newest(database_url: str) -> int:
    """The id procrastinate gave the worker registered last."""
    connection = await connect(database_url)
    try:
        return int(await connection.fetchval("SELECT max(id) FROM procrastinate_workers"))
    finally:
        await connection.close()


async def sending(database_url: str, worker_id: int, wait_s: float = 0.0) -> set[str]:
    """The message keys of the email jobs ``worker_id`` runs, once it runs one or ``wait_s``
    seconds passed."""
    connection = await connect(database_url)
    deadline = time.monotonic() + wait_s
    try:
        while True:
            keys = await connection.fetch(
                "SELECT args->>'message_key' AS key FROM procrastinate_jobs "
                "WHERE status = 'doing' AND worker_id = $1 AND queue_name = $2",
                worker_id,
                EMAIL_QUEUE,
            )
            if keys or time.monotonic() >= deadline:
                return {row["key"] for row in keys}
            await asyncio.sleep(0.02)
    finally:
        await connection.close()


def kill_worker(worker: JobWorker, worker_id: int, database_url: str, report: ChaosReport) -> None:
    """SIGKILL ``worker`` while it sends an email (waiting up to 10 s for one), note which it
    was sending (their jobs stay ``doing``: the worker is gone), and start it again."""
    asyncio.run(sending(database_url, worker_id, wait_s=10.0))
    worker.signal(signal.SIGKILL)
    report.worker_killed_exit = worker.wait(60)
    report.worker_in_flight = asyncio.run(sending(database_url, worker_id))
    worker.start()
    try:
        worker.wait_ready(30)
        report.worker_restarted = True
    except RuntimeError as exc:
        report.errors.append(str(exc))


def chaos(
    replicas: list[Replica],
    worker: tuple[JobWorker, int],
    database_url: str,
    duration_s: float,
    report: ChaosReport,
) -> None:
    """SIGTERM replica 1 and restart it, SIGKILL a job worker mid-send and restart it, then
    SIGKILL replica 2 and restart it (blocking)."""
    started = time.monotonic()

    def wait_until(at: float) -> None:
        time.sleep(max(0.0, started + at * duration_s - time.monotonic()))

    plan = [(0.2, replicas[0], signal.SIGTERM), (0.55, replicas[1], signal.SIGKILL)]
    for at, replica, sig in plan:
        if sig == signal.SIGKILL:  # the worker's turn comes between the two
            wait_until(0.35)
            kill_worker(*worker, database_url, report)
        wait_until(at)
        report.stopping(replica)
        before = time.monotonic()
        replica.signal(sig)
        if sig == signal.SIGKILL:
            report.kill_window = (before, time.monotonic())
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


async def database_records(database_url: str, api_keys: list[str]) -> tuple[Counter[str], int]:
    """(rows per idempotency key in ``usage_record``, credits in the ``usage`` rollups) of the
    accounts of ``api_keys``."""
    connection = await connect(database_url)
    try:
        accounts = await _accounts(connection, api_keys)
        rows = await connection.fetch(
            "SELECT idempotency_key, count(*) AS n FROM usage_record "
            "WHERE account_id = ANY($1::uuid[]) GROUP BY idempotency_key",
            accounts,
        )
        credits = await connection.fetchval(
            "SELECT coalesce(sum(credits), 0) FROM usage WHERE account_id = ANY($1::uuid[])",
            accounts,
        )
        return Counter({row["idempotency_key"]: int(row["n"]) for row in rows}), int(credits)
    finally:
        await connection.close()


async def _accounts(connection: Any, api_keys: list[str]) -> list[Any]:
    return [
        await connection.fetchval(
            "SELECT account_id FROM api_key WHERE key_hash = $1", hash_api_key(key)
        )
        for key in api_keys
    ]


async def drain(database_url: str, timeout_s: float) -> tuple[float, int]:
    """Wait until no email job waits or runs (the killed worker's run again once found
    stalled); returns (seconds waited, email jobs that failed for good)."""
    connection = await connect(database_url)
    started = time.monotonic()
    try:
        while True:
            left = await connection.fetchval(
                "SELECT count(*) FROM procrastinate_jobs "
                "WHERE queue_name = $1 AND status IN ('todo', 'doing')",
                EMAIL_QUEUE,
            )
            if not left or time.monotonic() - started > timeout_s:
                break
            await asyncio.sleep(0.5)
        failed = await connection.fetchval(
            "SELECT count(*) FROM procrastinate_jobs WHERE queue_name = $1 AND status = 'failed'",
            EMAIL_QUEUE,
        )
        return time.monotonic() - started, int(failed)
    finally:
        await connection.close()


async def expected_alerts(settings: Settings, api_keys: list[str]) -> tuple[set[str], set[str]]:
    """(the Message-IDs of every usage alert the database recorded for the accounts of
    ``api_keys``, to each user who gets alerts; the accounts' ids as text)."""
    mailer = Mailer.from_settings(settings)
    connection = await connect(settings.database_url)
    try:
        accounts = await _accounts(connection, api_keys)
        rows = await connection.fetch(
            "SELECT a.account_id, a.cycle_start, a.threshold, u.email FROM usage_alert a "
            'JOIN "user" u ON u.account_id = a.account_id AND u.usage_alerts '
            "WHERE a.account_id = ANY($1::uuid[])",
            accounts,
        )
    finally:
        await connection.close()
    expected = {
        mailer.message_id(message_key(r["account_id"], r["cycle_start"], r["threshold"], email))
        for r in rows
        for email in (r["email"],)
    }
    return expected, {str(a) for a in accounts}


def delivered_alerts(mailbox: Path, accounts: set[str]) -> Counter[str]:
    """Copies per Message-ID of the usage alerts to ``accounts`` in the SMTP sink's file."""
    delivered: Counter[str] = Counter()
    for line in mailbox.read_text().splitlines():
        message_id = json.loads(line)["messageId"]
        if message_id.startswith("<usage-alert.") and message_id.split(".")[1] in accounts:
            delivered[message_id] += 1
    return delivered


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
    api_keys = [api_key, *asyncio.run(seed_alert_accounts(stack.settings))]
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
    # Two job workers (the periodic tasks off: this is about the emails). A dead worker's jobs
    # are looked for every 5 s, after 30 s without its heartbeat (the least the setting takes:
    # three heartbeats), instead of a minute and every minute: the same pass, sooner.
    worker_env = {
        **env,
        **dict.fromkeys(PERIODIC_SCHEDULES, ""),
        "JOB_STALLED_AFTER_S": "30",
        "JOB_STALLED_CRON": "* * * * * */5",
    }
    workers = [JobWorker(f"worker-{i + 1}", worker_env, LOGS) for i in range(2)]
    checks: list[tuple[str, bool, str]] = []
    try:
        for replica in replicas:
            replica.start()
        tally, report = Tally(), ChaosReport()
        for replica in replicas:
            replica.wait_ready(60)
            report.ready(replica)
        worker_ids = []
        for worker in workers:  # one after the other, so the newest registered is this one
            worker.start()
            worker.wait_ready(60)
            worker_ids.append(asyncio.run(worker_id_of_newest(stack.settings.database_url)))
        nginx.start()

        async def traffic_and_chaos() -> float:
            started = time.monotonic()
            span = (started, started + args.duration)
            await asyncio.gather(
                drive(nginx.url, token, api_keys, span, args.concurrency, tally),
                asyncio.to_thread(
                    chaos,
                    replicas,
                    (workers[0], worker_ids[0]),
                    stack.settings.database_url,
                    args.duration,
                    report,
                ),
            )
            return time.monotonic() - started

        elapsed = asyncio.run(traffic_and_chaos())
        for replica in replicas:
            report.stopping(replica)
        total = sum(tally.sent.values())
        failures = tally.failures(report.kill_window)
        repeated = tally.repeated()
        checks.append(
            (
                "every request answered as expected (a cut by the SIGKILL: once, then repeated)",
                not failures,
                f"{len(failures)} of {total} failed: {failures[:5]}; cut by the SIGKILL and "
                f"answered on the repeat: {sum(repeated.values())} {dict(repeated)}",
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
        stored, rollup_credits = asyncio.run(
            database_records(stack.settings.database_url, api_keys)
        )
        verdict = metering_verdict(tally.confirmed, tally.unconfirmed, stored, rollup_credits)
        checks.append(
            (
                "metering: every confirmed record stored once, none lost, none extra",
                verdict is None,
                f"{sum(stored.values())} rows, {len(stored)} keys, {rollup_credits} credits "
                f"in the database; {len(tally.confirmed)} records, "
                f"{sum(tally.confirmed.values())} credits confirmed to the clients"
                + (f": {verdict}" if verdict else ""),
            )
        )
        holds, statuses = rate_limit_holds(nginx.url, replicas)
        checks.append(("rate limit holds across replicas", holds, statuses))
        checks.append(
            (
                "SIGKILL: the job worker died of it mid-send, restarted and became ready",
                report.worker_killed_exit == -9 and report.worker_restarted,
                f"{report.worker_killed_exit}; sending {len(report.worker_in_flight)} "
                "email(s) when killed",
            )
        )
        waited_s, failed = asyncio.run(drain(stack.settings.database_url, DRAIN_S))
        expected, accounts = asyncio.run(expected_alerts(stack.settings, api_keys))
        delivered = delivered_alerts(Path(stack.settings.mail.dev_mailbox_path), accounts)
        mailer = Mailer.from_settings(stack.settings)
        in_flight = {mailer.message_id(key) for key in report.worker_in_flight}
        alerts = alert_verdict(expected, delivered, in_flight)
        resent = sum(1 for m, n in delivered.items() if n > 1)
        checks.append(
            (
                "alerts: every crossing's email delivered once (a copy only of one sent when "
                "its worker was killed)",
                alerts is None and not failed,
                f"{len(expected)} expected, {sum(delivered.values())} delivered "
                f"({resent} sent again after the kill, same Message-ID) {waited_s:.0f} s "
                f"after the traffic; {failed} failed" + (f": {alerts}" if alerts else ""),
            )
        )
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
        for worker in workers:
            worker.stop()
        stopped = [worker.process.returncode for worker in workers if worker.process]
        checks.append(("SIGTERM: the job workers exited 0", stopped == [0, 0], f"{stopped}"))
    finally:
        nginx.stop()
        shutil.copy(nginx.folder / "error.log", LOGS / "nginx-error.log")
        for process in (*replicas, *workers):
            process.stop()
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
        running_stack(smtp_delay_ms=SMTP_DELAY_MS) as stack,
    ):
        checks = run(stack, args, Path(temp))
    for name, passed, detail in checks:
        print(f"{'PASS' if passed else 'FAIL'}  {name}: {detail}")
    failed = sum(not passed for _, passed, _ in checks)
    print(f"{len(checks) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
