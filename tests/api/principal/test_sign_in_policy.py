"""The account's sign-in policy holds at every request and every refresh, tried as an attacker
would (README "Security model"; the check: api/principal/principal.py).

Each class is one way around the policy that worked before the principal checked it: a
password user keeping their session after the account requires Google, a token minted
straight from Cognito, a token kept after sign-out, a removed member walking back in, and a
personal Google account joining a company's account.

Revocation is whole seconds (a token's ``iat`` is), so tests that end tokens first let the
second in which they were issued pass (``_next_second``).
"""

from __future__ import annotations

import asyncio
import secrets
import time

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update

from api.adapters.cognito import CognitoClient, CognitoError
from api.identity.sign_in.app_client import UnsafeAppClient, check_app_client
from api.models import AuthType, RemovedIdentity, Role, User
from tests.api.conftest import (
    PASSWORD,
    MakeFederated,
    MakeUser,
    SignedIn,
    google_sso_for,
    require_google_sso,
    sso_join,
    sso_lookup,
)


def _domain() -> str:
    return f"corp-{secrets.token_hex(4)}.com"


async def _next_second() -> None:
    """Wait until the wall clock's second changes."""
    now = time.time()
    await asyncio.sleep(1.01 - (now - int(now)))


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _sign_in(client: httpx.AsyncClient, email: str, password: str = PASSWORD) -> str:
    """Sign in through the API as the SPA does; returns the access token (the refresh token
    stays in ``client``'s cookie jar)."""
    response = await client.post(
        "/web/session/sign-in", json={"email": email, "password": password}
    )
    assert response.status_code == 200, response.text
    token: str = response.json()["tokens"]["accessToken"]
    return token


class TestGoogleRequired:
    async def test_a_password_users_open_session_ends(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        assert (await client.get("/web/account", headers=owner.headers)).status_code == 200
        keys = await client.get("/web/api-keys", headers=owner.headers)
        key_id = keys.json()["keys"][0]["id"]
        await require_google_sso(app, owner.account)
        for method, path in (
            ("GET", "/web/account"),
            ("GET", "/web/session"),
            ("POST", f"/web/api-keys/{key_id}/reveal"),
        ):
            response = await client.request(method, path, headers=owner.headers)
            assert response.status_code == 401, (path, response.text)
            assert response.json() == {
                "code": "GoogleSignInRequired",
                "message": "This user must sign in with Google",
            }

    async def test_the_refresh_cookie_cannot_bring_it_back(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        await _sign_in(client, owner.user.email)
        await require_google_sso(app, owner.account)
        refreshed = await client.post("/web/session/refresh")
        assert refreshed.status_code == 401, refreshed.text
        assert refreshed.json()["code"] == "GoogleSignInRequired"
        assert "accessToken" not in refreshed.text

    async def test_a_token_minted_some_other_way_is_refused(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner = await make_user()
        await require_google_sso(app, owner.account)
        # Whatever way a token of this pool user is obtained, the account's policy refuses it.
        minted = await cognito.password_auth(owner.user.identity_id, PASSWORD)
        assert minted.tokens is not None
        response = await client.get("/web/account", headers=_bearer(minted.tokens.access_token))
        assert response.status_code == 401
        assert response.json()["code"] == "GoogleSignInRequired"

    async def test_the_google_users_of_the_account_keep_working(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user(auth_type=AuthType.GOOGLE_SSO)
        await require_google_sso(app, owner.account)
        assert (await client.get("/web/account", headers=owner.headers)).status_code == 200


class TestNoSideDoor:
    async def test_cognito_refuses_password_sign_in_with_the_public_client(
        self, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner = await make_user()
        with pytest.raises(CognitoError) as refused:
            await cognito.call(
                "InitiateAuth",
                {
                    "AuthFlow": "USER_PASSWORD_AUTH",
                    "ClientId": cognito.client_id,
                    "AuthParameters": {"USERNAME": owner.user.email, "PASSWORD": PASSWORD},
                },
                signed=False,
            )
        assert refused.value.code == "InvalidParameterException"

    async def test_the_app_client_allows_server_side_password_sign_in_only(
        self, cognito: CognitoClient
    ) -> None:
        client = await cognito.describe_app_client()
        assert set(client["ExplicitAuthFlows"]) == {
            "ALLOW_ADMIN_USER_PASSWORD_AUTH",
            "ALLOW_REFRESH_TOKEN_AUTH",
        }
        assert "aws.cognito.signin.user.admin" not in client.get("AllowedOAuthScopes", [])
        # Beside Google and GitHub, only the accounts' SAML connections (README "SAML single
        # sign-on"), never COGNITO, the hosted UI's own password page.
        providers = set(client["SupportedIdentityProviders"])
        assert {p for p in providers if not p.startswith("saml-")} == {"Google", "Github"}

    @pytest.mark.parametrize(
        "unsafe",
        [
            {"ExplicitAuthFlows": ["ALLOW_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]},
            {"ExplicitAuthFlows": ["ALLOW_USER_SRP_AUTH"]},
            {"AllowedOAuthScopes": ["openid", "aws.cognito.signin.user.admin"]},
            {"SupportedIdentityProviders": ["Google", "COGNITO"]},
        ],
    )
    def test_the_api_refuses_to_start_with_a_client_that_opens_a_side_door(
        self, unsafe: dict[str, list[str]]
    ) -> None:
        safe = {
            "ClientId": "c",
            "ExplicitAuthFlows": ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
            "AllowedOAuthScopes": ["openid", "email", "profile"],
            "SupportedIdentityProviders": ["Google", "Github"],
        }
        check_app_client(safe)
        with pytest.raises(UnsafeAppClient):
            check_app_client({**safe, **unsafe})


class TestSignOut:
    async def test_the_access_token_dies_and_the_refresh_token_is_revoked(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        token = await _sign_in(client, owner.user.email)
        assert (await client.get("/web/account", headers=_bearer(token))).status_code == 200
        await _next_second()
        signed_out = await client.post("/web/session/sign-out", headers=_bearer(token))
        assert signed_out.status_code == 204
        after = await client.get("/web/account", headers=_bearer(token))
        assert after.status_code == 401
        assert after.json()["code"] == "SessionEnded"

    async def test_other_browsers_keep_their_sessions(
        self, app: FastAPI, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(transport=transport, base_url="http://testserver") as laptop,
            httpx.AsyncClient(transport=transport, base_url="http://testserver") as phone,
        ):
            laptop_token = await _sign_in(laptop, owner.user.email)
            await _sign_in(phone, owner.user.email)
            await _next_second()
            await laptop.post("/web/session/sign-out", headers=_bearer(laptop_token))
            # The laptop's refresh token was revoked at Cognito, so it cannot come back...
            assert (await laptop.post("/web/session/refresh")).status_code == 401
            # ...while the phone's refresh token still works and its new token is accepted.
            refreshed = await phone.post("/web/session/refresh")
            assert refreshed.status_code == 200, refreshed.text
            new_token = refreshed.json()["accessToken"]
            assert (await phone.get("/web/account", headers=_bearer(new_token))).status_code == 200


class TestTokensEndWithAccess:
    async def test_a_role_change_ends_the_users_tokens_and_refresh_brings_new_ones(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        admin = await make_user(account=owner.account, role=Role.ADMIN)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as theirs:
            token = await _sign_in(theirs, admin.user.email)
            await _next_second()
            changed = await client.put(
                f"/web/users/{admin.user.id}",
                headers=owner.headers,
                json={"firstName": "Test", "lastName": "User", "role": "Member"},
            )
            assert changed.status_code == 200, changed.text
            old = await theirs.get("/web/session", headers=_bearer(token))
            assert old.status_code == 401
            assert old.json()["code"] == "SessionEnded"
            refreshed = await theirs.post("/web/session/refresh")
            assert refreshed.status_code == 200, refreshed.text
            session = await theirs.get(
                "/web/session", headers=_bearer(refreshed.json()["accessToken"])
            )
            assert session.json()["session"]["user"]["role"] == "Member"

    async def test_a_password_reset_ends_every_session(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as thief:
            stolen = await _sign_in(thief, owner.user.email)
            await _next_second()
            sent = await client.post(
                "/web/session/forgot-password", json={"email": owner.user.email}
            )
            assert sent.status_code == 200, sent.text
            mail = await client.get("/dev/mailbox", params={"to": owner.user.email})
            code = next(m["code"] for m in mail.json() if m.get("code"))
            reset = await client.post(
                "/web/session/confirm-forgot-password",
                json={"email": owner.user.email, "code": code, "newPassword": "Another-pass-77!"},
            )
            assert reset.status_code == 200, reset.text
            fresh = reset.json()["tokens"]["accessToken"]
            assert (await client.get("/web/session", headers=_bearer(fresh))).status_code == 200
            assert (await thief.get("/web/session", headers=_bearer(stolen))).status_code == 401
            assert (await thief.post("/web/session/refresh")).status_code == 401

    async def test_a_deactivated_user_is_refused_until_reactivated(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        member = await make_user(account=owner.account, role=Role.MEMBER)

        async def set_deactivated(value: bool) -> None:
            async with app.state.resources.sessionmaker() as db, db.begin():
                await db.execute(
                    update(User)
                    .where(User.id == member.user.id)
                    .values(deactivated_at=func.now() if value else None)
                )

        await set_deactivated(True)
        refused = await client.get("/web/session", headers=member.headers)
        assert refused.status_code == 401
        assert refused.json()["code"] == "AccessDeactivated"
        await set_deactivated(False)
        assert (await client.get("/web/session", headers=member.headers)).status_code == 200

    async def test_a_token_of_an_earlier_pool_user_with_the_same_username_is_refused(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        # Sessions are bound to the token's sub: a pool user deleted and created again under
        # the same username (an email) is a different sub, and the old tokens stay dead.
        owner = await make_user()
        old = owner.access_token
        await cognito.admin_delete_user(owner.user.identity_id)
        await cognito.admin_create_user(
            owner.user.identity_id, {"email": owner.user.email}, suppress_message=True
        )
        await cognito.admin_set_user_password(owner.user.identity_id, PASSWORD, permanent=True)
        new = await _sign_in(client, owner.user.email)
        assert (await client.get("/web/session", headers=_bearer(new))).status_code == 200
        stale = await client.get("/web/session", headers=_bearer(old))
        assert stale.status_code == 401
        assert stale.json()["code"] == "SessionEnded"


async def _google_account(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> tuple[SignedIn, str]:
    """An account that requires Google SSO for a verified domain; returns its Owner (a
    Google user) and the domain."""
    domain = _domain()
    owner = await make_user(auth_type=AuthType.GOOGLE_SSO, email=f"owner@{domain}")
    await google_sso_for(app, client, owner, domain)
    return owner, domain


class TestRemovalSticks:
    async def test_a_removed_member_is_refused_and_cannot_join_again(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        make_federated: MakeFederated,
    ) -> None:
        owner, domain = await _google_account(app, client, make_user)
        member = await make_federated(f"member@{domain}", hosted_domain=domain)
        assert (await sso_join(client, member, owner.account.id)).status_code == 204
        assert (await client.get("/web/session", headers=member.headers)).status_code == 200
        async with app.state.resources.sessionmaker() as db:
            user_id = await db.scalar(select(User.id).where(User.identity_id == member.username))
        removed = await client.delete(f"/web/users/{user_id}", headers=owner.headers)
        assert removed.status_code == 204, removed.text

        message = (
            f"You were removed from {owner.account.name}. "
            "Ask an Owner or Admin to invite you again."
        )
        old = await client.get("/web/session", headers=member.headers)
        assert old.status_code == 401
        assert old.json() == {"code": "UserRemoved", "message": message}
        # Removal deleted the pool user: Cognito refuses the member's refresh token.
        refreshed = await client.post("/web/session/refresh")
        assert refreshed.status_code == 401, refreshed.text
        assert refreshed.json()["code"] == "NotAuthenticated"

        again = await make_federated(f"member@{domain}", hosted_domain=domain)
        offered = await sso_lookup(client, again)
        assert offered.status_code == 200, offered.text
        assert [(a["accountId"], a["refusal"]) for a in offered.json()["accounts"]] == [
            (str(owner.account.id), message)
        ]
        rejoin = await sso_join(client, again, owner.account.id)
        assert rejoin.status_code == 403, rejoin.text
        assert rejoin.json() == {"code": "RemovedFromAccount", "message": message}
        async with app.state.resources.sessionmaker() as db:
            assert await db.scalar(select(User.id).where(User.email == f"member@{domain}")) is None

    async def test_inviting_the_person_again_lifts_it(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        member = await make_user(account=owner.account, role=Role.MEMBER)
        assert (
            await client.delete(f"/web/users/{member.user.id}", headers=owner.headers)
        ).status_code == 204
        async with app.state.resources.sessionmaker() as db:
            rows = await db.scalars(
                select(RemovedIdentity.email).where(RemovedIdentity.account_id == owner.account.id)
            )
            assert list(rows) == [member.user.email]
        invited = await client.post(
            "/web/users",
            headers=owner.headers,
            json={"firstName": "Back", "lastName": "Again", "email": member.user.email},
        )
        assert invited.status_code == 201, invited.text
        async with app.state.resources.sessionmaker() as db:
            left = await db.scalar(
                select(RemovedIdentity.id).where(RemovedIdentity.account_id == owner.account.id)
            )
            assert left is None


class TestWhoMayAutoJoin:
    async def test_a_personal_google_account_on_a_company_address_sees_nothing_and_cannot_join(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        make_federated: MakeFederated,
    ) -> None:
        owner, domain = await _google_account(app, client, make_user)
        personal = await make_federated(f"someone@{domain}", hosted_domain="")
        lookup = await sso_lookup(client, personal)
        assert lookup.status_code == 200
        assert lookup.json()["accounts"] == []
        join = await sso_join(client, personal, owner.account.id)
        assert join.status_code == 404

    async def test_a_workspace_account_of_the_domain_joins(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        make_federated: MakeFederated,
    ) -> None:
        owner, domain = await _google_account(app, client, make_user)
        workspace = await make_federated(f"someone@{domain}", hosted_domain=domain)
        lookup = await sso_lookup(client, workspace)
        assert [a["accountId"] for a in lookup.json()["accounts"]] == [str(owner.account.id)]
        assert (await sso_join(client, workspace, owner.account.id)).status_code == 204
