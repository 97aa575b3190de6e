"""Rows recorded as Google sign-ins on the username prefix alone are checked against Cognito."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from api.adapters.cognito import CognitoClient
from api.identity.sso.audit_federation import audit
from api.models import AuthType, User
from tests.api.conftest import MakeFederated, MakeUser


async def test_finds_and_fixes_a_native_user_recorded_as_google(
    app: FastAPI,
    client: httpx.AsyncClient,
    cognito: CognitoClient,
    make_user: MakeUser,
    make_federated: MakeFederated,
) -> None:
    # What the old prefix rule recorded: a native pool user named google_… as Google SSO.
    posing = await make_user(auth_type=AuthType.GOOGLE_SSO)
    # A real federated identity (the hosted-UI stand-in sets what Cognito sets).
    genuine = await make_federated()
    created = await client.post(
        "/web/sso-accounts/create",
        headers=genuine.headers,
        json={
            "accountName": "Genuine Co",
            "userFirstName": genuine.first_name,
            "userLastName": genuine.last_name,
            "userEmail": genuine.email,
            "userIdentityId": genuine.username,
        },
    )
    assert created.status_code == 204, created.text

    async with app.state.resources.sessionmaker() as db, db.begin():
        findings = await audit(db, cognito)
    flagged = {f.email: f for f in findings}
    assert posing.user.email in flagged
    assert flagged[posing.user.email].asserted is AuthType.EMAIL
    assert genuine.email not in flagged

    async with app.state.resources.sessionmaker() as db, db.begin():
        await audit(db, cognito, fix=True)
    async with app.state.resources.sessionmaker() as db:
        kinds = dict(
            (
                await db.execute(
                    select(User.email, User.auth_type).where(
                        User.email.in_([posing.user.email, genuine.email])
                    )
                )
            ).all()
        )
    assert kinds == {posing.user.email: AuthType.EMAIL, genuine.email: AuthType.GOOGLE_SSO}
