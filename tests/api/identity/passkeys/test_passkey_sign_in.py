"""Signing in with a passkey (README "Passkeys"; docs/users/passkeys.md): through the API
only, at the passkey sign-in's confidential app client, refused as a password sign-in is by
the account's policy, two factors in one for its two-step requirement, and no way to learn
who has an account. Each attack below ran against the API before the rule that stops it
existed."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update

from api.adapters.cognito import CognitoClient, CognitoError
from api.identity.sign_in.app_client import (
    UnsafeAppClient,
    check_app_client,
    check_passkey_client,
)
from api.models import Account, AuditEvent, AuthType, User
from tests.api.conftest import MakeUser, SignedIn, unique_email
from tests.api.identity.mfa.support import set_up
from tests.api.identity.mfa.support import sign_in as password_sign_in
from tests.api.identity.passkeys.authenticator import SoftAuthenticator
from tests.api.identity.passkeys.support import ORIGIN, add_passkey, passkeys

NO_PASSKEY = (
    "There is no passkey for this email address. Sign in with your password, then add a "
    "passkey under Passkeys."
)


async def options_for(client: httpx.AsyncClient, email: str) -> httpx.Response:
    return await client.post("/web/session/passkey/options", json={"email": email})


async def answer(
    client: httpx.AsyncClient, email: str, started: dict[str, Any], credential: dict[str, Any]
) -> httpx.Response:
    return await client.post(
        "/web/session/passkey",
        json={"email": email, "session": started["session"], "credential": credential},
    )


async def passkey_sign_in(
    client: httpx.AsyncClient, email: str, key: SoftAuthenticator
) -> httpx.Response:
    """A whole passkey sign-in of ``email`` with ``key``, as the console's sign-in page does."""
    started = await options_for(client, email)
    assert started.status_code == 200, started.text
    credential = key.sign_in(started.json()["options"], origin=ORIGIN)
    return await answer(client, email, started.json(), credential)


def bearer(body: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {body['tokens']['accessToken']}"}


async def sign_in_methods(app: FastAPI, user: SignedIn) -> list[tuple[str, Any]]:
    async with app.state.resources.sessionmaker() as db:
        found = await db.execute(
            select(AuditEvent.action, AuditEvent.changes)
            .where(AuditEvent.account_id == user.account.id, AuditEvent.action.like("sign_in.%"))
            .order_by(AuditEvent.occurred_at)
        )
        return [(action, changes["method"]["to"]) for action, changes in found]


class TestNoSideDoor:
    """Cognito offers passkeys through USER_AUTH only, which also signs in with a password
    (docs/operators/security-model.md "No side door to Cognito")."""

    async def test_the_public_client_still_refuses_user_auth(
        self, cognito: CognitoClient, make_user: MakeUser
    ) -> None:
        # Attack: the public client's id (it is in the SPA) and a password, unsigned, through
        # USER_AUTH, past the console's checks and limits.
        user = await make_user()
        with pytest.raises(CognitoError) as refused:
            await cognito.call(
                "InitiateAuth",
                {
                    "AuthFlow": "USER_AUTH",
                    "ClientId": cognito.client_id,
                    "AuthParameters": {
                        "USERNAME": user.user.identity_id,
                        "PREFERRED_CHALLENGE": "PASSWORD",
                        "PASSWORD": user.password,
                    },
                },
                signed=False,
            )
        assert refused.value.code == "InvalidParameterException"
        check_app_client(await cognito.describe_app_client())

    @pytest.mark.parametrize("secret_hash", [None, "d3JvbmcgaGFzaA=="])
    async def test_the_passkey_client_wants_the_secret_only_the_api_has(
        self, cognito: CognitoClient, make_user: MakeUser, secret_hash: str | None
    ) -> None:
        # Attack: the passkey client's id (it is in every token it issues) and a password,
        # unsigned, without its secret.
        user = await make_user()
        parameters = {
            "USERNAME": user.user.identity_id,
            "PREFERRED_CHALLENGE": "PASSWORD",
            "PASSWORD": user.password,
        }
        if secret_hash is not None:
            parameters["SECRET_HASH"] = secret_hash
        with pytest.raises(CognitoError) as refused:
            await cognito.call(
                "InitiateAuth",
                {
                    "AuthFlow": "USER_AUTH",
                    "ClientId": cognito.passkey_client_id,
                    "AuthParameters": parameters,
                },
                signed=False,
            )
        assert refused.value.code == "NotAuthorizedException"
        assert "secret hash" in refused.value.message

    async def test_the_api_checks_the_passkey_client_at_start_up(
        self, cognito: CognitoClient
    ) -> None:
        client = await cognito.describe_app_client(cognito.passkey_client_id)
        check_passkey_client(client)
        for unsafe in [
            {"ClientSecret": None},
            {"ExplicitAuthFlows": [*client["ExplicitAuthFlows"], "ALLOW_USER_PASSWORD_AUTH"]},
            {"AllowedOAuthFlows": ["code"]},
            {"SupportedIdentityProviders": ["COGNITO"]},
        ]:
            with pytest.raises(UnsafeAppClient):
                check_passkey_client({**client, **unsafe})
        # The public client may never allow USER_AUTH, secret or not.
        public = await cognito.describe_app_client()
        with pytest.raises(UnsafeAppClient):
            check_app_client({**public, "ExplicitAuthFlows": ["ALLOW_USER_AUTH"]})


async def test_a_passkey_signs_in_like_a_password_and_its_tokens_work(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    user = await make_user()
    key, view = await add_passkey(client, user)
    signed_in = await passkey_sign_in(client, user.user.email, key)
    assert signed_in.status_code == 200, signed_in.text
    body = signed_in.json()
    assert body["challenge"] is None and body["twoStepSetupRequired"] is False
    assert "refresh_token" in signed_in.cookies
    session = await client.get("/web/session", headers=bearer(body))
    assert session.status_code == 200, session.text
    assert session.json()["session"]["user"]["id"] == str(user.user.id)
    sessions = await client.get("/web/sessions", headers=bearer(body))
    [current] = [s for s in sessions.json()["sessions"] if s["current"]]
    assert current["method"] == "passkey"
    assert await sign_in_methods(app, user) == [("sign_in.succeeded", "passkey")]
    [listed] = await passkeys(client, user)
    assert listed["id"] == view["id"] and listed["lastUsedAt"] is not None
    assert datetime.fromisoformat(listed["lastUsedAt"]) >= datetime.fromisoformat(
        listed["createdAt"]
    )

    # The refresh cookie refreshes (at the passkey client), and sign-out revokes it there.
    refreshed = await client.post("/web/session/refresh")
    assert refreshed.status_code == 200, refreshed.text
    assert (
        await client.get("/web/session", headers=bearer({"tokens": refreshed.json()}))
    ).status_code == 200
    signed_out = await client.post("/web/session/sign-out", headers=bearer(body))
    assert signed_out.status_code == 204, signed_out.text
    client.cookies.set("refresh_token", signed_in.cookies["refresh_token"], path="/web/session")
    again = await client.post("/web/session/refresh")
    assert again.status_code == 401, again.text


async def test_no_user_enumeration(client: httpx.AsyncClient, make_user: MakeUser) -> None:
    # Attack: tell who has an account (and who has a passkey) from the answers.
    without = await make_user()
    federated = await make_user(auth_type=AuthType.GOOGLE_SSO)
    answers = [
        await options_for(client, email)
        for email in (unique_email("nobody"), without.user.email, federated.user.email.upper())
    ]
    await make_user()
    for refused in answers:
        assert refused.status_code == 400, refused.text
        assert refused.json() == {"code": "NoPasskey", "message": NO_PASSKEY}
    # The answer step too: an email with no passkey, with a session of someone else's.
    user = await make_user()
    key, _ = await add_passkey(client, user)
    started = await options_for(client, user.user.email)
    credential = key.sign_in(started.json()["options"], origin=ORIGIN)
    others = [
        await answer(client, email, started.json(), credential)
        for email in (unique_email("nobody"), without.user.email)
    ]
    assert others[0].status_code == others[1].status_code == 400, others[0].text
    assert others[0].json() == others[1].json()


async def test_forged_replayed_and_deleted_passkeys_are_refused(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    user = await make_user()
    key, _ = await add_passkey(client, user, "Laptop")
    spare, spare_view = await add_passkey(client, user, "Spare")
    email = user.user.email

    # A forged signature (another key, the passkey's id).
    started = (await options_for(client, email)).json()
    forged = await answer(
        client,
        email,
        started,
        key.sign_in(started["options"], origin=ORIGIN, key=SoftAuthenticator().key),
    )
    assert forged.status_code == 400, forged.text
    assert forged.json()["code"] == "NotAuthorizedException"
    # Another site's assertion (phishing origin).
    started = (await options_for(client, email)).json()
    phished = await answer(
        client, email, started, key.sign_in(started["options"], origin="https://evil.example")
    )
    assert phished.status_code == 400, phished.text
    # A good one, then the same again (a replay), in its session and in a new one.
    started = (await options_for(client, email)).json()
    good = key.sign_in(started["options"], origin=ORIGIN)
    assert (await answer(client, email, started, good)).status_code == 200
    replayed = await answer(client, email, started, good)
    assert replayed.status_code == 400, replayed.text
    fresh = (await options_for(client, email)).json()
    assert (await answer(client, email, fresh, good)).status_code == 400
    # A removed passkey signs in no more.
    removed = await client.delete(f"/web/passkeys/{spare_view['id']}", headers=user.headers)
    assert removed.status_code == 204, removed.text
    started = (await options_for(client, email)).json()
    gone = await answer(client, email, started, spare.sign_in(started["options"], origin=ORIGIN))
    assert gone.status_code == 400, gone.text
    assert gone.json()["code"] == "NotAuthorizedException"
    methods = await sign_in_methods(app, user)
    assert methods.count(("sign_in.failed", "passkey")) == 5
    assert methods.count(("sign_in.succeeded", "passkey")) == 1


@pytest.mark.parametrize(
    ("requirement", "code"),
    [("require_google_sso", "MustSignInWithGoogle"), ("require_saml_sso", "MustSignInWithSso")],
)
async def test_an_account_that_requires_sso_refuses_it_as_a_password(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser, requirement: str, code: str
) -> None:
    user = await make_user()
    key, _ = await add_passkey(client, user)
    started = (await options_for(client, user.user.email)).json()
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(Account).where(Account.id == user.account.id).values({requirement: True})
        )
    by_password = await password_sign_in(client, user.user.email)
    refused = await options_for(client, user.user.email)
    assert refused.status_code == by_password.status_code == 400, refused.text
    assert refused.json() == by_password.json()
    assert refused.json()["code"] == code
    # A challenge opened before the requirement is refused at the answer too.
    answered = await answer(
        client, user.user.email, started, key.sign_in(started["options"], origin=ORIGIN)
    )
    assert answered.json() == by_password.json()


async def test_deactivated_users_are_refused(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    user = await make_user()
    await add_passkey(client, user)
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(User).where(User.id == user.user.id).values(deactivated_at=func.now())
        )
    refused = await options_for(client, user.user.email)
    by_password = await password_sign_in(client, user.user.email)
    assert refused.status_code == by_password.status_code == 401, refused.text
    assert refused.json() == by_password.json()
    assert refused.json()["code"] == "AccessDeactivated"


async def test_a_lapsed_invitation_is_refused(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    # An invitee who never signed in through the console, whose invitation lapsed (their
    # passkey added here before it did, as a stand-in for any way one could exist).
    user = await make_user()
    await add_passkey(client, user)
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(User)
            .where(User.id == user.user.id)
            .values(
                invited_at=func.now() - timedelta(days=8),
                signed_in_at=None,
                invitation_expires_at=func.now() - timedelta(days=1),
            )
        )
    refused = await options_for(client, user.user.email)
    by_password = await password_sign_in(client, user.user.email)
    assert refused.status_code == by_password.status_code, refused.text
    assert refused.json() == by_password.json()
    assert refused.json()["code"] == "InvitationExpired"


async def test_it_satisfies_the_accounts_two_step_requirement(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    user = await make_user()
    key, _ = await add_passkey(client, user)
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(Account)
            .where(Account.id == user.account.id)
            .values(two_step_required_at=func.now())
        )
    # A password sign-in must set up an authenticator app first...
    by_password = await password_sign_in(client, user.user.email)
    assert by_password.json()["twoStepSetupRequired"] is True
    limited = await client.get("/web/account", headers=bearer(by_password.json()))
    assert limited.json()["code"] == "TwoStepSetupRequired"
    # ... a passkey is two factors in one: no set-up, no code.
    signed_in = await passkey_sign_in(client, user.user.email, key)
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["twoStepSetupRequired"] is False
    account = await client.get("/web/account", headers=bearer(signed_in.json()))
    assert account.status_code == 200, account.text
    refreshed = await client.post("/web/session/refresh")
    assert refreshed.status_code == 200, refreshed.text
    again = await client.get("/web/account", headers=bearer({"tokens": refreshed.json()}))
    assert again.status_code == 200, again.text


async def test_with_two_step_sign_in_on_a_passkey_needs_no_code(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    user = await make_user()
    two_step = await set_up(client, user.headers)
    key, _ = await add_passkey(client, user, code=await two_step.code())
    signed_in = await passkey_sign_in(client, user.user.email, key)
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["tokens"]["accessToken"]
    assert signed_in.json()["challenge"] is None


async def test_a_passkey_registered_with_an_access_token_alone_is_refused(
    client: httpx.AsyncClient, cognito: CognitoClient, make_user: MakeUser
) -> None:
    # Attack: a stolen access token (no password) registers the attacker's passkey, through
    # the API with a challenge it asked Cognito for, or at Cognito directly, then signs in.
    user = await make_user()
    key = SoftAuthenticator()
    options = await cognito.start_web_authn_registration(user.access_token)
    through_api = await client.post(
        "/web/passkeys",
        headers=user.headers,
        json={"credential": key.register(options, origin=ORIGIN), "name": "Attacker"},
    )
    assert through_api.status_code == 400, through_api.text
    assert through_api.json()["code"] == "PasskeyRefused"
    options = await cognito.start_web_authn_registration(user.access_token)
    await cognito.complete_web_authn_registration(
        user.access_token, key.register(options, origin=ORIGIN)
    )
    # Listed, so its owner sees it and removes it; never the console's.
    assert [p["id"] for p in await passkeys(client, user)] == [key.id]
    renamed = await client.patch(
        f"/web/passkeys/{key.id}", headers=user.headers, json={"name": "Mine now"}
    )
    assert renamed.status_code == 404, renamed.text
    refused = await passkey_sign_in(client, user.user.email, key)
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "NotAuthorizedException"
    removed = await client.delete(f"/web/passkeys/{key.id}", headers=user.headers)
    assert removed.status_code == 204, removed.text
