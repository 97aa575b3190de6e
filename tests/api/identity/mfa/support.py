"""Helpers of the two-step sign-in tests: set it up through the API as the console does, and
compute authenticator-app codes with pyotp (RFC 6238) from the secret Cognito gave."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import httpx
import pyotp
from fastapi import FastAPI
from sqlalchemy import func, update

from api.models import Account
from tests.api.conftest import PASSWORD, SignedIn

STEP_S = 30  # RFC 6238's time step, as authenticator apps and Cognito use it


@dataclass
class TwoStep:
    """A user's authenticator secret, recovery codes and the codes used so far (a code works
    once: README "Two-step sign-in")."""

    secret: str
    recovery_codes: list[str]
    used: set[str] = field(default_factory=set)

    async def code(self) -> str:
        """A code the authenticator shows now that was not used yet: this step's, else the
        next step's (Cognito forgives one step of drift), else this step's again once the
        next step begins. Marked used."""
        totp = pyotp.TOTP(self.secret)
        while True:
            now = time.time()
            for code in (totp.at(now), totp.at(now + STEP_S)):
                if code not in self.used:
                    self.used.add(code)
                    return code
            await asyncio.sleep(STEP_S - now % STEP_S + 0.05)

    def wrong_code(self) -> str:
        right = pyotp.TOTP(self.secret).now()
        return f"{(int(right) + 500_000) % 1_000_000:06d}"


async def set_up(client: httpx.AsyncClient, headers: dict[str, str]) -> TwoStep:
    """Set up two-step sign-in with the tokens of ``headers``."""
    started = await client.post("/web/two-step-sign-in/setup", headers=headers)
    assert started.status_code == 200, started.text
    secret = started.json()["secretCode"]
    code = pyotp.TOTP(secret).now()
    confirmed = await client.post(
        "/web/two-step-sign-in/setup/confirm", headers=headers, json={"code": code}
    )
    assert confirmed.status_code == 200, confirmed.text
    return TwoStep(secret, confirmed.json()["recoveryCodes"], {code})


async def sign_in(
    client: httpx.AsyncClient, email: str, password: str = PASSWORD
) -> httpx.Response:
    return await client.post("/web/session/sign-in", json={"email": email, "password": password})


async def answer(client: httpx.AsyncClient, challenge: dict[str, str], code: str) -> httpx.Response:
    return await client.post(
        "/web/session/two-step-code",
        json={"username": challenge["username"], "session": challenge["session"], "code": code},
    )


async def recover(
    client: httpx.AsyncClient, email: str, code: str, password: str = PASSWORD
) -> httpx.Response:
    return await client.post(
        "/web/session/recovery-code",
        json={"email": email, "password": password, "recoveryCode": code},
    )


def bearer(response: httpx.Response) -> dict[str, str]:
    return {"Authorization": f"Bearer {response.json()['tokens']['accessToken']}"}


async def require_two_step(app: FastAPI, account: Account) -> None:
    """Require two-step sign-in of the account from now on, directly in the database."""
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(Account).where(Account.id == account.id).values(two_step_required_at=func.now())
        )


async def next_second() -> None:
    """Wait until the wall clock's second changes (duties count whole seconds)."""
    now = time.time()
    await asyncio.sleep(1.01 - (now - int(now)))


async def enabled_user(client: httpx.AsyncClient, user: SignedIn) -> TwoStep:
    """``user`` with two-step sign-in on."""
    return await set_up(client, user.headers)
