"""A directory's change of someone's work email (README "Directory sync (SCIM)"), as Okta and
Entra ID send it in their own documentation's request bodies: the console's user, the pool
user's ``email``, the audit log and password sign-in follow, and the whole request is applied
or nothing of it is."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from api.adapters.cognito import CognitoClient, CognitoUnavailable
from api.models import AuditEvent, AuthType, Role, User
from tests.api.conftest import MakeUser, SignedIn, google_sso_for, mails_to, unique_domain
from tests.api.identity.directory.conftest import (
    USER_SCHEMA,
    Directory,
    MakeDirectory,
    generate_token,
    scim_error,
)

NEW_PASSWORD = "Renamed-user-42!"


async def _sign_in(client: httpx.AsyncClient, email: str, password: str) -> httpx.Response:
    return await client.post("/web/session/sign-in", json={"email": email, "password": password})


async def _row(app: FastAPI, user_id: str) -> User:
    async with app.state.resources.sessionmaker() as db:
        user = await db.get(User, user_id)
    assert user is not None
    return user


async def _edits(app: FastAPI, directory: Directory, user_id: str) -> list[dict[str, Any]]:
    async with app.state.resources.sessionmaker() as db:
        rows = await db.scalars(
            select(AuditEvent.changes)
            .where(
                AuditEvent.account_id == directory.owner.account.id,
                AuditEvent.action == "user.edited",
                AuditEvent.target_id == user_id,
            )
            .order_by(AuditEvent.occurred_at)
        )
        return [dict(c or {}) for c in rows]


async def _taken_over(directory: Directory, person: SignedIn) -> dict[str, Any]:
    """The directory takes over ``person`` (a console user of its domain) with a POST."""
    return await directory.create(
        person.user.email,
        name={"givenName": "Test", "familyName": "User"},
        externalId="00ujl29u0le5T6Aj10h7",
    )


def _okta_put(user_id: str, email: str, given: str) -> dict[str, Any]:
    """Okta's "Update a specific User (PUT)" body (Okta SCIM 2.0 reference), with its
    address, ids and names: Okta sends back what it read, changed, with ``groups``,
    ``middleName`` and ``display`` the console does not keep."""
    return {
        "schemas": [USER_SCHEMA],
        "id": user_id,
        "userName": email,
        "name": {"givenName": given, "middleName": "Excited", "familyName": "User"},
        "emails": [{"primary": True, "value": email, "type": "work", "display": email}],
        "active": True,
        "groups": [],
        "meta": {"resourceType": "User"},
        "externalId": "00ujl29u0le5T6Aj10h7",
    }


async def test_okta_renames_a_password_user_who_signed_in(
    app: FastAPI,
    client: httpx.AsyncClient,
    cognito: CognitoClient,
    make_directory: MakeDirectory,
    make_user: MakeUser,
) -> None:
    directory = await make_directory()
    person = await make_user(
        account=directory.owner.account, role=Role.MEMBER, email=directory.email("jane.doe")
    )
    old = person.user.email
    user = await _taken_over(directory, person)
    new = directory.email("jane.smith")
    renamed = await directory.request(
        "PUT", f"/Users/{user['id']}", _okta_put(user["id"], new, "Jane")
    )
    assert renamed.status_code == 200, renamed.text
    body = renamed.json()
    assert (body["userName"], body["emails"][0]["value"], body["name"]["givenName"]) == (
        new,
        new,
        "Jane",
    )
    row = await _row(app, user["id"])
    assert (row.email, row.first_name, row.email_verified) == (new, "Jane", True)
    # The pool user keeps its username (the address it was created with) and has the new
    # address, verified: reset codes and Cognito's own mail go there.
    assert row.identity_id == old
    pool_user = await cognito.admin_get_user(old)
    assert pool_user.attributes["email"] == new
    assert pool_user.attributes["email_verified"] == "true"
    # Their session goes on, and shows the new address.
    session = await client.get("/web/session", headers=person.headers)
    assert session.json()["session"]["user"]["email"] == new
    # They sign in with the new address; the old one signs nobody in.
    signed = await _sign_in(client, new, person.password)
    assert signed.status_code == 200, signed.text
    assert signed.json()["tokens"]["accessToken"]
    former = await _sign_in(client, old, person.password)
    assert former.status_code == 400
    assert former.json() == {
        "code": "NotAuthorizedException",
        "message": "Incorrect username or password.",
    }
    # Recorded as the directory's edit.
    assert {"email": {"from": old, "to": new}, "first_name": {"from": "Test", "to": "Jane"}} in (
        await _edits(app, directory, user["id"])
    )
    # A reset code for the new address reaches them.
    reset = await client.post("/web/session/forgot-password", json={"email": new})
    assert reset.status_code == 200, reset.text
    assert reset.json()["codeDelivery"]["attributeName"] == "email"
    # And back to the address they were created with: theirs again, the old one signs in.
    back = await directory.request(
        "PUT", f"/Users/{user['id']}", _okta_put(user["id"], old, "Jane")
    )
    assert back.status_code == 200, back.text
    assert (await _sign_in(client, old, person.password)).status_code == 200
    assert (await _sign_in(client, new, person.password)).status_code == 400


async def test_entra_renames_an_invited_user_who_accepts_at_the_new_address(
    app: FastAPI, client: httpx.AsyncClient, cognito: CognitoClient, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()
    old = directory.email("pending")
    user = await directory.create(old, name={"givenName": "Pen", "familyName": "Ding"})
    [invitation] = await mails_to(client, old)
    new = directory.email("updated")
    # Entra ID's "Update User [Multi-valued properties]" (Microsoft Entra's SCIM endpoint
    # tutorial), then "[Single-valued properties]".
    patched = await directory.patch(
        f"/Users/{user['id']}",
        {"op": "Replace", "path": 'emails[type eq "work"].value', "value": new},
        {"op": "Replace", "path": "name.familyName", "value": "updatedFamilyName"},
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["name"]["familyName"] == "updatedFamilyName"
    user_name = await directory.patch(
        f"/Users/{user['id']}", {"op": "Replace", "path": "userName", "value": new}
    )
    assert user_name.status_code == 200, user_name.text
    assert (await cognito.admin_get_user(old)).attributes["email"] == new
    # The temporary password the invitation sent, at the new address.
    signed = await _sign_in(client, new, invitation["temporaryPassword"])
    assert signed.status_code == 200, signed.text
    challenge = signed.json()["challenge"]
    assert challenge["name"] == "NEW_PASSWORD_REQUIRED"
    done = await client.post(
        "/web/session/complete-new-password",
        json={
            "username": challenge["username"],
            "session": challenge["session"],
            "newPassword": NEW_PASSWORD,
        },
    )
    assert done.status_code == 200, done.text
    listed = (await client.get("/web/account", headers=directory.owner.headers)).json()
    me = next(u for u in listed["account"]["users"] if u["id"] == user["id"])
    assert (me["email"], me["lastName"], me["status"]) == (new, "updatedFamilyName", "Active")
    # Entra ID's Add on the work email (it sends Add for a changed address too).
    newer = directory.email("added")
    added = await directory.patch(
        f"/Users/{user['id']}",
        {"op": "Add", "path": 'emails[type eq "work"].value', "value": newer},
    )
    assert added.status_code == 200, added.text
    assert (await _row(app, user["id"])).email == newer


async def test_a_rename_is_applied_whole_or_not_at_all(
    app: FastAPI,
    client: httpx.AsyncClient,
    cognito: CognitoClient,
    make_directory: MakeDirectory,
    make_user: MakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    directory = await make_directory()
    person = await make_user(
        account=directory.owner.account, role=Role.MEMBER, email=directory.email("whole")
    )
    user = await _taken_over(directory, person)
    taken = (await directory.create(directory.email("taken")))["userName"]
    early = await make_user(email=directory.email("early"))  # another account, our domain
    path = f"/Users/{user['id']}"

    def renaming(email: str, user_name: bool = True) -> list[dict[str, Any]]:
        return [
            {"op": "replace", "path": "name.givenName", "value": "Changed"},
            {"op": "replace", "path": "externalId", "value": "changed"},
            *([{"op": "replace", "path": "userName", "value": email}] if user_name else []),
            {"op": "replace", "path": 'emails[type eq "work"].value', "value": email},
        ]

    outside = await directory.patch(path, *renaming(f"whole@{unique_domain('outside')}"))
    assert directory.domain is not None
    assert directory.domain in scim_error(outside, 400, "invalidValue")
    scim_error(await directory.patch(path, *renaming(taken)), 409, "uniqueness")  # its userName
    # The address of a user of this account, or of another account at this account's domain:
    # one answer.
    in_use = await directory.patch(path, *renaming(taken, user_name=False))
    elsewhere = await directory.patch(path, *renaming(early.user.email, user_name=False))
    assert scim_error(in_use, 409, "uniqueness") == scim_error(elsewhere, 409, "uniqueness")
    # Cognito unreachable: nothing is kept either.
    real = cognito.admin_update_user_attributes

    async def unreachable(*_: object, **__: object) -> None:
        raise CognitoUnavailable("down")

    monkeypatch.setattr(cognito, "admin_update_user_attributes", unreachable)
    scim_error(await directory.patch(path, *renaming(directory.email("later"))), 503)
    monkeypatch.setattr(cognito, "admin_update_user_attributes", real)
    row = await _row(app, user["id"])
    assert (row.email, row.first_name, row.external_id) == (
        person.user.email,
        "Test",
        "00ujl29u0le5T6Aj10h7",
    )
    assert (row.directory_attributes or {})["userName"] == person.user.email
    assert (await cognito.admin_get_user(person.user.email)).attributes["email"] == (
        person.user.email
    )
    assert not [e for e in await _edits(app, directory, user["id"]) if "email" in e]
    assert (await _sign_in(client, person.user.email, person.password)).status_code == 200


async def test_an_admins_token_renames_no_owner(
    client: httpx.AsyncClient, make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    directory = await make_directory()
    owner = directory.owner
    admin = await make_user(account=owner.account, role=Role.ADMIN, email=directory.email("adm"))
    admins = Directory(admin, await generate_token(client, admin), client, directory.domain)
    second = await make_user(account=owner.account, email=directory.email("boss"))
    moved = await admins.patch(
        f"/Users/{second.user.id}",
        {"op": "replace", "path": 'emails[type eq "work"].value', "value": directory.email("x")},
    )
    scim_error(moved, 403)


async def test_a_single_sign_on_user_is_renamed_in_the_console(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    # No pool user yet (their first sign-in through the account's single sign-on makes it):
    # the console's row is all there is to rename.
    directory = await make_directory(await make_user(auth_type=AuthType.GOOGLE_SSO), verify=False)
    domain = unique_domain("sso")
    await google_sso_for(app, client, directory.owner, domain)
    user = await directory.create(f"before@{domain}")
    renamed = await directory.patch(
        f"/Users/{user['id']}",
        {"op": "replace", "value": {"userName": f"after@{domain}"}},
        {"op": "replace", "path": 'emails[type eq "work"].value', "value": f"after@{domain}"},
    )
    assert renamed.status_code == 200, renamed.text
    row = await _row(app, user["id"])
    assert (row.email, row.identity_id) == (f"after@{domain}", None)
