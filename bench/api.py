"""Load run of the read path: ``GET /web/session`` and ``GET /web/account`` on ONE uvicorn worker.

    python -m bench.api [--duration 10] [--connections 32] [--runs 3] [--profile DIR]

Starts the stand-in stack (throwaway database, moto, localstripe), seeds one account as the
console's busiest screen sees it (3 users, 12 billing cycles of usage on all 3 platforms,
Google SSO required for a domain, a card on file, a paid plan), signs in for a real access
token, then starts ``uvicorn --factory api.app.web:create_app --workers 1`` on 127.0.0.1 with
production-like settings (JSON access lines at INFO, written to /dev/null) and drives it with
``wrk`` from Debian (installed on first use).

Each of ``--runs`` rounds measures both endpoints back to back (session, then account), so
the two share the machine's state of the moment; the figures printed are medians over the
rounds. Per endpoint:

- under load (``wrk -t1 -c<connections>``): requests/s, p50 and p99 latency, the worker's
  CPU time per request (user + system time from ``/proc/<pid>/stat`` before and after the run,
  divided by the requests wrk completed; the clock tick is 10 ms, so a 10 s run of thousands
  of requests measures to a few microseconds) and PostgreSQL's ("PG", the same for every
  process of the cluster the bench's database is on: ``bench.server.PostgresCluster``; the
  stand-in stack's embedded server is the bench's alone, a shared ``DATABASE_URL`` server
  counts its other clients' work too);
- one request at a time (``wrk -t1 -c1``, ``--duration`` / 2 seconds): p50 and p99;
- the account/session ratio of requests/s, computed per round.

``--profile DIR`` also records each endpoint under load with py-spy (``py-spy record``,
speedscope JSON and a collapsed-stack text file per endpoint in DIR), after the measured
rounds so the sampler does not weigh on them.

Everything stays on loopback and stops by itself. The load generator, PostgreSQL and the
worker share the machine's cores, so compare ratios and alternate runs when comparing commits.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import secrets
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from dateutil.relativedelta import relativedelta

from api.account.service import create_account
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker
from api.models import AuthType, DomainState, Platform, Role, SsoDomain, Usage, User
from api.usage.cycles import recent_cycle_starts
from bench.server import PostgresCluster, Worker, access_token, one_worker
from devstack.stack import running_stack

EMAIL = "bench@bench-corp.dev"
PASSWORD = "Bench-password-1!"
# (Cognito username, email, first name, last name, how they sign in); the first is signed in.
# The account requires Google SSO, so its signed-in user is a Google user (the sign-in policy
# reads that from the user's row); the stand-in pool mints its token with a password.
USERS = [
    (EMAIL, EMAIL, "Bench", "Mark", AuthType.GOOGLE_SSO),
    ("grace@bench-corp.dev", "grace@bench-corp.dev", "Grace", "Hopper", AuthType.EMAIL),
    (
        "google_104857600000000000001",
        "kat@bench-corp.dev",
        "Katherine",
        "Johnson",
        AuthType.GOOGLE_SSO,
    ),
]
PATHS = ("/web/session", "/web/account")


def ensure_wrk() -> str:
    """Path of wrk, installing Debian's package when missing."""
    path = shutil.which("wrk")
    if path is None:
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True)
        path = shutil.which("wrk")
    assert path is not None
    return path


async def seed(settings: Settings) -> str:
    """One account as Account Information shows it at its fullest: 3 users, 12 cycles of usage
    on 3 platforms, SSO required for a domain, a card, 3 units. Returns an access token for the
    first user."""
    engine = create_engine(settings.database_url, 1)
    async with create_sessionmaker(engine)() as db, db.begin():
        now = datetime.now(UTC)
        account = await create_account(
            db=db,
            settings=settings,
            name="Bench Corp",
            billing_cycle_anchor=now - relativedelta(months=11, days=3),
        )
        account.require_google_sso = True
        db.add(
            SsoDomain(
                account_id=account.id,
                domain="bench-corp.dev",
                token=secrets.token_hex(16),
                state=DomainState.VERIFIED,
            )
        )
        account.subscription_units = 3
        account.card_brand = "Visa"
        account.card_last4 = "4242"
        account.card_exp_month = 8
        account.card_exp_year = 2031
        for identity_id, email, first, last, auth_type in USERS:
            db.add(
                User(
                    account_id=account.id,
                    identity_id=identity_id,
                    first_name=first,
                    last_name=last,
                    email=email,
                    auth_type=auth_type,
                    role=Role.OWNER,
                )
            )
        for start in recent_cycle_starts(account.billing_cycle_anchor, now, 12):
            for platform in Platform:
                db.add(
                    Usage(
                        account_id=account.id,
                        cycle_start=start,
                        platform=platform,
                        runs=40,
                        credits=400,
                    )
                )
    await engine.dispose()
    return await access_token(settings, EMAIL, PASSWORD)


_LATENCY = re.compile(r"^\s+(50|99)(?:\.000)?%\s+([\d.]+)(us|ms|s)\s*$", re.MULTILINE)
_UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


@dataclass(frozen=True)
class Run:
    """One wrk run: requests/s, latency percentiles (ms), the worker's and PostgreSQL's CPU
    ms per request."""

    req_s: float
    p50_ms: float
    p99_ms: float
    cpu_ms: float
    pg_cpu_ms: float


def run_wrk(
    wrk: str,
    worker: Worker,
    cluster: PostgresCluster,
    path: str,
    token: str,
    seconds: int,
    connections: int,
) -> Run:
    """One wrk run against ``worker``; fails on any non-2xx/3xx response."""
    cpu_before = worker.cpu_seconds()
    pg_before = cluster.cpu_seconds()
    out = subprocess.run(
        [
            wrk,
            "-t1",
            f"-c{connections}",
            f"-d{seconds}s",
            "--latency",
            "-H",
            f"Authorization: Bearer {token}",
            worker.url + path,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    cpu = worker.cpu_seconds() - cpu_before
    pg_cpu = cluster.cpu_seconds() - pg_before
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    assert errors is None, f"{path} answered non-2xx: {out}"
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    latency = {p: float(v) * _UNIT_MS[u] for p, v, u in _LATENCY.findall(out)}
    return Run(
        req_s=float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),  # type: ignore[union-attr]
        p50_ms=latency["50"],
        p99_ms=latency["99"],
        cpu_ms=cpu * 1000 / requests,
        pg_cpu_ms=pg_cpu * 1000 / requests,
    )


def profile(
    wrk: str,
    worker: Worker,
    cluster: PostgresCluster,
    token: str,
    seconds: int,
    connections: int,
    out: Path,
) -> None:
    """Record each endpoint under load with py-spy into ``out`` (speedscope JSON and collapsed
    stacks; open the JSON at speedscope.app or read the text with any flame-graph tool)."""
    py_spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    assert py_spy is not None, "py-spy is in requirements-dev.lock: make deps"
    out.mkdir(parents=True, exist_ok=True)
    for path in PATHS:
        name = path.strip("/").replace("/", "-")
        for fmt, suffix in (("speedscope", "json"), ("raw", "txt")):
            recorder = subprocess.Popen(
                [
                    py_spy,
                    "record",
                    "--pid",
                    str(worker.pid),
                    "--rate",
                    "500",
                    "--duration",
                    str(seconds),
                    "--format",
                    fmt,
                    "--output",
                    str(out / f"{name}.{suffix}"),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            run_wrk(wrk, worker, cluster, path, token, seconds, connections)
            recorder.wait(seconds + 30)
    print(f"py-spy profiles in {out}/")


def _median(runs: list[Run], field: str) -> float:
    return statistics.median(getattr(r, field) for r in runs)


def main() -> None:
    """Run the benchmark and print one line per endpoint and load, then the ratio."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=10, help="seconds per loaded run")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", type=Path, help="also record py-spy profiles into DIR")
    args = parser.parse_args()
    wrk = ensure_wrk()
    serial_s = max(args.duration // 2, 1)
    with running_stack() as stack:
        token = asyncio.run(seed(stack.settings))
        cluster = PostgresCluster.of(stack.settings.database_url)
        with one_worker(stack) as worker:
            for path in PATHS:  # warm-up
                run_wrk(wrk, worker, cluster, path, token, 2, args.connections)
            loaded: dict[str, list[Run]] = {path: [] for path in PATHS}
            serial: dict[str, list[Run]] = {path: [] for path in PATHS}
            for _ in range(args.runs):
                for path in PATHS:
                    loaded[path].append(
                        run_wrk(wrk, worker, cluster, path, token, args.duration, args.connections)
                    )
                for path in PATHS:
                    serial[path].append(run_wrk(wrk, worker, cluster, path, token, serial_s, 1))
            print(
                f"one uvicorn worker on 127.0.0.1; {args.runs} rounds of wrk -t1 "
                f"-c{args.connections} {args.duration}s and -c1 {serial_s}s per endpoint "
                "(medians)"
            )
            for path in PATHS:
                print(
                    f"GET {path:<13} -c{args.connections:<3} "
                    f"{_median(loaded[path], 'req_s'):7.0f} req/s  "
                    f"p50 {_median(loaded[path], 'p50_ms'):6.2f} ms  "
                    f"p99 {_median(loaded[path], 'p99_ms'):6.2f} ms  "
                    f"CPU {_median(loaded[path], 'cpu_ms'):5.2f} ms/request  "
                    f"PG {_median(loaded[path], 'pg_cpu_ms'):5.2f} ms/request"
                )
                print(
                    f"GET {path:<13} -c1   "
                    f"{_median(serial[path], 'req_s'):7.0f} req/s  "
                    f"p50 {_median(serial[path], 'p50_ms'):6.2f} ms  "
                    f"p99 {_median(serial[path], 'p99_ms'):6.2f} ms  "
                    f"CPU {_median(serial[path], 'cpu_ms'):5.2f} ms/request  "
                    f"PG {_median(serial[path], 'pg_cpu_ms'):5.2f} ms/request"
                )
            session, account = (loaded[path] for path in PATHS)
            ratio = statistics.median(
                a.req_s / s.req_s for s, a in zip(session, account, strict=True)
            )
            print(f"account/session requests/s: {ratio:.2f} (median of the per-round ratios)")
            if args.profile:
                profile(wrk, worker, cluster, token, args.duration, args.connections, args.profile)


if __name__ == "__main__":
    main()
