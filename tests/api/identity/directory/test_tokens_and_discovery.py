"""SCIM tokens (User Management → Directory sync) and what the SCIM service says about itself
(README "Directory sync (SCIM)"; RFC 7644 4)."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from api.models import AuditEvent, Role, ScimToken
from tests.api.conftest import MakeUser
from tests.api.identity.directory.conftest import SCIM, MakeDirectory, generate_token, scim_error


async def test_a_token_is_shown_once_and_stored_hashed(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    admin = await make_user(role=Role.ADMIN)
    created = await client.post("/web/scim-tokens", headers=admin.headers)
    assert created.status_code == 201, created.text
    secret = created.json()["secret"]
    assert secret.startswith("scim_") and len(secret) >= 40
    assert created.json()["token"]["masked"] == f"scim_…{secret[-4:]}"
    assert created.json()["token"]["createdBy"] == "Test User"

    listed = (await client.get("/web/scim-tokens", headers=admin.headers)).json()
    assert listed["baseUrl"].endswith("/scim/v2")
    assert [t["masked"] for t in listed["tokens"]] == [f"scim_…{secret[-4:]}"]
    assert secret not in (await client.get("/web/scim-tokens", headers=admin.headers)).text
    async with app.state.resources.sessionmaker() as db:
        stored = (await db.scalars(select(ScimToken))).all()
        assert all(secret.encode() not in t.token_hash for t in stored)
        actions = (
            await db.scalars(
                select(AuditEvent.action).where(AuditEvent.account_id == admin.account.id)
            )
        ).all()
    assert "scim_token.created" in actions


async def test_members_cannot_see_or_generate_tokens(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    member = await make_user(account=owner.account, role=Role.MEMBER)
    assert (await client.get("/web/scim-tokens", headers=member.headers)).status_code == 403
    assert (await client.post("/web/scim-tokens", headers=member.headers)).status_code == 403


async def test_requests_without_a_working_token_are_401(
    client: httpx.AsyncClient, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()
    scim_error(await client.get("/scim/v2/Users"), 401)
    wrong = {"Authorization": "Bearer scim_not-a-token"}
    scim_error(await client.get("/scim/v2/Users", headers=wrong), 401)
    # A console access token is no SCIM token.
    scim_error(await client.get("/scim/v2/Users", headers=directory.owner.headers), 401)
    assert (await directory.request("GET", "/Users")).status_code == 200

    tokens = (await client.get("/web/scim-tokens", headers=directory.owner.headers)).json()
    token_id = tokens["tokens"][0]["id"]
    revoked = await client.delete(f"/web/scim-tokens/{token_id}", headers=directory.owner.headers)
    assert revoked.status_code == 204
    scim_error(await directory.request("GET", "/Users"), 401)


async def test_a_token_of_another_account_sees_nothing_of_this_one(
    client: httpx.AsyncClient, make_directory: MakeDirectory
) -> None:
    ours = await make_directory()
    theirs = await make_directory()
    kept = ours.email("kept")
    mine = await ours.create(kept)
    listed = (await theirs.request("GET", "/Users")).json()
    assert mine["id"] not in {r["id"] for r in listed["Resources"]}
    assert ours.owner.user.email not in (await theirs.request("GET", "/Users")).text
    filtered = await theirs.request("GET", "/Users", params={"filter": f'userName eq "{kept}"'})
    assert filtered.json()["totalResults"] == 0
    scim_error(await theirs.request("GET", f"/Users/{mine['id']}"), 404)
    scim_error(
        await theirs.request("PUT", f"/Users/{mine['id']}", {"schemas": [], "userName": "x"}),
        400,
        "invalidValue",
    )
    patched = await theirs.patch(
        f"/Users/{mine['id']}", {"op": "replace", "path": "active", "value": False}
    )
    scim_error(patched, 404)
    scim_error(await theirs.request("DELETE", f"/Users/{mine['id']}"), 404)
    # Their token cannot revoke ours either.
    ours_tokens = (await client.get("/web/scim-tokens", headers=ours.owner.headers)).json()
    gone = await client.delete(
        f"/web/scim-tokens/{ours_tokens['tokens'][0]['id']}", headers=theirs.owner.headers
    )
    assert gone.status_code == 404
    assert (await ours.request("GET", f"/Users/{mine['id']}")).json()["active"] is True


async def test_discovery(client: httpx.AsyncClient, make_directory: MakeDirectory) -> None:
    directory = await make_directory()
    config = await directory.request("GET", "/ServiceProviderConfig")
    assert config.status_code == 200
    assert config.headers["content-type"].startswith(SCIM)
    body = config.json()
    assert body["patch"] == {"supported": True}
    assert body["bulk"]["supported"] is False
    assert body["filter"] == {"supported": True, "maxResults": 200}
    assert body["etag"] == {"supported": False}
    assert body["authenticationSchemes"][0]["type"] == "oauthbearertoken"
    types = (await directory.request("GET", "/ResourceTypes")).json()
    assert {t["endpoint"] for t in types["Resources"]} == {"/Users", "/Groups"}
    schemas = (await directory.request("GET", "/Schemas")).json()
    user = next(s for s in schemas["Resources"] if s["name"] == "User")
    assert {a["name"] for a in user["attributes"]} == {
        "userName",
        "name",
        "displayName",
        "active",
        "emails",
    }
    assert (
        await directory.request("GET", "/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group")
    ).status_code == 200
    scim_error(await directory.request("GET", "/Schemas/urn:nope"), 404)
    scim_error(await directory.request("GET", "/NoSuchEndpoint"), 404)
    scim_error(await directory.request("POST", "/.search", {}), 501)
    not_json = await directory.client.post(
        "/scim/v2/Users", headers=directory.headers, content=b"\xff\xfe not json"
    )
    scim_error(not_json, 400, "invalidSyntax")


async def test_the_accounts_tokens_share_one_request_limit(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    # A second (or third) token adds no requests: the limit is the account's.
    owner = await make_user()
    token = await generate_token(client, owner)
    limit = app.state.settings.directory.scim_limit_per_account
    assert limit > 0
    from api.ratelimit import MINUTE_S, Limit

    # Use the account's whole minute, then one more request is refused with Retry-After,
    # whichever token sends it.
    await app.state.resources.rate_limiter.record(
        Limit("scim:account", limit, MINUTE_S), str(owner.account.id), amount=limit
    )
    refused = await client.get("/scim/v2/Users", headers={"Authorization": f"Bearer {token}"})
    scim_error(refused, 429)
    assert int(refused.headers["Retry-After"]) >= 1
    other = await generate_token(client, owner)
    scim_error(
        await client.get("/scim/v2/Users", headers={"Authorization": f"Bearer {other}"}), 429
    )
    # Another account has its own.
    elsewhere = await generate_token(client, await make_user())
    assert (
        await client.get("/scim/v2/Users", headers={"Authorization": f"Bearer {elsewhere}"})
    ).status_code == 200


async def test_an_account_has_at_most_three_live_tokens(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    admin = await make_user(account=owner.account, role=Role.ADMIN)
    first = await generate_token(client, admin)
    await generate_token(client, owner)
    await generate_token(client, owner)
    fourth = await client.post("/web/scim-tokens", headers=owner.headers)
    assert fourth.status_code == 409, fourth.text
    assert fourth.json() == {
        "code": "TooManyScimTokens",
        "message": "An account can have at most 3 SCIM tokens. Revoke one you no longer use first.",
    }
    listed = (await client.get("/web/scim-tokens", headers=owner.headers)).json()
    assert (len(listed["tokens"]), listed["maxTokens"]) == (3, 3)
    # A token whose creator was removed works no more and does not count.
    assert (await client.delete(f"/web/users/{admin.user.id}", headers=owner.headers)).is_success
    scim_error(
        await client.get("/scim/v2/Users", headers={"Authorization": f"Bearer {first}"}), 401
    )
    assert (await client.post("/web/scim-tokens", headers=owner.headers)).status_code == 201
    assert (await client.post("/web/scim-tokens", headers=owner.headers)).status_code == 409
