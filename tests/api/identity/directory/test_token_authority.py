"""A SCIM token acts with the authority of the user who generated it, capped at that user's
current role (README "Directory sync (SCIM)", "Roles and invitations"): the attacks an Admin
could make through a token of their own, each refused; and a token whose creator was removed
or demoted below Admin stops."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from api.models import Role, User
from tests.api.conftest import MakeUser, SignedIn, mails_to
from tests.api.identity.directory.conftest import (
    Directory,
    MakeDirectory,
    generate_token,
    scim_error,
)

GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"


async def _admin_directory(
    client: httpx.AsyncClient, make_user: MakeUser
) -> tuple[SignedIn, SignedIn, Directory]:
    """An account with an Owner and an Admin, and a SCIM token the Admin generated."""
    owner = await make_user(account_name="Held Roles")
    admin = await make_user(account=owner.account, role=Role.ADMIN)
    return owner, admin, Directory(admin, await generate_token(client, admin), client)


async def _role(app: FastAPI, user: SignedIn) -> Role | None:
    async with app.state.resources.sessionmaker() as db:
        return await db.scalar(select(User.role).where(User.id == user.user.id))


async def _mapped_group(
    client: httpx.AsyncClient,
    directory: Directory,
    owner: SignedIn,
    name: str,
    role: str,
    *members: str,
) -> str:
    """A group the directory made, with ``members``, that the Owner maps to ``role`` in User
    Management; its id."""
    created = await directory.request(
        "POST",
        "/Groups",
        {
            "schemas": [GROUP_SCHEMA],
            "displayName": name,
            "members": [{"value": m} for m in members],
        },
    )
    assert created.status_code == 201, created.text
    group_id: str = created.json()["id"]
    mapped = await client.put(
        f"/web/scim-groups/{group_id}/role", headers=owner.headers, json={"role": role}
    )
    assert mapped.status_code == 200, mapped.text
    return group_id


async def test_an_admins_token_cannot_put_anyone_in_owners(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner, admin, directory = await _admin_directory(client, make_user)
    owners = await _mapped_group(client, directory, owner, "Owners", "Owner", str(owner.user.id))
    for operation in (
        {"op": "add", "path": "members", "value": [{"value": str(admin.user.id)}]},
        {"op": "Add", "path": "members", "value": [{"value": str(admin.user.id)}]},
        {"op": "replace", "path": "members", "value": [{"value": str(admin.user.id)}]},
    ):
        response = await directory.patch(f"/Groups/{owners}", operation)
        scim_error(response, 403)
    put = await directory.request(
        "PUT",
        f"/Groups/{owners}",
        {
            "schemas": [GROUP_SCHEMA],
            "displayName": "Owners",
            "members": [{"value": str(owner.user.id)}, {"value": str(admin.user.id)}],
        },
    )
    scim_error(put, 403)
    assert await _role(app, admin) is Role.ADMIN


async def test_an_admins_token_cannot_touch_an_owner(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner, _, directory = await _admin_directory(client, make_user)
    second = await make_user(account=owner.account, role=Role.OWNER)
    owner_id = str(second.user.id)
    first_id = str(owner.user.id)
    admins = await _mapped_group(client, directory, owner, "Admins", "Admin")
    owners = await _mapped_group(client, directory, owner, "Owners", "Owner", first_id)
    # An Owner in no mapped group, put in a group mapped to Admin: that would demote them.
    demote = await directory.patch(
        f"/Groups/{admins}", {"op": "add", "path": "members", "value": [{"value": owner_id}]}
    )
    scim_error(demote, 403)
    remove = await directory.patch(
        f"/Groups/{owners}", {"op": "remove", "path": f'members[value eq "{first_id}"]'}
    )
    scim_error(remove, 403)
    scim_error(await directory.request("DELETE", f"/Groups/{owners}"), 403)
    deactivate = await directory.patch(
        f"/Users/{owner_id}", {"op": "replace", "path": "active", "value": False}
    )
    scim_error(deactivate, 403)
    rename = await directory.patch(
        f"/Users/{owner_id}", {"op": "replace", "path": "name.givenName", "value": "Mallory"}
    )
    scim_error(rename, 403)
    delete = await directory.request("DELETE", f"/Users/{owner_id}")
    scim_error(delete, 403)
    assert await _role(app, second) is Role.OWNER
    assert (await client.get("/web/session", headers=second.headers)).status_code == 200


async def test_an_owners_token_manages_owners(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser, make_directory: MakeDirectory
) -> None:
    owner = await make_user(account_name="Owner Token")
    admin = await make_user(account=owner.account, role=Role.ADMIN)
    directory = await make_directory(owner)
    owners = await _mapped_group(client, directory, owner, "Owners", "Owner", str(owner.user.id))
    granted = await directory.patch(
        f"/Groups/{owners}",
        {"op": "add", "path": "members", "value": [{"value": str(admin.user.id)}]},
    )
    assert granted.status_code == 200, granted.text
    assert await _role(app, admin) is Role.OWNER


async def test_a_token_stops_when_its_creator_is_removed_or_demoted(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner, admin, directory = await _admin_directory(client, make_user)
    assert (await directory.request("GET", "/Users")).status_code == 200
    demoted = await client.put(
        f"/web/users/{admin.user.id}",
        headers=owner.headers,
        json={"firstName": "Test", "lastName": "User", "role": "Member"},
    )
    assert demoted.status_code == 200, demoted.text
    scim_error(await directory.request("GET", "/Users"), 401)

    second_admin = await make_user(account=owner.account, role=Role.ADMIN)
    token = await generate_token(client, second_admin)
    second = Directory(second_admin, token, client)
    assert (await second.request("GET", "/Users")).status_code == 200
    removed = await client.delete(f"/web/users/{second_admin.user.id}", headers=owner.headers)
    assert removed.status_code == 204, removed.text
    scim_error(await second.request("GET", "/Users"), 401)


async def test_every_owner_is_told_when_a_token_is_generated(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user(account_name="Told Co")
    second = await make_user(account=owner.account, role=Role.OWNER)
    admin = await make_user(account=owner.account, role=Role.ADMIN)
    await generate_token(client, admin)
    for who in (owner, second):
        [notice] = await mails_to(client, who.user.email)
        assert notice["subject"] == "A SCIM token was generated (Told Co)", notice
        assert f"Done by: Test User <{admin.user.email}>" in notice["body"], notice
        assert "(Admin)" in notice["body"], notice
    assert await mails_to(client, admin.user.email, wait_s=0.5) == []
