"""A person's own passkeys (README "Passkeys"): adding one needs a recent sign-in (the
password, and the code when two-step sign-in is on), and each is listed, renamed and removed
by its owner only: another person's passkey id is not found."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from api.adapters.cognito import CognitoClient
from api.models import AuditEvent, AuthType, Passkey
from tests.api.conftest import MakeUser, SignedIn
from tests.api.identity.access_tokens.test_access_tokens import bearer, make_token
from tests.api.identity.mfa.support import set_up
from tests.api.identity.passkeys.authenticator import SoftAuthenticator
from tests.api.identity.passkeys.support import ORIGIN, add_passkey, creation_options, passkeys


async def audit_events(app: FastAPI, user: SignedIn) -> list[tuple[str, str | None]]:
    async with app.state.resources.sessionmaker() as db:
        found = await db.execute(
            select(AuditEvent.action, AuditEvent.target_label)
            .where(AuditEvent.account_id == user.account.id, AuditEvent.action.like("passkey.%"))
            .order_by(AuditEvent.occurred_at)
        )
        return [(action, label) for action, label in found]


async def test_a_passkey_is_added_listed_renamed_and_removed(
    app: FastAPI, client: httpx.AsyncClient, cognito: CognitoClient, make_user: MakeUser
) -> None:
    user = await make_user()
    assert await passkeys(client, user) == []
    started = await creation_options(client, user)
    assert started.status_code == 200, started.text
    options = started.json()["options"]
    assert options["rp"]["id"] == "testserver"
    assert options["authenticatorSelection"]["userVerification"] == "required"
    before = time.time()
    key = SoftAuthenticator(attachment="cross-platform", transports=("usb",))
    added = await client.post(
        "/web/passkeys",
        headers=user.headers,
        json={"credential": key.register(options, origin=ORIGIN), "name": "  YubiKey 5  "},
    )
    assert added.status_code == 201, added.text
    view = added.json()["passkey"]
    assert view["id"] == key.id
    assert view["name"] == "YubiKey 5"  # trimmed
    assert view["authenticatorAttachment"] == "cross-platform"
    assert view["lastUsedAt"] is None
    assert [p.id for p in await cognito.list_web_authn_credentials(user.access_token)] == [key.id]
    [listed] = await passkeys(client, user)
    assert listed == view
    assert before - 1 <= datetime.fromisoformat(listed["createdAt"]).timestamp() <= time.time() + 1

    renamed = await client.patch(
        f"/web/passkeys/{key.id}", headers=user.headers, json={"name": "Desk key"}
    )
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["passkey"]["name"] == "Desk key"
    assert [p["name"] for p in await passkeys(client, user)] == ["Desk key"]

    removed = await client.delete(f"/web/passkeys/{key.id}", headers=user.headers)
    assert removed.status_code == 204, removed.text
    assert await passkeys(client, user) == []
    assert await cognito.list_web_authn_credentials(user.access_token) == []
    async with app.state.resources.sessionmaker() as db:
        rows = await db.scalars(select(Passkey).where(Passkey.credential_id == key.id))
        assert rows.all() == []
    assert await audit_events(app, user) == [
        ("passkey.added", f"YubiKey 5 ({user.user.email})"),
        ("passkey.removed", f"Desk key ({user.user.email})"),
    ]


async def test_adding_a_passkey_needs_the_password(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    user = await make_user()
    # Attack: a borrowed session (an unlocked laptop) adds the attacker's passkey.
    wrong = await client.post(
        "/web/passkey-registration", headers=user.headers, json={"password": "not-it-1A!"}
    )
    assert wrong.status_code == 400, wrong.text
    assert wrong.json()["code"] == "NotAuthorizedException"
    missing = await client.post("/web/passkey-registration", headers=user.headers, json={})
    assert missing.status_code == 422, missing.text
    # Completing without a registration the API started: Cognito holds no challenge.
    key = SoftAuthenticator()
    forged = {"challenge": "bm90LXN0YXJ0ZWQ", "rp": {"id": "testserver"}, "user": {"id": "eA"}}
    refused = await client.post(
        "/web/passkeys",
        headers=user.headers,
        json={"credential": key.register(forged, origin=ORIGIN), "name": "Mine"},
    )
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "PasskeyRefused"
    assert await passkeys(client, user) == []


async def test_with_two_step_sign_in_on_adding_a_passkey_needs_the_code(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    user = await make_user()
    two_step = await set_up(client, user.headers)
    password_only = await creation_options(client, user)
    assert password_only.status_code == 400, password_only.text
    assert password_only.json()["code"] == "TwoStepCodeRequired"
    wrong = await creation_options(client, user, two_step.wrong_code())
    assert wrong.status_code == 400, wrong.text
    assert wrong.json()["code"] == "CodeMismatchException"
    _, view = await add_passkey(client, user, code=await two_step.code())
    assert [p["id"] for p in await passkeys(client, user)] == [view["id"]]


async def test_federated_users_cannot_add_passkeys(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    user = await make_user(auth_type=AuthType.GOOGLE_SSO)
    refused = await creation_options(client, user)
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] == "PasskeysUnavailable"
    assert refused.json()["message"].startswith("Passkeys are for users who sign in with a")


async def test_names_are_checked_and_unique_per_user(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    user, other = await make_user(), await make_user()
    _, first = await add_passkey(client, user, "Phone")
    _, second = await add_passkey(client, user, "Laptop")
    await add_passkey(client, other, "Phone")  # another person's names are theirs

    taken = await client.patch(
        f"/web/passkeys/{second['id']}", headers=user.headers, json={"name": " Phone "}
    )
    assert taken.status_code == 409, taken.text
    assert taken.json()["code"] == "PasskeyNameTaken"
    same = await client.patch(
        f"/web/passkeys/{first['id']}", headers=user.headers, json={"name": "Phone"}
    )
    assert same.status_code == 200, same.text
    for name in ["", "   ", "x" * 61]:
        bad = await client.patch(
            f"/web/passkeys/{first['id']}", headers=user.headers, json={"name": name}
        )
        assert bad.status_code == 422, (name, bad.text)
    sixty = await client.patch(
        f"/web/passkeys/{first['id']}", headers=user.headers, json={"name": "x" * 60}
    )
    assert sixty.status_code == 200, sixty.text
    started = await creation_options(client, user)
    again = await client.post(
        "/web/passkeys",
        headers=user.headers,
        json={
            "credential": SoftAuthenticator().register(started.json()["options"], origin=ORIGIN),
            "name": "Laptop",
        },
    )
    assert again.status_code == 409, again.text
    assert [p["name"] for p in await passkeys(client, user)] == ["x" * 60, "Laptop"]


async def test_another_persons_passkey_is_not_found(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    # Attack: a second user (of the same account, an Owner too) renames or removes it.
    intruder = await make_user(account=owner.account)
    _, view = await add_passkey(client, owner)
    for method, body in [("PATCH", {"name": "Mine now"}), ("DELETE", None)]:
        answer = await client.request(
            method, f"/web/passkeys/{view['id']}", headers=intruder.headers, json=body
        )
        assert answer.status_code == 404, (method, answer.text)
        assert answer.json()["code"] == "PasskeyNotFound"
    assert await passkeys(client, intruder) == []
    assert [p["name"] for p in await passkeys(client, owner)] == ["MacBook"]
    missing = await client.delete("/web/passkeys/bm8tc3VjaA", headers=owner.headers)
    assert missing.status_code == 404, missing.text


async def test_anonymous_callers_and_access_tokens_are_refused(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    user = await make_user()
    secret, _ = await make_token(client, user, ["account:read", "users:write"])
    requests: list[tuple[str, str, dict[str, Any] | None]] = [
        ("GET", "/web/passkeys", None),
        ("POST", "/web/passkey-registration", {"password": user.password}),
        ("POST", "/web/passkeys", {"credential": {}, "name": "x"}),
        ("PATCH", "/web/passkeys/abc", {"name": "x"}),
        ("DELETE", "/web/passkeys/abc", None),
    ]
    for method, path, body in requests:
        anonymous = await client.request(method, path, json=body)
        assert anonymous.status_code == 401, (path, anonymous.text)
        token = await client.request(method, path, headers=bearer(secret), json=body)
        assert token.status_code == 403, (path, token.text)
        assert token.json()["code"] == "AccessTokenNotAccepted", path
