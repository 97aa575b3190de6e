"""SCIM Groups: the three fixed groups Owners, Admins and Members, whose membership is a
user's role (README "Directory sync (SCIM)", "Roles and invitations"), with the last-Owner
guard."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from api.models import AuditEvent, Role
from tests.api.conftest import MakeUser
from tests.api.scim.conftest import MakeDirectory, scim_error

GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"


async def _role(client: httpx.AsyncClient, headers: dict[str, str], user_id: str) -> str:
    users = (await client.get("/web/account", headers=headers)).json()["account"]["users"]
    role: str = next(u["role"] for u in users if u["id"] == user_id)
    return role


async def test_the_groups_are_the_roles(make_directory: MakeDirectory) -> None:
    directory = await make_directory()
    listed = (await directory.request("GET", "/Groups")).json()
    assert [g["displayName"] for g in listed["Resources"]] == ["Owners", "Admins", "Members"]
    owners = next(g for g in listed["Resources"] if g["displayName"] == "Owners")
    assert [m["value"] for m in owners["members"]] == [str(directory.owner.user.id)]
    found = await directory.request("GET", "/Groups", params={"filter": 'displayName eq "Admins"'})
    assert [g["id"] for g in found.json()["Resources"]] == ["admins"]
    slim = await directory.request("GET", "/Groups", params={"excludedAttributes": "members"})
    assert all("members" not in g for g in slim.json()["Resources"])
    scim_error(await directory.request("GET", "/Groups/engineering"), 404)


async def test_membership_sets_the_role_in_okta_and_entra_forms(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()
    user = await directory.create(directory.email())
    headers = directory.owner.headers
    # Entra ID: Add members with a value list.
    added = await directory.patch(
        "/Groups/admins", {"op": "Add", "path": "members", "value": [{"value": user["id"]}]}
    )
    assert added.status_code == 200, added.text
    assert user["id"] in {m["value"] for m in added.json()["members"]}
    assert await _role(client, headers, user["id"]) == "Admin"
    # Entra ID: Remove with a value (no filter in the path).
    removed = await directory.patch(
        "/Groups/admins", {"op": "Remove", "path": "members", "value": [{"value": user["id"]}]}
    )
    assert removed.status_code == 200, removed.text
    assert await _role(client, headers, user["id"]) == "Member"
    # Okta: add, then remove with a filter in the path.
    await directory.patch(
        "/Groups/owners",
        {"op": "add", "path": "members", "value": [{"value": user["id"], "display": "x"}]},
    )
    assert await _role(client, headers, user["id"]) == "Owner"
    okta = await directory.patch(
        "/Groups/owners", {"op": "remove", "path": f'members[value eq "{user["id"]}"]'}
    )
    assert okta.status_code == 200, okta.text
    assert await _role(client, headers, user["id"]) == "Member"
    async with app.state.resources.sessionmaker() as db:
        actions = (
            await db.execute(
                select(AuditEvent.actor_name, AuditEvent.action).where(
                    AuditEvent.account_id == directory.owner.account.id,
                    AuditEvent.action == "user.role_changed",
                )
            )
        ).all()
    assert len(actions) == 4 and {name for name, _ in actions} == {"Directory sync"}


async def test_the_last_owner_stays_an_owner(
    client: httpx.AsyncClient, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()
    owner_id = str(directory.owner.user.id)
    removed = await directory.patch(
        "/Groups/owners", {"op": "remove", "path": f'members[value eq "{owner_id}"]'}
    )
    detail = scim_error(removed, 400, "mutability")
    assert detail == "An account needs at least one Owner. Make another user an Owner first."
    demoted = await directory.patch(
        "/Groups/admins", {"op": "add", "path": "members", "value": [{"value": owner_id}]}
    )
    scim_error(demoted, 400, "mutability")
    emptied = await directory.request(
        "PUT", "/Groups/owners", {"schemas": [GROUP_SCHEMA], "displayName": "Owners", "members": []}
    )
    scim_error(emptied, 400, "mutability")
    assert await _role(client, directory.owner.headers, owner_id) == "Owner"
    # With a second Owner, the first may go.
    other = await directory.create(directory.email())
    await directory.patch(
        "/Groups/owners", {"op": "add", "path": "members", "value": [{"value": other["id"]}]}
    )
    replaced = await directory.request(
        "PUT",
        "/Groups/owners",
        {"schemas": [GROUP_SCHEMA], "displayName": "Owners", "members": [{"value": other["id"]}]},
    )
    assert replaced.status_code == 200, replaced.text
    assert [m["value"] for m in replaced.json()["members"]] == [other["id"]]


async def test_members_of_another_account_and_group_changes_are_refused(
    make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    directory = await make_directory()
    stranger = await make_user(role=Role.MEMBER)
    foreign = await directory.patch(
        "/Groups/admins",
        {"op": "add", "path": "members", "value": [{"value": str(stranger.user.id)}]},
    )
    scim_error(foreign, 400, "invalidValue")
    renamed = await directory.patch(
        "/Groups/admins", {"op": "replace", "path": "displayName", "value": "Root"}
    )
    scim_error(renamed, 400, "mutability")
    exists = await directory.request(
        "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": "Admins"}
    )
    scim_error(exists, 409, "uniqueness")
    other = await directory.request(
        "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": "Engineering"}
    )
    scim_error(other, 400, "mutability")
    scim_error(await directory.request("DELETE", "/Groups/members"), 400, "mutability")
