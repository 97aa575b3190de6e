"""GET /web/account: shape, defaults, billing cycles and tenant scoping (SPEC 3, 9)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import httpx
from dateutil.relativedelta import relativedelta
from fastapi import FastAPI

from api.app.web import create_app
from api.models import Platform, Usage
from devstack.stack import Stack
from tests.api.conftest import MakeUser, SignedIn


async def _set_anchor(app: FastAPI, account_id: object, anchor: datetime) -> None:
    from api.models import Account

    async with app.state.resources.sessionmaker() as db, db.begin():
        account = await db.get(Account, account_id)
        assert account is not None
        account.billing_cycle_anchor = anchor


class TestGetAccount:
    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/web/account")
        assert response.status_code == 401
        assert response.json()["code"] == "NotAuthenticated"

    async def test_new_account_shape_and_defaults(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(account_name="Globex", first_name="Hank", last_name="Scorpio")
        response = await client.get("/web/account", headers=me.headers)
        assert response.status_code == 200
        account = response.json()["account"]
        assert account["name"] == "Globex"
        # Masked (README "API keys"): the key itself only through Reveal or Copy.
        assert account["apiKey"] == f"ak_…{me.api_key[-4:]}"
        assert account["subscription"] == {
            "units": 0,
            "unitsInForce": 0,
            "unitPlanRequests": 1000,
            "freePlanRequests": 100,
            "scheduledUnits": None,
            "scheduledChangeAt": None,
            "paymentFailedAt": None,
            "pastDue": None,
            "graceEndsAt": None,
        }
        assert account["billing"] is None
        assert account["sso"] == {"isGoogleSSO": False, "isSamlSSO": False, "domains": []}
        assert account["users"] == [
            {
                "id": str(me.user.id),
                "firstName": "Hank",
                "lastName": "Scorpio",
                "email": me.user.email,
                "authType": "Email",
                "role": "Owner",
                "status": "Active",
                "twoStepSignIn": False,
                "invitedAt": None,
                "invitationExpiresAt": None,
            }
        ]
        assert account["requireTwoStepSignIn"] is False
        # A brand-new account has exactly its current cycle, with nothing used.
        assert len(account["usage"]) == 1
        assert account["usage"][0]["requests"] == 0
        assert account["usage"][0]["web"] == {"runs": 0, "credits": 0}

    async def test_usage_per_cycle_sums_platforms_and_fills_gaps(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        now = datetime.now(UTC)
        anchor = (now - relativedelta(months=14)).replace(microsecond=0)
        await _set_anchor(app, me.account.id, anchor)
        two_cycles_ago = anchor + relativedelta(months=12)
        async with app.state.resources.sessionmaker() as db, db.begin():
            db.add_all(
                [
                    Usage(
                        account_id=me.account.id,
                        cycle_start=two_cycles_ago,
                        platform=Platform.WEB,
                        runs=3,
                        credits=30,
                    ),
                    Usage(
                        account_id=me.account.id,
                        cycle_start=two_cycles_ago,
                        platform=Platform.API,
                        runs=1,
                        credits=12,
                    ),
                ]
            )
        usage = (await client.get("/web/account", headers=me.headers)).json()["account"]["usage"]
        # Twelve cycles shown, oldest first, ending with the current one.
        assert len(usage) == 12
        starts = [entry["startMs"] for entry in usage]
        assert starts == sorted(starts)
        current = anchor + relativedelta(months=14)
        assert starts[-1] == int(current.timestamp() * 1000)
        entry = next(e for e in usage if e["startMs"] == int(two_cycles_ago.timestamp() * 1000))
        assert entry["requests"] == 42
        assert entry["web"] == {"runs": 3, "credits": 30}
        assert entry["nativeMobile"] == {"runs": 0, "credits": 0}
        assert entry["api"] == {"runs": 1, "credits": 12}
        assert usage[-1]["requests"] == 0

    async def test_other_accounts_data_never_shows(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        first = await make_user(account_name="First Co")
        teammate = await make_user(account=first.account, first_name="Team", last_name="Mate")
        second = await make_user(account_name="Second Co")
        async with app.state.resources.sessionmaker() as db, db.begin():
            db.add(
                Usage(
                    account_id=first.account.id,
                    cycle_start=first.account.billing_cycle_anchor,
                    platform=Platform.WEB,
                    runs=1,
                    credits=99,
                )
            )
        mine = (await client.get("/web/account", headers=first.headers)).json()["account"]
        theirs = (await client.get("/web/account", headers=second.headers)).json()["account"]
        assert {u["email"] for u in mine["users"]} == {first.user.email, teammate.user.email}
        assert [u["email"] for u in theirs["users"]] == [second.user.email]
        assert theirs["name"] == "Second Co"
        assert theirs["apiKey"] != mine["apiKey"]
        assert mine["usage"][-1]["requests"] == 99
        assert theirs["usage"][-1]["requests"] == 0


class TestUpdateAccount:
    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.put("/web/account", json={"name": "Nope"})
        assert response.status_code == 401
        assert response.json()["code"] == "NotAuthenticated"

    async def test_rename_trims_and_shows_in_account_and_session(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(account_name="Old Name")
        response = await client.put(
            "/web/account", json={"name": "  Initech Labs  "}, headers=me.headers
        )
        assert response.status_code == 200
        assert response.json()["account"]["name"] == "Initech Labs"
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["name"] == "Initech Labs"
        session = (await client.get("/web/session", headers=me.headers)).json()["session"]
        assert session["account"]["name"] == "Initech Labs"

    async def test_blank_name_is_refused_with_the_spec_message(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(account_name="Keep Me")
        for name in ("", "    "):
            response = await client.put("/web/account", json={"name": name}, headers=me.headers)
            assert response.status_code == 422
            assert response.json()["code"] == "ValidationError"
            assert response.json()["message"] == "Account name must not be empty"
        for name in ("Tab\tCo", "Nul\x00Co", "   \t "):
            response = await client.put("/web/account", json={"name": name}, headers=me.headers)
            assert response.status_code == 422
            assert response.json()["message"] == "Must not contain control characters"
        too_long = await client.put("/web/account", json={"name": "x" * 201}, headers=me.headers)
        assert too_long.status_code == 422
        assert too_long.json()["message"] == "String should have at most 200 characters"
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["name"] == "Keep Me"

    async def test_renames_only_the_callers_account(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        mine = await make_user(account_name="Mine Inc")
        theirs = await make_user(account_name="Theirs Inc")
        await client.put("/web/account", json={"name": "Renamed Inc"}, headers=mine.headers)
        account = (await client.get("/web/account", headers=theirs.headers)).json()["account"]
        assert account["name"] == "Theirs Inc"


class TestConditionalGet:
    """ETag + If-None-Match (README "Performance"): a 304 only while the body the client holds is
    still the one the account would show."""

    async def _etag(self, client: httpx.AsyncClient, me: SignedIn) -> str:
        response = await client.get("/web/account", headers=me.headers)
        assert response.status_code == 200
        etag: str = response.headers["etag"]
        return etag

    async def _get(self, client: httpx.AsyncClient, me: SignedIn, etag: str) -> httpx.Response:
        return await client.get("/web/account", headers={**me.headers, "If-None-Match": etag})

    async def test_unchanged_is_304_with_no_body_and_still_no_store(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        etag = await self._etag(client, me)
        response = await self._get(client, me, etag)
        assert response.status_code == 304
        assert response.content == b""
        assert response.headers["etag"] == etag
        assert response.headers["cache-control"] == "no-store"
        # Weak forms and lists are compared weakly (RFC 9110 13.1.2); "*" matches any body.
        for header in (f"W/{etag}", f'"stale", {etag}', "*"):
            assert (await self._get(client, me, header)).status_code == 304
        assert (await self._get(client, me, '"stale"')).status_code == 200

    async def test_rename_gives_a_new_body_and_etag(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(account_name="Old Name")
        etag = await self._etag(client, me)
        await client.put("/web/account", json={"name": "New Name"}, headers=me.headers)
        response = await self._get(client, me, etag)
        assert response.status_code == 200
        assert response.json()["account"]["name"] == "New Name"
        assert response.headers["etag"] != etag
        assert (await self._get(client, me, response.headers["etag"])).status_code == 304

    async def test_a_metering_batch_gives_a_new_body_and_etag(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        etag = await self._etag(client, me)
        record = {
            "idempotencyKey": str(uuid.uuid4()),
            "platform": "api",
            "runs": 1,
            "credits": 7,
            "time": datetime.now(UTC).isoformat(),
        }
        batch = await client.post(
            "/metering/usage",
            json={"records": [record]},
            headers={"X-API-Key": me.api_key},
        )
        assert batch.json() == {"accepted": 1, "duplicates": 0}
        response = await self._get(client, me, etag)
        assert response.status_code == 200
        assert response.json()["account"]["usage"][-1]["requests"] == 7
        assert response.headers["etag"] != etag

    async def test_a_user_added_gives_a_new_body_and_etag(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        etag = await self._etag(client, me)
        teammate = await make_user(account=me.account, first_name="New", last_name="Mate")
        response = await self._get(client, me, etag)
        assert response.status_code == 200
        emails = {u["email"] for u in response.json()["account"]["users"]}
        assert emails == {me.user.email, teammate.user.email}
        assert response.headers["etag"] != etag

    async def test_another_accounts_etag_is_never_a_304(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        first = await make_user(account_name="Twin Co")
        second = await make_user(account_name="Twin Co")
        theirs = await self._etag(client, second)
        response = await self._get(client, first, theirs)
        assert response.status_code == 200
        assert response.json()["account"]["id"] == str(first.account.id)
        assert response.headers["etag"] != theirs

    async def test_a_spa_on_another_origin_may_send_and_read_the_validators(
        self, stack: Stack
    ) -> None:
        app = create_app(stack.with_settings(cors_allowed_origins=["https://console.example.com"]))
        origin = {"Origin": "https://console.example.com"}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            preflight = await client.options(
                "/web/account",
                headers={
                    **origin,
                    "Access-Control-Request-Method": "GET",
                    "Access-Control-Request-Headers": "authorization, if-none-match",
                },
            )
            response = await client.get("/web/session", headers=origin)
        assert preflight.status_code == 200
        assert "if-none-match" in preflight.headers["access-control-allow-headers"].lower()
        assert response.headers["access-control-expose-headers"] == "ETag, Content-Disposition"
