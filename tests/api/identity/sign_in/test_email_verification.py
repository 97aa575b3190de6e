"""Email ownership (README "Security model"): a registrant's address is unverified until they
enter the code Cognito emailed there, and until then the account cannot invite users, add or
verify domains, or change single sign-on. The mailbox's owner can always take the login over
with Forgot password."""

from __future__ import annotations

import secrets
import uuid
from typing import Any

import httpx
import pytest
import respx
from fastapi import FastAPI
from sqlalchemy import select

from api.adapters.cognito import CognitoClient
from api.models import User
from tests.api.conftest import MakeUser, unique_domain

PASSWORD = "Cobol-forever-1959!"


def _form(email: str) -> dict[str, str]:
    return {
        "firstName": "Grace",
        "lastName": "Hopper",
        "emailAddress": email,
        "organizationName": "Navy Labs",
        "newPassword": PASSWORD,
    }


async def _register(client: httpx.AsyncClient) -> tuple[str, dict[str, str]]:
    email = f"grace-{secrets.token_hex(4)}@navy-labs.com"
    response = await client.post("/web/registration", json=_form(email))
    assert response.status_code == 201, response.text
    return email, {"Authorization": f"Bearer {response.json()['accessToken']}"}


async def _latest_code(client: httpx.AsyncClient, email: str) -> str:
    messages = (await client.get("/dev/mailbox", params={"to": email})).json()
    assert messages, f"nothing was emailed to {email}"
    code: str = messages[0]["code"]
    return code


async def _guarded_calls(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> dict[str, httpx.Response]:
    some_id = uuid.uuid4()
    return {
        "invite": await client.post(
            "/web/users",
            headers=headers,
            json={
                "firstName": "Ada",
                "lastName": "Lovelace",
                "email": f"ada-{secrets.token_hex(4)}@navy-labs.com",
            },
        ),
        "resend invitation": await client.post(f"/web/users/{some_id}/invitation", headers=headers),
        "add domain": await client.post(
            "/web/sso/domains", headers=headers, json={"domain": unique_domain()}
        ),
        "verify domain": await client.post(f"/web/sso/domains/{some_id}/verify", headers=headers),
        "require sso": await client.post(
            "/web/sso", headers=headers, json={"requireGoogleSSO": False}
        ),
    }


async def _session(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, Any]:
    response = await client.get("/web/session", headers=headers)
    assert response.status_code == 200, response.text
    user: dict[str, Any] = response.json()["session"]["user"]
    return user


class TestUnverifiedRegistrant:
    async def test_cannot_invite_add_or_verify_domains_or_change_sso(
        self, client: httpx.AsyncClient
    ) -> None:
        email, headers = await _register(client)
        assert (await _session(client, headers))["emailVerified"] is False
        for action, response in (await _guarded_calls(client, headers)).items():
            assert response.status_code == 403, (action, response.text)
            assert response.json() == {
                "code": "EmailVerificationRequired",
                "message": (f"Verify your email address first: enter the code we sent to {email}."),
            }, action

    async def test_after_entering_the_code_it_can(
        self, app: FastAPI, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        email, headers = await _register(client)
        code = await _latest_code(client, email)
        confirmed = await client.post(
            "/web/session/email-verification/confirm", headers=headers, json={"code": code}
        )
        assert confirmed.status_code == 204, confirmed.text
        assert (await _session(client, headers))["emailVerified"] is True
        assert (await cognito.admin_get_user(email)).attributes["email_verified"] == "true"
        calls = await _guarded_calls(client, headers)
        assert calls["invite"].status_code == 201, calls["invite"].text
        assert calls["add domain"].status_code == 201, calls["add domain"].text
        assert calls["require sso"].status_code == 200, calls["require sso"].text
        assert calls["verify domain"].status_code == 404
        assert calls["resend invitation"].status_code == 404

    async def test_registration_binds_the_user_to_the_pool_user(
        self, app: FastAPI, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        email, _ = await _register(client)
        async with app.state.resources.sessionmaker() as db:
            user = (await db.execute(select(User).where(User.email == email))).scalar_one()
        assert user.identity_sub == (await cognito.admin_get_user(email)).sub
        assert user.signed_in_at is not None
        assert user.email_verified is False
        assert (await cognito.admin_get_user(email)).attributes.get("email_verified") != "true"


class TestCodes:
    async def test_white_space_in_the_code_is_dropped(self, client: httpx.AsyncClient) -> None:
        # Cognito's ConfirmationCodeType is [\S]+: a code pasted as "123 456" would be
        # refused with its validation message (moto takes it).
        email, headers = await _register(client)
        code = await _latest_code(client, email)
        confirmed = await client.post(
            "/web/session/email-verification/confirm",
            headers=headers,
            json={"code": f" {code[:3]} {code[3:]} "},
        )
        assert confirmed.status_code == 204, confirmed.text
        assert (await _session(client, headers))["emailVerified"] is True

    async def test_wrong_code(self, client: httpx.AsyncClient) -> None:
        email, headers = await _register(client)
        code = await _latest_code(client, email)
        wrong = "000000" if code != "000000" else "111111"
        response = await client.post(
            "/web/session/email-verification/confirm", headers=headers, json={"code": wrong}
        )
        assert response.status_code == 400
        assert response.json()["code"] == "VerificationCodeMismatch"
        assert (await _session(client, headers))["emailVerified"] is False

    async def test_resend_replaces_the_code(self, client: httpx.AsyncClient) -> None:
        email, headers = await _register(client)
        first = await _latest_code(client, email)
        sent = await client.post("/web/session/email-verification", headers=headers)
        assert sent.status_code == 200, sent.text
        assert sent.json()["codeDelivery"]["deliveryMedium"] == "EMAIL"
        second = await _latest_code(client, email)
        if first != second:
            stale = await client.post(
                "/web/session/email-verification/confirm", headers=headers, json={"code": first}
            )
            assert stale.json()["code"] == "VerificationCodeMismatch"
        ok = await client.post(
            "/web/session/email-verification/confirm", headers=headers, json={"code": second}
        )
        assert ok.status_code == 204, ok.text

    async def test_expired_code(self, client: httpx.AsyncClient, cognito: CognitoClient) -> None:
        _, headers = await _register(client)
        expired = {"__type": "ExpiredCodeException", "message": "Invalid code provided"}
        with respx.mock(assert_all_called=False) as mock:
            mock.post(
                cognito.base_url + "/",
                headers={"X-Amz-Target": "AWSCognitoIdentityProviderService.VerifyUserAttribute"},
            ).respond(400, json=expired)
            mock.route().pass_through()
            response = await client.post(
                "/web/session/email-verification/confirm", headers=headers, json={"code": "1"}
            )
        assert response.status_code == 400
        assert response.json() == {
            "code": "VerificationCodeExpired",
            "message": "That code has expired. Press Resend to get a new one.",
        }

    async def test_verified_users_have_nothing_to_verify(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        invited = await make_user()
        assert (await _session(client, invited.headers))["emailVerified"] is True
        response = await client.post("/web/session/email-verification", headers=invited.headers)
        assert response.status_code == 409
        assert response.json()["code"] == "EmailAlreadyVerified"

    async def test_resend_is_throttled(self, app: FastAPI, client: httpx.AsyncClient) -> None:
        _, headers = await _register(client)
        limit = app.state.settings.sign_in.email_verification_limit_per_account
        statuses = [
            (await client.post("/web/session/email-verification", headers=headers)).status_code
            for _ in range(limit + 1)
        ]
        assert statuses[:limit] == [200] * limit
        assert statuses[-1] == 429


class TestMailboxOwnerTakesOver:
    @pytest.mark.parametrize("requested_by_registrant_first", [False, True])
    async def test_forgot_password_reaches_an_unverified_address(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        requested_by_registrant_first: bool,
    ) -> None:
        email, headers = await _register(client)
        if requested_by_registrant_first:
            # Asking for a reset proves nothing: the flag moves only when a code is entered.
            await client.post("/web/session/forgot-password", json={"email": email})
            assert (await _session(client, headers))["emailVerified"] is False
        sent = await client.post("/web/session/forgot-password", json={"email": email})
        assert sent.status_code == 200, sent.text
        assert sent.json()["codeDelivery"]["deliveryMedium"] == "EMAIL"
        code = await _latest_code(client, email)
        taken = await client.post(
            "/web/session/confirm-forgot-password",
            json={"email": email, "code": code, "newPassword": "The-real-owner-2024!"},
        )
        assert taken.status_code == 200, taken.text
        owner = {"Authorization": f"Bearer {taken.json()['tokens']['accessToken']}"}
        assert (await _session(client, owner))["emailVerified"] is True
