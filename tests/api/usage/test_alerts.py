"""Usage alerts (README "Usage alerts and export"): at 50, 80 and 100 % of the allowance, once per
billing cycle, emailed over SMTP (the dev stack's sink, read back through /dev/mailbox) to the users
who get them; the settings at GET/PUT /web/usage-alerts."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

import httpx
from dateutil.relativedelta import relativedelta
from fastapi import FastAPI
from sqlalchemy import select

from api.models import UsageAlert
from tests.api.conftest import MakeUser, SignedIn
from tests.api.usage.test_metering import URL, key_headers, record, set_anchor

FREE_PLAN = 100  # requests per cycle at 0 units (the test stack's FREE_PLAN_REQUESTS)


async def meter(client: httpx.AsyncClient, me: SignedIn, credits: int, **kw: Any) -> None:
    response = await client.post(
        URL, headers=key_headers(me), json={"records": [record(credits=credits, **kw)]}
    )
    assert response.status_code == 200, response.text


async def alerts_to(
    client: httpx.AsyncClient, email: str, expected: int, wait_s: float = 5.0
) -> list[dict[str, Any]]:
    """The usage alerts in ``email``'s mailbox, once there are ``expected`` of them (they
    leave after the intake's commit, in the background)."""
    deadline = time.monotonic() + wait_s
    while True:
        box = (await client.get("/dev/mailbox", params={"to": email})).json()
        mails = [m for m in box if "plan allowance" in m["subject"]]
        if len(mails) >= expected or time.monotonic() > deadline:
            return mails
        await asyncio.sleep(0.1)


async def alert_rows(app: FastAPI, me: SignedIn) -> list[int]:
    async with app.state.resources.sessionmaker() as db:
        rows = await db.scalars(
            select(UsageAlert.threshold)
            .where(UsageAlert.account_id == me.account.id)
            .order_by(UsageAlert.threshold)
        )
        return list(rows)


class TestCrossing:
    async def test_each_threshold_emails_every_user_once_per_cycle(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        colleague = await make_user(account=me.account)
        await meter(client, me, 49)
        assert await alerts_to(client, me.user.email, 1, wait_s=0.5) == []

        await meter(client, me, 1)  # 50 of 100
        [mail] = await alerts_to(client, colleague.user.email, 1)
        assert mail["subject"] == f"{me.account.name} has used 50% of its plan allowance"
        assert "has used 50 of the 100 requests" in mail["body"]

        same = record(credits=40)
        await client.post(URL, headers=key_headers(me), json={"records": [same]})
        await client.post(URL, headers=key_headers(me), json={"records": [same]})
        await meter(client, me, 20)  # 110 of 100: 80 % and 100 % in one batch
        for user in (me, colleague):
            mails = await alerts_to(client, user.user.email, 3)
            assert sorted(m["subject"] for m in mails) == [
                f"{me.account.name} has used 50% of its plan allowance",
                f"{me.account.name} has used 80% of its plan allowance",
                f"{me.account.name} has used its whole plan allowance",
            ]
        await meter(client, me, 50)
        await asyncio.sleep(0.5)
        assert len(await alerts_to(client, me.user.email, 4, wait_s=0.5)) == 3

    async def test_concurrent_batches_send_each_alert_once(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await asyncio.gather(*(meter(client, me, 15) for _ in range(10)))  # 150 of 100
        assert await alert_rows(app, me) == [50, 80, 100]
        mails = await alerts_to(client, me.user.email, 3)
        await asyncio.sleep(0.5)
        assert len(await alerts_to(client, me.user.email, 4, wait_s=0.2)) == len(mails) == 3

    async def test_records_of_a_past_cycle_send_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        now = datetime.now(UTC)
        await set_anchor(app, me.account.id, now - relativedelta(months=25, days=3))
        await meter(client, me, 500, at=now - relativedelta(months=1, days=1))  # the previous
        assert await alert_rows(app, me) == []
        await meter(client, me, 50)  # the current cycle
        assert await alert_rows(app, me) == [50]


class TestSettings:
    async def test_defaults_change_and_take_effect(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        colleague = await make_user(account=me.account)
        got = (await client.get("/web/usage-alerts", headers=me.headers)).json()
        assert got["thresholds"] == [50, 80, 100]
        assert {(r["email"], r["enabled"]) for r in got["recipients"]} == {
            (me.user.email, True),
            (colleague.user.email, True),
        }
        assert got["reached"] == []

        put = await client.put(
            "/web/usage-alerts",
            headers=me.headers,
            json={"thresholds": [100], "recipientIds": [str(colleague.user.id)]},
        )
        assert put.status_code == 200, put.text
        assert put.json()["thresholds"] == [100]
        await meter(client, me, 90)  # 50 % and 80 % are off
        assert await alerts_to(client, colleague.user.email, 1, wait_s=0.5) == []
        await meter(client, me, 10)
        [mail] = await alerts_to(client, colleague.user.email, 1)
        assert mail["subject"].endswith("has used its whole plan allowance")
        assert await alerts_to(client, me.user.email, 1, wait_s=0.3) == []
        reached = (await client.get("/web/usage-alerts", headers=me.headers)).json()["reached"]
        assert [r["threshold"] for r in reached] == [100]

    async def test_recipients_must_be_users_of_the_account(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        other = await make_user()
        refused = await client.put(
            "/web/usage-alerts",
            headers=me.headers,
            json={"thresholds": [50], "recipientIds": [str(other.user.id)]},
        )
        assert refused.status_code == 400
        assert refused.json() == {
            "code": "UnknownAlertRecipient",
            "message": "Usage alerts can only go to users of this account.",
        }
        # Nothing changed, here or there.
        assert (await client.get("/web/usage-alerts", headers=me.headers)).json()["thresholds"] == [
            50,
            80,
            100,
        ]
        theirs = (await client.get("/web/usage-alerts", headers=other.headers)).json()
        assert [r["email"] for r in theirs["recipients"]] == [other.user.email]

    async def test_thresholds_are_50_80_or_100(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        for thresholds in ([60], [50, 50, 80, 100], ["50"]):
            bad = await client.put(
                "/web/usage-alerts",
                headers=me.headers,
                json={"thresholds": thresholds, "recipientIds": []},
            )
            assert bad.status_code == 422, thresholds

    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        assert (await client.get("/web/usage-alerts")).status_code == 401
