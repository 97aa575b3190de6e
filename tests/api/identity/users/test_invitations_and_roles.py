"""Roles and invitations on User Management: the invitation lifecycle (Pending, Resend, Revoke,
Expired, against moto), who may manage whom, and the last-Owner guard under concurrent requests."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update

from api.adapters.cognito import CognitoClient, UserNotFoundError
from api.identity.membership.errors import CannotChangeOwnRole
from api.identity.users.errors import InvitationNotPending
from api.models import Role, User
from api.principal.roles import ADMIN_REQUIRED, OWNER_GRANTS_OWNER, OWNER_MANAGES_OWNERS
from tests.api.conftest import MakeUser, SignedIn, unique_email

NEW_PASSWORD = "Fresh-password-2026!"


async def _invite(
    client: httpx.AsyncClient, by: SignedIn, email: str, role: str = "Member"
) -> httpx.Response:
    return await client.post(
        "/web/users",
        headers=by.headers,
        json={"firstName": "Ivy", "lastName": "Invitee", "email": email, "role": role},
    )


async def _temporary_passwords(client: httpx.AsyncClient, email: str) -> list[str]:
    mail = (await client.get("/dev/mailbox", params={"to": email})).json()
    return [m["temporaryPassword"] for m in mail if m["temporaryPassword"]]


async def _listed(client: httpx.AsyncClient, me: SignedIn, email: str) -> dict[str, Any]:
    users = (await client.get("/web/account", headers=me.headers)).json()["account"]["users"]
    return next(u for u in users if u["email"] == email)


async def _sign_in(client: httpx.AsyncClient, email: str, password: str) -> httpx.Response:
    return await client.post("/web/session/sign-in", json={"email": email, "password": password})


async def _accept(client: httpx.AsyncClient, email: str, password: str) -> None:
    challenge = (await _sign_in(client, email, password)).json()["challenge"]
    done = await client.post(
        "/web/session/complete-new-password",
        json={
            "username": challenge["username"],
            "session": challenge["session"],
            "newPassword": NEW_PASSWORD,
        },
    )
    assert done.status_code == 200, done.text


async def _expire(app: FastAPI, email: str) -> None:
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(User)
            .where(User.email == email)
            .values(invitation_expires_at=datetime.now(UTC) - timedelta(minutes=1))
        )


class TestInvitationLifecycle:
    async def test_pending_until_the_first_sign_in(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        email = unique_email("ivy")
        assert (await _invite(client, me, email)).status_code == 201
        listed = await _listed(client, me, email)
        assert (listed["role"], listed["status"]) == ("Member", "Pending")
        assert listed["invitedAt"] and listed["invitationExpiresAt"]

        [password] = await _temporary_passwords(client, email)
        await _accept(client, email, password)
        listed = await _listed(client, me, email)
        assert (listed["status"], listed["invitationExpiresAt"]) == ("Active", None)
        assert listed["invitedAt"]  # the invite date stays

    async def test_resend_sends_a_new_password_and_the_old_one_stops_working(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        email = unique_email("ivy")
        user_id = (await _invite(client, me, email)).json()["user"]["id"]
        [old] = await _temporary_passwords(client, email)

        resent = await client.post(f"/web/users/{user_id}/invitation", headers=me.headers)
        assert resent.status_code == 200, resent.text
        assert resent.json()["user"]["status"] == "Pending"
        passwords = await _temporary_passwords(client, email)
        assert len(passwords) == 2 and old in passwords
        [new] = [p for p in passwords if p != old]

        refused = await _sign_in(client, email, old)
        assert refused.status_code == 400
        assert refused.json()["code"] == "NotAuthorizedException"
        await _accept(client, email, new)
        assert (await _listed(client, me, email))["status"] == "Active"

        again = await client.post(f"/web/users/{user_id}/invitation", headers=me.headers)
        assert again.status_code == 400
        assert again.json() == {
            "code": "InvitationNotPending",
            "message": InvitationNotPending.default_message,
        }

    async def test_revoke_removes_the_pool_user_and_the_row(
        self, app: FastAPI, client: httpx.AsyncClient, cognito: CognitoClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        email = unique_email("ivy")
        user_id = (await _invite(client, me, email)).json()["user"]["id"]

        revoked = await client.delete(f"/web/users/{user_id}/invitation", headers=me.headers)
        assert revoked.status_code == 204
        with pytest.raises(UserNotFoundError):
            await cognito.admin_get_user(email)
        users = (await client.get("/web/account", headers=me.headers)).json()["account"]["users"]
        assert email not in {u["email"] for u in users}
        # The address can be invited again.
        assert (await _invite(client, me, email)).status_code == 201

    async def test_an_accepted_invitation_cannot_be_revoked(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        other = await make_user(account=me.account, role=Role.MEMBER)
        response = await client.delete(f"/web/users/{other.user.id}/invitation", headers=me.headers)
        assert response.status_code == 400
        assert response.json()["code"] == "InvitationNotPending"

    async def test_expired_invitation_is_refused_at_sign_in_until_resent(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        email = unique_email("ivy")
        user_id = (await _invite(client, me, email)).json()["user"]["id"]
        [old] = await _temporary_passwords(client, email)
        await _expire(app, email)

        assert (await _listed(client, me, email))["status"] == "Expired"
        refused = await _sign_in(client, email, old)
        assert refused.status_code == 400
        assert refused.json() == {
            "code": "InvitationExpired",
            "message": "Your invitation has expired. Ask an Owner or Admin of your account "
            "to send it again.",
        }

        resent = await client.post(f"/web/users/{user_id}/invitation", headers=me.headers)
        assert resent.json()["user"]["status"] == "Pending"
        [new] = [p for p in await _temporary_passwords(client, email) if p != old]
        await _accept(client, email, new)

    async def test_another_accounts_invitation_is_404(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        attacker = await make_user()
        user_id = (await _invite(client, me, unique_email("ivy"))).json()["user"]["id"]
        for verb in ("POST", "DELETE"):
            response = await client.request(
                verb, f"/web/users/{user_id}/invitation", headers=attacker.headers
            )
            assert response.status_code == 404


class TestWhoManagesWhom:
    async def test_an_admin_cannot_touch_an_owner_or_make_one(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        admin = await make_user(account=owner.account, role=Role.ADMIN)
        member = await make_user(account=owner.account, role=Role.MEMBER)
        names = {"firstName": "X", "lastName": "Y"}
        cases = [
            ("PUT", f"/web/users/{owner.user.id}", names, OWNER_MANAGES_OWNERS),
            ("DELETE", f"/web/users/{owner.user.id}", None, OWNER_MANAGES_OWNERS),
            ("PUT", f"/web/users/{member.user.id}", {**names, "role": "Owner"}, OWNER_GRANTS_OWNER),
            (
                "POST",
                "/web/users",
                {**names, "email": unique_email(), "role": "Owner"},
                OWNER_GRANTS_OWNER,
            ),
        ]
        for verb, url, body, message in cases:
            response = await client.request(verb, url, headers=admin.headers, json=body)
            assert response.status_code == 403, (verb, url)
            assert response.json() == {"code": "Forbidden", "message": message}

        promoted = await client.put(
            f"/web/users/{member.user.id}", headers=admin.headers, json={**names, "role": "Admin"}
        )
        assert promoted.json()["user"]["role"] == "Admin"

    async def test_a_member_changes_nothing_not_even_their_own_name(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        member = await make_user(account=owner.account, role=Role.MEMBER)
        response = await client.put(
            f"/web/users/{member.user.id}",
            headers=member.headers,
            json={"firstName": "X", "lastName": "Y", "role": "Owner"},
        )
        assert response.status_code == 403
        assert response.json()["message"] == ADMIN_REQUIRED

    async def test_the_session_carries_the_role(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        admin = await make_user(account=owner.account, role=Role.ADMIN)
        session = (await client.get("/web/session", headers=admin.headers)).json()["session"]
        assert session["user"]["role"] == "Admin"


async def _owners(app: FastAPI, account_id: object) -> int:
    async with app.state.resources.sessionmaker() as db:
        count = await db.scalar(
            select(func.count())
            .select_from(User)
            .where(User.account_id == account_id, User.role == Role.OWNER)
        )
    return count or 0


class TestLastOwner:
    async def test_nobody_changes_their_own_role(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        # Not even an Owner stepping down beside another Owner: another Owner does it, so
        # the only Owner can never leave the account with none.
        owner = await make_user()
        await make_user(account=owner.account, role=Role.OWNER)
        admin = await make_user(account=owner.account, role=Role.ADMIN)
        for who, role in ((owner, "Admin"), (admin, "Member"), (admin, "Owner")):
            response = await client.put(
                f"/web/users/{who.user.id}",
                headers=who.headers,
                json={"firstName": "Test", "lastName": "User", "role": role},
            )
            assert response.status_code == 400, response.text
            assert response.json() == {
                "code": "CannotChangeOwnRole",
                "message": CannotChangeOwnRole.default_message,
            }
        assert await _owners(app, owner.account.id) == 2
        # Their own names they still change.
        renamed = await client.put(
            f"/web/users/{admin.user.id}",
            headers=admin.headers,
            json={"firstName": "Grace", "lastName": "Hopper", "role": "Admin"},
        )
        assert renamed.status_code == 200, renamed.text

    async def test_two_owners_demoting_each_other_at_once_leave_one(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        for _ in range(3):  # a race: more than one chance to interleave
            a = await make_user()
            b = await make_user(account=a.account, role=Role.OWNER)

            async def demote(by: SignedIn, who: SignedIn) -> httpx.Response:
                return await client.put(
                    f"/web/users/{who.user.id}",
                    headers=by.headers,
                    json={"firstName": "Test", "lastName": "User", "role": "Member"},
                )

            results = await asyncio.gather(demote(a, b), demote(b, a))
            done = [r for r in results if r.status_code == 200]
            refused = [r for r in results if r.status_code != 200]
            assert len(done) == 1 and len(refused) == 1, [r.text for r in results]
            # The second request sees the first's demotion: under the Owner rows' lock it
            # would remove the last Owner (400), or its caller was already demoted when its
            # role was checked (403), or the role change had ended its token (401); never two
            # demotions.
            assert (refused[0].status_code, refused[0].json()["code"]) in {
                (400, "LastOwnerRequired"),
                (403, "Forbidden"),
                (401, "SessionEnded"),
            }, refused[0].text
            assert await _owners(app, a.account.id) == 1

    async def test_two_owners_deleting_each_other_at_once_leave_one(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        for _ in range(3):
            a = await make_user()
            b = await make_user(account=a.account, role=Role.OWNER)
            results = await asyncio.gather(
                client.delete(f"/web/users/{b.user.id}", headers=a.headers),
                client.delete(f"/web/users/{a.user.id}", headers=b.headers),
            )
            codes = sorted(r.status_code for r in results)
            # The second sees the first's delete: its caller is gone (401) or it would remove
            # the last Owner (400); never two deletes.
            assert codes[0] == 204 and codes[1] in (400, 401), [r.text for r in results]
            assert await _owners(app, a.account.id) == 1
