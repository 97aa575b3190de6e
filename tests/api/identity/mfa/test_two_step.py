"""Two-step sign-in as a user lives it (README "Two-step sign-in"): setting it up, signing
in with a code or a recovery code, regenerating the codes, turning it off; the messages the
screens show; the audit log."""

from __future__ import annotations

import httpx
import pyotp
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from api.models import AuditEvent, RecoveryCode
from tests.api.conftest import PASSWORD, MakeUser
from tests.api.identity.mfa.support import answer, enabled_user, recover, require_two_step, sign_in


async def _actions(app: FastAPI, account_id: object) -> list[str]:
    async with app.state.resources.sessionmaker() as db:
        rows = await db.scalars(
            select(AuditEvent.action)
            .where(AuditEvent.account_id == account_id)
            .order_by(AuditEvent.occurred_at)
        )
        return list(rows)


class TestSetUp:
    async def test_status_secret_confirm_and_ten_recovery_codes(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        before = await client.get("/web/two-step-sign-in", headers=user.headers)
        assert before.status_code == 200, before.text
        assert before.json()["twoStepSignIn"] == {
            "available": True,
            "enabled": False,
            "enabledAt": None,
            "requiredByAccount": False,
            "setupDue": False,
            "recoveryCodesLeft": 0,
        }
        started = await client.post("/web/two-step-sign-in/setup", headers=user.headers)
        secret = started.json()["secretCode"]
        assert len(secret) == 32
        wrong = await client.post(
            "/web/two-step-sign-in/setup/confirm", headers=user.headers, json={"code": "000000"}
        )
        assert wrong.status_code == 400, wrong.text
        assert wrong.json() == {
            "code": "TwoStepCodeMismatch",
            "message": "That code is not right. Enter the 6-digit code your authenticator "
            "app shows now.",
        }
        code = pyotp.TOTP(secret).now()
        confirmed = await client.post(
            "/web/two-step-sign-in/setup/confirm",
            headers=user.headers,
            json={"code": f"{code[:3]} {code[3:]}"},  # spaces typed between digits are fine
        )
        assert confirmed.status_code == 200, confirmed.text
        codes = confirmed.json()["recoveryCodes"]
        assert len(set(codes)) == 10
        assert all(len(c) == 11 and c[5] == "-" for c in codes)
        after = (await client.get("/web/two-step-sign-in", headers=user.headers)).json()
        assert after["twoStepSignIn"]["enabled"] is True
        assert after["twoStepSignIn"]["recoveryCodesLeft"] == 10
        assert "two_step.enabled" in await _actions(app, user.account.id)
        # Only hashes are kept.
        async with app.state.resources.sessionmaker() as db:
            stored = list(await db.scalars(select(RecoveryCode.code_hash)))
        assert not set(codes) & set(stored)
        assert all(h.startswith("$argon2id$") for h in stored)

    async def test_an_empty_code_has_the_screens_message(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        await client.post("/web/two-step-sign-in/setup", headers=user.headers)
        empty = await client.post(
            "/web/two-step-sign-in/setup/confirm", headers=user.headers, json={"code": " "}
        )
        assert empty.status_code == 422
        assert empty.json()["message"] == "Enter the 6-digit code from your authenticator app"

    @pytest.mark.parametrize("code", ["12345", "1234567", "abcdef", "12345\u0661"])
    async def test_a_code_of_other_than_six_digits_has_the_screens_message(
        self, client: httpx.AsyncClient, make_user: MakeUser, code: str
    ) -> None:
        # Cognito's VerifySoftwareToken takes exactly six of [0-9] and refuses anything else
        # with its own validation message (moto compares it as it comes).
        user = await make_user()
        await client.post("/web/two-step-sign-in/setup", headers=user.headers)
        refused = await client.post(
            "/web/two-step-sign-in/setup/confirm", headers=user.headers, json={"code": code}
        )
        assert refused.status_code == 422
        assert refused.json()["message"] == "Enter the 6-digit code from your authenticator app"

    async def test_a_second_set_up_while_it_is_on_is_refused(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        await enabled_user(client, user)
        again = await client.post("/web/two-step-sign-in/setup", headers=user.headers)
        assert again.status_code == 409, again.text
        assert again.json()["code"] == "TwoStepSignInAlreadyOn"


class TestSignIn:
    async def test_with_the_code(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        challenge = (await sign_in(client, user.user.email)).json()["challenge"]
        assert challenge["username"] == user.user.email
        empty = await answer(client, challenge, "")
        assert empty.status_code == 422
        assert empty.json()["message"] == "Enter the 6-digit code from your authenticator app"
        wrong = await answer(client, challenge, two_step.wrong_code())
        assert wrong.status_code == 400
        assert wrong.json() == {
            "code": "CodeMismatchException",
            "message": "Invalid code received for user",
        }
        signed = await answer(client, challenge, await two_step.code())
        assert signed.status_code == 200, signed.text
        assert signed.json()["twoStepSetupRequired"] is False
        session = await client.get(
            "/web/session",
            headers={"Authorization": f"Bearer {signed.json()['tokens']['accessToken']}"},
        )
        assert session.status_code == 200
        async with app.state.resources.sessionmaker() as db:
            methods = list(
                await db.scalars(
                    select(AuditEvent.changes["method"]["to"].astext).where(
                        AuditEvent.account_id == user.account.id,
                        AuditEvent.action.like("sign_in.%"),
                    )
                )
            )
        assert "two-step code" in methods

    async def test_with_a_recovery_code_then_set_up_again(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        # Typed with capitals and without the dash: still the code.
        typed = two_step.recovery_codes[0].upper().replace("-", "")
        recovered = await recover(client, user.user.email, typed)
        assert recovered.status_code == 200, recovered.text
        assert recovered.json()["twoStepSetupRequired"] is True
        actions = await _actions(app, user.account.id)
        assert "two_step.recovery_code_used" in actions
        # Cognito's MFA is on again at once: the next password sign-in asks for the code.
        assert (await sign_in(client, user.user.email)).json()["challenge"]["name"] == (
            "SOFTWARE_TOKEN_MFA"
        )


class TestRecoveryCodesAndTurningOff:
    async def test_regenerate_needs_both_factors_and_replaces_the_set(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        wrong = await client.post(
            "/web/two-step-sign-in/recovery-codes",
            headers=user.headers,
            json={"password": PASSWORD, "code": two_step.wrong_code()},
        )
        assert wrong.status_code == 400, wrong.text
        assert wrong.json()["code"] == "CodeMismatchException"
        fresh = await client.post(
            "/web/two-step-sign-in/recovery-codes",
            headers=user.headers,
            json={"password": PASSWORD, "code": await two_step.code()},
        )
        assert fresh.status_code == 200, fresh.text
        new_codes = fresh.json()["recoveryCodes"]
        assert set(new_codes).isdisjoint(two_step.recovery_codes)
        old = await recover(client, user.user.email, two_step.recovery_codes[0])
        assert old.json()["code"] == "RecoveryCodeMismatch"
        assert (await recover(client, user.user.email, new_codes[0])).status_code == 200

    async def test_turning_off_needs_a_current_code(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        refused = await client.post(
            "/web/two-step-sign-in/disable",
            headers=user.headers,
            json={"password": PASSWORD, "code": two_step.wrong_code()},
        )
        assert refused.status_code == 400
        turned_off = await client.post(
            "/web/two-step-sign-in/disable",
            headers=user.headers,
            json={"password": PASSWORD, "code": await two_step.code()},
        )
        assert turned_off.status_code == 204, turned_off.text
        signed = await sign_in(client, user.user.email)
        assert signed.json()["tokens"]["accessToken"]
        assert "two_step.disabled" in await _actions(app, user.account.id)
        status = (await client.get("/web/two-step-sign-in", headers=user.headers)).json()
        assert status["twoStepSignIn"]["enabled"] is False
        assert status["twoStepSignIn"]["recoveryCodesLeft"] == 0

    async def test_it_stays_on_while_the_account_requires_it(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        await require_two_step(app, user.account)
        refused = await client.post(
            "/web/two-step-sign-in/disable",
            headers=user.headers,
            json={"password": PASSWORD, "code": await two_step.code()},
        )
        assert refused.status_code == 400
        assert refused.json() == {
            "code": "TwoStepSignInRequiredByAccount",
            "message": "Your account requires two-step sign-in, so it cannot be turned off.",
        }
