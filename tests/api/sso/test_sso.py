"""POST /web/sso: requiring Google single sign-on (SPEC 4, 5; issue 5)."""

from __future__ import annotations

import secrets

import httpx

from api.models import AuthType
from tests.api.conftest import MakeUser, unique_email


class TestGoogleSso:
    async def test_google_user_turns_it_on_and_off(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(email=unique_email("owner"), auth_type=AuthType.GOOGLE_SSO)
        response = await client.post(
            "/web/sso", headers=me.headers, json={"requireGoogleSSO": True}
        )
        assert response.status_code == 200
        assert response.json() == {"sso": {"isGoogleSSO": True, "domains": ["example-corp.com"]}}
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["sso"] == {"isGoogleSSO": True, "domains": ["example-corp.com"]}

        response = await client.post(
            "/web/sso", headers=me.headers, json={"requireGoogleSSO": False}
        )
        assert response.json() == {"sso": {"isGoogleSSO": False, "domains": []}}

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
        me = await make_user(auth_type=AuthType.GOOGLE_SSO)
        other = await make_user(account_name="Other Co")
        await client.post("/web/sso", headers=me.headers, json={"requireGoogleSSO": True})
        theirs = (await client.get("/web/account", headers=other.headers)).json()["account"]
        assert theirs["sso"] == {"isGoogleSSO": False, "domains": []}

    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.post("/web/sso", json={"requireGoogleSSO": True})
        assert response.status_code == 401
