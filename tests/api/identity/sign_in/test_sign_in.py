"""Password sign-in, refresh and sign-out (SPEC 4 Login mode, 5 Login rules, 8 Sign-in)."""

from __future__ import annotations

import httpx

from api.adapters.cognito import CognitoClient
from tests.api.conftest import MakeUser, unique_email


class TestSignIn:
    async def test_returns_tokens_that_open_the_session(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post(
            "/web/session/sign-in", json={"email": me.user.email, "password": me.password}
        )
        assert response.status_code == 200
        body = response.json()
        assert body["challenge"] is None
        assert body["tokens"]["expiresIn"] > 0
        session = await client.get(
            "/web/session",
            headers={"Authorization": f"Bearer {body['tokens']['accessToken']}"},
        )
        assert session.json()["session"]["user"]["email"] == me.user.email

    async def test_email_is_trimmed_and_lowercased(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post(
            "/web/session/sign-in",
            json={"email": f"  {me.user.email.upper()} ", "password": me.password},
        )
        assert response.status_code == 200
        assert response.json()["tokens"]["accessToken"]

    async def test_wrong_password_shows_the_providers_message(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post(
            "/web/session/sign-in", json={"email": me.user.email, "password": "Wrong-pass-1!"}
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "NotAuthorizedException",
            "message": "Incorrect username or password.",
        }

    async def test_empty_fields_have_the_spec_messages(self, client: httpx.AsyncClient) -> None:
        response = await client.post("/web/session/sign-in", json={"email": " ", "password": ""})
        assert response.status_code == 422
        body = response.json()
        assert body["message"] == "Email address is required"
        assert {"field": "password", "message": "Password is required"} in body["fields"]

    async def test_temporary_password_gives_the_new_password_challenge(
        self, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        email = unique_email("invited")
        await cognito.admin_create_user(
            email,
            {"email": email},
            temporary_password="Temp-pass-1234!",
            suppress_message=True,
        )
        response = await client.post(
            "/web/session/sign-in", json={"email": email, "password": "Temp-pass-1234!"}
        )
        assert response.status_code == 200
        challenge = response.json()["challenge"]
        assert challenge["name"] == "NEW_PASSWORD_REQUIRED"
        assert challenge["session"]
        assert challenge["username"] == email
        assert response.json()["tokens"] is None


class TestRefreshAndSignOut:
    """The refresh token lives in an httpOnly cookie sent only to /web/session/refresh."""

    async def _sign_in(self, client: httpx.AsyncClient, make_user: MakeUser) -> str:
        me = await make_user()
        response = await client.post(
            "/web/session/sign-in", json={"email": me.user.email, "password": me.password}
        )
        assert response.status_code == 200, response.text
        assert "refreshToken" not in response.json()["tokens"]
        cookie = next(
            c for c in response.headers.get_list("set-cookie") if c.startswith("refresh_token=")
        )
        for attribute in ("HttpOnly", "Path=/web/session;", "SameSite=strict", "Max-Age="):
            assert attribute in cookie
        assert "Secure" not in cookie  # PUBLIC_URL is http here; https adds Secure
        return str(response.json()["tokens"]["accessToken"])

    async def test_refresh_gives_a_working_access_token(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        await self._sign_in(client, make_user)
        response = await client.post("/web/session/refresh")
        assert response.status_code == 200, response.text
        token = response.json()["accessToken"]
        session = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert session.status_code == 200

    async def test_refresh_without_the_cookie_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.post("/web/session/refresh")
        assert response.status_code == 401
        assert response.json()["code"] == "NotAuthenticated"

    async def test_sign_out_revokes_the_refresh_token_and_clears_the_cookie(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        access_token = await self._sign_in(client, make_user)
        stolen = client.cookies.get("refresh_token")
        assert stolen
        response = await client.post(
            "/web/session/sign-out", headers={"Authorization": f"Bearer {access_token}"}
        )
        assert response.status_code == 204
        assert "refresh_token" not in client.cookies
        cleared = next(
            c for c in response.headers.get_list("set-cookie") if c.startswith("refresh_token=")
        )
        assert "Max-Age=0" in cleared
        # Revoked at Cognito: a copy of the cookie taken before sign-out is useless.
        client.cookies.set("refresh_token", stolen, path="/web/session")
        refreshed = await client.post("/web/session/refresh")
        assert refreshed.status_code == 401
        assert refreshed.json()["code"] == "NotAuthenticated"

    async def test_sign_out_without_tokens_still_clears_the_cookie(
        self, client: httpx.AsyncClient
    ) -> None:
        response = await client.post("/web/session/sign-out")
        assert response.status_code == 204
        assert any(
            c.startswith("refresh_token=") and "Max-Age=0" in c
            for c in response.headers.get_list("set-cookie")
        )
