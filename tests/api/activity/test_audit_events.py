"""The Activity page's reads (README "Audit log"): GET /web/audit-events (newest first, the
filters, cursor pagination), /web/audit-events/actors and /web/audit-events/export (CSV), for
Owners and Admins of the caller's account only.

The events are written straight into ``audit_event`` at chosen times: what is read back is
what this side must show, whichever service recorded it.
"""

from __future__ import annotations

import csv
import io
import json
import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import insert

from api.audit import AuditAction
from api.models import AuditEvent, Role
from api.principal.roles import ADMIN_REQUIRED
from tests.api.conftest import MakeUser, SignedIn

URL = "/web/audit-events"

# Whole seconds, a day back: the current month's partition or the default one, never a month
# whose partition a test creates (tests/api/kernel/test_audit_log.py).
NOW = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)


NO_TARGET: dict[str, Any] = {"target_type": None, "target_id": None, "target_label": None}


def event(
    me: SignedIn,
    at: datetime,
    action: AuditAction = AuditAction.ACCOUNT_RENAMED,
    **columns: Any,
) -> dict[str, Any]:
    """An ``audit_event`` row of ``me``'s account, done by ``me`` at ``at`` (``columns``
    override any column)."""
    return {
        "id": uuid.uuid4(),
        "occurred_at": at,
        "account_id": me.account.id,
        "actor_user_id": me.user.id,
        "actor_name": f"{me.user.first_name} {me.user.last_name}",
        "actor_email": me.user.email,
        "client_address": "203.0.113.7",
        "action": action.value,
        "target_type": "account",
        "target_id": str(me.account.id),
        "target_label": me.account.name,
        "changes": None,
        **columns,
    }


async def record(app: FastAPI, *rows: dict[str, Any]) -> None:
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(insert(AuditEvent), list(rows))


async def page(
    client: httpx.AsyncClient, me: SignedIn, **params: Any
) -> tuple[list[dict[str, Any]], str | None]:
    """One page as (events, nextCursor); fails the test unless the API answers 200."""
    response = await client.get(URL, params=params, headers=me.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    return body["events"], body["nextCursor"]


async def ids(client: httpx.AsyncClient, me: SignedIn, **params: Any) -> list[uuid.UUID]:
    events, _ = await page(client, me, **params)
    return [uuid.UUID(e["id"]) for e in events]


def at_utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class TestList:
    async def test_newest_first_with_who_what_and_the_changes(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(first_name="Ada", last_name="Lovelace")
        renamed = event(
            me,
            NOW - timedelta(hours=1),
            changes={"name": {"from": "Acme", "to": "Acme Robotics"}},
        )
        signed_in = event(
            me,
            NOW - timedelta(hours=3),
            AuditAction.SIGN_IN_SUCCEEDED,
            **NO_TARGET,
            changes={"method": {"from": None, "to": "password"}},
        )
        invited = event(
            me,
            NOW - timedelta(hours=2),
            AuditAction.USER_INVITED,
            client_address="2001:db8::1",
            target_type="user",
            target_id="42",
            target_label="Grace Hopper <grace@acme.dev>",
            changes={"role": {"from": None, "to": "Admin"}},
        )
        await record(app, signed_in, renamed, invited)

        events, next_cursor = await page(client, me)

        assert [e["id"] for e in events] == [str(r["id"]) for r in (renamed, invited, signed_in)]
        assert next_cursor is None
        first = events[0]
        assert at_utc(first["occurredAt"]) == NOW - timedelta(hours=1)
        assert first["actor"] == {
            "id": str(me.user.id),
            "name": "Ada Lovelace",
            "email": me.user.email,
        }
        assert first["clientAddress"] == "203.0.113.7"
        assert first["action"] == "account.renamed"
        assert first["target"] == {
            "type": "account",
            "id": str(me.account.id),
            "label": me.account.name,
        }
        assert first["changes"] == {"name": {"from": "Acme", "to": "Acme Robotics"}}
        assert events[1]["clientAddress"] == "2001:db8::1"
        assert events[1]["target"]["label"] == "Grace Hopper <grace@acme.dev>"
        assert events[2]["target"] is None
        assert events[2]["changes"] == {"method": {"from": None, "to": "password"}}

    async def test_an_account_without_events_has_an_empty_log(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert await page(client, me) == ([], None)
        response = await client.get(f"{URL}/actors", headers=me.headers)
        assert response.json() == {"actors": []}

    async def test_filter_by_actor_finds_a_deleted_users_events(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(first_name="Ada", last_name="Lovelace")
        gone = uuid.uuid4()  # a user deleted since: no row in "user" any more
        mine = event(me, NOW - timedelta(minutes=1))
        theirs_old = event(
            me,
            NOW - timedelta(minutes=3),
            actor_user_id=gone,
            actor_name="Grace Hopper",
            actor_email="grace@acme.dev",
        )
        theirs_new = event(
            me,
            NOW - timedelta(minutes=2),
            AuditAction.API_KEY_REVEALED,
            actor_user_id=gone,
            actor_name="Grace B. Hopper",
            actor_email="grace@acme.dev",
        )
        await record(app, mine, theirs_old, theirs_new)

        assert await ids(client, me, actorId=str(gone)) == [theirs_new["id"], theirs_old["id"]]
        assert await ids(client, me, actorId=str(me.user.id)) == [mine["id"]]
        assert await ids(client, me, actorId=str(uuid.uuid4())) == []

        actors = (await client.get(f"{URL}/actors", headers=me.headers)).json()["actors"]
        # By name, each as named in their latest event.
        assert actors == [
            {"id": str(me.user.id), "name": "Ada Lovelace", "email": me.user.email},
            {"id": str(gone), "name": "Grace B. Hopper", "email": "grace@acme.dev"},
        ]

    async def test_filter_by_one_or_several_actions(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        renamed = event(me, NOW - timedelta(minutes=1), AuditAction.ACCOUNT_RENAMED)
        invited = event(me, NOW - timedelta(minutes=2), AuditAction.USER_INVITED)
        plan = event(me, NOW - timedelta(minutes=3), AuditAction.PLAN_CHANGED)
        await record(app, renamed, invited, plan)

        assert await ids(client, me, action="user.invited") == [invited["id"]]
        both = await ids(client, me, action=["plan.units_changed", "account.renamed"])
        assert both == [renamed["id"], plan["id"]]
        assert await ids(client, me, action="sso.changed") == []
        response = await client.get(URL, params={"action": "user.hacked"}, headers=me.headers)
        assert response.status_code == 422
        assert response.json()["code"] == "ValidationError"
        assert response.json()["fields"][0]["field"] == "action.0"

    async def test_date_range_from_inclusive_to_exclusive(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        start, end = NOW - timedelta(days=2), NOW - timedelta(days=1)
        before = event(me, start - timedelta(microseconds=1))
        at_start = event(me, start)
        inside = event(me, start + timedelta(hours=5))
        at_end = event(me, end)
        await record(app, before, at_start, inside, at_end)

        in_range = await ids(client, me, **{"from": start.isoformat(), "to": end.isoformat()})
        assert in_range == [inside["id"], at_start["id"]]
        since = await ids(client, me, **{"from": start.isoformat()})
        assert since == [at_end["id"], inside["id"], at_start["id"]]
        until = await ids(client, me, to=start.isoformat())
        assert until == [before["id"]]
        # Another offset names the same instant.
        paris = (start + timedelta(hours=5)).astimezone(timezone(timedelta(hours=1)))
        assert await ids(client, me, **{"from": paris.isoformat()}) == [at_end["id"], inside["id"]]
        # A time without its offset is refused: it would mean a different instant per reader.
        response = await client.get(URL, params={"from": "2026-01-01T00:00:00"}, headers=me.headers)
        assert response.status_code == 422
        assert response.json()["fields"][0]["field"] == "from"
        # So is a number, which pydantic alone would read as a Unix time (the fuzzer's find).
        for value in ("0.5", "1764000000"):
            response = await client.get(URL, params={"to": value}, headers=me.headers)
            assert response.status_code == 422, value
            assert response.json()["message"] == (
                "Must be a date and time such as 2026-11-24T00:00:00Z"
            )

    async def test_the_filters_combine(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        other_actor = uuid.uuid4()
        match = event(me, NOW - timedelta(hours=2), AuditAction.USER_DELETED)
        wrong_action = event(me, NOW - timedelta(hours=2, minutes=1))
        wrong_actor = event(
            me,
            NOW - timedelta(hours=2, minutes=2),
            AuditAction.USER_DELETED,
            actor_user_id=other_actor,
        )
        too_old = event(me, NOW - timedelta(days=3), AuditAction.USER_DELETED)
        await record(app, match, wrong_action, wrong_actor, too_old)

        found = await ids(
            client,
            me,
            actorId=str(me.user.id),
            action="user.deleted",
            **{"from": (NOW - timedelta(days=1)).isoformat()},
        )
        assert found == [match["id"]]


class TestPagination:
    async def test_pages_cover_every_event_once_equal_times_included(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        same = NOW - timedelta(minutes=10)
        # 5 events at one instant (ordered by id among themselves), around 3 others; pages of
        # 3 cut inside the tie.
        rows = [event(me, same) for _ in range(5)]
        rows += [event(me, same + timedelta(seconds=1)), event(me, same - timedelta(seconds=1))]
        rows.append(event(me, same - timedelta(days=1)))
        await record(app, *rows)
        expected = [
            r["id"] for r in sorted(rows, key=lambda r: (r["occurred_at"], r["id"]), reverse=True)
        ]

        seen: list[uuid.UUID] = []
        sizes = []
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"limit": 3}
            if cursor:
                params["cursor"] = cursor
            events, cursor = await page(client, me, **params)
            sizes.append(len(events))
            seen += [uuid.UUID(e["id"]) for e in events]
            if cursor is None:
                break
        assert sizes == [3, 3, 2]
        assert seen == expected  # newest first, none twice, none left out

    async def test_a_full_last_page_has_no_next_cursor(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await record(app, *(event(me, NOW - timedelta(minutes=i)) for i in range(4)))
        first, cursor = await page(client, me, limit=2)
        assert len(first) == 2 and cursor is not None
        second, cursor = await page(client, me, limit=2, cursor=cursor)
        assert len(second) == 2
        assert cursor is None

    async def test_a_later_event_does_not_shift_the_next_page(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        rows = [event(me, NOW - timedelta(minutes=i)) for i in range(1, 5)]
        await record(app, *rows)
        first, cursor = await page(client, me, limit=2)
        await record(app, event(me, NOW))  # recorded while the first page is on screen
        second, _ = await page(client, me, limit=2, cursor=cursor)
        assert [e["id"] for e in first + second] == [str(r["id"]) for r in rows]

    async def test_the_default_page_is_50_and_the_limit_1_to_100(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await record(app, *(event(me, NOW - timedelta(seconds=i)) for i in range(51)))
        events, cursor = await page(client, me)
        assert len(events) == 50 and cursor is not None
        assert len((await page(client, me, limit=100))[0]) == 51
        for limit in (0, 101):
            response = await client.get(URL, params={"limit": limit}, headers=me.headers)
            assert response.status_code == 422
            assert response.json()["fields"][0]["field"] == "limit"

    @pytest.mark.parametrize(
        "cursor",
        [
            "AAAA",  # base64url, too short
            "A" * 33,  # not a length base64 can have
            "f" * 43,  # 32 bytes, not 24
            # 24 bytes whose time is past year 9999
            "f_____________________________________8",
        ],
    )
    async def test_a_malformed_cursor_is_400_invalid_cursor(
        self, client: httpx.AsyncClient, make_user: MakeUser, cursor: str
    ) -> None:
        me = await make_user()
        response = await client.get(URL, params={"cursor": cursor}, headers=me.headers)
        assert response.status_code == 400
        assert response.json() == {
            "code": "InvalidCursor",
            "message": "This page of the activity log is not valid. Load the log again.",
        }

    async def test_a_cursor_outside_the_alphabet_is_422(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.get(URL, params={"cursor": "abc+/="}, headers=me.headers)
        assert response.status_code == 422
        assert response.json()["fields"][0]["field"] == "cursor"


def csv_rows(response: httpx.Response) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(response.text)))


class TestExport:
    async def test_csv_of_the_filtered_log_newest_first(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(first_name="Ada", last_name="Lovelace")
        renamed = event(
            me,
            NOW - timedelta(hours=1) + timedelta(microseconds=250),
            changes={"name": {"from": "Acme, Inc.", "to": 'Acme "Robotics"'}},
        )
        signed_in = event(
            me,
            NOW - timedelta(hours=2),
            AuditAction.SIGN_IN_SUCCEEDED,
            **NO_TARGET,
        )
        invited = event(me, NOW - timedelta(hours=3), AuditAction.USER_INVITED)
        await record(app, renamed, signed_in, invited)

        response = await client.get(
            f"{URL}/export",
            params={"action": ["account.renamed", "sign_in.succeeded"]},
            headers=me.headers,
        )

        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "text/csv; charset=utf-8"
        today = datetime.now(UTC).date().isoformat()
        assert response.headers["content-disposition"] == (
            f'attachment; filename="audit-log-{today}.csv"'
        )
        assert response.text.startswith(
            "id,occurred_at,actor_id,actor_name,actor_email,client_address,action,target_type,"
            "target_id,target_label,changes\r\n"
        )
        rows = csv_rows(response)
        assert [r["action"] for r in rows] == ["account.renamed", "sign_in.succeeded"]
        first = rows[0]
        stamp = (NOW - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S")
        assert first["occurred_at"] == f"{stamp}.000250Z"
        assert first["id"] == str(renamed["id"])
        assert first["actor_id"] == str(me.user.id)
        assert (first["actor_name"], first["actor_email"]) == ("Ada Lovelace", me.user.email)
        assert first["client_address"] == "203.0.113.7"
        assert (first["target_type"], first["target_id"], first["target_label"]) == (
            "account",
            str(me.account.id),
            me.account.name,
        )
        assert json.loads(first["changes"]) == {
            "name": {"from": "Acme, Inc.", "to": 'Acme "Robotics"'}
        }
        assert (rows[1]["target_type"], rows[1]["target_label"], rows[1]["changes"]) == (
            "",
            "",
            "",
        )

    @pytest.mark.parametrize(
        ("stored", "shown"),
        [
            (
                '=HYPERLINK("http://evil.example","Click")',
                '\'=HYPERLINK("http://evil.example","Click")',
            ),
            ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
            ("\t=1", "'\t=1"),
            ("\r=1", "'\r=1"),
            ("Grace Hopper", "Grace Hopper"),
            ("Grace =1", "Grace =1"),
        ],
    )
    async def test_no_cell_starts_a_formula(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        stored: str,
        shown: str,
    ) -> None:
        me = await make_user()
        await record(
            app,
            event(
                me,
                NOW,
                actor_name=stored,
                actor_email=stored,
                target_label=stored,
                client_address=stored,
            ),
        )
        response = await client.get(f"{URL}/export", headers=me.headers)
        (row,) = csv_rows(response)
        assert (
            row["actor_name"],
            row["actor_email"],
            row["target_label"],
            row["client_address"],
        ) == (shown, shown, shown, shown)

    async def test_more_events_than_a_batch_each_once_in_order(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        """The export reads 1000 events at a time: 2,500 events, 1,200 of them at one instant,
        come out whole, each once, newest first."""
        me = await make_user()
        tie = NOW - timedelta(hours=1)
        rows = [event(me, tie) for _ in range(1200)]
        rows += [event(me, tie + timedelta(milliseconds=i + 1)) for i in range(650)]
        rows += [event(me, tie - timedelta(milliseconds=i + 1)) for i in range(650)]
        await record(app, *rows)
        response = await client.get(f"{URL}/export", headers=me.headers)
        exported = csv_rows(response)
        expected = sorted(rows, key=lambda r: (r["occurred_at"], r["id"]), reverse=True)
        assert [r["id"] for r in exported] == [str(e["id"]) for e in expected]
        assert exported[-1]["occurred_at"] == expected[-1]["occurred_at"].strftime(
            "%Y-%m-%dT%H:%M:%S.%fZ"
        )

    async def test_an_empty_export_is_the_header_row(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.get(f"{URL}/export", headers=me.headers)
        assert response.status_code == 200
        assert response.text == (
            "id,occurred_at,actor_id,actor_name,actor_email,client_address,action,target_type,"
            "target_id,target_label,changes\r\n"
        )


class TestWhoMayRead:
    ROUTES = (URL, f"{URL}/actors", f"{URL}/export")

    @pytest.mark.parametrize("role", [Role.OWNER, Role.ADMIN])
    async def test_owners_and_admins_read_the_log(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser, role: Role
    ) -> None:
        owner = await make_user()
        reader = await make_user(account=owner.account, role=role)
        await record(app, event(owner, NOW))
        for route in self.ROUTES:
            response = await client.get(route, headers=reader.headers)
            assert response.status_code == 200, (route, response.text)
        events, _ = await page(client, reader)
        assert [e["actor"]["id"] for e in events] == [str(owner.user.id)]

    async def test_members_are_403_forbidden(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        member = await make_user(account=owner.account, role=Role.MEMBER)
        await record(app, event(owner, NOW))
        for route in self.ROUTES:
            response = await client.get(route, headers=member.headers)
            assert response.status_code == 403, route
            assert response.json() == {"code": "Forbidden", "message": ADMIN_REQUIRED}

    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        for route in self.ROUTES:
            response = await client.get(route)
            assert response.status_code == 401, route
            assert response.json()["code"] == "NotAuthenticated"

    async def test_another_accounts_events_never_show(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        stranger = await make_user()
        mine = event(me, NOW - timedelta(minutes=1))
        theirs = event(stranger, NOW)
        await record(app, mine, theirs)

        assert await ids(client, me) == [mine["id"]]
        assert await ids(client, me, actorId=str(stranger.user.id)) == []
        actors = (await client.get(f"{URL}/actors", headers=me.headers)).json()["actors"]
        assert [a["id"] for a in actors] == [str(me.user.id)]
        exported = csv_rows(await client.get(f"{URL}/export", headers=me.headers))
        assert [r["actor_id"] for r in exported] == [str(me.user.id)]
        exported = csv_rows(
            await client.get(
                f"{URL}/export", params={"actorId": str(stranger.user.id)}, headers=me.headers
            )
        )
        assert exported == []
