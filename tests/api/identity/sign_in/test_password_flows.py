"""Password flows beyond plain sign-in: the new-password challenge, forgot password and its
confirmation, Google-only accounts (SPEC 4, 5, 8)."""

from __future__ import annotations

import httpx
import pytest
import respx
from fastapi import FastAPI
from sqlalchemy import update

from api.adapters.cognito import CognitoClient
from api.models import Account, AuthType, Role, User
from tests.api.cognito_model import CognitoModelCheck
from tests.api.conftest import PASSWORD, MakeUser, unique_email

NEW_PASSWORD = "Brand-new-pass-77!"
TEMP_PASSWORD = "Temp-pass-1234!"
# A session Cognito does not know, as a stale one is: the length of a real one.
UNKNOWN_SESSION = "AYABeC" + "x" * 900
PASSWORD_RULE = (
    "Password must be at least twelve characters long and contain at least one number and "
    "one special character"
)


async def _require_google(app: FastAPI, account: Account) -> None:
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(Account).where(Account.id == account.id).values(require_google_sso=True)
        )


async def _invite(app: FastAPI, cognito: CognitoClient, account: Account) -> str:
    """A user of ``account`` created with a temporary password, as an invitation does."""
    email = unique_email("invited")
    async with app.state.resources.sessionmaker() as db, db.begin():
        db.add(
            User(
                account_id=account.id,
                identity_id=email,
                first_name="Ivy",
                last_name="Invited",
                email=email,
                auth_type=AuthType.EMAIL,
                role=Role.OWNER,
            )
        )
    await cognito.admin_create_user(email, {"email": email}, temporary_password=TEMP_PASSWORD)
    return email


class TestGoogleOnlyAccounts:
    async def test_password_sign_in_is_refused(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await _require_google(app, me.account)
        response = await client.post(
            "/web/session/sign-in", json={"email": me.user.email, "password": me.password}
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "MustSignInWithGoogle",
            "message": "This user must sign in with Google",
        }

    async def test_password_reset_is_refused(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await _require_google(app, me.account)
        response = await client.post("/web/session/forgot-password", json={"email": me.user.email})
        assert response.status_code == 400
        assert response.json()["message"] == "This user must sign in with Google"

    async def test_unconfirmed_user_must_use_google(
        self, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        email = unique_email("unconfirmed")
        # Only possible outside the API (the pool allows admin-created users only).
        await cognito.call(
            "SignUp",
            {
                "ClientId": cognito.client_id,
                "Username": email,
                "Password": PASSWORD,
                "UserAttributes": [{"Name": "email", "Value": email}],
            },
            signed=False,
        )
        response = await client.post(
            "/web/session/sign-in", json={"email": email, "password": PASSWORD}
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "UserNotConfirmedException",
            "message": "This user must sign in with Google",
        }


class TestCompleteNewPassword:
    async def test_invited_user_sets_a_password_and_is_signed_in(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner = await make_user(account_name="Invite Co")
        email = await _invite(app, cognito, owner.account)
        challenge = (
            await client.post(
                "/web/session/sign-in", json={"email": email, "password": TEMP_PASSWORD}
            )
        ).json()["challenge"]
        response = await client.post(
            "/web/session/complete-new-password",
            json={
                "username": challenge["username"],
                "session": challenge["session"],
                "newPassword": NEW_PASSWORD,
            },
        )
        assert response.status_code == 200, response.text
        token = response.json()["tokens"]["accessToken"]
        session = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert session.json()["session"]["account"]["name"] == "Invite Co"
        again = await client.post(
            "/web/session/sign-in", json={"email": email, "password": NEW_PASSWORD}
        )
        assert again.json()["tokens"]["accessToken"]

    async def test_password_rules(self, client: httpx.AsyncClient) -> None:
        body = {"username": "x@example-corp.com", "session": UNKNOWN_SESSION, "newPassword": ""}
        empty = await client.post("/web/session/complete-new-password", json=body)
        assert empty.status_code == 422
        assert empty.json()["message"] == "A new password is required"
        weak = await client.post(
            "/web/session/complete-new-password", json={**body, "newPassword": "shortpass1!"}
        )
        assert weak.json()["message"] == PASSWORD_RULE
        spaced = await client.post(
            "/web/session/complete-new-password",
            json={**body, "newPassword": "Brand new pass 77!"},
        )
        assert spaced.json()["message"] == "Password must not contain spaces"

    async def test_stale_challenge_session_carries_the_providers_message(
        self, client: httpx.AsyncClient
    ) -> None:
        response = await client.post(
            "/web/session/complete-new-password",
            json={
                "username": unique_email(),
                "session": UNKNOWN_SESSION,
                "newPassword": NEW_PASSWORD,
            },
        )
        assert response.status_code == 400
        assert response.json()["message"]

    @pytest.mark.parametrize("too", ["short", "long"])
    async def test_what_cannot_be_a_cognito_session_is_refused_here(
        self, client: httpx.AsyncClient, cognito_requests_checked: CognitoModelCheck, too: str
    ) -> None:
        # Cognito would refuse a session outside its SessionType's lengths with its own
        # validation message (moto does not).
        operation = cognito_requests_checked.model.operation_model("AdminRespondToAuthChallenge")
        limits = operation.input_shape.members["Session"].metadata
        session = "s" * (limits["min"] - 1 if too == "short" else limits["max"] + 1)
        for path, answer in (
            ("/web/session/complete-new-password", {"newPassword": NEW_PASSWORD}),
            ("/web/session/two-step-code", {"code": "123456"}),
        ):
            response = await client.post(
                path, json={"username": unique_email(), "session": session, **answer}
            )
            assert response.status_code == 422, response.text
            assert response.json()["fields"] == [
                {"field": "session", "message": response.json()["message"]}
            ]


class TestForgotPassword:
    async def test_sends_a_code_to_the_mailbox(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post(
            "/web/session/forgot-password", json={"email": f" {me.user.email.upper()} "}
        )
        assert response.status_code == 200
        assert response.json()["codeDelivery"]["deliveryMedium"] == "EMAIL"
        mail = (await client.get("/dev/mailbox", params={"to": me.user.email})).json()
        assert mail[0]["code"]

    async def test_unknown_user(self, client: httpx.AsyncClient, cognito: CognitoClient) -> None:
        # moto answers as a pool with PreventUserExistenceErrors; a pool without it says so.
        with respx.mock(assert_all_mocked=False) as router:
            router.post(cognito.base_url + "/").respond(
                400, json={"__type": "UserNotFoundException", "message": "Username not found."}
            )
            response = await client.post(
                "/web/session/forgot-password", json={"email": unique_email("nobody")}
            )
        assert response.status_code == 400
        assert response.json() == {
            "code": "UserNotFoundException",
            "message": "User does not exist",
        }

    async def test_email_is_required(self, client: httpx.AsyncClient) -> None:
        response = await client.post("/web/session/forgot-password", json={"email": "  "})
        assert response.status_code == 422
        assert response.json()["message"] == "Email address is required"

    async def test_not_authorized_is_ignored(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        me = await make_user()
        with respx.mock(assert_all_mocked=False) as router:
            router.post(cognito.base_url + "/").respond(
                400,
                json={"__type": "NotAuthorizedException", "message": "User is disabled."},
            )
            response = await client.post(
                "/web/session/forgot-password", json={"email": me.user.email}
            )
        assert response.status_code == 200
        assert response.json() == {"codeDelivery": None}

    async def test_no_delivery_details(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        me = await make_user()
        with respx.mock(assert_all_mocked=False) as router:
            router.post(cognito.base_url + "/").respond(200, json={})
            response = await client.post(
                "/web/session/forgot-password", json={"email": me.user.email}
            )
        assert response.status_code == 400
        assert response.json() == {
            "code": "PasswordResetUnavailable",
            "message": "There was an error resetting your password. Please email support to "
            "reset your password.",
        }


class TestConfirmForgotPassword:
    async def test_resets_the_password_and_signs_in(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await client.post("/web/session/forgot-password", json={"email": me.user.email})
        code = (await client.get("/dev/mailbox", params={"to": me.user.email})).json()[0]["code"]
        response = await client.post(
            "/web/session/confirm-forgot-password",
            json={"email": me.user.email, "code": code, "newPassword": NEW_PASSWORD},
        )
        assert response.status_code == 200, response.text
        token = response.json()["tokens"]["accessToken"]
        session = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert session.status_code == 200
        old = await client.post(
            "/web/session/sign-in", json={"email": me.user.email, "password": PASSWORD}
        )
        assert old.status_code == 400

    async def test_white_space_in_the_code_is_dropped(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        # Cognito's ConfirmationCodeType is [\S]+ (moto takes a code with a space).
        me = await make_user()
        await client.post("/web/session/forgot-password", json={"email": me.user.email})
        code = (await client.get("/dev/mailbox", params={"to": me.user.email})).json()[0]["code"]
        response = await client.post(
            "/web/session/confirm-forgot-password",
            json={
                "email": me.user.email,
                "code": f"{code[:3]} {code[3:]}",
                "newPassword": NEW_PASSWORD,
            },
        )
        assert response.status_code == 200, response.text

    async def test_messages_in_spec_order(self, client: httpx.AsyncClient) -> None:
        async def first_message(email: str, code: str, password: str) -> str:
            response = await client.post(
                "/web/session/confirm-forgot-password",
                json={"email": email, "code": code, "newPassword": password},
            )
            assert response.status_code == 422
            return str(response.json()["message"])

        assert await first_message("", "", "") == "Email address is required"
        assert await first_message("a@example-corp.com", " ", "") == (
            "Verification code is required"
        )
        assert await first_message("a@example-corp.com", "123", "") == "Enter a new password"
        assert await first_message("a@example-corp.com", "123", "abcdefghijkl1") == PASSWORD_RULE
        # Cognito's PasswordType is [\S]+ (moto does not check it).
        assert await first_message("a@example-corp.com", "123", "Brand new pass 77!") == (
            "Password must not contain spaces"
        )
