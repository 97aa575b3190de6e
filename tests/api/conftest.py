"""Fixtures of the API tests: the stand-in stack, the app with its lifespan, an HTTP client,
and a factory of signed-in users in fresh accounts (so every test owns its data)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI

from api.account.models import Account
from api.account.service import new_api_key
from api.adapters.cognito import CognitoClient
from api.devstack.stack import Stack, running_stack
from api.main import create_app
from api.users.models import AuthType, User

PASSWORD = "Correct-horse-42!"


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    with running_stack() as running:
        yield running


@pytest.fixture(scope="session")
async def app(stack: Stack) -> AsyncIterator[FastAPI]:
    application = create_app(stack.settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


@pytest.fixture
def cognito(app: FastAPI) -> CognitoClient:
    client: CognitoClient = app.state.cognito
    return client


@dataclass
class SignedIn:
    """A user in an account of its own, with an access token."""

    user: User
    account: Account
    access_token: str
    refresh_token: str
    password: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token}"}


MakeUser = Callable[..., Awaitable[SignedIn]]


def unique_email(prefix: str = "user") -> str:
    return f"{prefix}-{secrets.token_hex(4)}@example-corp.com"


@pytest.fixture
def make_user(app: FastAPI, cognito: CognitoClient) -> MakeUser:
    """Create an account (or use ``account``), a user in it, the pool user, and sign in."""

    async def make(
        *,
        account_name: str = "Test Account",
        account: Account | None = None,
        first_name: str = "Test",
        last_name: str = "User",
        email: str | None = None,
    ) -> SignedIn:
        email = email or unique_email()
        async with app.state.sessionmaker() as db, db.begin():
            if account is None:
                account = Account(
                    name=account_name,
                    api_key=new_api_key(),
                    unit_plan_requests=1000,
                    free_plan_requests=100,
                )
                db.add(account)
                await db.flush()
            user = User(
                account_id=account.id,
                identity_id=email,
                first_name=first_name,
                last_name=last_name,
                email=email,
                auth_type=AuthType.EMAIL,
            )
            db.add(user)
        await cognito.admin_create_user(
            email,
            {"email": email, "given_name": first_name, "family_name": last_name},
            suppress_message=True,
        )
        await cognito.admin_set_user_password(email, PASSWORD, permanent=True)
        result = await cognito.initiate_password_auth(email, PASSWORD)
        assert result.tokens is not None and result.tokens.refresh_token
        return SignedIn(
            user, account, result.tokens.access_token, result.tokens.refresh_token, PASSWORD
        )

    return make
