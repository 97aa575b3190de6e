"""SCIM Users (RFC 7644 3; README "Directory sync (SCIM)"): create, filters, pages, PUT,
PATCH in the forms Okta and Entra ID send, DELETE, and what each means for the console user:
Pending until the first sign-in, access ended at once by a deactivation, every change in the
audit log as 'Directory sync'."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event, select

from api.models import AuditEvent, AuthType, Role, User
from tests.api.conftest import MakeFederated, MakeUser, google_sso_for, mails_to, unique_domain
from tests.api.identity.directory.conftest import USER_SCHEMA, Directory, MakeDirectory, scim_error


async def _console_user(
    client: httpx.AsyncClient, directory: Directory, email: str
) -> dict[str, Any]:
    users = (await client.get("/web/account", headers=directory.owner.headers)).json()
    return next(u for u in users["account"]["users"] if u["email"] == email)


async def _actions(app: FastAPI, directory: Directory) -> list[tuple[str, str]]:
    async with app.state.resources.sessionmaker() as db:
        rows = await db.execute(
            select(AuditEvent.actor_name, AuditEvent.action)
            .where(AuditEvent.account_id == directory.owner.account.id)
            .order_by(AuditEvent.occurred_at)
        )
        return [(name, action) for name, action in rows]


async def test_a_provisioned_user_is_invited_and_pending(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()
    email = directory.email()
    created = await directory.create(
        email.upper(),
        name={"givenName": "Ada", "familyName": "Lovelace", "middleName": "ignored"},
        displayName="Ada L.",
        externalId="00u1abc",
        title="Countess",  # not kept: ignored (RFC 7643 3)
        active=True,
    )
    assert created["userName"] == email.upper()
    assert created["name"] == {"givenName": "Ada", "familyName": "Lovelace"}
    assert created["externalId"] == "00u1abc" and created["active"] is True
    assert created["meta"]["resourceType"] == "User"
    assert created["meta"]["location"].endswith(f"/scim/v2/Users/{created['id']}")
    assert "title" not in created
    user = await _console_user(client, directory, email)
    assert (user["firstName"], user["lastName"], user["role"], user["status"]) == (
        "Ada",
        "Lovelace",
        "Member",
        "Pending",
    )
    # The account uses email and password: SPEC's invite flow sends a temporary password.
    assert any(m.get("temporaryPassword") for m in await mails_to(client, email))
    assert ("Directory sync", "user.provisioned") in await _actions(app, directory)
    again = await directory.request(
        "POST",
        "/Users",
        {"schemas": [USER_SCHEMA], "userName": email, "emails": [{"value": email}]},
    )
    scim_error(again, 409, "uniqueness")


async def test_a_user_without_a_usable_email_is_refused(make_directory: MakeDirectory) -> None:
    directory = await make_directory()
    missing = await directory.request(
        "POST", "/Users", {"schemas": [USER_SCHEMA], "userName": "bob"}
    )
    scim_error(missing, 400, "invalidValue")
    bad = await directory.request(
        "POST",
        "/Users",
        {"schemas": [USER_SCHEMA], "userName": "bob", "emails": [{"value": "not an email"}]},
    )
    scim_error(bad, 400, "invalidValue")


async def test_an_existing_user_of_the_account_is_taken_over_by_email(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    directory = await make_directory()
    grace = await make_user(
        account=directory.owner.account, role=Role.ADMIN, email=directory.email("grace")
    )
    taken = await directory.create(
        grace.user.email,
        externalId="okta-grace",
        name={"givenName": "Grace", "familyName": "Hopper"},
    )
    assert taken["id"] == str(grace.user.id)
    user = await _console_user(client, directory, grace.user.email)
    assert (user["firstName"], user["role"], user["status"]) == ("Grace", "Admin", "Active")
    # Still signed in: a take-over changes who manages the user, not their access.
    assert (await client.get("/web/session", headers=grace.headers)).status_code == 200
    found = await directory.request(
        "GET", "/Users", params={"filter": 'externalId eq "okta-grace"'}
    )
    assert [r["id"] for r in found.json()["Resources"]] == [str(grace.user.id)]


@pytest.mark.parametrize(
    "expression",
    [
        'userName eq "{user_name}"',
        'userName eq "{user_name_upper}"',
        'externalId eq "{external_id}"',
        'emails[value eq "{email}"]',
        'emails.value eq "{email}"',
        'emails[type eq "work" and value eq "{email}"]',
        'userName eq "{user_name}" and externalId eq "{external_id}"',
        'userName eq "nobody@nowhere.dev" or externalId eq "{external_id}"',
        'userName eq "{user_name}" or emails[value eq "{email}"]',
    ],
)
async def test_each_filter_form_finds_the_user(
    make_directory: MakeDirectory, expression: str
) -> None:
    directory = await make_directory()
    email = directory.email()
    user_name = directory.email("login")
    external_id = f"ext-{secrets.token_hex(3)}"
    created = await directory.create(
        user_name,
        externalId=external_id,
        emails=[{"value": email, "type": "work", "primary": True}],
    )
    await directory.create(directory.email("other"))  # must not match
    text = expression.format(
        user_name=user_name, user_name_upper=user_name.upper(), external_id=external_id, email=email
    )
    found = await directory.request("GET", "/Users", params={"filter": text})
    assert found.status_code == 200, found.text
    assert found.json()["totalResults"] == 1, (text, found.json())
    assert found.json()["Resources"][0]["id"] == created["id"]
    # externalId is case-exact (RFC 7643 2.2): a different case is another id.
    if "externalId" in text and " or " not in text:
        wrong = await directory.request(
            "GET", "/Users", params={"filter": text.replace(external_id, external_id.upper())}
        )
        assert wrong.json()["totalResults"] == 0


@pytest.mark.parametrize(
    "expression", ["userName eq", 'title eq "x"', 'meta.created gt "2020-01-01"', 'userName zz "a"']
)
async def test_a_filter_the_console_cannot_evaluate_is_invalid_filter(
    make_directory: MakeDirectory, expression: str
) -> None:
    directory = await make_directory()
    scim_error(
        await directory.request("GET", "/Users", params={"filter": expression}),
        400,
        "invalidFilter",
    )


async def test_pages(make_directory: MakeDirectory) -> None:
    directory = await make_directory()
    for _ in range(4):
        await directory.create(directory.email("page"))
    everyone = (await directory.request("GET", "/Users")).json()
    assert everyone["totalResults"] == 5  # the Owner too
    ids = [r["id"] for r in everyone["Resources"]]
    first = (await directory.request("GET", "/Users", params={"startIndex": 1, "count": 2})).json()
    second = (await directory.request("GET", "/Users", params={"startIndex": 3, "count": 2})).json()
    last = (await directory.request("GET", "/Users", params={"startIndex": 5, "count": 2})).json()
    assert (first["startIndex"], first["itemsPerPage"], first["totalResults"]) == (1, 2, 5)
    assert [r["id"] for r in first["Resources"] + second["Resources"] + last["Resources"]] == ids
    assert last["itemsPerPage"] == 1
    beyond = (await directory.request("GET", "/Users", params={"startIndex": 9})).json()
    assert beyond["totalResults"] == 5 and beyond.get("Resources", []) == []
    counted = (await directory.request("GET", "/Users", params={"count": 0})).json()
    assert counted["totalResults"] == 5 and counted["itemsPerPage"] == 0
    only = (await directory.request("GET", "/Users", params={"attributes": "userName"})).json()
    assert set(only["Resources"][0]) == {"schemas", "id", "userName"}


async def test_okta_patch_shapes(client: httpx.AsyncClient, make_directory: MakeDirectory) -> None:
    directory = await make_directory()
    email = directory.email("okta")
    created = await directory.create(email, name={"givenName": "Oka", "familyName": "Ta"})
    path = f"/Users/{created['id']}"
    # Okta deactivates with a replace that has no path.
    off = await directory.patch(path, {"op": "replace", "value": {"active": False}})
    assert off.status_code == 200, off.text
    assert off.json()["active"] is False
    on = await directory.patch(
        path,
        {
            "op": "replace",
            "value": {"active": True, "name": {"givenName": "Okie", "familyName": "Ta"}},
        },
    )
    assert on.json()["active"] is True and on.json()["name"]["givenName"] == "Okie"
    assert (await _console_user(client, directory, email))["firstName"] == "Okie"


async def test_entra_patch_shapes(client: httpx.AsyncClient, make_directory: MakeDirectory) -> None:
    directory = await make_directory()
    email = directory.email("entra")
    created = await directory.create(email, name={"givenName": "En", "familyName": "Tra"})
    path = f"/Users/{created['id']}"
    # Entra ID: capitalised op names, paths, booleans as strings, filters in paths.
    patched = await directory.patch(
        path,
        {"op": "Replace", "path": "displayName", "value": "Entra User"},
        {"op": "Replace", "path": "name.familyName", "value": "Traa"},
        {"op": "Add", "path": "externalId", "value": "entra-1"},
        {"op": "Replace", "path": 'emails[type eq "work"].primary', "value": True},
        {
            "op": "Add",
            "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department",
            "value": "R&D",
        },
    )
    assert patched.status_code == 200, patched.text
    body = patched.json()
    assert (body["displayName"], body["name"]["familyName"], body["externalId"]) == (
        "Entra User",
        "Traa",
        "entra-1",
    )
    off = await directory.patch(path, {"op": "Replace", "path": "active", "value": "False"})
    assert off.status_code == 200, off.text
    assert off.json()["active"] is False
    assert (await _console_user(client, directory, email))["lastName"] == "Traa"
    removed = await directory.patch(path, {"op": "Remove", "path": "displayName"})
    assert "displayName" not in removed.json()
    scim_error(await directory.patch(path, {"op": "Remove", "path": "userName"}), 400, "mutability")
    scim_error(await directory.patch(path, {"op": "move", "path": "userName"}), 400, "invalidValue")


async def test_put_replaces(client: httpx.AsyncClient, make_directory: MakeDirectory) -> None:
    directory = await make_directory()
    email = directory.email("put")
    created = await directory.create(email)
    replaced = await directory.request(
        "PUT",
        f"/Users/{created['id']}",
        {
            "schemas": [USER_SCHEMA],
            "userName": email,
            "name": {"givenName": "Put", "familyName": "Person"},
            "emails": [{"value": email, "primary": True}],
            "active": True,
        },
    )
    assert replaced.status_code == 200, replaced.text
    assert replaced.json()["name"] == {"givenName": "Put", "familyName": "Person"}


async def test_a_user_name_in_use_is_refused_on_change(
    app: FastAPI, make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    directory = await make_directory()
    taken = directory.email("taken")
    await directory.create(taken)
    mine = directory.email("mine")
    created = await directory.create(mine)
    path = f"/Users/{created['id']}"

    def put(user_name: str) -> dict[str, Any]:
        return {
            "schemas": [USER_SCHEMA],
            "userName": user_name,
            "emails": [{"value": mine, "primary": True}],
        }

    # userName is unique in the account case-insensitively (RFC 7643 caseExact false).
    scim_error(
        await directory.patch(path, {"op": "replace", "path": "userName", "value": taken.upper()}),
        409,
        "uniqueness",
    )
    scim_error(await directory.request("PUT", path, put(taken)), 409, "uniqueness")
    # A user the directory does not manage reads their email as their userName.
    console = await make_user(account=directory.owner.account, email=directory.email("console"))
    scim_error(await directory.request("PUT", path, put(console.user.email)), 409, "uniqueness")
    # Their own userName in another case, and a free one, are theirs; an unchanged userName is
    # not looked up again (the lookup cannot use the unique index).
    statements: list[str] = []

    def seen(*args: object) -> None:
        statements.append(str(args[2]))

    engine = app.state.resources.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        kept = await directory.request("PUT", path, put(mine.upper()))
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert kept.status_code == 200, kept.text
    assert kept.json()["userName"] == mine.upper()
    assert not [sql for sql in statements if "lower(coalesce(" in sql], statements
    renamed = await directory.patch(path, {"op": "replace", "path": "userName", "value": "free"})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["userName"] == "free"


async def test_a_deactivation_ends_a_live_session_and_is_audited(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    directory = await make_directory()
    grace = await make_user(
        account=directory.owner.account, role=Role.MEMBER, email=directory.email("live")
    )
    assert (await client.get("/web/session", headers=grace.headers)).status_code == 200
    off = await directory.patch(
        f"/Users/{grace.user.id}", {"op": "replace", "path": "active", "value": False}
    )
    assert off.status_code == 200, off.text
    refused = await client.get("/web/session", headers=grace.headers)
    assert refused.status_code == 401 and refused.json()["code"] == "AccessDeactivated"
    # Refresh too: the policy runs before new tokens are handed out.
    client.cookies.set("refresh_token", grace.refresh_token)
    refresh = await client.post("/web/session/refresh")
    assert refresh.status_code == 401
    client.cookies.clear()
    # Password sign-in is refused as well.
    signed = await client.post(
        "/web/session/sign-in", json={"email": grace.user.email, "password": grace.password}
    )
    assert signed.status_code == 401 and signed.json()["code"] == "AccessDeactivated"
    on = await directory.patch(
        f"/Users/{grace.user.id}", {"op": "replace", "path": "active", "value": True}
    )
    assert on.json()["active"] is True
    again = await client.post(
        "/web/session/sign-in", json={"email": grace.user.email, "password": grace.password}
    )
    assert again.status_code == 200, again.text
    actions = await _actions(app, directory)
    assert ("Directory sync", "user.deactivated") in actions
    assert ("Directory sync", "user.reactivated") in actions


async def test_delete_removes_the_user_and_their_access(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    directory = await make_directory()
    gone = await make_user(
        account=directory.owner.account, role=Role.MEMBER, email=directory.email("gone")
    )
    deleted = await directory.request("DELETE", f"/Users/{gone.user.id}")
    assert deleted.status_code == 204
    scim_error(await directory.request("GET", f"/Users/{gone.user.id}"), 404)
    refused = await client.get("/web/session", headers=gone.headers)
    assert refused.status_code == 401 and refused.json()["code"] == "UserRemoved"
    assert ("Directory sync", "user.deleted") in await _actions(app, directory)
    # The last Owner stays.
    scim_error(
        await directory.request("DELETE", f"/Users/{directory.owner.user.id}"), 400, "mutability"
    )
    off = await directory.patch(
        f"/Users/{directory.owner.user.id}", {"op": "replace", "path": "active", "value": False}
    )
    scim_error(off, 400, "mutability")


async def test_a_provisioned_user_signs_in_with_google_and_lands_in_the_account(
    app: FastAPI,
    client: httpx.AsyncClient,
    make_directory: MakeDirectory,
    make_user: MakeUser,
    make_federated: MakeFederated,
) -> None:
    domain = unique_domain("sso")
    # The account requires Google SSO, so its Owner is a Google user.
    directory = await make_directory(await make_user(auth_type=AuthType.GOOGLE_SSO), verify=False)
    await google_sso_for(app, client, directory.owner, domain)
    email = f"new-{secrets.token_hex(3)}@{domain}"
    created = await directory.create(email, name={"givenName": "Gia", "familyName": "Google"})
    user = await _console_user(client, directory, email)
    assert (user["status"], user["authType"]) == ("Pending", "Google SSO")
    assert not await mails_to(client, email, expected=1, wait_s=0.5)  # no invitation email
    resend = await client.post(
        f"/web/users/{created['id']}/invitation", headers=directory.owner.headers
    )
    assert resend.status_code == 400 and resend.json()["code"] == "InvitationNotPending"

    fed = await make_federated(email)
    session = await client.get("/web/session", headers=fed.headers)
    assert session.status_code == 200, session.text  # no join step
    assert session.json()["session"]["user"]["id"] == created["id"]
    assert (await _console_user(client, directory, email))["status"] == "Active"

    # A personal Google account on the same address does not land anywhere.
    email2 = f"personal-{secrets.token_hex(3)}@{domain}"
    await directory.create(email2)
    personal = await make_federated(email2, hosted_domain="")
    stranger = await client.get("/web/session", headers=personal.headers)
    assert stranger.json()["code"] == "AccountRequired", stranger.text

    off = await directory.patch(
        f"/Users/{created['id']}", {"op": "replace", "path": "active", "value": False}
    )
    assert off.status_code == 200
    refused = await client.get("/web/session", headers=fed.headers)
    assert refused.status_code == 401 and refused.json()["code"] == "AccessDeactivated"
    async with app.state.resources.sessionmaker() as db:
        bound = await db.scalar(select(User).where(User.email == email))
    assert bound is not None and bound.identity_id == fed.username
