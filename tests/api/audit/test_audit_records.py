"""The audit log's writing side (README "Audit log"): every change records who, when, from where,
what and the fields' before and after, in the change's own transaction; a change that fails records
nothing; sign-ins are recorded, refused ones too."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from api.models import AuditEvent, Role
from devstack.stack import Stack
from tests.api.billing.test_billing import add_card
from tests.api.conftest import PASSWORD, MakeUser, unique_email


async def _events(app: FastAPI, account_id: uuid.UUID) -> list[AuditEvent]:
    async with app.state.resources.sessionmaker() as db:
        rows = await db.scalars(
            select(AuditEvent)
            .where(AuditEvent.account_id == account_id)
            .order_by(AuditEvent.occurred_at, AuditEvent.id)
        )
        return list(rows)


def _summary(events: list[AuditEvent]) -> list[tuple[str, dict[str, Any] | None]]:
    return [(e.action, e.changes) for e in events]


class TestChanges:
    async def test_a_rename_records_actor_address_and_before_after(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(account_name="Before Co", first_name="Ada", last_name="Lovelace")
        response = await client.put("/web/account", headers=me.headers, json={"name": "After Co"})
        assert response.status_code == 200
        [event] = await _events(app, me.account.id)
        assert event.action == "account.renamed"
        assert event.changes == {"name": {"from": "Before Co", "to": "After Co"}}
        assert (event.actor_user_id, event.actor_name, event.actor_email) == (
            me.user.id,
            "Ada Lovelace",
            me.user.email,
        )
        assert event.client_address == "127.0.0.1"  # httpx's ASGI transport's peer
        assert (event.target_type, event.target_id, event.target_label) == (
            "account",
            str(me.account.id),
            "After Co",
        )

        # The same name again changes nothing, so it records nothing.
        await client.put("/web/account", headers=me.headers, json={"name": "After Co"})
        assert len(await _events(app, me.account.id)) == 1

    async def test_a_failed_change_records_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        refused = await client.delete(f"/web/users/{me.user.id}", headers=me.headers)
        assert refused.json()["code"] == "CannotDeleteSelf"
        demote = await client.put(
            f"/web/users/{me.user.id}",
            headers=me.headers,
            json={"firstName": "New", "lastName": "Name", "role": "Member"},
        )
        assert demote.json()["code"] == "CannotChangeOwnRole"
        assert await _events(app, me.account.id) == []

    async def test_user_changes(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        email = unique_email("ivy")
        invited = await client.post(
            "/web/users",
            headers=me.headers,
            json={"firstName": "Ivy", "lastName": "Invitee", "email": email, "role": "Member"},
        )
        user_id = invited.json()["user"]["id"]
        await client.put(
            f"/web/users/{user_id}",
            headers=me.headers,
            json={"firstName": "Ivy", "lastName": "Renamed", "role": "Admin"},
        )
        await client.post(f"/web/users/{user_id}/invitation", headers=me.headers)
        await client.delete(f"/web/users/{user_id}/invitation", headers=me.headers)
        events = await _events(app, me.account.id)
        assert [(e.action, e.target_id) for e in events] == [
            ("user.invited", user_id),
            ("user.role_changed", user_id),
            ("user.edited", user_id),
            ("invitation.resent", user_id),
            ("invitation.revoked", user_id),
        ]
        assert events[0].changes == {
            "email": {"from": None, "to": email},
            "role": {"from": None, "to": "Member"},
        }
        assert events[1].changes == {"role": {"from": "Member", "to": "Admin"}}
        assert events[2].changes == {"last_name": {"from": "Invitee", "to": "Renamed"}}
        assert events[2].target_label == f"Ivy Invitee <{email}>"

    async def test_card_and_api_key_changes_never_store_secrets(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        assert (await add_card(client, stack, me)).status_code == 200
        assert (
            await client.delete("/web/subscription/payment", headers=me.headers)
        ).status_code == 204
        keys = (await client.get("/web/api-keys", headers=me.headers)).json()["keys"]
        key_id = keys[0]["id"]
        await client.post(
            f"/web/api-keys/{key_id}/reveal", headers=me.headers, json={"purpose": "copy"}
        )
        await client.post("/web/api-keys/roll", headers=me.headers, json={"overlap": "1h"})
        events = await _events(app, me.account.id)
        assert [e.action for e in events] == [
            "payment_method.added",
            "payment_method.removed",
            "api_key.copied",
            "api_key.rolled",
        ]
        assert events[0].changes == {"card": {"from": None, "to": "Visa ending in 4242"}}
        assert events[1].changes == {"card": {"from": "Visa ending in 4242", "to": None}}
        assert events[2].target_label == f"ak_…{me.api_key[-4:]}"
        stored = repr(_summary(events)) + repr([e.target_label for e in events])
        assert me.api_key not in stored

    async def test_another_accounts_log_gets_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        other = await make_user()
        await client.put("/web/account", headers=me.headers, json={"name": "Mine"})
        assert await _events(app, other.account.id) == []


class TestSignIns:
    async def test_success_and_failure_are_recorded(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(role=Role.MEMBER)
        email = me.user.email
        wrong = await client.post(
            "/web/session/sign-in", json={"email": email, "password": "Wrong-password-1!"}
        )
        assert wrong.status_code == 400
        ok = await client.post("/web/session/sign-in", json={"email": email, "password": PASSWORD})
        assert ok.status_code == 200
        events = await _events(app, me.account.id)
        assert _summary(events) == [
            ("sign_in.failed", {"method": {"from": None, "to": "password"}}),
            ("sign_in.succeeded", {"method": {"from": None, "to": "password"}}),
        ]
        assert {e.actor_email for e in events} == {email}

    async def test_an_unknown_email_records_nothing_anywhere(
        self, app: FastAPI, client: httpx.AsyncClient
    ) -> None:
        email = unique_email("nobody")
        await client.post("/web/session/sign-in", json={"email": email, "password": PASSWORD})
        async with app.state.resources.sessionmaker() as db:
            found = await db.scalar(select(AuditEvent.id).where(AuditEvent.actor_email == email))
        assert found is None
