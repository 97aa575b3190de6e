"""API keys (README "API keys"): stored hashed and sealed, listed masked, revealed or copied on
purpose (recorded), rolled with an overlap during which both keys work at the intake, expired now;
last used at most once a minute and records per key per cycle."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from api.kernel.secretbox import KeyRing, KeyRingError
from api.models import ApiKey, AuditEvent
from api.principal.api_keys import hash_api_key
from tests.api.conftest import MakeUser, SignedIn
from tests.api.usage.test_metering import URL, record


async def keys(client: httpx.AsyncClient, me: SignedIn) -> list[dict[str, Any]]:
    response = await client.get("/web/api-keys", headers=me.headers)
    assert response.status_code == 200, response.text
    listed: list[dict[str, Any]] = response.json()["keys"]
    return listed


async def reveal(
    client: httpx.AsyncClient, me: SignedIn, key_id: str, purpose: str = "reveal"
) -> httpx.Response:
    return await client.post(
        f"/web/api-keys/{key_id}/reveal", json={"purpose": purpose}, headers=me.headers
    )


async def the_key(client: httpx.AsyncClient, me: SignedIn, index: int = 0) -> str:
    listed = await keys(client, me)
    response = await reveal(client, me, listed[index]["id"])
    assert response.status_code == 200, response.text
    key: str = response.json()["key"]
    return key


async def meter(client: httpx.AsyncClient, key: str, count: int = 1) -> httpx.Response:
    return await client.post(
        URL, headers={"X-API-Key": key}, json={"records": [record() for _ in range(count)]}
    )


class TestAtRest:
    async def test_only_the_hash_and_the_sealed_key_are_stored(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        key = await the_key(client, me)
        assert key.startswith("ak_") and len(key) == 43
        async with app.state.resources.sessionmaker() as db:
            row = await db.scalar(select(ApiKey).where(ApiKey.account_id == me.account.id))
        assert row is not None
        assert row.key_hash == hash_api_key(key)
        assert key.encode() not in row.sealed and key[3:].encode() not in row.sealed
        assert row.last4 == key[-4:]
        ring: KeyRing = app.state.resources.key_ring
        assert ring.open(row.encryption_key_id, row.sealed, context=me.account.id.bytes) == key
        # Bound to its account: the same bytes on another account's row do not open.
        with pytest.raises(KeyRingError):
            ring.open(row.encryption_key_id, row.sealed, context=uuid.uuid4().bytes)

    async def test_the_account_shows_the_key_masked(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        key = await the_key(client, me)
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["apiKey"] == f"ak_…{key[-4:]}"
        listed = await keys(client, me)
        assert [k["masked"] for k in listed] == [f"ak_…{key[-4:]}"]


class TestReveal:
    async def test_reveal_and_copy_are_recorded_and_scoped(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        other = await make_user()
        [mine] = await keys(client, me)
        assert (await reveal(client, me, mine["id"], "reveal")).status_code == 200
        assert (await reveal(client, me, mine["id"], "copy")).status_code == 200
        async with app.state.resources.sessionmaker() as db:
            events = (
                await db.execute(
                    select(AuditEvent.actor_user_id, AuditEvent.action)
                    .where(AuditEvent.target_id == mine["id"])
                    .order_by(AuditEvent.occurred_at)
                )
            ).all()
        assert [tuple(e) for e in events] == [
            (me.user.id, "api_key.revealed"),
            (me.user.id, "api_key.copied"),
        ]
        # Another account cannot reveal it, list it or expire it.
        assert (await reveal(client, other, mine["id"])).status_code == 404
        assert mine["id"] not in {k["id"] for k in await keys(client, other)}
        expire = await client.post(f"/web/api-keys/{mine['id']}/expire", headers=other.headers)
        assert expire.status_code == 404
        bad = await client.post(
            f"/web/api-keys/{mine['id']}/reveal", json={"purpose": "steal"}, headers=me.headers
        )
        assert bad.status_code == 422


class TestRoll:
    async def test_both_keys_work_during_the_overlap(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        old = await the_key(client, me)
        rolled = await client.post("/web/api-keys/roll", json={"overlap": "1h"}, headers=me.headers)
        assert rolled.status_code == 200, rolled.text
        listed = rolled.json()["keys"]
        assert len(listed) == 2
        assert listed[0]["expiresAt"] is None
        ends = datetime.fromisoformat(listed[1]["expiresAt"])
        assert timedelta(minutes=59) < ends - datetime.now(UTC) <= timedelta(hours=1)
        new = await the_key(client, me, 0)
        assert new != old
        assert (await meter(client, old)).status_code == 200
        assert (await meter(client, new)).status_code == 200

        # The overlap ends: the old key is refused, the new one still counts.
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(
                update(ApiKey)
                .where(ApiKey.id == uuid.UUID(listed[1]["id"]))
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )
        assert (await meter(client, old)).status_code == 401
        assert (await meter(client, new)).status_code == 200
        assert [k["id"] for k in await keys(client, me)] == [listed[0]["id"]]

    async def test_now_replaces_the_key_at_once(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        old = await the_key(client, me)
        rolled = await client.post(
            "/web/api-keys/roll", json={"overlap": "now"}, headers=me.headers
        )
        assert len(rolled.json()["keys"]) == 1
        assert (await meter(client, old)).status_code == 401
        assert (await meter(client, await the_key(client, me))).status_code == 200

    async def test_expire_now_and_never_the_last_key(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        old = await the_key(client, me)
        await client.post("/web/api-keys/roll", json={"overlap": "7d"}, headers=me.headers)
        current, previous = await keys(client, me)
        expired = await client.post(f"/web/api-keys/{previous['id']}/expire", headers=me.headers)
        assert expired.status_code == 200
        assert [k["id"] for k in expired.json()["keys"]] == [current["id"]]
        assert (await meter(client, old)).status_code == 401
        last = await client.post(f"/web/api-keys/{current['id']}/expire", headers=me.headers)
        assert last.status_code == 409
        assert last.json()["code"] == "LastApiKey"

    async def test_overlaps_are_now_1h_24h_or_7d(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        for overlap in ("2h", "", None, 3600):
            response = await client.post(
                "/web/api-keys/roll", json={"overlap": overlap}, headers=me.headers
            )
            assert response.status_code == 422, overlap


class TestUse:
    async def test_last_used_and_records_this_cycle(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        key = await the_key(client, me)
        [before] = await keys(client, me)
        assert (before["lastUsedAt"], before["recordsThisCycle"]) == (None, 0)
        assert (await meter(client, key, 3)).status_code == 200
        assert (await meter(client, key, 2)).status_code == 200
        [after] = await keys(client, me)
        assert after["recordsThisCycle"] == 5
        used = datetime.fromisoformat(after["lastUsedAt"])
        assert datetime.now(UTC) - used < timedelta(minutes=1)
        # Written at most once a minute: a use 30 s later leaves it as it was.
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(
                update(ApiKey)
                .where(ApiKey.id == uuid.UUID(after["id"]))
                .values(last_used_at=used - timedelta(seconds=30))
            )
        assert (await meter(client, key)).status_code == 200
        [again] = await keys(client, me)
        assert datetime.fromisoformat(again["lastUsedAt"]) == used - timedelta(seconds=30)
        assert again["recordsThisCycle"] == 6

    async def test_a_wrong_key_is_refused_without_saying_why(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        key = await the_key(client, me)
        wrong = key[:-1] + ("0" if key[-1] != "0" else "1")
        response = await meter(client, wrong)
        assert response.status_code == 401
        assert key not in response.text and wrong not in response.text
