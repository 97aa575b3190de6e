"""User Management: invite, rename, delete, and tenant scoping (SPEC 2, 3, 5, 7)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from api.adapters.cognito import CognitoClient, UserNotFoundError
from api.models import Account, AuthType, Role, User
from tests.api.conftest import MakeUser, email_of_length, unique_email


async def _invite(client: httpx.AsyncClient, headers: dict[str, str], email: str) -> httpx.Response:
    return await client.post(
        "/web/users",
        headers=headers,
        json={"firstName": " Alan ", "lastName": "Turing ", "email": f" {email.upper()} "},
    )


class TestInvite:
    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await _invite(client, {}, unique_email())
        assert response.status_code == 401

    async def test_invited_user_gets_a_temporary_password_and_must_change_it(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        email = unique_email("alan")
        response = await _invite(client, me.headers, email)
        assert response.status_code == 201
        user = response.json()["user"]
        # Admin unless the invite says otherwise; Pending for the invitation validity (7 days).
        invited = datetime.fromisoformat(user["invitedAt"])
        assert abs((datetime.now(UTC) - invited).total_seconds()) < 60
        assert datetime.fromisoformat(user["invitationExpiresAt"]) - invited == timedelta(days=7)
        assert user == {
            "id": user["id"],
            "firstName": "Alan",
            "lastName": "Turing",
            "email": email,
            "authType": "Email",
            "role": "Admin",
            "status": "Pending",
            "twoStepSignIn": False,
            "invitedAt": user["invitedAt"],
            "invitationExpiresAt": user["invitationExpiresAt"],
        }
        listed = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert email in {u["email"] for u in listed["users"]}

        mail = (await client.get("/dev/mailbox", params={"to": email})).json()
        assert len(mail) == 1
        temporary = mail[0]["temporaryPassword"]
        assert len(temporary) >= 12
        signed_in = await client.post(
            "/web/session/sign-in", json={"email": email, "password": temporary}
        )
        assert signed_in.json()["challenge"]["name"] == "NEW_PASSWORD_REQUIRED"

    async def test_email_of_any_account_is_409(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        elsewhere = await make_user(account_name="Elsewhere")
        response = await _invite(client, me.headers, elsewhere.user.email)
        assert response.status_code == 409
        # One EmailInUse, with SPEC 8's wording, for invitations as for registration.
        assert response.json() == {
            "code": "EmailInUse",
            "message": "This email address is already in use",
        }

    async def test_refused_while_google_sso_is_required(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user(auth_type=AuthType.GOOGLE_SSO)
        async with app.state.resources.sessionmaker() as db, db.begin():
            (await db.get_one(Account, me.account.id)).require_google_sso = True
        response = await _invite(client, me.headers, unique_email())
        assert response.status_code == 400
        assert response.json() == {
            "code": "InviteRefusedWithSso",
            "message": "Instruct other users to sign in with SSO to join the account.",
        }

    async def test_invalid_input_has_clear_messages(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.post(
            "/web/users",
            headers=me.headers,
            json={"firstName": " ", "lastName": "X", "email": "not-an-email"},
        )
        assert response.status_code == 422
        fields = {f["field"]: f["message"] for f in response.json()["fields"]}
        assert fields == {"firstName": "Required", "email": "Must be a valid email address"}

    async def test_an_email_is_at_most_as_long_as_a_cognito_username(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        # The username is the email, and Cognito's UsernameType allows 128 characters (moto
        # takes more).
        me = await make_user()
        for length, status in ((129, 422), (128, 201)):
            email = email_of_length(length)
            response = await client.post(
                "/web/users",
                headers=me.headers,
                json={"firstName": "Alan", "lastName": "Turing", "email": email},
            )
            assert response.status_code == status, response.text
        assert response.json()["user"]["email"] == email

    async def test_failed_database_write_removes_the_cognito_user(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        me = await make_user()
        email = unique_email("collide")
        # A row whose identity id is this email (but whose email differs) passes the email
        # check and Cognito's sign-up, then makes our insert fail on the identity id.
        async with app.state.resources.sessionmaker() as db, db.begin():
            db.add(
                User(
                    account_id=me.account.id,
                    identity_id=email,
                    first_name="Other",
                    last_name="Person",
                    email=unique_email("other"),
                    auth_type=AuthType.EMAIL,
                    role=Role.OWNER,
                )
            )
        response = await _invite(client, me.headers, email)
        assert response.status_code == 409
        assert response.json()["code"] == "EmailInUse"
        with pytest.raises(UserNotFoundError):
            await cognito.admin_get_user(email)
        async with app.state.resources.sessionmaker() as db:
            assert await db.scalar(select(User.id).where(User.email == email)) is None


class TestUpdate:
    async def test_renames_a_user_of_the_account(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        mate = await make_user(account=me.account)
        response = await client.put(
            f"/web/users/{mate.user.id}",
            headers=me.headers,
            json={"firstName": " Grace ", "lastName": " Hopper"},
        )
        assert response.status_code == 200
        assert response.json()["user"]["firstName"] == "Grace"
        assert response.json()["user"]["lastName"] == "Hopper"
        assert response.json()["user"]["email"] == mate.user.email

    async def test_control_characters_are_refused_not_a_server_error(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        # A NUL in firstName was a 500 (PostgreSQL refuses \u0000 in text): the fuzzer's find.
        me = await make_user(first_name="Ada")
        for name in ("Ada\u0000", "A\tda", "Ada\x7f"):
            response = await client.put(
                f"/web/users/{me.user.id}",
                headers=me.headers,
                json={"firstName": name, "lastName": "Lovelace"},
            )
            assert response.status_code == 422, name
            assert response.json()["fields"] == [
                {"field": "firstName", "message": "Must not contain control characters"}
            ]
        users = (await client.get("/web/account", headers=me.headers)).json()["account"]["users"]
        assert [u["firstName"] for u in users] == ["Ada"]

    async def test_email_is_not_editable(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await client.put(
            f"/web/users/{me.user.id}",
            headers=me.headers,
            json={"firstName": "A", "lastName": "B", "email": "new@example-corp.com"},
        )
        assert response.status_code == 422
        assert response.json()["fields"][0]["field"] == "email"

    async def test_user_of_another_account_is_404(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        stranger = await make_user(account_name="Other Co")
        response = await client.put(
            f"/web/users/{stranger.user.id}",
            headers=me.headers,
            json={"firstName": "Hacked", "lastName": "Name"},
        )
        assert response.status_code == 404
        assert response.json()["code"] == "NotFound"
        session = (await client.get("/web/session", headers=stranger.headers)).json()
        assert session["session"]["user"]["firstName"] == "Test"

    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.put(
            f"/web/users/{uuid.uuid4()}", json={"firstName": "A", "lastName": "B"}
        )
        assert response.status_code == 401


class TestDelete:
    async def test_removes_the_user_from_the_account_and_cognito(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        me = await make_user()
        mate = await make_user(account=me.account)
        response = await client.delete(f"/web/users/{mate.user.id}", headers=me.headers)
        assert response.status_code == 204
        users = (await client.get("/web/account", headers=me.headers)).json()["account"]["users"]
        assert [u["email"] for u in users] == [me.user.email]
        with pytest.raises(UserNotFoundError):
            await cognito.admin_get_user(mate.user.identity_id)
        # The removed user's session ends with a clear reason (README "Security model").
        after = await client.get("/web/session", headers=mate.headers)
        assert after.status_code == 401
        assert after.json()["code"] == "UserRemoved"

    async def test_cannot_delete_yourself(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await make_user(account=me.account)
        response = await client.delete(f"/web/users/{me.user.id}", headers=me.headers)
        assert response.status_code == 400
        assert response.json() == {
            "code": "CannotDeleteSelf",
            "message": "You cannot delete your own user.",
        }

    async def test_user_of_another_account_is_404(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        me = await make_user()
        stranger = await make_user(account_name="Other Co")
        await make_user(account=stranger.account)
        response = await client.delete(f"/web/users/{stranger.user.id}", headers=me.headers)
        assert response.status_code == 404
        assert (await cognito.admin_get_user(stranger.user.identity_id)).username

    async def test_cognito_outage_deletes_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        import respx

        me = await make_user()
        mate = await make_user(account=me.account)
        cognito_url = app.state.resources.cognito.base_url + "/"
        with respx.mock(assert_all_called=False) as mock:
            mock.post(cognito_url).respond(503)
            mock.route().pass_through()
            response = await client.delete(f"/web/users/{mate.user.id}", headers=me.headers)
        assert response.status_code == 503
        users = (await client.get("/web/account", headers=me.headers)).json()["account"]["users"]
        assert mate.user.email in {u["email"] for u in users}
