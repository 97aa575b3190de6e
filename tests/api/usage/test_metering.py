"""POST /metering/usage: the metering intake (README "Metering intake"). API-key auth, idempotency
per record, billing-cycle placement, rollups read by GET /web/account, tenant isolation."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from dateutil.relativedelta import relativedelta
from fastapi import FastAPI
from sqlalchemy import func, select

from api.models import Account, UsageRecord
from tests.api.conftest import MakeUser, SignedIn

URL = "/metering/usage"


def record(
    platform: str = "web",
    runs: int = 1,
    credits: int = 3,
    at: datetime | None = None,
    key: str | None = None,
) -> dict[str, Any]:
    return {
        "idempotencyKey": key or str(uuid.uuid4()),
        "platform": platform,
        "runs": runs,
        "credits": credits,
        "time": (at or datetime.now(UTC)).isoformat(),
    }


def key_headers(holder: SignedIn) -> dict[str, str]:
    return {"X-API-Key": holder.api_key}


async def current_usage(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, Any]:
    response = await client.get("/web/account", headers=headers)
    assert response.status_code == 200
    usage: dict[str, Any] = response.json()["account"]["usage"][-1]
    return usage


async def set_anchor(app: FastAPI, account_id: uuid.UUID, anchor: datetime) -> None:
    async with app.state.resources.sessionmaker() as db, db.begin():
        account = await db.get_one(Account, account_id)
        account.billing_cycle_anchor = anchor


class TestAuthentication:
    async def test_missing_key_is_401_with_a_clear_message(self, client: httpx.AsyncClient) -> None:
        response = await client.post(URL, json={"records": [record()]})
        assert response.status_code == 401
        assert response.json() == {
            "code": "ApiKeyRequired",
            "message": "API key required: send your account's API key in the X-API-Key "
            "header (shown on the console's Account Information page)",
        }

    async def test_wrong_key_is_401_with_a_clear_message(self, client: httpx.AsyncClient) -> None:
        response = await client.post(
            URL, json={"records": [record()]}, headers={"X-API-Key": "ak_" + "0" * 40}
        )
        assert response.status_code == 401
        body = response.json()
        assert body["code"] == "InvalidApiKey"
        assert body["message"].startswith("Invalid API key: the X-API-Key header matches no")

    async def test_a_bearer_token_is_not_an_api_key(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post(URL, json={"records": [record()]}, headers=me.headers)
        assert response.status_code == 401
        assert response.json()["code"] == "ApiKeyRequired"

    def test_the_intake_is_in_the_contract_with_its_api_key(self, app: FastAPI) -> None:
        operation = app.openapi()["paths"][URL]["post"]
        assert operation["security"] == [{"APIKeyHeader": []}]
        assert {"200", "401", "422", "429"} <= operation["responses"].keys()


class TestIngest:
    async def test_records_show_up_in_the_current_cycle_per_platform(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post(
            URL,
            headers=key_headers(me),
            json={
                "records": [
                    record("web", runs=1, credits=4),
                    record("web", runs=2, credits=6),
                    record("nativeMobile", runs=1, credits=5),
                    record("api", runs=1, credits=1),
                ]
            },
        )
        assert response.status_code == 200
        assert response.json() == {"accepted": 4, "duplicates": 0}
        usage = await current_usage(client, me.headers)
        assert usage["requests"] == 16
        assert usage["web"] == {"runs": 3, "credits": 10}
        assert usage["nativeMobile"] == {"runs": 1, "credits": 5}
        assert usage["api"] == {"runs": 1, "credits": 1}

    async def test_a_retried_batch_is_never_counted_twice(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        batch = {"records": [record(credits=2), record(credits=3)]}
        first = await client.post(URL, headers=key_headers(me), json=batch)
        again = await client.post(URL, headers=key_headers(me), json=batch)
        assert first.json() == {"accepted": 2, "duplicates": 0}
        assert again.json() == {"accepted": 0, "duplicates": 2}
        # A later batch mixing a counted key with a new one counts only the new one.
        mixed = {"records": [batch["records"][0], record(credits=10)]}
        third = await client.post(URL, headers=key_headers(me), json=mixed)
        assert third.json() == {"accepted": 1, "duplicates": 1}
        assert (await current_usage(client, me.headers))["requests"] == 15

    async def test_a_key_repeated_inside_one_batch_counts_once(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        same = record(credits=7, key="run-42")
        response = await client.post(
            URL, headers=key_headers(me), json={"records": [same, same, same]}
        )
        assert response.json() == {"accepted": 1, "duplicates": 2}
        assert (await current_usage(client, me.headers))["requests"] == 7

    async def test_concurrent_retries_of_one_batch_count_once(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        batch = {"records": [record(credits=1) for _ in range(50)]}
        responses = await asyncio.gather(
            *(client.post(URL, headers=key_headers(me), json=batch) for _ in range(4))
        )
        assert sorted(r.json()["accepted"] for r in responses) == [0, 0, 0, 50]
        assert (await current_usage(client, me.headers))["requests"] == 50

    async def test_records_land_in_the_billing_cycle_of_their_time(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        now = datetime.now(UTC)
        # The previous cycle is the anchor's: the oldest the intake takes (TestAge).
        anchor = (now - relativedelta(months=1, days=3)).replace(microsecond=0)
        await set_anchor(app, me.account.id, anchor)
        current_cycle = anchor + relativedelta(months=1)
        response = await client.post(
            URL,
            headers=key_headers(me),
            json={
                "records": [
                    # the last second of the previous cycle, and the first of the current one
                    record(credits=2, at=current_cycle - relativedelta(seconds=1)),
                    record(credits=5, at=current_cycle),
                    record(credits=11, at=anchor),
                ]
            },
        )
        assert response.json()["accepted"] == 3
        usage = (await client.get("/web/account", headers=me.headers)).json()["account"]["usage"]
        assert [e["startMs"] for e in usage] == [
            int(start.timestamp() * 1000) for start in (anchor, current_cycle)
        ]
        assert [e["requests"] for e in usage] == [13, 5]

    async def test_epoch_milliseconds_are_accepted_as_time(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        entry = record(credits=3) | {"time": int(datetime.now(UTC).timestamp() * 1000)}
        response = await client.post(URL, headers=key_headers(me), json={"records": [entry]})
        assert response.json() == {"accepted": 1, "duplicates": 0}

    async def test_records_are_stored_for_the_keys_account_only(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        mine = await make_user(account_name="Mine")
        theirs = await make_user(account_name="Theirs")
        shared_key = "same-key-in-two-accounts"
        for holder in (mine, theirs):
            response = await client.post(
                URL,
                headers=key_headers(holder),
                json={"records": [record(credits=4, key=shared_key)]},
            )
            # Idempotency keys are per account: the same key in another account is new.
            assert response.json() == {"accepted": 1, "duplicates": 0}
        await client.post(URL, headers=key_headers(mine), json={"records": [record()]})
        assert (await current_usage(client, mine.headers))["requests"] == 7
        assert (await current_usage(client, theirs.headers))["requests"] == 4
        async with app.state.resources.sessionmaker() as db:
            stored = await db.scalar(
                select(func.count())
                .select_from(UsageRecord)
                .where(UsageRecord.account_id == theirs.account.id)
            )
        assert stored == 1


class TestValidation:
    async def test_invalid_records_are_refused_whole(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        cases = [
            ({"records": []}, "List should have at least 1 item after validation, not 0"),
            ({"records": [record(platform="desktop")]}, "Input should be 'web', 'nativeMobile'"),
            ({"records": [record(credits=-1)]}, "Input should be greater than or equal to 0"),
            ({"records": [record() | {"idempotencyKey": ""}]}, "idempotencyKey is required"),
            (
                {"records": [record() | {"time": "2026-01-01T00:00:00"}]},
                "Input should have timezone info",
            ),
            (
                {"records": [record() | {"idempotencyKey": "nul\u0000"}]},
                "Must not contain control characters",
            ),
            (
                {"records": [record() | {"time": "1700000000"}]},
                "time must be an ISO 8601 date-time or an epoch time",
            ),
            ({"records": [record() for _ in range(1001)]}, "List should have at most 1000"),
        ]
        for body, message in cases:
            response = await client.post(URL, headers=key_headers(me), json=body)
            assert response.status_code == 422, body
            assert response.json()["code"] == "ValidationError"
            assert response.json()["message"].startswith(message), response.json()
        # A record from a clock gone wrong: a documented refusal, not a schema violation.
        future = {"records": [record(), record(at=datetime.now(UTC) + timedelta(hours=1))]}
        refused = await client.post(URL, headers=key_headers(me), json=future)
        assert refused.status_code == 400
        assert refused.json()["code"] == "RecordInTheFuture"
        assert refused.json()["message"].startswith("time must not be in the future")
        # A batch with one bad record counts none of the good ones.
        bad = {"records": [record(credits=5), record(platform="desktop")]}
        assert (await client.post(URL, headers=key_headers(me), json=bad)).status_code == 422
        assert (await current_usage(client, me.headers))["requests"] == 0


class TestAge:
    """Records older than the previous billing cycle are refused: the invoice of that cycle
    is final, and a replay of old records must not grow an account's history."""

    async def test_a_record_before_the_previous_cycle_is_refused_naming_the_oldest_time(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        anchor = (datetime.now(UTC) - relativedelta(months=2, days=3)).replace(microsecond=0)
        await set_anchor(app, me.account.id, anchor)
        previous_cycle = anchor + relativedelta(months=1)
        too_old = record(credits=7, at=previous_cycle - timedelta(seconds=1))
        refused = await client.post(
            URL, headers=key_headers(me), json={"records": [record(), too_old]}
        )
        assert refused.status_code == 400
        body = refused.json()
        assert body["code"] == "RecordTooOld"
        assert previous_cycle.isoformat() in body["message"], body
        assert too_old["idempotencyKey"] in body["message"]
        # All or nothing: the good record of the refused batch was not counted.
        assert (await current_usage(client, me.headers))["requests"] == 0
        oldest = record(credits=2, at=previous_cycle)
        accepted = await client.post(URL, headers=key_headers(me), json={"records": [oldest]})
        assert accepted.json() == {"accepted": 1, "duplicates": 0}

    async def test_a_new_account_accepts_one_cycle_before_its_anchor(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        anchor = (datetime.now(UTC) - timedelta(days=3)).replace(microsecond=0)
        await set_anchor(app, me.account.id, anchor)
        oldest = anchor - relativedelta(months=1)
        kept = await client.post(
            URL, headers=key_headers(me), json={"records": [record(credits=4, at=oldest)]}
        )
        assert kept.json() == {"accepted": 1, "duplicates": 0}
        assert (await current_usage(client, me.headers))["requests"] == 4  # the first cycle
        older = record(at=oldest - timedelta(milliseconds=1))
        refused = await client.post(URL, headers=key_headers(me), json={"records": [older]})
        assert refused.status_code == 400
        assert refused.json()["code"] == "RecordTooOld"

    def test_the_refusal_is_in_the_contract(self, app: FastAPI) -> None:
        schema = app.openapi()["paths"][URL]["post"]["responses"]["400"]["content"][
            "application/json"
        ]["schema"]
        assert schema["discriminator"]["mapping"]["RecordTooOld"] == (
            "#/components/schemas/Error_RecordTooOld"
        )
