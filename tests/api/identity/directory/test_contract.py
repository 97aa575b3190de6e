"""What the SCIM service answers is what ``openapi.json`` says it answers: each response body
of the walk below is checked against its operation's documented schema (JSON Schema 2020-12,
as OpenAPI 3.1 writes it), discovery included."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import httpx
from jsonschema import Draft202012Validator

from api.app.commands.openapi import contract
from tests.api.identity.directory.conftest import SCIM, MakeDirectory


@cache
def _spec() -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(contract())
    return spec


def conforms(response: httpx.Response, path: str, status: int = 200) -> dict[str, Any]:
    """Assert ``response`` (of the documented ``path``) has ``status`` and a body its
    operation's schema for that status accepts; returns the body."""
    assert response.status_code == status, response.text
    method = response.request.method.lower()
    declared = _spec()["paths"][path][method]["responses"][str(status)]["content"][SCIM]
    schema = {**declared["schema"], "components": _spec()["components"]}
    body: dict[str, Any] = response.json()
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(body)]
    assert not errors, (path, errors, body)
    return body


async def test_every_answer_has_its_documented_shape(
    client: httpx.AsyncClient, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()
    pat = f"pat@{directory.domain}"
    base = "/scim/v2"
    for path in ("/ServiceProviderConfig", "/ResourceTypes", "/Schemas"):
        conforms(await client.get(base + path), base + path)
    user_type = await client.get(f"{base}/ResourceTypes/User")
    assert conforms(user_type, base + "/ResourceTypes/{name}")["endpoint"] == "/Users"
    user_schema = await client.get(f"{base}/Schemas/urn:ietf:params:scim:schemas:core:2.0:User")
    assert conforms(user_schema, base + "/Schemas/{schema_id}")["attributes"]

    created = await directory.request(
        "POST",
        "/Users",
        {
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "userName": pat,
            "externalId": "okta-1",
            "name": {"givenName": "Pat", "familyName": "Lee"},
            "displayName": "Pat Lee",
            "emails": [{"value": pat, "type": "work", "primary": True}],
        },
    )
    user = conforms(created, base + "/Users", 201)
    one = base + "/Users/{resource_id}"
    conforms(await directory.request("GET", f"/Users/{user['id']}"), one)
    conforms(await directory.request("GET", "/Users?count=1"), base + "/Users")
    only_names = conforms(
        await directory.request("GET", "/Users?attributes=userName"), base + "/Users"
    )
    assert {tuple(sorted(r)) for r in only_names["Resources"]} == {("id", "schemas", "userName")}
    none = conforms(
        await directory.request("GET", f'/Users?filter=userName eq "nobody@{directory.domain}"'),
        base + "/Users",
    )
    assert none["totalResults"] == 0
    replaced = await directory.request("PUT", f"/Users/{user['id']}", {**user, "active": True})
    conforms(replaced, one)
    patched = await directory.patch(
        f"/Users/{user['id']}", {"op": "replace", "path": "displayName", "value": "P. Lee"}
    )
    assert conforms(patched, one)["displayName"] == "P. Lee"

    group = base + "/Groups/{group_id}"
    created = await directory.request(
        "POST",
        "/Groups",
        {
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
            "displayName": "Autostep Admins",
            "externalId": "okta-group-1",
        },
    )
    made = conforms(created, base + "/Groups", 201)
    conforms(await directory.request("GET", "/Groups"), base + "/Groups")
    added = await directory.patch(
        f"/Groups/{made['id']}",
        {"op": "add", "path": "members", "value": [{"value": user["id"]}]},
    )
    # With no display sent, a member's is the console's name of the user.
    assert conforms(added, group)["members"] == [
        {
            "value": user["id"],
            "$ref": f"http://testserver/scim/v2/Users/{user['id']}",
            "type": "User",
            "display": "Pat Lee",
        }
    ]
    conforms(await directory.request("GET", f"/Groups/{made['id']}"), group)
    replaced_group = await directory.request(
        "PUT", f"/Groups/{made['id']}", {**made, "displayName": "Autostep Admins EU"}
    )
    assert conforms(replaced_group, group)["displayName"] == "Autostep Admins EU"
