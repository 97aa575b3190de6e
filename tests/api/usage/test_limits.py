"""Spend limits (README "Metering intake", "API keys"): a key's monthly limit and the account's
stop at its allowance, held by the intake's counting statement: a batch that would pass one is
refused whole with 429 (the limit, when it resets, ``Retry-After``), counts nothing, and the first
refusal at a limit in a cycle emails the usage-alert recipients. Owners and Admins set them;
every change is audited."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from dateutil.relativedelta import relativedelta
from fastapi import FastAPI
from sqlalchemy import func, select, update

from api.models import Account, ApiKeyUsage, AuditEvent, Role, Usage, UsageRecord, UsageTotal
from devstack.replicas import Replica, replica_environment
from devstack.stack import Stack
from tests.api.conftest import MakeUser, SignedIn
from tests.api.usage.test_metering import URL, current_usage, record

KEYS = "/web/api-keys"
LIMITS = "/web/usage/limits"


async def send(client: httpx.AsyncClient, key: str, *credits: int) -> httpx.Response:
    records = [record(credits=c) for c in credits]
    return await client.post(URL, headers={"X-API-Key": key}, json={"records": records})


async def listed_keys(client: httpx.AsyncClient, me: SignedIn) -> list[dict[str, Any]]:
    response = await client.get(KEYS, headers=me.headers)
    assert response.status_code == 200, response.text
    keys: list[dict[str, Any]] = response.json()["keys"]
    return keys


async def set_key_limit(
    client: httpx.AsyncClient, me: SignedIn, limit: int | None, index: int = 0
) -> httpx.Response:
    key_id = (await listed_keys(client, me))[index]["id"]
    return await client.patch(f"{KEYS}/{key_id}", json={"monthlyLimit": limit}, headers=me.headers)


async def limit_mails(
    client: httpx.AsyncClient, email: str, expected: int, wait_s: float = 5.0
) -> list[dict[str, Any]]:
    """The limit notices in ``email``'s mailbox once there are ``expected`` (or the wait is
    over): they leave from the job worker after the intake's commit."""
    deadline = time.monotonic() + wait_s
    while True:
        box = (await client.get("/dev/mailbox", params={"to": email})).json()
        mails = [m for m in box if "monthly limit" in m["subject"] or "stopped" in m["subject"]]
        if len(mails) >= expected or time.monotonic() > deadline:
            return mails
        await asyncio.sleep(0.1)


def cycle_end(me: SignedIn) -> datetime:
    """The end of the account's current billing cycle (a fresh account: its first)."""
    return me.account.billing_cycle_anchor + relativedelta(months=1)


def assert_refused(
    response: httpx.Response, code: str, limit: int, resets_at: datetime
) -> dict[str, Any]:
    assert response.status_code == 429, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert body["limit"] == limit
    assert datetime.fromisoformat(body["resetsAt"]) == resets_at
    assert "this batch was not counted" in body["message"]
    retry_after = int(response.headers["Retry-After"])
    left = (resets_at - datetime.now(UTC)).total_seconds()
    assert left - 5 <= retry_after <= left + 5
    return body


class TestKeyLimit:
    async def test_a_batch_up_to_the_limit_counts_one_past_it_is_refused_whole(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await set_key_limit(client, me, 10)).status_code == 200
        assert (await send(client, me.api_key, 6)).json() == {"accepted": 1, "duplicates": 0}
        assert (await send(client, me.api_key, 2, 2)).json()["accepted"] == 2  # exactly 10
        refused = await send(client, me.api_key, 1)
        body = assert_refused(refused, "KeyLimitReached", 10, cycle_end(me))
        masked = (await listed_keys(client, me))[0]["masked"]
        assert body["message"].startswith(
            f"API key {masked} reached its monthly limit of 10 requests"
        )
        # Records that add no requests still count at the limit.
        assert (await send(client, me.api_key, 0)).json() == {"accepted": 1, "duplicates": 0}
        assert (await current_usage(client, me.headers))["requests"] == 10
        [listed] = await listed_keys(client, me)
        assert (listed["monthlyLimit"], listed["requestsThisCycle"]) == (10, 10)
        assert listed["recordsThisCycle"] == 4
        async with app.state.resources.sessionmaker() as db:
            stored = await db.scalar(
                select(func.count())
                .select_from(UsageRecord)
                .where(UsageRecord.account_id == me.account.id)
            )
        assert stored == 4  # the refused record was not stored: sent later, it may count

    async def test_a_batch_that_would_cross_counts_none_of_its_records(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await set_key_limit(client, me, 10)
        counted = [record(credits=4), record(credits=4)]
        assert (
            await client.post(URL, headers={"X-API-Key": me.api_key}, json={"records": counted})
        ).status_code == 200
        # 8 counted: 1 + 1 + 1 would make 11; none of the three counts.
        crossing = [record(credits=1) for _ in range(3)]
        refused = await client.post(
            URL, headers={"X-API-Key": me.api_key}, json={"records": crossing}
        )
        assert_refused(refused, "KeyLimitReached", 10, cycle_end(me))
        assert (await current_usage(client, me.headers))["requests"] == 8
        # The same records, two of them, fit; a retry of counted records is still a duplicate
        # (idempotency holds at the limit), and counted records do not count again.
        fits = await client.post(
            URL, headers={"X-API-Key": me.api_key}, json={"records": crossing[:2]}
        )
        assert fits.json() == {"accepted": 2, "duplicates": 0}
        again = await client.post(URL, headers={"X-API-Key": me.api_key}, json={"records": counted})
        assert again.json() == {"accepted": 0, "duplicates": 2}
        mixed = await client.post(
            URL, headers={"X-API-Key": me.api_key}, json={"records": [*counted, record(credits=1)]}
        )
        assert mixed.status_code == 429
        assert (await current_usage(client, me.headers))["requests"] == 10

    async def test_raising_or_lowering_the_limit_takes_effect_at_the_next_batch(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await send(client, me.api_key, 30)
        await set_key_limit(client, me, 20)  # below what the key used already
        assert_refused(await send(client, me.api_key, 1), "KeyLimitReached", 20, cycle_end(me))
        await set_key_limit(client, me, 31)
        assert (await send(client, me.api_key, 1)).status_code == 200
        await set_key_limit(client, me, None)
        assert (await send(client, me.api_key, 500)).status_code == 200
        assert (await current_usage(client, me.headers))["requests"] == 531

    async def test_the_first_refusal_at_a_limit_emails_the_alert_recipients_once(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        colleague = await make_user(account=me.account, role=Role.MEMBER)
        quiet = await make_user(account=me.account)
        await client.put(
            "/web/usage-alerts",
            json={"thresholds": [], "recipientIds": [str(me.user.id), str(colleague.user.id)]},
            headers=me.headers,
        )
        await set_key_limit(client, me, 5)
        masked = (await listed_keys(client, me))[0]["masked"]
        await send(client, me.api_key, 5)
        for _ in range(3):
            assert (await send(client, me.api_key, 1)).status_code == 429
        for user in (me, colleague):
            [mail] = await limit_mails(client, user.user.email, 1)
            assert mail["subject"] == (
                f"{me.account.name}: API key {masked} reached its monthly limit"
            )
            assert "reached its monthly limit of 5 requests" in mail["body"]
        assert await limit_mails(client, quiet.user.email, 1, wait_s=0.5) == []
        await asyncio.sleep(0.5)
        assert len(await limit_mails(client, me.user.email, 2, wait_s=0.5)) == 1
        # Raised and reached again: the new limit is news.
        await set_key_limit(client, me, 6)
        await send(client, me.api_key, 1)
        assert (await send(client, me.api_key, 1)).status_code == 429
        mails = await limit_mails(client, me.user.email, 2)
        assert len(mails) == 2
        async with app.state.resources.sessionmaker() as db:
            reached = await db.scalar(
                select(ApiKeyUsage.limit_reached).where(
                    ApiKeyUsage.key_id == (await listed_keys(client, me))[0]["id"]
                )
            )
        assert reached == 6

    async def test_a_roll_keeps_the_limit_unless_told_and_each_key_counts_its_own(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await set_key_limit(client, me, 10)
        await send(client, me.api_key, 10)
        rolled = await client.post(KEYS + "/roll", json={"overlap": "1h"}, headers=me.headers)
        new, old = rolled.json()["keys"]
        assert (new["monthlyLimit"], old["monthlyLimit"]) == (10, 10)
        assert (new["requestsThisCycle"], old["requestsThisCycle"]) == (0, 10)
        revealed = await client.post(
            f"{KEYS}/{new['id']}/reveal", json={"purpose": "copy"}, headers=me.headers
        )
        assert (await send(client, revealed.json()["key"], 10)).status_code == 200
        assert (await send(client, me.api_key, 1)).status_code == 429  # the old key's own count
        lifted = await client.post(
            KEYS + "/roll", json={"overlap": "now", "monthlyLimit": None}, headers=me.headers
        )
        assert [k["monthlyLimit"] for k in lifted.json()["keys"]] == [None]
        other = await client.post(
            KEYS + "/roll", json={"overlap": "now", "monthlyLimit": 250}, headers=me.headers
        )
        assert [k["monthlyLimit"] for k in other.json()["keys"]] == [250]


class TestKeyLimitChanges:
    async def test_owners_and_admins_set_it_audited_members_cannot(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        admin = await make_user(account=me.account, role=Role.ADMIN)
        member = await make_user(account=me.account, role=Role.MEMBER)
        assert (await set_key_limit(client, member, 10)).status_code == 403
        assert (await set_key_limit(client, admin, 1000)).status_code == 200
        assert (await set_key_limit(client, admin, 1000)).status_code == 200  # unchanged
        response = await set_key_limit(client, me, None)
        assert response.json()["keys"][0]["monthlyLimit"] is None
        async with app.state.resources.sessionmaker() as db:
            events = await db.execute(
                select(AuditEvent.actor_user_id, AuditEvent.target_label, AuditEvent.changes)
                .where(
                    AuditEvent.account_id == me.account.id,
                    AuditEvent.action == "api_key.limit_changed",
                )
                .order_by(AuditEvent.occurred_at)
            )
            masked = (await listed_keys(client, me))[0]["masked"]
            assert [tuple(e) for e in events] == [
                (admin.user.id, masked, {"monthlyLimit": {"from": None, "to": 1000}}),
                (me.user.id, masked, {"monthlyLimit": {"from": 1000, "to": None}}),
            ]

    async def test_scoped_validated_and_only_working_keys(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        other = await make_user(account_name="Other")
        mine = (await listed_keys(client, me))[0]["id"]
        theirs = await client.patch(
            f"{KEYS}/{mine}", json={"monthlyLimit": 1}, headers=other.headers
        )
        assert theirs.status_code == 404
        assert (await listed_keys(client, me))[0]["monthlyLimit"] is None
        for bad in (-1, 1.5, "10", 10**13):
            response = await client.patch(
                f"{KEYS}/{mine}", json={"monthlyLimit": bad}, headers=me.headers
            )
            assert response.status_code == 422, bad
        missing = await client.patch(f"{KEYS}/{mine}", json={}, headers=me.headers)
        assert missing.status_code == 422
        await client.post(KEYS + "/roll", json={"overlap": "now"}, headers=me.headers)
        expired = await client.patch(f"{KEYS}/{mine}", json={"monthlyLimit": 1}, headers=me.headers)
        assert expired.status_code == 404
        anonymous = await client.patch(f"{KEYS}/{mine}", json={"monthlyLimit": 1})
        assert anonymous.status_code == 401
        # The roll path is not a key: PATCH there is a method it does not have.
        roll = await client.patch(f"{KEYS}/roll", json={"monthlyLimit": 1}, headers=me.headers)
        assert (roll.status_code, roll.headers["allow"]) == (405, "POST")


async def set_allowance(app: FastAPI, me: SignedIn, requests: int) -> None:
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(Account)
            .where(Account.id == me.account.id)
            .values(subscription_units=0, free_plan_requests=requests)
        )


class TestAllowance:
    async def test_keep_running_is_the_default_stop_refuses_past_the_allowance(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await set_allowance(app, me, 20)
        limits = (await client.get(LIMITS, headers=me.headers)).json()
        assert limits == {"atAllowance": "keepRunning", "allowance": 20, "stoppedAt": None}
        assert (await send(client, me.api_key, 25)).status_code == 200  # alerts only
        stop = await client.put(LIMITS, json={"atAllowance": "stop"}, headers=me.headers)
        assert stop.json()["atAllowance"] == "stop"
        refused = await send(client, me.api_key, 0, 1)
        body = assert_refused(refused, "AllowanceReached", 20, cycle_end(me))
        assert body["message"].startswith(
            "The account reached its plan allowance of 20 requests and stops at it"
        )
        stopped = (await client.get(LIMITS, headers=me.headers)).json()["stoppedAt"]
        assert stopped is not None
        [mail] = await limit_mails(client, me.user.email, 1)
        assert mail["subject"] == f"{me.account.name} stopped at its plan allowance"
        # Paying for more lifts it: the allowance is read at each batch.
        await set_allowance(app, me, 30)
        assert (await send(client, me.api_key, 5)).status_code == 200
        assert_refused(await send(client, me.api_key, 1), "AllowanceReached", 30, cycle_end(me))
        assert (await current_usage(client, me.headers))["requests"] == 30
        assert len(await limit_mails(client, me.user.email, 2)) == 2

    async def test_the_allowance_counts_every_key_of_the_account(
        self, client: httpx.AsyncClient, app: FastAPI, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await set_allowance(app, me, 10)
        await client.put(LIMITS, json={"atAllowance": "stop"}, headers=me.headers)
        rolled = await client.post(KEYS + "/roll", json={"overlap": "1h"}, headers=me.headers)
        revealed = await client.post(
            f"{KEYS}/{rolled.json()['keys'][0]['id']}/reveal",
            json={"purpose": "copy"},
            headers=me.headers,
        )
        assert (await send(client, me.api_key, 6)).status_code == 200
        assert (await send(client, revealed.json()["key"], 4)).status_code == 200
        assert (await send(client, revealed.json()["key"], 1)).status_code == 429
        assert (await send(client, me.api_key, 1)).status_code == 429

    async def test_owners_and_admins_choose_audited(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        member = await make_user(account=me.account, role=Role.MEMBER)
        other = await make_user(account_name="Other")
        denied = await client.put(LIMITS, json={"atAllowance": "stop"}, headers=member.headers)
        assert denied.status_code == 403
        assert (await client.get(LIMITS, headers=member.headers)).status_code == 200
        bad = await client.put(LIMITS, json={"atAllowance": "pause"}, headers=me.headers)
        assert bad.status_code == 422
        await client.put(LIMITS, json={"atAllowance": "stop"}, headers=me.headers)
        await client.put(LIMITS, json={"atAllowance": "stop"}, headers=me.headers)
        # Another account's choice is its own.
        assert (await client.get(LIMITS, headers=other.headers)).json()["atAllowance"] == (
            "keepRunning"
        )
        assert (await client.get(LIMITS)).status_code == 401
        async with app.state.resources.sessionmaker() as db:
            changes = await db.scalars(
                select(AuditEvent.changes).where(
                    AuditEvent.account_id == me.account.id,
                    AuditEvent.action == "usage_limit.changed",
                )
            )
            assert list(changes) == [{"atAllowance": {"from": "keepRunning", "to": "stop"}}]


class TestContract:
    def test_the_refusals_are_declared_with_their_fields(self, app: FastAPI) -> None:
        spec = app.openapi()
        too_many = spec["paths"][URL]["post"]["responses"]["429"]
        mapping = too_many["content"]["application/json"]["schema"]["discriminator"]["mapping"]
        assert {"KeyLimitReached", "AllowanceReached", "RateLimited"} <= mapping.keys()
        assert "Retry-After" in too_many["headers"]
        body = spec["components"]["schemas"]["Error_KeyLimitReached"]
        assert {"code", "message", "limit", "resetsAt"} <= set(body["required"])
        assert body["properties"]["resetsAt"]["format"] == "date-time"


@pytest.mark.usefixtures("app")
class TestNothingOvershoots:
    async def test_rollups_agree_after_refusals(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await set_key_limit(client, me, 7)
        for credits in (3, 3, 3, 1, 2):
            await send(client, me.api_key, credits)
        async with app.state.resources.sessionmaker() as db:
            usage = await db.scalar(
                select(func.sum(Usage.credits)).where(Usage.account_id == me.account.id)
            )
            total = await db.scalar(
                select(UsageTotal.credits).where(UsageTotal.account_id == me.account.id)
            )
        assert usage == total == 7


class TestConcurrentBatches:
    """Many connections to two replicas (``python -m api.app.commands.serve`` processes) hammer one
    account: the limits sit in the statement that counts, so no interleaving passes them."""

    async def test_no_limit_is_passed_from_many_connections_on_two_replicas(
        self, app: FastAPI, stack: Stack, make_user: MakeUser, tmp_path: Path
    ) -> None:
        me = await make_user()
        # Two keys: the first limited to 400 requests; the account stops at 700.
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://testserver"
        ) as local:
            await set_allowance(app, me, 700)
            await local.put(LIMITS, json={"atAllowance": "stop"}, headers=me.headers)
            await set_key_limit(local, me, 400)
            rolled = await local.post(KEYS + "/roll", json={"overlap": "1h"}, headers=me.headers)
            second = await local.post(
                f"{KEYS}/{rolled.json()['keys'][0]['id']}/reveal",
                json={"purpose": "copy"},
                headers=me.headers,
            )
        limited, other = me.api_key, second.json()["key"]
        replicas = [
            Replica(f"spend-{n}", replica_environment(stack, "http://127.0.0.1"), tmp_path)
            for n in range(2)
        ]
        for replica in replicas:
            replica.start()
        try:
            for replica in replicas:
                await asyncio.to_thread(replica.wait_ready)
            # 20 batches per key of 10 records x 5 requests: 2,000 requests asked for.
            batches = [
                (key, [record(credits=5) for _ in range(10)])
                for _ in range(20)
                for key in (limited, other)
            ]
            clients = [
                httpx.AsyncClient(base_url=replicas[n % 2].url, timeout=60) for n in range(16)
            ]
            try:
                responses = await asyncio.gather(
                    *(
                        clients[n % len(clients)].post(
                            URL, headers={"X-API-Key": key}, json={"records": records}
                        )
                        for n, (key, records) in enumerate(batches)
                    )
                )
            finally:
                for c in clients:
                    await c.aclose()
        finally:
            for replica in replicas:
                replica.stop()
        outcome = [
            (key, r.status_code, r.json().get("code"))
            for (key, _), r in zip(batches, responses, strict=True)
        ]
        assert {status for _, status, _ in outcome} <= {200, 429}, outcome
        counted = {
            key: 50 * sum(s == 200 for k, s, _ in outcome if k == key) for key in (limited, other)
        }
        assert counted[limited] <= 400
        assert counted[limited] + counted[other] == 700  # up to the allowance, not past it
        refusals = {code for _, status, code in outcome if status == 429}
        assert refusals <= {"KeyLimitReached", "AllowanceReached"} and refusals
        async with app.state.resources.sessionmaker() as db:
            usage = await db.scalar(
                select(func.sum(Usage.credits)).where(Usage.account_id == me.account.id)
            )
            total = await db.scalar(
                select(UsageTotal.credits).where(UsageTotal.account_id == me.account.id)
            )
            records = await db.scalar(
                select(func.count())
                .select_from(UsageRecord)
                .where(UsageRecord.account_id == me.account.id)
            )
        assert usage == total == 700
        assert records == 140
        # Each key's own count is what its accepted batches carried.
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://testserver"
        ) as local:
            newest, first = await listed_keys(local, me)
        assert (first["requestsThisCycle"], newest["requestsThisCycle"]) == (
            counted[limited],
            counted[other],
        )
