"""An account that requires two-step sign-in, and an Owner's or Admin's reset of another
user's (README "Two-step sign-in"), from the API: who may, what it does to the users'
sessions and next sign-in, what the users list and the audit log show; another account's
user is a 404."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from api.models import AuditEvent, AuthType, Role
from tests.api.conftest import MakeUser, mails_to
from tests.api.identity.mfa.support import (
    bearer,
    enabled_user,
    next_second,
    recover,
    set_up,
    sign_in,
)


async def _require(
    client: httpx.AsyncClient, headers: dict[str, str], required: bool
) -> httpx.Response:
    return await client.put(
        "/web/two-step-sign-in/requirement", headers=headers, json={"required": required}
    )


async def _changes(app: FastAPI, account_id: object, action: str) -> list[object]:
    async with app.state.resources.sessionmaker() as db:
        rows = await db.scalars(
            select(AuditEvent.changes).where(
                AuditEvent.account_id == account_id, AuditEvent.action == action
            )
        )
        return list(rows)


class TestRequirement:
    async def test_an_owner_requires_it_once_they_have_it(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        member = await make_user(account=owner.account, role=Role.MEMBER)
        refused = await _require(client, owner.headers, True)
        assert refused.status_code == 400, refused.text
        assert refused.json() == {
            "code": "SetUpTwoStepSignInFirst",
            "message": "Set up two-step sign-in for yourself before requiring it.",
        }
        await enabled_user(client, owner)
        await next_second()
        required = await _require(client, owner.headers, True)
        assert required.status_code == 200, required.text
        assert required.json() == {"requirement": {"required": True}}
        account = (await client.get("/web/account", headers=owner.headers)).json()["account"]
        assert account["requireTwoStepSignIn"] is True
        # The member without it is out until they sign in again and set it up.
        assert (await client.get("/web/session", headers=member.headers)).json()["code"] == (
            "TwoStepSignInRequired"
        )
        assert await _changes(app, owner.account.id, "two_step.requirement_changed") == [
            {"requireTwoStepSignIn": {"from": False, "to": True}}
        ]
        lifted = await _require(client, owner.headers, False)
        assert lifted.json() == {"requirement": {"required": False}}
        assert (await client.get("/web/session", headers=member.headers)).status_code == 200

    async def test_only_owners(self, client: httpx.AsyncClient, make_user: MakeUser) -> None:
        owner = await make_user()
        admin = await make_user(account=owner.account, role=Role.ADMIN)
        refused = await _require(client, admin.headers, True)
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "Forbidden"

    async def test_a_google_owner_requires_it_of_the_password_users(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user(auth_type=AuthType.GOOGLE_SSO)
        member = await make_user(account=owner.account, role=Role.MEMBER)
        await next_second()
        assert (await _require(client, owner.headers, True)).status_code == 200
        assert (await client.get("/web/account", headers=owner.headers)).status_code == 200
        assert (await client.get("/web/account", headers=member.headers)).status_code == 401


class TestReset:
    async def test_an_admin_resets_a_members_two_step_sign_in(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        admin = await make_user(account=owner.account, role=Role.ADMIN)
        member = await make_user(account=owner.account, role=Role.MEMBER)
        lost = await enabled_user(client, member)
        signed = await sign_in(client, member.user.email)  # a session of theirs
        assert signed.json()["challenge"]["name"] == "SOFTWARE_TOKEN_MFA"
        users = (await client.get("/web/account", headers=admin.headers)).json()["account"]["users"]
        assert {u["email"]: u["twoStepSignIn"] for u in users}[member.user.email] is True
        await next_second()
        reset = await client.delete(
            f"/web/users/{member.user.id}/two-step-sign-in", headers=admin.headers
        )
        assert reset.status_code == 204, reset.text
        # Their open sessions end ...
        refused = await client.get("/web/session", headers=member.headers)
        assert refused.json()["code"] == "TwoStepSignInRequired"
        # ... their recovery codes are gone, and the next sign-in sets it up again.
        assert (await recover(client, member.user.email, lost.recovery_codes[0])).json()[
            "code"
        ] == "RecoveryCodeMismatch"
        again = await sign_in(client, member.user.email)
        assert again.json()["twoStepSetupRequired"] is True
        await set_up(client, bearer(again))
        assert (await client.get("/web/session", headers=bearer(again))).status_code == 200
        users = (await client.get("/web/account", headers=admin.headers)).json()["account"]["users"]
        assert {u["email"]: u["twoStepSignIn"] for u in users}[member.user.email] is True
        assert await _changes(app, owner.account.id, "two_step.reset") == [
            {"twoStepSignIn": {"from": "On", "to": "Off"}}
        ]

    async def test_who_may_reset_whom(self, client: httpx.AsyncClient, make_user: MakeUser) -> None:
        owner = await make_user()
        other_owner = await make_user(account=owner.account, role=Role.OWNER)
        admin = await make_user(account=owner.account, role=Role.ADMIN)
        google = await make_user(
            account=owner.account, role=Role.MEMBER, auth_type=AuthType.GOOGLE_SSO
        )
        plain = await make_user(account=owner.account, role=Role.MEMBER)
        stranger = await make_user()
        for user in (owner, other_owner, admin, stranger):
            await enabled_user(client, user)

        async def reset(actor_headers: dict[str, str], user_id: object) -> httpx.Response:
            return await client.delete(
                f"/web/users/{user_id}/two-step-sign-in", headers=actor_headers
            )

        assert (await reset(admin.headers, other_owner.user.id)).status_code == 403
        assert (await reset(owner.headers, owner.user.id)).json()["code"] == (
            "CannotResetOwnTwoStepSignIn"
        )
        assert (await reset(owner.headers, google.user.id)).json()["code"] == (
            "TwoStepSignInUnavailable"
        )
        assert (await reset(owner.headers, plain.user.id)).status_code == 409
        assert (await reset(owner.headers, stranger.user.id)).status_code == 404
        member = await reset(
            (await make_user(account=owner.account, role=Role.MEMBER)).headers, admin.user.id
        )
        assert member.status_code == 403
        assert (await reset(owner.headers, other_owner.user.id)).status_code == 204

    async def test_the_users_list_shows_who_has_it(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        await make_user(account=owner.account, role=Role.MEMBER, auth_type=AuthType.GITHUB)
        await enabled_user(client, owner)
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]["users"]
        assert sorted(str(u["twoStepSignIn"]) for u in users) == ["None", "True"]


class TestOwnersAreTold:
    async def test_requiring_it_and_stopping_email_every_owner(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user(
            auth_type=AuthType.GOOGLE_SSO, first_name="Olive", last_name="Owner"
        )
        other = await make_user(account=owner.account, role=Role.OWNER)
        admin = await make_user(account=owner.account, role=Role.ADMIN)
        name = owner.account.name
        assert (await _require(client, owner.headers, True)).status_code == 200
        for email in (owner.user.email, other.user.email):
            [notice] = await mails_to(client, email)
            assert notice["subject"] == f"Two-step sign-in is now required ({name})"
            assert f"Done by: Olive Owner <{owner.user.email}>" in str(notice["body"])
        # Saying it again changes nothing and tells nobody; stopping tells everyone.
        assert (await _require(client, owner.headers, True)).status_code == 200
        assert (await _require(client, owner.headers, False)).status_code == 200
        box = await mails_to(client, other.user.email, expected=3, wait_s=2)
        assert [m["subject"] for m in box] == [
            f"Two-step sign-in is no longer required ({name})",
            f"Two-step sign-in is now required ({name})",
        ]
        assert await mails_to(client, admin.user.email, wait_s=0) == []
