"""Sign-in sessions (README "Sessions"): every sign-in starts one, a person sees theirs and ends
one or all the others, and an ended session's tokens are refused at once, refreshed ones too.
Each attack below ran against the API before the rule that stops it existed."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import jwt
import pytest
from fastapi import FastAPI
from sqlalchemy import select, text, update

from api.adapters.cognito import CognitoClient
from api.identity.sessions.feature import session_retention
from api.models import Role, SignInSession, User
from api.principal.sessions import end_sessions
from tests.api.conftest import MakeUser, SignedIn, mails_to

CHROME_MAC = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36"
)
FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0"


@dataclass
class Browser:
    """One browser: its own cookie jar (the refresh cookie), user agent and access token."""

    http: httpx.AsyncClient
    access_token: str = ""

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token}"}

    async def sign_in(self, email: str, password: str) -> None:
        answer = await self.http.post(
            "/web/session/sign-in", json={"email": email, "password": password}
        )
        assert answer.status_code == 200, answer.text
        self.access_token = answer.json()["tokens"]["accessToken"]

    async def refresh(self) -> httpx.Response:
        answer = await self.http.post("/web/session/refresh")
        if answer.status_code == 200:
            self.access_token = answer.json()["accessToken"]
        return answer

    async def sessions(self) -> list[dict[str, Any]]:
        answer = await self.http.get("/web/sessions", headers=self.headers)
        assert answer.status_code == 200, answer.text
        found: list[dict[str, Any]] = answer.json()["sessions"]
        return found


OpenBrowser = Callable[[str], Awaitable[Browser]]


@pytest.fixture
async def browsers(app: FastAPI) -> AsyncIterator[OpenBrowser]:
    """Open browsers on the app, each with the given User-Agent and a cookie jar of its own."""
    async with AsyncExitStack() as stack:

        async def open_browser(user_agent: str) -> Browser:
            http = await stack.enter_async_context(
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=app),
                    base_url="http://testserver",
                    headers={"User-Agent": user_agent},
                )
            )
            return Browser(http)

        yield open_browser


async def signed_in_twice(
    make_user: MakeUser, browsers: OpenBrowser
) -> tuple[SignedIn, Browser, Browser]:
    me = await make_user()
    laptop, phone = await browsers(CHROME_MAC), await browsers(FIREFOX_WINDOWS)
    await laptop.sign_in(me.user.email, me.password)
    await phone.sign_in(me.user.email, me.password)
    return me, laptop, phone


async def test_each_sign_in_starts_a_session_listed_with_how_where_and_which_browser(
    make_user: MakeUser, browsers: OpenBrowser
) -> None:
    _, laptop, phone = await signed_in_twice(make_user, browsers)
    seen = await laptop.sessions()
    assert len(seen) == 2
    by_browser = {s["browser"]: s for s in seen}
    assert by_browser["Chrome 120"]["os"] == "macOS"
    assert by_browser["Chrome 120"]["current"] is True
    assert by_browser["Firefox 121"]["os"] == "Windows 10"
    assert by_browser["Firefox 121"]["current"] is False
    assert {s["method"] for s in seen} == {"password"}
    assert {s["clientAddress"] for s in seen} == {"127.0.0.1"}
    # The same list from the other browser marks that one.
    assert [s["browser"] for s in await phone.sessions() if s["current"]] == ["Firefox 121"]


async def test_ending_a_session_refuses_its_tokens_at_once_refreshed_ones_too(
    make_user: MakeUser, browsers: OpenBrowser
) -> None:
    _, laptop, phone = await signed_in_twice(make_user, browsers)
    first_token = phone.access_token
    assert (await phone.refresh()).status_code == 200
    phone_session = next(s["id"] for s in await laptop.sessions() if not s["current"])
    ended = await laptop.http.delete(f"/web/sessions/{phone_session}", headers=laptop.headers)
    assert ended.status_code == 204
    for token in (first_token, phone.access_token):
        refused = await phone.http.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert refused.status_code == 401 and refused.json()["code"] == "SessionEnded"
    assert (await phone.refresh()).status_code == 401
    # The laptop goes on, and sees one session.
    assert (await laptop.http.get("/web/session", headers=laptop.headers)).status_code == 200
    assert [s["current"] for s in await laptop.sessions()] == [True]
    # Ended is ended: a second try finds nothing.
    again = await laptop.http.delete(f"/web/sessions/{phone_session}", headers=laptop.headers)
    assert again.status_code == 404 and again.json()["code"] == "SessionNotFound"


async def test_sign_out_all_other_sessions_keeps_this_one(
    make_user: MakeUser, browsers: OpenBrowser
) -> None:
    me, laptop, phone = await signed_in_twice(make_user, browsers)
    tablet = await browsers(CHROME_MAC)
    await tablet.sign_in(me.user.email, me.password)
    answer = await laptop.http.post("/web/session/sign-out-others", headers=laptop.headers)
    assert answer.json() == {"ended": 2}
    for other in (phone, tablet):
        refused = await other.http.get("/web/session", headers=other.headers)
        assert refused.status_code == 401
    assert [s["current"] for s in await laptop.sessions()] == [True]


async def test_signing_out_ends_this_browser_only(
    make_user: MakeUser, browsers: OpenBrowser
) -> None:
    _, laptop, phone = await signed_in_twice(make_user, browsers)
    out = await phone.http.post("/web/session/sign-out", headers=phone.headers)
    assert out.status_code == 204
    assert (await phone.http.get("/web/session", headers=phone.headers)).status_code == 401
    assert (await laptop.http.get("/web/session", headers=laptop.headers)).status_code == 200
    assert len(await laptop.sessions()) == 1


async def test_a_token_refreshed_in_the_second_of_a_sign_out_is_refused(
    app: FastAPI, cognito: CognitoClient, make_user: MakeUser, browsers: OpenBrowser
) -> None:
    # The attack: a stolen refresh token of a session, used in the very second its owner signs
    # out, minted a token issued in that second; tokens_valid_after counts whole seconds, so
    # it worked for its hour. Now the token names its session, and the session has ended.
    me = await make_user()
    for _ in range(20):
        laptop = await browsers(CHROME_MAC)
        await laptop.sign_in(me.user.email, me.password)
        stolen = laptop.http.cookies["refresh_token"]
        minted = (await cognito.refresh(stolen)).access_token
        out = await laptop.http.post("/web/session/sign-out", headers=laptop.headers)
        assert out.status_code == 204
        async with app.state.resources.sessionmaker() as db:
            valid_after = await db.scalar(
                select(User.tokens_valid_after).where(User.id == me.user.id)
            )
        issued = jwt.decode(minted, options={"verify_signature": False})["iat"]
        if valid_after is None or issued == int(valid_after.timestamp()):
            break  # in the same second (or the sign-out did not need the whole-second rule)
    refused = await laptop.http.get("/web/session", headers={"Authorization": f"Bearer {minted}"})
    assert refused.status_code == 401 and refused.json()["code"] == "SessionEnded"


async def test_sessions_are_a_persons_own(make_user: MakeUser, browsers: OpenBrowser) -> None:
    _, laptop, _ = await signed_in_twice(make_user, browsers)
    _, stranger, _ = await signed_in_twice(make_user, browsers)
    theirs = (await stranger.sessions())[0]["id"]
    refused = await laptop.http.delete(f"/web/sessions/{theirs}", headers=laptop.headers)
    assert refused.status_code == 404
    assert len(await stranger.sessions()) == 2
    unknown = await laptop.http.delete(f"/web/sessions/{uuid.uuid4()}", headers=laptop.headers)
    assert unknown.status_code == 404


async def test_a_password_reset_ends_every_session(
    app: FastAPI, make_user: MakeUser, browsers: OpenBrowser
) -> None:
    # Ending every session of a user (reset, role change, turning access off) ends the
    # recorded ones too: the refreshed token of a session is refused, whatever second.
    me, laptop, phone = await signed_in_twice(make_user, browsers)
    assert (await phone.refresh()).status_code == 200
    async with app.state.resources.sessionmaker() as db, db.begin():
        await end_sessions(db, User.id == me.user.id)
    for browser in (laptop, phone):
        refused = await browser.http.get("/web/session", headers=browser.headers)
        assert refused.status_code == 401 and refused.json()["code"] == "SessionEnded"


async def test_sessions_inactive_for_90_days_are_deleted(
    app: FastAPI, make_user: MakeUser, browsers: OpenBrowser
) -> None:
    _, laptop, _ = await signed_in_twice(make_user, browsers)
    stale = next(s["id"] for s in await laptop.sessions() if not s["current"])
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(SignInSession)
            .where(SignInSession.id == uuid.UUID(stale))
            .values(last_active_at=datetime.now(UTC) - timedelta(days=91))
        )
    await session_retention(app.state.resources)
    async with app.state.resources.sessionmaker() as db:
        assert await db.get(SignInSession, uuid.UUID(stale)) is None
    assert [s["current"] for s in await laptop.sessions()] == [True]


async def test_an_owner_signs_a_member_out_everywhere_and_sees_the_counts(
    client: httpx.AsyncClient, make_user: MakeUser, browsers: OpenBrowser
) -> None:
    owner = await make_user()
    member = await make_user(account=owner.account, role=Role.MEMBER)
    laptop, phone = await browsers(CHROME_MAC), await browsers(FIREFOX_WINDOWS)
    await laptop.sign_in(member.user.email, member.password)
    await phone.sign_in(member.user.email, member.password)

    counts = await client.get("/web/member-sessions", headers=owner.headers)
    assert counts.status_code == 200
    by_user = {u["userId"]: u["activeSessions"] for u in counts.json()["users"]}
    assert by_user[str(member.user.id)] == 2
    assert by_user[str(owner.user.id)] == 0  # signed in without the console's sign-in

    ended = await client.delete(f"/web/member-sessions/{member.user.id}", headers=owner.headers)
    assert ended.status_code == 204
    for browser in (laptop, phone):
        refused = await browser.http.get("/web/session", headers=browser.headers)
        assert refused.status_code == 401 and refused.json()["code"] == "SessionEnded"
        assert (await browser.refresh()).status_code == 401
    counts = await client.get("/web/member-sessions", headers=owner.headers)
    assert {u["userId"]: u["activeSessions"] for u in counts.json()["users"]}[
        str(member.user.id)
    ] == 0
    log = await client.get(
        "/web/audit-events", params={"action": "user.signed_out"}, headers=owner.headers
    )
    assert [e["target"]["id"] for e in log.json()["events"]] == [str(member.user.id)]
    # They may sign in again.
    await laptop.sign_in(member.user.email, member.password)
    assert (await laptop.http.get("/web/session", headers=laptop.headers)).status_code == 200


async def test_an_admin_never_signs_an_owner_out_nor_a_member_reads_the_counts(
    client: httpx.AsyncClient, make_user: MakeUser, browsers: OpenBrowser
) -> None:
    # The attack: an Admin ends the Owner's sessions (a denial of the Owner's access).
    owner = await make_user()
    admin = await make_user(account=owner.account, role=Role.ADMIN)
    member = await make_user(account=owner.account, role=Role.MEMBER)
    laptop = await browsers(CHROME_MAC)
    await laptop.sign_in(owner.user.email, owner.password)
    refused = await client.delete(f"/web/member-sessions/{owner.user.id}", headers=admin.headers)
    assert refused.status_code == 403
    assert (await laptop.http.get("/web/session", headers=laptop.headers)).status_code == 200
    # An Admin may sign out a Member; a Member may do neither.
    assert (
        await client.delete(f"/web/member-sessions/{member.user.id}", headers=admin.headers)
    ).status_code == 204
    assert (await client.get("/web/member-sessions", headers=member.headers)).status_code == 403
    # Another account's user is not found.
    stranger = await make_user()
    other = await client.delete(f"/web/member-sessions/{stranger.user.id}", headers=owner.headers)
    assert other.status_code == 404


async def test_a_sign_in_from_a_new_browser_is_emailed_once(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser, browsers: OpenBrowser
) -> None:
    me = await make_user()
    await (await browsers(CHROME_MAC)).sign_in(me.user.email, me.password)  # the first: no news
    await (await browsers(FIREFOX_WINDOWS)).sign_in(me.user.email, me.password)  # new: told
    await (await browsers(FIREFOX_WINDOWS)).sign_in(me.user.email, me.password)  # seen: not
    [mail] = await mails_to(client, me.user.email)
    assert mail["subject"] == "New sign-in to Autostep: Firefox on Windows 10 from 127.0.0.1"
    assert "Not you?" in mail["body"] and "/sessions" in mail["body"]
    async with app.state.resources.sessionmaker() as db:
        jobs = await db.scalar(
            text(
                "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'send_email' "
                "AND args->>'to' = :to AND args->>'subject' LIKE 'New sign-in%'"
            ),
            {"to": me.user.email},
        )
    assert jobs == 1
