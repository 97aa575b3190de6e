"""POST /web/registration (SPEC 3 registration form, 4 Registration, 5 rules, 8 messages)."""

from __future__ import annotations

import secrets

import httpx
import pytest
import respx
from fastapi import FastAPI
from sqlalchemy import delete, func, select

from api.adapters.cognito import CognitoClient, UserNotFoundError
from api.models import Account, AuthType, Role, User
from tests.api.conftest import email_of_length

PASSWORD_RULE = (
    "Password must be at least twelve characters long and contain at least one number and "
    "one special character"
)


def _form(**changes: str) -> dict[str, str]:
    form = {
        "firstName": " Grace ",
        "lastName": " Hopper ",
        "emailAddress": f" Grace-{secrets.token_hex(4)}@Navy-Labs.com ",
        "organizationName": " Navy Labs ",
        "newPassword": "Cobol-forever-1959!",
    }
    form.update(changes)
    return form


class TestRegistration:
    async def test_creates_account_and_user_and_signs_in(
        self, app: FastAPI, client: httpx.AsyncClient
    ) -> None:
        form = _form()
        response = await client.post("/web/registration", json=form)
        assert response.status_code == 201, response.text
        token = response.json()["accessToken"]
        session = (
            await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        ).json()["session"]
        email = form["emailAddress"].strip().lower()
        assert session["user"]["email"] == email
        assert (session["user"]["firstName"], session["user"]["lastName"]) == ("Grace", "Hopper")
        assert session["account"]["name"] == "Navy Labs"
        account = (
            await client.get("/web/account", headers={"Authorization": f"Bearer {token}"})
        ).json()["account"]
        assert account["apiKey"].startswith("ak_")
        settings = app.state.settings
        assert account["subscription"]["unitPlanRequests"] == settings.account.unit_plan_requests
        assert account["subscription"]["freePlanRequests"] == settings.account.free_plan_requests
        assert account["users"][0]["authType"] == "Email"

    async def test_existing_email_is_in_use(self, client: httpx.AsyncClient) -> None:
        form = _form()
        assert (await client.post("/web/registration", json=form)).status_code == 201
        again = await client.post("/web/registration", json=form)
        assert again.status_code == 409
        assert again.json() == {
            "code": "EmailInUse",
            "message": "This email address is already in use",
        }

    @pytest.mark.parametrize("domain", ["gmail.com", "yahoo.com", "mailinator.com"])
    async def test_free_or_disposable_provider_is_refused(
        self, client: httpx.AsyncClient, cognito: CognitoClient, domain: str
    ) -> None:
        email = f"someone-{secrets.token_hex(4)}@{domain}"
        response = await client.post("/web/registration", json=_form(emailAddress=email))
        assert response.status_code == 400
        assert response.json() == {
            "code": "InvalidEmailProvider",
            "message": "Invalid email provider",
        }
        with pytest.raises(UserNotFoundError):
            await cognito.admin_get_user(email)

    async def test_every_field_is_required(self, client: httpx.AsyncClient) -> None:
        blank = {k: " " for k in _form()}
        response = await client.post("/web/registration", json=blank)
        assert response.status_code == 422
        fields = {f["field"]: f["message"] for f in response.json()["fields"]}
        assert fields == {
            "firstName": "Required",
            "lastName": "Required",
            "emailAddress": "Required",
            "organizationName": "Required",
            "newPassword": PASSWORD_RULE,
        }
        empty_password = await client.post("/web/registration", json=_form(newPassword=""))
        assert empty_password.json()["message"] == "Required"

    async def test_email_pattern(self, client: httpx.AsyncClient) -> None:
        response = await client.post("/web/registration", json=_form(emailAddress="not-an-email"))
        assert response.status_code == 422
        assert response.json()["message"] == "Must be a valid business email address"

    @pytest.mark.parametrize("password", ["Short-pass1", "no-digits-here!!", "NoSpecial12345"])
    async def test_password_rule(self, client: httpx.AsyncClient, password: str) -> None:
        response = await client.post("/web/registration", json=_form(newPassword=password))
        assert response.status_code == 422
        assert response.json()["message"] == PASSWORD_RULE

    async def test_an_email_longer_than_a_cognito_username_is_refused(
        self, client: httpx.AsyncClient
    ) -> None:
        # The username is the email: Cognito's UsernameType allows 128 characters (moto more).
        response = await client.post(
            "/web/registration", json=_form(emailAddress=email_of_length(129))
        )
        assert response.status_code == 422
        assert response.json()["fields"] == [
            {"field": "emailAddress", "message": "String should have at most 128 characters"}
        ]
        reset = await client.post(
            "/web/session/forgot-password", json={"email": email_of_length(129)}
        )
        assert reset.status_code == 422

    async def test_a_password_with_a_space_is_refused_as_cognito_would(
        self, client: httpx.AsyncClient
    ) -> None:
        # Cognito's PasswordType is [\S]+ (moto does not check it).
        response = await client.post(
            "/web/registration", json=_form(newPassword="Cobol forever 1959!")
        )
        assert response.status_code == 422
        assert response.json()["message"] == "Password must not contain spaces"


class TestNothingHalfMade:
    async def test_failed_write_removes_the_cognito_user_so_the_email_can_retry(
        self, app: FastAPI, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        # A Google user of ours already has the address (no password user in Cognito), so
        # the sign-up succeeds and our write then fails on the unique email.
        email = f"taken-{secrets.token_hex(4)}@navy-labs.com"
        async with app.state.resources.sessionmaker() as db, db.begin():
            account = Account(name="Other")
            db.add(account)
            await db.flush()
            db.add(
                User(
                    account_id=account.id,
                    identity_id=f"google_{secrets.token_hex(6)}",
                    first_name="G",
                    last_name="User",
                    email=email,
                    auth_type=AuthType.GOOGLE_SSO,
                    role=Role.OWNER,
                )
            )
        response = await client.post("/web/registration", json=_form(emailAddress=email))
        assert response.status_code == 409
        assert response.json()["message"] == "This email address is already in use"
        with pytest.raises(UserNotFoundError):
            await cognito.admin_get_user(email)
        async with app.state.resources.sessionmaker() as db:
            owners = await db.scalar(
                select(func.count(User.id)).where(func.lower(User.email) == email)
            )
        assert owners == 1
        # Once the conflicting user is gone, the same email registers fine.
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(delete(User).where(User.email == email))
        retry = await client.post("/web/registration", json=_form(emailAddress=email))
        assert retry.status_code == 201, retry.text

    async def test_failed_sign_in_after_sign_up_removes_everything(
        self, app: FastAPI, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        email = f"flaky-{secrets.token_hex(4)}@navy-labs.com"
        with respx.mock(assert_all_mocked=False) as router:
            router.post(
                cognito.base_url + "/",
                headers={"X-Amz-Target": "AWSCognitoIdentityProviderService.AdminInitiateAuth"},
            ).respond(503)
            router.route().pass_through()
            response = await client.post("/web/registration", json=_form(emailAddress=email))
        assert response.status_code == 503
        with pytest.raises(UserNotFoundError):
            await cognito.admin_get_user(email)
        async with app.state.resources.sessionmaker() as db:
            assert await db.scalar(select(User.id).where(User.email == email)) is None
