"""Authenticator codes tried as an attacker who has the password would (README "Two-step
sign-in", "Wrong codes lock the second step" and "A code works once"): guessing codes across
as many password sign-ins as they like, under other spellings of the user, from the
re-authentication forms too; replaying a code already used; and setting two-step sign-in up
on an address nobody proved."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import text, update

from api.identity.mfa.guard import CodeGuard
from api.models import User
from tests.api.conftest import PASSWORD, MakeUser, SignedIn
from tests.api.identity.mfa.support import TwoStep, answer, enabled_user, sign_in

LOCK_AFTER = 5  # TWO_STEP_LOCK_FREE_FAILURES
LOCKED = "Too many wrong codes from an authenticator app."
USED = {
    "code": "TwoStepCodeUsed",
    "message": "That code was used already. Wait for your authenticator app to show a new "
    "code, then enter it.",
}


async def _challenge(client: httpx.AsyncClient, email: str) -> dict[str, str]:
    """A fresh SOFTWARE_TOKEN_MFA challenge: the password again (which clears the password
    backoff of this email and address)."""
    signed = await sign_in(client, email)
    assert signed.status_code == 200, signed.text
    challenge: dict[str, str] = signed.json()["challenge"]
    assert challenge["name"] == "SOFTWARE_TOKEN_MFA"
    return challenge


async def _guess(client: httpx.AsyncClient, user: SignedIn, two_step: TwoStep, times: int) -> None:
    """``times`` wrong codes, each after signing in with the password again."""
    for _ in range(times):
        challenge = await _challenge(client, user.user.email)
        wrong = await answer(client, challenge, two_step.wrong_code())
        assert wrong.status_code == 400, wrong.text
        assert wrong.json()["code"] == "CodeMismatchException"


def _locked(response: httpx.Response) -> None:
    assert response.status_code == 429, response.text
    assert response.json()["code"] == "RateLimited"
    assert response.json()["message"].startswith(LOCKED), response.text
    assert int(response.headers["Retry-After"]) > 60


async def _lift_lock(app: FastAPI, user: SignedIn) -> None:
    """Let the lock's time run out (the failures stay counted)."""
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            text("UPDATE two_step_lock SET locked_until = now() WHERE user_id = :user"),
            {"user": user.user.id},
        )


def _fullwidth(value: str) -> str:
    """``value`` in Unicode's fullwidth forms (NFKC folds them back to ASCII)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in value)


class TestGuessingCodes:
    async def test_signing_in_again_with_the_password_does_not_lift_the_lock(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        await _guess(client, user, two_step, LOCK_AFTER)
        # The password is right, so the password step still asks for the code...
        challenge = await _challenge(client, user.user.email)
        # ...but no code is tried, not even the right one.
        _locked(await answer(client, challenge, two_step.wrong_code()))
        _locked(
            await answer(client, await _challenge(client, user.user.email), two_step.wrong_code())
        )
        _locked(await answer(client, challenge, await two_step.code()))

    async def test_the_same_user_spelled_otherwise_shares_the_lock(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        bystander = await make_user()
        two_step = await enabled_user(client, user)
        theirs = await enabled_user(client, bystander)
        await _guess(client, user, two_step, LOCK_AFTER)
        email = user.user.email
        for spelling in (
            email.upper(),
            f"  {email} ",
            _fullwidth(email),
            email.replace("@", "\uff20"),
            bystander.user.email,  # another user's name with this user's challenge
        ):
            challenge = await _challenge(client, email)
            guessed = await answer(
                client, {**challenge, "username": spelling}, two_step.wrong_code()
            )
            _locked(guessed)
        # Nobody else was locked by them: the bystander signs in with their code.
        challenge = await _challenge(client, bystander.user.email)
        signed = await answer(client, challenge, await theirs.code())
        assert signed.status_code == 200, signed.text

    async def test_re_authentication_counts_and_is_locked_too(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        for _ in range(LOCK_AFTER):
            wrong = await client.post(
                "/web/two-step-sign-in/disable",
                headers=user.headers,
                json={"password": PASSWORD, "code": two_step.wrong_code()},
            )
            assert wrong.status_code == 400, wrong.text
        # The password backoff of this email and address (SIGN_IN_BACKOFF_BASE_S) runs out...
        await asyncio.sleep(2.5)
        # ...the code step's lock does not.
        _locked(
            await answer(client, await _challenge(client, user.user.email), two_step.wrong_code())
        )
        _locked(
            await client.post(
                "/web/two-step-sign-in/recovery-codes",
                headers=user.headers,
                json={"password": PASSWORD, "code": await two_step.code()},
            )
        )

    async def test_a_parallel_burst_gets_no_more_tries(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        await _guess(client, user, two_step, LOCK_AFTER - 1)
        challenges = [await _challenge(client, user.user.email) for _ in range(6)]
        answers = await asyncio.gather(
            *(answer(client, challenge, two_step.wrong_code()) for challenge in challenges)
        )
        statuses = sorted(response.status_code for response in answers)
        assert statuses == [400] + [429] * 5, [response.text for response in answers]

    async def test_counts_below_the_lock_never_refuse_a_request_a_moment_older(
        self, app: FastAPI, make_user: MakeUser
    ) -> None:
        # Two requests at once: the one that read the clock first may count second.
        user = await make_user()
        guard = CodeGuard.of(app.state.resources.rate_limiter, app.state.settings)
        now = datetime.now(UTC)
        await guard._claim_failure(user.user.id, now)
        await guard._claim_failure(user.user.id, now - timedelta(milliseconds=5))

    async def test_only_a_right_code_clears_the_count(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        await _guess(client, user, two_step, LOCK_AFTER)
        await _lift_lock(app, user)
        # The wait is over, but the count stands: one more wrong code locks again.
        await _guess(client, user, two_step, 1)
        _locked(
            await answer(client, await _challenge(client, user.user.email), two_step.wrong_code())
        )
        await _lift_lock(app, user)
        signed = await answer(
            client, await _challenge(client, user.user.email), await two_step.code()
        )
        assert signed.status_code == 200, signed.text
        # A right code starts the count again.
        await _guess(client, user, two_step, LOCK_AFTER - 1)
        signed = await answer(
            client, await _challenge(client, user.user.email), await two_step.code()
        )
        assert signed.status_code == 200, signed.text


class TestACodeWorksOnce:
    async def test_the_same_code_twice_at_sign_in(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        code = await two_step.code()
        first = await answer(client, await _challenge(client, user.user.email), code)
        assert first.status_code == 200, first.text
        again = await answer(client, await _challenge(client, user.user.email), code)
        assert again.status_code == 400, again.text
        assert again.json() == USED
        # A new code of the app works, and the replay did not count as a wrong code.
        fresh = await answer(
            client, await _challenge(client, user.user.email), await two_step.code()
        )
        assert fresh.status_code == 200, fresh.text

    async def test_the_same_code_twice_at_once(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        code = await two_step.code()
        challenges = [await _challenge(client, user.user.email) for _ in range(2)]
        answers = await asyncio.gather(*(answer(client, c, code) for c in challenges))
        assert sorted(response.status_code for response in answers) == [200, 400], [
            (r.text, r.headers.get("Retry-After")) for r in answers
        ]
        assert [r.json() for r in answers if r.status_code == 400] == [USED]

    async def test_the_code_that_confirmed_the_set_up(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        (set_up_code,) = two_step.used
        replayed = await answer(client, await _challenge(client, user.user.email), set_up_code)
        assert replayed.status_code == 400, replayed.text
        assert replayed.json() == USED

    async def test_a_code_used_to_re_authenticate(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        two_step = await enabled_user(client, user)
        code = await two_step.code()
        regenerated = await client.post(
            "/web/two-step-sign-in/recovery-codes",
            headers=user.headers,
            json={"password": PASSWORD, "code": code},
        )
        assert regenerated.status_code == 200, regenerated.text
        disabled = await client.post(
            "/web/two-step-sign-in/disable",
            headers=user.headers,
            json={"password": PASSWORD, "code": code},
        )
        assert disabled.status_code == 400, disabled.text
        assert disabled.json() == USED
        replayed = await answer(client, await _challenge(client, user.user.email), code)
        assert replayed.status_code == 400, replayed.text
        assert replayed.json() == USED


class TestSetUpNeedsAVerifiedEmail:
    async def test_an_unverified_address_cannot_start_or_confirm_it(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        started = await client.post("/web/two-step-sign-in/setup", headers=user.headers)
        assert started.status_code == 200, started.text
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(
                update(User).where(User.id == user.user.id).values(email_verified=False)
            )
        refusal = {
            "code": "EmailVerificationRequired",
            "message": "Verify your email address first: enter the code we sent to "
            f"{user.user.email}.",
        }
        for path in ("/web/two-step-sign-in/setup", "/web/two-step-sign-in/setup/confirm"):
            refused = await client.post(path, headers=user.headers, json={"code": "123456"})
            assert refused.status_code == 403, refused.text
            assert refused.json() == refusal
        status = await client.get("/web/two-step-sign-in", headers=user.headers)
        assert status.json()["twoStepSignIn"]["enabled"] is False
