"""Replay realistic metering traffic for an account through the HTTP intake of a running stack.

    python -m devstack.replay [--url http://127.0.0.1:8000] [--runs 60] [--hours 48]
                                  [--api-key KEY | --email E --password P] [--seed N]

Without ``--api-key`` it signs in as the demo user (``POST /web/session/sign-in``) and reads
the account's API key from ``GET /web/account``, exactly as a developer copies it from the
console. Each record is one test run (``runs`` 1) on web, nativeMobile or api (60/25/15 %)
with 1 to 8 ``ai()`` calls (``credits``), at a random time within the last ``--hours`` but not
before the current billing cycle. Records go out in batches of ``--batch`` to
``POST /metering/usage`` with ``X-API-Key``; the first batch is then sent again, as a client
retrying after a timeout would, and must be reported as all duplicates.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from devstack.seed import DEMO_EMAIL, DEMO_PASSWORD

PLATFORMS = ("web", "nativeMobile", "api")
PLATFORM_WEIGHTS = (0.6, 0.25, 0.15)


def reveal_api_key(client: httpx.Client, access_token: str) -> str:
    """The account's current API key, revealed through the console API as a user copies it
    (``GET /web/api-keys``, then ``POST /web/api-keys/{id}/reveal``, recorded as a copy)."""
    headers = {"Authorization": f"Bearer {access_token}"}
    listed = client.get("/web/api-keys", headers=headers)
    listed.raise_for_status()
    current = listed.json()["keys"][0]["id"]
    revealed = client.post(
        f"/web/api-keys/{current}/reveal", json={"purpose": "copy"}, headers=headers
    )
    revealed.raise_for_status()
    return str(revealed.json()["key"])


def api_key_of(client: httpx.Client, email: str, password: str) -> tuple[str, datetime]:
    """Sign in and read the account's API key and current cycle start from the console API."""
    signed_in = client.post("/web/session/sign-in", json={"email": email, "password": password})
    signed_in.raise_for_status()
    token = signed_in.json()["tokens"]["accessToken"]
    account = client.get("/web/account", headers={"Authorization": f"Bearer {token}"})
    account.raise_for_status()
    body = account.json()["account"]
    cycle_start = datetime.fromtimestamp(body["usage"][-1]["startMs"] / 1000, UTC)
    return reveal_api_key(client, token), cycle_start


def make_records(
    rng: random.Random, runs: int, hours: float, not_before: datetime
) -> list[dict[str, Any]]:
    """``runs`` records of one test run each, oldest first."""
    now = datetime.now(UTC)
    earliest = max(now - timedelta(hours=hours), not_before)
    span = (now - earliest).total_seconds()
    records = []
    for _ in range(runs):
        at = earliest + timedelta(seconds=rng.uniform(0, span))
        records.append(
            {
                "idempotencyKey": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                "platform": rng.choices(PLATFORMS, PLATFORM_WEIGHTS)[0],
                "runs": 1,
                "credits": rng.randint(1, 8),
                "time": at.isoformat(),
            }
        )
    return sorted(records, key=lambda r: r["time"])


def main() -> None:
    """Parse arguments, replay, print what the intake counted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=f"http://127.0.0.1:{os.environ.get('PORT', '8000')}")
    parser.add_argument("--api-key", help="send for this key instead of the demo account's")
    parser.add_argument("--email", default=DEMO_EMAIL)
    parser.add_argument("--password", default=DEMO_PASSWORD)
    parser.add_argument("--runs", type=int, default=60, help="records (test runs) to send")
    parser.add_argument("--hours", type=float, default=48, help="spread over the last N hours")
    parser.add_argument("--batch", type=int, default=25, help="records per request (max 1000)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (repeatable keys)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with httpx.Client(base_url=args.url, timeout=30) as client:
        if args.api_key:
            api_key, not_before = args.api_key, datetime.now(UTC) - timedelta(hours=args.hours)
        else:
            api_key, not_before = api_key_of(client, args.email, args.password)
        records = make_records(rng, args.runs, args.hours, not_before)
        batches = [records[i : i + args.batch] for i in range(0, len(records), args.batch)]
        accepted = duplicates = 0
        for batch in batches + batches[:1]:  # the first batch once more: a client's retry
            response = client.post(
                "/metering/usage", json={"records": batch}, headers={"X-API-Key": api_key}
            )
            if response.status_code != 200:
                sys.exit(f"intake answered {response.status_code}: {response.text}")
            counted = response.json()
            accepted += counted["accepted"]
            duplicates += counted["duplicates"]
    credits = sum(r["credits"] for r in records)
    print(
        f"sent {len(records)} records ({credits} requests) in {len(batches)} batches "
        f"+ 1 retried batch: {accepted} counted, {duplicates} duplicates ignored"
    )


if __name__ == "__main__":
    main()
