"""GET /web/session and the token checks behind every protected call (SPEC 3, 7, 8)."""

from __future__ import annotations

import gzip
import json
import time
from importlib import resources

import httpx
import jwt

from api.adapters.cognito import CognitoClient
from devstack.stack import Stack
from tests.api.conftest import MakeUser, unique_email


def _moto_private_key() -> jwt.PyJWK:
    data = resources.files("moto.cognitoidp.resources").joinpath("jwks-private.json.gz")
    return jwt.PyJWK(json.loads(gzip.decompress(data.read_bytes())))


def _forge(stack: Stack, **overrides: object) -> str:
    """A token signed with the pool's real key, with chosen claims."""
    now = int(time.time())
    claims = {
        "iss": stack.settings.cognito.issuer,
        "sub": "00000000-0000-0000-0000-000000000000",
        "client_id": stack.settings.cognito.client_id,
        "token_use": "access",
        "username": "nobody@example-corp.com",
        "iat": now,
        "exp": now + 600,
        **overrides,
    }
    key = _moto_private_key()
    return jwt.encode(claims, key.key, algorithm="RS256", headers={"kid": "dummy"})


class TestGetSession:
    async def test_anonymous_is_401_with_envelope(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/web/session")
        assert response.status_code == 401
        assert response.json() == {
            "code": "NotAuthenticated",
            "message": "Authentication required",
        }

    async def test_garbage_token_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/web/session", headers={"Authorization": "Bearer abc.def"})
        assert response.status_code == 401
        assert response.json()["code"] == "NotAuthenticated"

    async def test_valid_token_returns_user_and_account(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(account_name="Initech", first_name="Peter", last_name="Gibbons")
        response = await client.get("/web/session", headers=me.headers)
        assert response.status_code == 200
        assert response.json() == {
            "session": {
                "user": {
                    "id": str(me.user.id),
                    "firstName": "Peter",
                    "lastName": "Gibbons",
                    "email": me.user.email,
                    "elevationRole": None,
                    "role": "Owner",
                    "emailVerified": True,
                },
                "account": {"name": "Initech"},
            }
        }

    async def test_identity_without_account_is_403(
        self, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        email = unique_email("orphan")
        await cognito.admin_create_user(email, {"email": email}, suppress_message=True)
        await cognito.admin_set_user_password(email, "Orphan-pass-123!", permanent=True)
        tokens = (await cognito.password_auth(email, "Orphan-pass-123!")).tokens
        assert tokens is not None
        response = await client.get(
            "/web/session", headers={"Authorization": f"Bearer {tokens.access_token}"}
        )
        assert response.status_code == 403
        assert response.json()["code"] == "AccountRequired"

    async def test_expired_token_is_401(self, client: httpx.AsyncClient, stack: Stack) -> None:
        token = _forge(stack, exp=int(time.time()) - 5)
        response = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401

    async def test_token_of_another_app_client_is_401(
        self, client: httpx.AsyncClient, stack: Stack
    ) -> None:
        token = _forge(stack, client_id="someone-else")
        response = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401

    async def test_id_token_is_not_an_access_token(
        self, client: httpx.AsyncClient, stack: Stack
    ) -> None:
        token = _forge(stack, token_use="id")
        response = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401

    async def test_token_of_another_pool_is_401(
        self, client: httpx.AsyncClient, stack: Stack
    ) -> None:
        token = _forge(stack, iss="https://cognito-idp.us-east-1.amazonaws.com/us-east-1_other")
        response = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401

    async def test_forged_signature_is_401(self, client: httpx.AsyncClient, stack: Stack) -> None:
        header, payload, _ = _forge(stack).split(".")
        other = _forge(stack, username="someone@else.com").split(".")[2]
        response = await client.get(
            "/web/session", headers={"Authorization": f"Bearer {header}.{payload}.{other}"}
        )
        assert response.status_code == 401


class TestConditionalGet:
    async def test_unchanged_session_is_304_until_the_account_is_renamed(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(account_name="Before Co")
        first = await client.get("/web/session", headers=me.headers)
        etag = first.headers["etag"]
        again = await client.get("/web/session", headers={**me.headers, "If-None-Match": etag})
        assert again.status_code == 304
        assert again.content == b""
        assert again.headers["etag"] == etag
        assert again.headers["cache-control"] == "no-store"
        renamed = await client.put("/web/account", json={"name": "After Co"}, headers=me.headers)
        assert renamed.status_code == 200
        after = await client.get("/web/session", headers={**me.headers, "If-None-Match": etag})
        assert after.status_code == 200
        assert after.json()["session"]["account"]["name"] == "After Co"
        assert after.headers["etag"] != etag

    async def test_another_users_etag_is_never_a_304(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(first_name="Same", last_name="Name", account_name="Same Co")
        other = await make_user(first_name="Same", last_name="Name", account_name="Same Co")
        theirs = (await client.get("/web/session", headers=other.headers)).headers["etag"]
        mine = await client.get("/web/session", headers={**me.headers, "If-None-Match": theirs})
        assert mine.status_code == 200
        assert mine.json()["session"]["user"]["id"] == str(me.user.id)
