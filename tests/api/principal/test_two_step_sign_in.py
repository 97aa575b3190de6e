"""Two-step sign-in tried as an attacker would (README "Two-step sign-in"): someone who has
the password (or a session, or a stolen recovery code) and wants in without the second factor.

Each class is one way around it: a password reset, guessing codes, a recovery code used
twice or with the wrong password, MFA switched off at Cognito with the user's own token,
a session older than the account's requirement, and federated users, who must not be asked.
"""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from api.adapters.cognito import CognitoClient
from api.models import AuthType
from tests.api.conftest import MakeUser
from tests.api.identity.mfa.support import (
    answer,
    bearer,
    enabled_user,
    next_second,
    recover,
    require_two_step,
    set_up,
    sign_in,
)

NEW_PASSWORD = "Another-horse-77!"


class TestThePasswordAloneIsNotEnough:
    async def test_sign_in_asks_for_the_code_and_gives_no_tokens(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        await enabled_user(client, user)
        response = await sign_in(client, user.user.email)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["tokens"] is None
        assert body["challenge"]["name"] == "SOFTWARE_TOKEN_MFA"
        assert "refresh_token" not in response.headers.get("set-cookie", "")

    async def test_a_password_reset_does_not_bypass_the_code(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        asked = await client.post("/web/session/forgot-password", json={"email": user.user.email})
        assert asked.status_code == 200, asked.text
        reset_code = await _reset_code(client, user.user.email)
        reset = await client.post(
            "/web/session/confirm-forgot-password",
            json={"email": user.user.email, "code": reset_code, "newPassword": NEW_PASSWORD},
        )
        assert reset.status_code == 200, reset.text
        assert reset.json()["tokens"] is None
        assert reset.json()["challenge"]["name"] == "SOFTWARE_TOKEN_MFA"
        # The next sign-in with the new password asks for the code too, and the code works.
        again = await sign_in(client, user.user.email, NEW_PASSWORD)
        assert again.json()["challenge"]["name"] == "SOFTWARE_TOKEN_MFA"
        answered = await answer(client, again.json()["challenge"], await two_step.code())
        assert answered.status_code == 200, answered.text
        assert answered.json()["tokens"]["accessToken"]

    async def test_mfa_turned_off_at_cognito_with_the_users_own_token_changes_nothing(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        user = await make_user()
        await enabled_user(client, user)
        # The access token carries aws.cognito.signin.user.admin: it may call Cognito itself.
        await cognito.call(
            "SetUserMFAPreference",
            {
                "AccessToken": user.access_token,
                "SoftwareTokenMfaSettings": {"Enabled": False, "PreferredMfa": False},
            },
            signed=False,
        )
        response = await sign_in(client, user.user.email)
        assert response.status_code == 200, response.text
        assert response.json()["tokens"] is None
        assert response.json()["challenge"]["name"] == "SOFTWARE_TOKEN_MFA"


async def _reset_code(client: httpx.AsyncClient, email: str) -> str:
    box = (await client.get("/dev/mailbox", params={"to": email})).json()
    code: str = box[0]["code"]
    return code


class TestGuessingCodes:
    async def test_wrong_codes_count_like_wrong_passwords(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        challenge = (await sign_in(client, user.user.email)).json()["challenge"]
        for _ in range(5):  # SIGN_IN_BACKOFF_FREE_FAILURES
            wrong = await answer(client, challenge, two_step.wrong_code())
            assert wrong.status_code == 400, wrong.text
            assert wrong.json()["code"] == "CodeMismatchException"
        # The sixth try waits, even with the right code.
        blocked = await answer(client, challenge, await two_step.code())
        assert blocked.status_code == 429, blocked.text
        assert blocked.json()["message"].startswith("Too many failed attempts.")

    async def test_wrong_recovery_codes_count_too(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        for _ in range(5):
            wrong = await recover(client, user.user.email, "aaaaa-bbbbb")
            assert wrong.status_code == 400, wrong.text
            assert wrong.json() == {
                "code": "RecoveryCodeMismatch",
                "message": "That recovery code is not right, or it was used already.",
            }
        blocked = await recover(client, user.user.email, two_step.recovery_codes[0])
        assert blocked.status_code == 429, blocked.text


class TestRecoveryCodes:
    async def test_a_recovery_code_works_once(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        first = await recover(client, user.user.email, two_step.recovery_codes[3])
        assert first.status_code == 200, first.text
        assert first.json()["tokens"]["accessToken"]
        assert first.json()["twoStepSetupRequired"] is True
        again = await recover(client, user.user.email, two_step.recovery_codes[3])
        assert again.status_code == 400, again.text
        assert again.json()["code"] == "RecoveryCodeMismatch"

    async def test_a_recovery_code_needs_the_password_and_is_not_spent_without_it(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        wrong = await recover(
            client, user.user.email, two_step.recovery_codes[0], "Wrong-pass-123!"
        )
        assert wrong.status_code == 400, wrong.text
        assert wrong.json()["code"] == "NotAuthorizedException"
        right = await recover(client, user.user.email, two_step.recovery_codes[0])
        assert right.status_code == 200, right.text

    async def test_its_tokens_only_set_up_a_new_authenticator(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        recovered = await recover(client, user.user.email, two_step.recovery_codes[1])
        headers = bearer(recovered)
        refused = await client.get("/web/account", headers=headers)
        assert refused.status_code == 401, refused.text
        assert refused.json()["code"] == "TwoStepSetupRequired"
        status = await client.get("/web/two-step-sign-in", headers=headers)
        assert status.json()["twoStepSignIn"]["setupDue"] is True
        new = await set_up(client, headers)
        assert (await client.get("/web/account", headers=headers)).status_code == 200
        # The old authenticator and the old codes are gone with the new set-up.
        assert new.secret != two_step.secret
        old = await recover(client, user.user.email, two_step.recovery_codes[2])
        assert old.json()["code"] == "RecoveryCodeMismatch"

    async def test_a_user_without_two_step_has_no_codes_to_guess(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        response = await recover(client, user.user.email, "aaaaa-bbbbb")
        assert response.json()["code"] == "RecoveryCodeMismatch"


class TestTheAccountsRequirement:
    async def test_tokens_issued_before_it_are_refused_for_users_without_it(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        await next_second()
        await require_two_step(app, owner.account)
        for path in ("/web/account", "/web/session", "/web/two-step-sign-in"):
            refused = await client.get(path, headers=owner.headers)
            assert refused.status_code == 401, (path, refused.text)
            assert refused.json() == {
                "code": "TwoStepSignInRequired",
                "message": "Sign in again to set up two-step sign-in.",
            }

    async def test_the_refresh_cookie_cannot_bring_an_old_session_back(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        signed = await sign_in(client, owner.user.email)
        assert signed.json()["twoStepSetupRequired"] is False
        await next_second()
        await require_two_step(app, owner.account)
        refreshed = await client.post("/web/session/refresh")
        assert refreshed.status_code == 401, refreshed.text
        assert refreshed.json()["code"] == "TwoStepSignInRequired"

    async def test_a_new_sign_in_may_only_set_it_up(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        await require_two_step(app, owner.account)
        await next_second()
        signed = await sign_in(client, owner.user.email)
        assert signed.json()["twoStepSetupRequired"] is True
        headers = bearer(signed)
        assert (await client.get("/web/account", headers=headers)).json()["code"] == (
            "TwoStepSetupRequired"
        )
        await set_up(client, headers)
        assert (await client.get("/web/account", headers=headers)).status_code == 200

    async def test_users_who_have_it_keep_working(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        await enabled_user(client, owner)
        await require_two_step(app, owner.account)
        assert (await client.get("/web/account", headers=owner.headers)).status_code == 200

    async def test_google_and_github_users_are_not_asked(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        google = await make_user(auth_type=AuthType.GOOGLE_SSO)
        github = await make_user(auth_type=AuthType.GITHUB, account=google.account)
        await next_second()
        await require_two_step(app, google.account)
        for user in (google, github):
            assert (await client.get("/web/account", headers=user.headers)).status_code == 200
            status = await client.get("/web/two-step-sign-in", headers=user.headers)
            assert status.json()["twoStepSignIn"]["available"] is False
            assert status.json()["twoStepSignIn"]["setupDue"] is False
            refused = await client.post("/web/two-step-sign-in/setup", headers=user.headers)
            assert refused.status_code == 400, refused.text
            assert refused.json()["code"] == "TwoStepSignInUnavailable"
