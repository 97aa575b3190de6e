"""Load run of the read path: ``GET /web/session`` and ``GET /web/account`` on ONE uvicorn worker.

    python -m bench.api [--duration 10] [--connections 32] [--runs 3]

Starts the stand-in stack (throwaway database, moto, localstripe), seeds one account with a
user and 12 billing cycles of usage, signs in for a real access token, then starts
``uvicorn --factory api.main:create_app --workers 1`` on 127.0.0.1 with production-like
settings (JSON access logs at INFO, written to /dev/null) and drives it with ``wrk`` from
Debian (installed on first use). Prints requests/s and p50/p99 latency per endpoint, the
median over ``--runs`` runs. Everything stays on loopback and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import statistics
import subprocess
from datetime import UTC, datetime

from dateutil.relativedelta import relativedelta

from api.account.service import create_account
from api.config import Settings
from api.db import create_engine, create_sessionmaker
from api.devstack.stack import running_stack
from api.models import AuthType, Platform, Usage, User
from api.usage.cycles import recent_cycle_starts
from bench.server import access_token, one_worker

EMAIL = "bench@bench-corp.dev"
PASSWORD = "Bench-password-1!"


def ensure_wrk() -> str:
    """Path of wrk, installing Debian's package when missing."""
    path = shutil.which("wrk")
    if path is None:
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True)
        path = shutil.which("wrk")
    assert path is not None
    return path


async def seed(settings: Settings) -> str:
    """One account, one user, 12 cycles of usage; returns an access token for the user."""
    engine = create_engine(settings.database_url, 1)
    async with create_sessionmaker(engine)() as db, db.begin():
        now = datetime.now(UTC)
        account = await create_account(
            db, settings, "Bench Corp", billing_cycle_anchor=now - relativedelta(months=11, days=3)
        )
        db.add(
            User(
                account_id=account.id,
                identity_id=EMAIL,
                first_name="Bench",
                last_name="Mark",
                email=EMAIL,
                auth_type=AuthType.EMAIL,
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


def run_wrk(wrk: str, url: str, token: str, seconds: int, connections: int) -> dict[str, float]:
    """One wrk run; returns req_s, p50_ms, p99_ms and the count of non-2xx responses."""
    out = subprocess.run(
        [
            wrk,
            "-t1",
            f"-c{connections}",
            f"-d{seconds}s",
            "--latency",
            "-H",
            f"Authorization: Bearer {token}",
            url,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    req_s = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    latency = {p: float(v) * _UNIT_MS[u] for p, v, u in _LATENCY.findall(out)}
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "req_s": req_s,
        "p50_ms": latency["50"],
        "p99_ms": latency["99"],
        "non_2xx": float(errors.group(1)) if errors else 0.0,
    }


def main() -> None:
    """Run the benchmark and print one line per endpoint."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=10, help="seconds per run")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    wrk = ensure_wrk()
    with running_stack() as stack:
        token = asyncio.run(seed(stack.settings))
        with one_worker(stack) as base:
            print(
                f"one uvicorn worker on 127.0.0.1, wrk -t1 -c{args.connections}, "
                f"{args.duration}s x {args.runs} runs (median shown)"
            )
            for path in ("/web/session", "/web/account"):
                run_wrk(wrk, base + path, token, 2, args.connections)  # warm-up
                runs = [
                    run_wrk(wrk, base + path, token, args.duration, args.connections)
                    for _ in range(args.runs)
                ]
                assert all(r["non_2xx"] == 0 for r in runs), f"{path} answered non-2xx"
                print(
                    f"GET {path:<14} "
                    f"{statistics.median(r['req_s'] for r in runs):8.0f} req/s   "
                    f"p50 {statistics.median(r['p50_ms'] for r in runs):6.2f} ms   "
                    f"p99 {statistics.median(r['p99_ms'] for r in runs):6.2f} ms"
                )


if __name__ == "__main__":
    main()
