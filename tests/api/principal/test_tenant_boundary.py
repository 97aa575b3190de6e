"""The tenant boundary, tried as an attacker would (README "Security model").

A native pool user can carry any username, ``google_…`` included, and can change its own
``email`` attribute with its access token (UpdateUserAttributes). Neither may ever make it a
Google identity of someone else's domain: federation is what Cognito asserts (the
``identities`` attribute it sets on federated users) and the email that counts is the one the
provider verified.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator

import httpx
import pytest
import respx
from fastapi import FastAPI
from sqlalchemy import func, select

from api.adapters.cognito import CognitoClient
from api.models import Account, User
from tests.api.conftest import (
    PASSWORD,
    MakeUser,
    authorize,
    current_api_key,
    exchange,
    require_google_sso,
    verified_domain,
)


def _domain() -> str:
    return f"victim-{secrets.token_hex(4)}.com"


async def _victim(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> tuple[Account, str]:
    """An account that requires Google SSO for its domain, verified by DNS; returns it and
    the domain."""
    domain = _domain()
    owner = await make_user(account_name="Victim Corp", email=f"owner@{domain}")
    await verified_domain(client, owner.headers, domain)
    await require_google_sso(app, owner.account)
    return owner.account, domain


async def _pool_user(cognito: CognitoClient, username: str, attributes: dict[str, str]) -> str:
    """A pool user created through the admin path, signed in; returns its access token."""
    await cognito.admin_create_user(username, attributes, suppress_message=True)
    await cognito.admin_set_user_password(username, PASSWORD, permanent=True)
    result = await cognito.password_auth(username, PASSWORD)
    assert result.tokens is not None
    return result.tokens.access_token


async def _users_of(app: FastAPI, account: Account) -> int:
    async with app.state.resources.sessionmaker() as db:
        count = await db.scalar(
            select(func.count()).select_from(User).where(User.account_id == account.id)
        )
    return int(count or 0)


class TestNativeUserPosingAsGoogle:
    async def test_cannot_join_another_tenant_by_renaming_its_email(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        cognito: CognitoClient,
        make_user: MakeUser,
    ) -> None:
        victim, domain = await _victim(app, client, make_user)
        users_before = await _users_of(app, victim)

        # 1. A native user whose username merely starts with google_.
        username = f"google_{secrets.randbelow(10**15)}"
        token = await _pool_user(cognito, username, {"email": "mallory@attacker.example"})
        # 2. It changes its own email attribute to one at the victim's domain.
        await cognito.call(
            "UpdateUserAttributes",
            {
                "AccessToken": token,
                "UserAttributes": [{"Name": "email", "Value": f"anyone@{domain}"}],
            },
            signed=False,
        )
        headers = {"Authorization": f"Bearer {token}"}
        identity = {"cognitoId": username, "email": f"anyone@{domain}"}

        # 3. The lookup lists nothing, the join is refused, nothing is written.
        lookup = await client.get("/web/sso-accounts", params=identity, headers=headers)
        assert lookup.status_code == 200, lookup.text
        assert lookup.json()["accounts"] == []
        join = await client.post(
            "/web/sso-accounts/join",
            json={
                "accountId": str(victim.id),
                "userFirstName": "Mallory",
                "userLastName": "Attacker",
                "userEmail": f"anyone@{domain}",
                "userIdentityId": username,
            },
            headers=headers,
        )
        assert join.status_code == 404, join.text
        assert await _users_of(app, victim) == users_before
        account = await client.get("/web/account", headers=headers)
        assert account.status_code == 403
        assert account.json()["code"] == "AccountRequired"
        assert await current_api_key(app, victim.id) not in account.text

    async def test_a_google_prefix_alone_gets_no_lookup_results(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        cognito: CognitoClient,
        make_user: MakeUser,
    ) -> None:
        _, domain = await _victim(app, client, make_user)
        username = f"google_{secrets.randbelow(10**15)}"
        email = f"kim@{domain}"
        token = await _pool_user(cognito, username, {"email": email, "email_verified": "true"})
        lookup = await client.get(
            "/web/sso-accounts",
            params={"cognitoId": username, "email": email},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert lookup.status_code == 200, lookup.text
        assert lookup.json() == {"accounts": [], "domain": domain}


class TestFederatedUserWithUnverifiedEmail:
    @pytest.mark.parametrize("email_verified", ["false", None])
    async def test_is_refused(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        cognito: CognitoClient,
        make_user: MakeUser,
        email_verified: str | None,
    ) -> None:
        victim, domain = await _victim(app, client, make_user)
        provider_id = str(secrets.randbelow(10**15))
        username = f"google_{provider_id}"
        email = f"lee@{domain}"
        attributes = {
            "email": email,
            "custom:hd": domain,  # a Workspace identity of the domain: all but the email verified
            "identities": json.dumps(
                [
                    {
                        "userId": provider_id,
                        "providerName": "Google",
                        "providerType": "Google",
                        "issuer": None,
                        "primary": "true",
                        "dateCreated": "1700000000000",
                    }
                ]
            ),
        }
        if email_verified is not None:
            attributes["email_verified"] = email_verified
        token = await _pool_user(cognito, username, attributes)
        headers = {"Authorization": f"Bearer {token}"}
        lookup = await client.get(
            "/web/sso-accounts", params={"cognitoId": username, "email": email}, headers=headers
        )
        assert lookup.status_code == 400, lookup.text
        assert lookup.json()["code"] == "EmailNotVerified"
        join = await client.post(
            "/web/sso-accounts/join",
            json={
                "accountId": str(victim.id),
                "userFirstName": "Lee",
                "userLastName": "Unverified",
                "userEmail": email,
                "userIdentityId": username,
            },
            headers=headers,
        )
        assert join.status_code == 400, join.text
        assert join.json()["code"] == "EmailNotVerified"
        assert await _users_of(app, victim) == 1


@pytest.fixture
async def victim_browser(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A second browser, with cookies of its own."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


def _refresh_cookie_set(response: httpx.Response) -> bool:
    return any(c.startswith("refresh_token=") for c in response.headers.get_list("set-cookie"))


class TestLoginCsrfAndCodeInjection:
    """RFC 6749 10.12 and RFC 7636: a code only signs in the browser that asked for it."""

    async def test_a_code_from_another_browser_is_refused(
        self,
        client: httpx.AsyncClient,
        victim_browser: httpx.AsyncClient,
        hosted_ui: respx.MockRouter,
    ) -> None:
        # The attacker signs in with its own identity and sends the victim the return link.
        attackers = await authorize(client, f"mallory-{secrets.token_hex(3)}@attacker.example")
        response = await exchange(victim_browser, attackers)
        assert response.status_code == 400
        assert response.json() == {
            "code": "UnableToAuthenticate",
            "message": "Unable to authenticate user",
        }
        assert not _refresh_cookie_set(response)

    async def test_a_state_that_is_not_this_browsers_is_refused(
        self,
        client: httpx.AsyncClient,
        victim_browser: httpx.AsyncClient,
        hosted_ui: respx.MockRouter,
    ) -> None:
        await authorize(victim_browser, f"vic-{secrets.token_hex(3)}@victim.example")
        attackers = await authorize(client, f"mallory-{secrets.token_hex(3)}@attacker.example")
        response = await exchange(victim_browser, attackers)
        assert response.status_code == 400
        assert response.json()["code"] == "UnableToAuthenticate"
        assert not _refresh_cookie_set(response)

    async def test_a_stolen_code_without_its_verifier_is_refused(
        self,
        client: httpx.AsyncClient,
        victim_browser: httpx.AsyncClient,
        hosted_ui: respx.MockRouter,
    ) -> None:
        # The attacker holds a victim's code (and even its state), but its own browser's
        # flow has another verifier: the token endpoint refuses the code.
        victims = await authorize(victim_browser, f"vic-{secrets.token_hex(3)}@victim.example")
        await authorize(client, f"mallory-{secrets.token_hex(3)}@attacker.example")
        flow = next(c for c in client.cookies.jar if c.name == "oauth_flow")
        verifier = flow.value.partition(".")[2] if flow.value else ""
        client.cookies.set(
            "oauth_flow", f"{victims.state}.{verifier}", domain=flow.domain, path=flow.path
        )
        response = await exchange(client, victims)
        assert response.status_code == 400
        assert response.json()["code"] == "ValidationCodeExpired"
        assert not _refresh_cookie_set(response)

    async def test_a_missing_state_is_refused(
        self, client: httpx.AsyncClient, hosted_ui: respx.MockRouter
    ) -> None:
        authorized = await authorize(client, f"lin-{secrets.token_hex(3)}@example-corp.com")
        response = await client.post(
            "/web/session/token",
            json={"code": authorized.code, "redirectUri": "http://testserver/oauth/sso"},
        )
        assert response.status_code == 422
        assert response.json()["fields"][0]["field"] == "state"
