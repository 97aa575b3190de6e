"""POST /web/sso: requiring Google single sign-on (SPEC 4, 5), the domain proved by DNS first."""

from __future__ import annotations

import secrets

import httpx

from api.models import AuthType
from tests.api.conftest import MakeUser, unique_domain, verified_domain


class TestGoogleSso:
    async def test_google_user_turns_it_on_and_off(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        domain = unique_domain()
        me = await make_user(email=f"owner@{domain}", auth_type=AuthType.GOOGLE_SSO)
        await verified_domain(client, me.headers, domain)
        response = await client.post(
            "/web/sso", headers=me.headers, json={"requireGoogleSSO": True}
        )
        assert response.status_code == 200
        assert response.json() == {
            "sso": {"isGoogleSSO": True, "isSamlSSO": False, "domains": [domain]}
        }
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["sso"] == {"isGoogleSSO": True, "isSamlSSO": False, "domains": [domain]}

        # Turning it off keeps the verified domains: they are proved, not a setting.
        response = await client.post(
            "/web/sso", headers=me.headers, json={"requireGoogleSSO": False}
        )
        assert response.json() == {
            "sso": {"isGoogleSSO": False, "isSamlSSO": False, "domains": [domain]}
        }

    async def test_needs_a_verified_domain(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        domain = unique_domain()
        me = await make_user(email=f"owner@{domain}", auth_type=AuthType.GOOGLE_SSO)
        # A domain added but not proved does not count.
        added = await client.post("/web/sso/domains", headers=me.headers, json={"domain": domain})
        assert added.status_code == 201
        response = await client.post(
            "/web/sso", headers=me.headers, json={"requireGoogleSSO": True}
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "VerifiedDomainRequired",
            "message": "Verify your company's domain before requiring Google SSO.",
        }
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["sso"] == {"isGoogleSSO": False, "isSamlSSO": False, "domains": []}

    async def test_password_user_cannot_require_it(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post(
            "/web/sso", headers=me.headers, json={"requireGoogleSSO": True}
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "GoogleSsoAuthTypeRequired",
            "message": "You must have a Google SSO auth type to require Google SSO.",
        }

    async def test_gmail_user_cannot_require_it(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        gmail = f"someone.{secrets.token_hex(4)}@gmail.com"
        me = await make_user(email=gmail, auth_type=AuthType.GOOGLE_SSO)
        response = await client.post(
            "/web/sso", headers=me.headers, json={"requireGoogleSSO": True}
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "PersonalGmailAccount",
            "message": "This setting only applies to Google Workspace accounts, "
            "not personal Gmail accounts.",
        }

    async def test_only_changes_the_callers_account(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        domain = unique_domain()
        me = await make_user(email=f"me@{domain}", auth_type=AuthType.GOOGLE_SSO)
        other = await make_user(account_name="Other Co")
        await verified_domain(client, me.headers, domain)
        on = await client.post("/web/sso", headers=me.headers, json={"requireGoogleSSO": True})
        assert on.status_code == 200
        theirs = (await client.get("/web/account", headers=other.headers)).json()["account"]
        assert theirs["sso"] == {"isGoogleSSO": False, "isSamlSSO": False, "domains": []}

    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.post("/web/sso", json={"requireGoogleSSO": True})
        assert response.status_code == 401
