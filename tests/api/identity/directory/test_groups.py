"""SCIM Groups as directories send them (README "Directory sync (SCIM)"): any group, created,
renamed, replaced and deleted by the directory in Okta's and Entra ID's own request bodies;
the account maps each group to a role in User Management, and a person's role is the highest
of their mapped groups', under the membership rules (an Admin maps nobody to Owner, the last
Owner stays)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from api.models import AuditEvent, DirectoryGroup, DirectoryGroupMember, Role, User
from tests.api.conftest import MakeUser, SignedIn
from tests.api.identity.directory.conftest import (
    Directory,
    MakeDirectory,
    generate_token,
    scim_error,
)

GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"


async def _group(directory: Directory, name: str, *members: str) -> dict[str, Any]:
    response = await directory.request(
        "POST",
        "/Groups",
        {
            "schemas": [GROUP_SCHEMA],
            "displayName": name,
            "members": [{"value": m} for m in members],
        },
    )
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def _map(
    client: httpx.AsyncClient, by: SignedIn, group_id: str, role: str | None
) -> httpx.Response:
    return await client.put(
        f"/web/scim-groups/{group_id}/role", headers=by.headers, json={"role": role}
    )


async def _roles(client: httpx.AsyncClient, by: SignedIn) -> dict[str, str]:
    users = (await client.get("/web/account", headers=by.headers)).json()["account"]["users"]
    return {u["id"]: u["role"] for u in users}


async def _actions(app: FastAPI, account_id: uuid.UUID) -> list[tuple[str, str, str | None]]:
    async with app.state.resources.sessionmaker() as db:
        rows = await db.execute(
            select(AuditEvent.actor_name, AuditEvent.action, AuditEvent.target_label)
            .where(AuditEvent.account_id == account_id)
            .order_by(AuditEvent.occurred_at)
        )
        return [(name, action, label) for name, action, label in rows]


async def test_okta_pushes_renames_fills_and_unlinks_a_group(
    app: FastAPI, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()
    ada = await directory.create(
        directory.email("ada"), name={"givenName": "Ada", "familyName": "L"}
    )
    bob = await directory.create(directory.email("bob"))
    # Okta's Group Push (Okta SCIM 2.0 reference, "Create Groups").
    pushed = await directory.request(
        "POST",
        "/Groups",
        {"schemas": [GROUP_SCHEMA], "displayName": "Autostep Admins", "members": []},
    )
    assert pushed.status_code == 201, pushed.text
    group = pushed.json()
    assert uuid.UUID(group["id"]) and group["displayName"] == "Autostep Admins"
    assert group["meta"]["location"].endswith(f"/scim/v2/Groups/{group['id']}")
    path = f"/Groups/{group['id']}"
    # A second group of the name, in any case, is refused.
    twice = await directory.request(
        "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": "autostep admins"}
    )
    scim_error(twice, 409, "uniqueness")
    # "Update a specific Group name": a replace with the id and the new name in the value.
    renamed = await directory.patch(
        path, {"op": "replace", "value": {"id": group["id"], "displayName": "Autostep Admins EU"}}
    )
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["displayName"] == "Autostep Admins EU"
    # "Update specific Group membership": a remove by filter and an add, then a full replace.
    filled = await directory.patch(
        path,
        {"op": "remove", "path": f'members[value eq "{bob["id"]}"]'},
        {"op": "add", "path": "members", "value": [{"value": ada["id"], "display": "ada"}]},
    )
    assert filled.status_code == 200, filled.text
    # The member's display as Okta sent it.
    assert filled.json()["members"] == [
        {
            "value": ada["id"],
            "$ref": f"http://testserver/scim/v2/Users/{ada['id']}",
            "type": "User",
            "display": "ada",
        }
    ]
    replaced = await directory.patch(
        path,
        {"op": "replace", "path": "members", "value": [{"value": ada["id"]}, {"value": bob["id"]}]},
    )
    assert {m["value"] for m in replaced.json()["members"]} == {ada["id"], bob["id"]}
    found = await directory.request(
        "GET", "/Groups", params={"filter": 'displayName eq "autostep admins eu"'}
    )
    assert [g["id"] for g in found.json()["Resources"]] == [group["id"]]
    # "Delete a specific Group".
    assert (await directory.request("DELETE", path)).status_code == 204
    scim_error(await directory.request("GET", path), 404)
    logged = await _actions(app, directory.owner.account.id)
    assert ("Directory sync", "directory_group.created", "Autostep Admins") in logged
    assert ("Directory sync", "directory_group.renamed", "Autostep Admins") in logged
    assert ("Directory sync", "directory_group.deleted", "Autostep Admins EU") in logged
    # No group gave a role: nobody's changed.
    assert not [a for a in logged if a[1] == "user.role_changed"]


async def test_entra_provisions_a_group_in_its_own_shapes(make_directory: MakeDirectory) -> None:
    directory = await make_directory()
    user = await directory.create(directory.email("entra"))
    # Entra ID's "Create Group" (Microsoft Entra's SCIM endpoint tutorial).
    created = await directory.request(
        "POST",
        "/Groups",
        {
            "schemas": [GROUP_SCHEMA],
            "externalId": "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
            "displayName": "displayName",
            "meta": {"resourceType": "Group"},
        },
    )
    assert created.status_code == 201, created.text
    group = created.json()
    assert group["externalId"] == "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159"
    path = f"/Groups/{group['id']}"
    # "Get Group by displayName", without members.
    by_name = await directory.request(
        "GET",
        "/Groups",
        params={"excludedAttributes": "members", "filter": 'displayName eq "displayName"'},
    )
    assert [g["id"] for g in by_name.json()["Resources"]] == [group["id"]]
    # "Update Group [Non-member attributes]", "[Add Members]", "[Remove Members]".
    updated = await directory.patch(
        path, {"op": "Replace", "path": "displayName", "value": "1879db59updatedDisplayName"}
    )
    assert updated.json()["displayName"] == "1879db59updatedDisplayName"
    added = await directory.patch(
        path, {"op": "Add", "path": "members", "value": [{"$ref": None, "value": user["id"]}]}
    )
    assert added.status_code == 200, added.text
    member = await directory.request(
        "GET",
        "/Groups",
        params={
            "filter": f'id eq "{group["id"]}" and members[value eq "{user["id"]}"]',
            "excludedAttributes": "members",
        },
    )
    assert member.json()["totalResults"] == 1
    assert "members" not in member.json()["Resources"][0]
    by_external = await directory.request(
        "GET", "/Groups", params={"filter": 'externalId eq "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159"'}
    )
    assert by_external.json()["totalResults"] == 1
    removed = await directory.patch(
        path, {"op": "Remove", "path": "members", "value": [{"$ref": None, "value": user["id"]}]}
    )
    assert "members" not in removed.json()
    none = await directory.request(
        "GET", "/Groups", params={"filter": f'members.value eq "{user["id"]}"'}
    )
    assert none.json()["totalResults"] == 0
    scim_error(
        await directory.request("GET", "/Groups", params={"filter": 'members[display eq "x"]'}),
        400,
        "invalidFilter",
    )


async def test_a_person_has_the_highest_role_of_their_mapped_groups(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    directory = await make_directory()
    owner = directory.owner
    ada = (await directory.create(directory.email("ada")))["id"]
    bob = (await directory.create(directory.email("bob")))["id"]
    # Someone User Management made an Admin, in no group: the groups leave them be.
    kept = await make_user(account=owner.account, role=Role.ADMIN, email=directory.email("kept"))
    admins = await _group(directory, "Autostep Admins", ada)
    everyone = await _group(directory, "Everyone", ada, bob)
    assert (await _roles(client, owner))[ada] == "Member"  # unmapped groups give nothing

    mapped = await _map(client, owner, admins["id"], "Admin")
    assert mapped.status_code == 200, mapped.text
    assert (mapped.json()["role"], mapped.json()["members"]) == ("Admin", 1)
    assert (await _map(client, owner, everyone["id"], "Member")).status_code == 200
    roles = await _roles(client, owner)
    assert (roles[ada], roles[bob], roles[str(kept.user.id)]) == ("Admin", "Member", "Admin")
    listed = (await client.get("/web/scim-groups", headers=owner.headers)).json()["groups"]
    assert [(g["displayName"], g["role"], g["members"]) for g in listed] == [
        ("Autostep Admins", "Admin", 1),
        ("Everyone", "Member", 2),
    ]

    # Bob joins the admins group over SCIM: Admin; leaves it: Member (Everyone still says so).
    path = f"/Groups/{admins['id']}"
    await directory.patch(path, {"op": "add", "path": "members", "value": [{"value": bob}]})
    assert (await _roles(client, owner))[bob] == "Admin"
    await directory.patch(path, {"op": "remove", "path": f'members[value eq "{bob}"]'})
    assert (await _roles(client, owner))[bob] == "Member"
    # Ada leaves Everyone: still Admin by the admins group. The admins group is unmapped:
    # she left her last mapped group, and is a Member.
    await directory.patch(
        f"/Groups/{everyone['id']}", {"op": "remove", "path": f'members[value eq "{ada}"]'}
    )
    assert (await _roles(client, owner))[ada] == "Admin"
    assert (await _map(client, owner, admins["id"], None)).status_code == 200
    assert (await _roles(client, owner))[ada] == "Member"
    # Mapped again, then deleted by the directory: the same.
    assert (await _map(client, owner, admins["id"], "Admin")).status_code == 200
    assert (await _roles(client, owner))[ada] == "Admin"
    assert (await directory.request("DELETE", path)).status_code == 204
    roles = await _roles(client, owner)
    assert (roles[ada], roles[str(kept.user.id)]) == ("Member", "Admin")
    logged = await _actions(app, owner.account.id)
    assert ("Test User", "directory_group.role_changed", "Autostep Admins") in logged
    assert ("Test User", "user.role_changed", None) not in logged  # labelled with the user
    by = {(actor, action) for actor, action, _ in logged}
    assert ("Directory sync", "user.role_changed") in by  # a membership change
    assert ("Test User", "user.role_changed") in by  # a mapping change


async def test_only_an_owner_maps_a_group_to_owner(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    directory = await make_directory()
    owner = directory.owner
    admin = await make_user(account=owner.account, role=Role.ADMIN, email=directory.email("adm"))
    member = await make_user(account=owner.account, role=Role.MEMBER, email=directory.email("mem"))
    hire = (await directory.create(directory.email("hire")))["id"]
    group = await _group(directory, "Founders", hire)
    # The Admin tries: refused, nothing changes.
    refused = await _map(client, admin, group["id"], "Owner")
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] == "Forbidden"
    assert (await _roles(client, owner))[hire] == "Member"
    # A Member reads nothing of it.
    assert (await client.get("/web/scim-groups", headers=member.headers)).status_code == 403
    assert (await _map(client, member, group["id"], "Member")).status_code == 403
    # The Owner may; then the Admin can change that group no more.
    assert (await _map(client, owner, group["id"], "Owner")).status_code == 200
    assert (await _roles(client, owner))[hire] == "Owner"
    for role in ("Admin", None):
        assert (await _map(client, admin, group["id"], role)).status_code == 403
    assert (await _roles(client, owner))[hire] == "Owner"
    # Nobody changes their own role by a mapping.
    mine = await _group(directory, "Leadership", str(owner.user.id))
    own = await _map(client, owner, mine["id"], "Member")
    assert own.status_code == 400 and own.json()["code"] == "CannotChangeOwnRole", own.text
    listed = {
        g["id"]: g["role"]
        for g in (await client.get("/web/scim-groups", headers=admin.headers)).json()["groups"]
    }
    assert listed[mine["id"]] is None
    missing = await _map(client, owner, "no-such-group", "Admin")
    assert missing.status_code == 404


async def test_an_admins_token_cannot_touch_a_group_mapped_to_owner(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    directory = await make_directory()  # the Owner's token
    owner = directory.owner
    admin = await make_user(account=owner.account, role=Role.ADMIN, email=directory.email("adm"))
    admins_token = Directory(admin, await generate_token(client, admin), client, directory.domain)
    owners = await _group(directory, "Owners of Autostep", str(owner.user.id))
    assert (await _map(client, owner, owners["id"], "Owner")).status_code == 200
    path = f"/Groups/{owners['id']}"
    me = str(admin.user.id)
    for response in (
        await admins_token.patch(path, {"op": "add", "path": "members", "value": [{"value": me}]}),
        await admins_token.patch(path, {"op": "remove", "path": "members"}),
        await admins_token.patch(path, {"op": "replace", "path": "displayName", "value": "Mine"}),
        await admins_token.request(
            "PUT",
            path,
            {
                "schemas": [GROUP_SCHEMA],
                "displayName": "Owners of Autostep",
                "members": [{"value": me}],
            },
        ),
        await admins_token.request("DELETE", path),
    ):
        scim_error(response, 403)
    roles = await _roles(client, owner)
    assert (roles[me], roles[str(owner.user.id)]) == ("Admin", "Owner")
    # The Owner's token may.
    granted = await directory.patch(
        path, {"op": "add", "path": "members", "value": [{"value": me}]}
    )
    assert granted.status_code == 200, granted.text
    assert (await _roles(client, owner))[me] == "Owner"


async def test_the_last_owner_stays_and_the_request_changes_nothing(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()
    owner = directory.owner
    hire = (await directory.create(directory.email("hire")))["id"]
    owners = await _group(directory, "Owners", str(owner.user.id))
    assert (await _map(client, owner, owners["id"], "Owner")).status_code == 200
    path = f"/Groups/{owners['id']}"
    # The only Owner leaves the Owners group, or the group goes: refused whole.
    leaving = await directory.patch(
        path, {"op": "remove", "path": f'members[value eq "{owner.user.id}"]'}
    )
    assert "needs at least one Owner" in scim_error(leaving, 400, "mutability")
    scim_error(await directory.request("DELETE", path), 400, "mutability")
    # Replaced by a new Owner in one request: the new one is made Owner first.
    handed = await directory.patch(
        path, {"op": "replace", "path": "members", "value": [{"value": hire}]}
    )
    assert handed.status_code == 200, handed.text
    async with app.state.resources.sessionmaker() as db:
        rows = await db.execute(
            select(User.id, User.role).where(User.account_id == owner.account.id)
        )
        roles = {user_id: role for user_id, role in rows}
        assert (roles[uuid.UUID(hire)], roles[owner.user.id]) == (Role.OWNER, Role.MEMBER)
        members = (
            await db.scalars(
                select(DirectoryGroupMember.user_id).where(
                    DirectoryGroupMember.group_id == owners["id"]
                )
            )
        ).all()
    assert [str(m) for m in members] == [hire]


async def test_the_fixed_groups_of_an_older_directory_keep_their_ids(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory
) -> None:
    # What the upgrade made for an account that had a SCIM token (its migration is tested in
    # tests/api/kernel/test_migrations.py).
    directory = await make_directory()
    async with app.state.resources.sessionmaker() as db, db.begin():
        for group_id, name, role in (
            ("owners", "Owners", Role.OWNER),
            ("admins", "Admins", Role.ADMIN),
        ):
            db.add(
                DirectoryGroup(
                    account_id=directory.owner.account.id, id=group_id, display_name=name, role=role
                )
            )
    user = (await directory.create(directory.email("old")))["id"]
    added = await directory.patch(
        "/Groups/admins", {"op": "add", "path": "members", "value": [{"value": user}]}
    )
    assert added.status_code == 200, added.text
    assert added.json()["id"] == "admins"
    assert (await _roles(client, directory.owner))[user] == "Admin"
    listed = await directory.request("GET", "/Groups", params={"filter": 'displayName eq "Owners"'})
    assert [g["id"] for g in listed.json()["Resources"]] == ["owners"]


async def test_another_accounts_directory_sees_and_moves_nothing_here(
    client: httpx.AsyncClient, make_directory: MakeDirectory
) -> None:
    ours = await make_directory()
    theirs = await make_directory()
    user = (await ours.create(ours.email("ours")))["id"]
    group = await _group(ours, "Ours", user)
    path = f"/Groups/{group['id']}"
    assert (await theirs.request("GET", "/Groups")).json()["totalResults"] == 0
    scim_error(await theirs.request("GET", path), 404)
    scim_error(await theirs.patch(path, {"op": "remove", "path": "members"}), 404)
    scim_error(await theirs.request("DELETE", path), 404)
    # Nor puts our user in a group of theirs, nor maps our group.
    scim_error(
        await theirs.request(
            "POST",
            "/Groups",
            {"schemas": [GROUP_SCHEMA], "displayName": "Theirs", "members": [{"value": user}]},
        ),
        400,
        "invalidValue",
    )
    assert (await _map(client, theirs.owner, group["id"], "Admin")).status_code == 404
    assert (await ours.request("GET", path)).json()["members"][0]["value"] == user
