"""Access tokens for automation (README "Automation"): made by Owners and Admins within their
role, shown once, scoped per operation, refused at once when revoked, expired or turned off,
working whatever the sign-in policy, and named in the audit log. Each attack below ran against
the API before the rule that stops it existed."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select, update

from api.identity.access_tokens.expiry import send_expiry_notices
from api.models import AccessToken, Account, Role
from devstack.stack import Stack
from tests.api.billing.test_billing import card_token, stripe_get
from tests.api.conftest import MakeUser, SignedIn, mails_to, require_google_sso

ALL_READS = ["account:read", "users:read", "usage:read", "billing:read", "sso:read"]


async def make_token(
    client: httpx.AsyncClient,
    creator: SignedIn,
    scopes: list[str],
    name: str | None = None,
    days: int = 30,
) -> tuple[str, dict[str, Any]]:
    """A new token of ``creator``'s account: its secret and its view."""
    created = await client.post(
        "/web/access-tokens",
        headers=creator.headers,
        json={
            "name": name or f"ci-{uuid.uuid4().hex[:8]}",
            "expiresOn": on(days),
            "scopes": scopes,
        },
    )
    assert created.status_code == 201, created.text
    return created.json()["secret"], created.json()["token"]


def on(days: int) -> str:
    """The date ``days`` from today (UTC), as the console's 7, 30 and 90 days send it."""
    return (datetime.now(UTC) + timedelta(days=days)).date().isoformat()


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


async def test_a_token_is_shown_once_stored_hashed_and_listed_with_its_creator(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user(first_name="Ada", last_name="Lovelace")
    secret, view = await make_token(client, owner, ["usage:read", "account:read"], name="Nightly")
    assert secret.startswith("cat_") and len(secret) == 40
    assert view["masked"] == f"cat_…{secret[-4:]}"
    assert view["scopes"] == ["account:read", "usage:read"]
    assert view["status"] == "active" and view["lastUsedAt"] is None
    assert view["createdBy"] == f"Ada Lovelace <{owner.user.email}>"

    assert (await client.get("/web/account", headers=bearer(secret))).status_code == 200
    listed = await client.get("/web/access-tokens", headers=owner.headers)
    assert listed.status_code == 200
    assert secret not in listed.text
    (token,) = listed.json()["tokens"]
    assert token["name"] == "Nightly" and token["lastUsedAt"] is not None
    assert token["lastUsedAddress"] is not None
    async with app.state.resources.sessionmaker() as db:
        stored = await db.scalar(
            select(AccessToken.token_hash).where(AccessToken.id == token["id"])
        )
    assert stored is not None and secret.encode() not in stored


async def test_each_scope_allows_its_operations_and_nothing_else(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    usage_only, _ = await make_token(client, owner, ["usage:read"])
    assert (await client.get("/web/usage-alerts", headers=bearer(usage_only))).status_code == 200
    refused = await client.get("/web/account", headers=bearer(usage_only))
    assert refused.status_code == 403
    assert refused.json() == {
        "code": "MissingScope",
        "message": "This access token does not have the account:read scope.",
        "scope": "account:read",
    }
    write = await client.put(
        "/web/account", headers=bearer(usage_only), json={"name": "Renamed by a script"}
    )
    assert write.status_code == 403 and write.json()["scope"] == "account:write"


async def test_operations_of_a_person_refuse_tokens(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    secret, _ = await make_token(client, owner, ["account:read", "users:write"])
    for method, path in [
        ("GET", "/web/session"),
        ("GET", "/web/access-tokens"),
        ("POST", "/web/access-tokens"),
        ("GET", "/web/scim-tokens"),
        ("POST", "/web/session/sign-in"),
    ]:
        answer = await client.request(method, path, headers=bearer(secret), json={})
        assert answer.status_code == 403, (path, answer.text)
        assert answer.json()["code"] == "AccessTokenNotAccepted", path


async def test_nobody_makes_a_token_beyond_their_role(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    admin = await make_user(account=owner.account, role=Role.ADMIN)
    member = await make_user(account=owner.account, role=Role.MEMBER)
    for scopes in (["billing:write"], ["owners:write"], ["usage:read", "billing:write"]):
        refused = await client.post(
            "/web/access-tokens",
            headers=admin.headers,
            json={"name": "escalate", "expiresOn": on(7), "scopes": scopes},
        )
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "ScopeBeyondRole"
    as_member = await client.post(
        "/web/access-tokens",
        headers=member.headers,
        json={"name": "mine", "expiresOn": on(7), "scopes": ["usage:read"]},
    )
    assert as_member.status_code == 403 and as_member.json()["code"] == "Forbidden"
    # Scopes no token may hold are not in the contract at all.
    for scope in ("directory:write", "access_tokens:write", "identity_providers:write"):
        invalid = await client.post(
            "/web/access-tokens",
            headers=owner.headers,
            json={"name": "credentials", "expiresOn": on(7), "scopes": [scope]},
        )
        assert invalid.status_code == 422, scope


async def test_an_admins_token_never_touches_an_owner(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    admin = await make_user(account=owner.account, role=Role.ADMIN)
    member = await make_user(account=owner.account, role=Role.MEMBER)
    secret, _ = await make_token(client, admin, ["users:read", "users:write"])
    demote = await client.put(
        f"/web/users/{owner.user.id}",
        headers=bearer(secret),
        json={"firstName": "Own", "lastName": "Er", "role": "Member"},
    )
    assert demote.status_code == 403, demote.text
    assert demote.json()["code"] == "Forbidden"
    promote = await client.put(
        f"/web/users/{member.user.id}",
        headers=bearer(secret),
        json={"firstName": "Mem", "lastName": "Ber", "role": "Owner"},
    )
    assert promote.status_code == 403, promote.text
    # An Owner's token without owners:write is held to the same.
    owners_token, _ = await make_token(client, owner, ["users:read", "users:write"])
    as_owner = await client.put(
        f"/web/users/{member.user.id}",
        headers=bearer(owners_token),
        json={"firstName": "Mem", "lastName": "Ber", "role": "Owner"},
    )
    assert as_owner.status_code == 403, as_owner.text


async def test_revoked_expired_and_turned_off_tokens_stop_at_once(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    revoked, revoked_view = await make_token(client, owner, ["account:read"])
    expiring, expiring_view = await make_token(client, owner, ["account:read"])
    working, _ = await make_token(client, owner, ["account:read"])
    for secret in (revoked, expiring, working):
        assert (await client.get("/web/account", headers=bearer(secret))).status_code == 200

    gone = await client.delete(f"/web/access-tokens/{revoked_view['id']}", headers=owner.headers)
    assert gone.status_code == 204
    answer = await client.get("/web/account", headers=bearer(revoked))
    assert (answer.status_code, answer.json()["code"]) == (401, "AccessTokenRevoked")

    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(AccessToken)
            .where(AccessToken.id == expiring_view["id"])
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
    answer = await client.get("/web/account", headers=bearer(expiring))
    assert (answer.status_code, answer.json()["code"]) == (401, "AccessTokenExpired")

    not_a_boolean = await client.put(
        "/web/access-token-policy", headers=owner.headers, json={"enabled": 0}
    )
    assert not_a_boolean.status_code == 422
    off = await client.put(
        "/web/access-token-policy", headers=owner.headers, json={"enabled": False}
    )
    assert off.status_code == 200
    answer = await client.get("/web/account", headers=bearer(working))
    assert (answer.status_code, answer.json()["code"]) == (401, "AccessTokensDisabled")
    none = await client.post(
        "/web/access-tokens",
        headers=owner.headers,
        json={"name": "while off", "expiresOn": on(7), "scopes": ["account:read"]},
    )
    assert (none.status_code, none.json()["code"]) == (409, "AccessTokensTurnedOff")
    back_on = await client.put(
        "/web/access-token-policy", headers=owner.headers, json={"enabled": True}
    )
    assert back_on.status_code == 200
    assert (await client.get("/web/account", headers=bearer(working))).status_code == 200

    statuses = {
        t["id"]: t["status"]
        for t in (await client.get("/web/access-tokens", headers=owner.headers)).json()["tokens"]
    }
    assert statuses[revoked_view["id"]] == "revoked"
    assert statuses[expiring_view["id"]] == "expired"
    for forged in ("cat_" + "A" * 36, "cat_not-even-the-form"):
        answer = await client.get("/web/account", headers=bearer(forged))
        assert (answer.status_code, answer.json()["code"]) == (401, "InvalidAccessToken")


async def test_a_token_works_where_people_must_use_saml_and_two_step_sign_in(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    secret, _ = await make_token(client, owner, ["account:read", "users:read"])
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(Account)
            .where(Account.id == owner.account.id)
            .values(
                require_saml_sso=True, two_step_required_at=datetime.now(UTC) - timedelta(days=30)
            )
        )
    # The owner's own password session is refused by the policy now; the token is no sign-in.
    assert (await client.get("/web/session", headers=owner.headers)).status_code == 401
    answer = await client.get("/web/account", headers=bearer(secret))
    assert answer.status_code == 200, answer.text
    assert answer.json()["account"]["name"] == owner.account.name


async def test_the_audit_log_names_the_token_and_activity_filters_by_it(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user(first_name="Grace", last_name="Hopper")
    secret, view = await make_token(client, owner, ["account:write"], name="Provisioner")
    renamed = await client.put(
        "/web/account", headers=bearer(secret), json={"name": "Renamed by automation"}
    )
    assert renamed.status_code == 200, renamed.text
    page = await client.get(
        "/web/audit-events", headers=owner.headers, params={"actorId": view["id"]}
    )
    assert page.status_code == 200, page.text
    (event,) = page.json()["events"]
    assert event["action"] == "account.renamed"
    assert event["actor"]["id"] == view["id"]
    assert event["actor"]["name"] == (
        f"Access token 'Provisioner' (of Grace Hopper <{owner.user.email}>)"
    )
    actors = (await client.get("/web/audit-events/actors", headers=owner.headers)).json()
    assert view["id"] in {a["id"] for a in actors["actors"]}


async def test_tokens_belong_to_their_account(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    first = await make_user(account_name="First")
    second = await make_user(account_name="Second")
    secret, view = await make_token(client, first, ["account:read", "users:read"])
    seen = await client.get("/web/account", headers=bearer(secret))
    assert seen.json()["account"]["name"] == "First"
    assert (await client.get("/web/access-tokens", headers=second.headers)).json()["tokens"] == []
    stolen = await client.delete(f"/web/access-tokens/{view['id']}", headers=second.headers)
    assert stolen.status_code == 404
    assert (await client.get("/web/account", headers=bearer(secret))).status_code == 200


async def test_names_expiry_and_limits_are_checked(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    await make_token(client, owner, ["usage:read"], name="Deploys")

    async def create(**body: Any) -> httpx.Response:
        return await client.post(
            "/web/access-tokens",
            headers=owner.headers,
            json={"name": "x", "scopes": ["usage:read"], **body},
        )

    taken = await create(name="deploys", expiresOn=on(7))
    assert (taken.status_code, taken.json()["code"]) == (409, "AccessTokenNameTaken")
    assert (await create()).status_code == 422  # an expiry is required
    for days in (0, -1, 367):
        out = await create(expiresOn=on(days))
        assert (out.status_code, out.json()["code"]) == (400, "ExpiryOutOfRange"), days
    assert (await create(name="a year", expiresOn=on(365))).status_code == 201
    in_a_month = (datetime.now(UTC) + timedelta(days=31)).date()
    dated = await create(name="dated", expiresOn=in_a_month.isoformat())
    assert dated.status_code == 201, dated.text
    assert dated.json()["token"]["expiresAt"].startswith(
        (in_a_month + timedelta(days=1)).isoformat()
    )


async def test_removing_a_member_revokes_their_tokens_unless_an_owner_keeps_them(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    admin = await make_user(account=owner.account, role=Role.ADMIN)
    leaver = await make_user(account=owner.account, role=Role.ADMIN)
    keeper = await make_user(account=owner.account, role=Role.ADMIN)
    gone, gone_view = await make_token(client, leaver, ["usage:read"])
    kept, kept_view = await make_token(client, keeper, ["usage:read"])
    assert gone_view["createdByUserId"] == str(leaver.user.id)

    # Only an Owner keeps them.
    refused = await client.delete(
        f"/web/users/{keeper.user.id}", headers=admin.headers, params={"keepAccessTokens": "true"}
    )
    assert refused.status_code == 403, refused.text
    removed = await client.delete(f"/web/users/{leaver.user.id}", headers=admin.headers)
    assert removed.status_code == 204, removed.text
    kept_on = await client.delete(
        f"/web/users/{keeper.user.id}", headers=owner.headers, params={"keepAccessTokens": "true"}
    )
    assert kept_on.status_code == 204, kept_on.text

    answer = await client.get("/web/usage-alerts", headers=bearer(gone))
    assert (answer.status_code, answer.json()["code"]) == (401, "AccessTokenRevoked")
    assert (await client.get("/web/usage-alerts", headers=bearer(kept))).status_code == 200
    listed = {
        t["id"]: t
        for t in (await client.get("/web/access-tokens", headers=owner.headers)).json()["tokens"]
    }
    assert listed[kept_view["id"]]["creatorRemoved"] is True
    assert listed[kept_view["id"]]["createdByUserId"] is None
    assert listed[gone_view["id"]]["status"] == "revoked"


async def test_creator_and_owners_are_told_a_week_before_and_at_expiry_once_each(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    owner = await make_user()
    admin = await make_user(account=owner.account, role=Role.ADMIN)
    member = await make_user(account=owner.account, role=Role.MEMBER)
    _, view = await make_token(client, admin, ["usage:read"], name="Deploy bot", days=30)
    sessionmaker = app.state.resources.sessionmaker
    soon = datetime.now(UTC) + timedelta(days=3)
    async with sessionmaker() as db, db.begin():
        await db.execute(
            update(AccessToken).where(AccessToken.id == view["id"]).values(expires_at=soon)
        )

    # Other tests' tokens may be due too: what is asserted is this token's mail, once each.
    await send_expiry_notices(sessionmaker)
    assert await send_expiry_notices(sessionmaker) == 0
    for person in (owner, admin):
        (reminder,) = await mails_to(client, person.user.email)
        assert reminder["subject"] == f"Access token 'Deploy bot' expires on {soon:%Y-%m-%d}"
    assert await mails_to(client, member.user.email, wait_s=0) == []

    later = soon + timedelta(seconds=1)
    await send_expiry_notices(sessionmaker, now=later)
    assert await send_expiry_notices(sessionmaker, now=later) == 0
    box = await mails_to(client, admin.user.email, expected=2)
    assert sorted(m["subject"] for m in box) == [
        "Access token 'Deploy bot' expires on " + f"{soon:%Y-%m-%d}",
        "Access token 'Deploy bot' has expired",
    ]
    assert len(await mails_to(client, member.user.email, wait_s=0)) == 0


async def test_a_card_added_by_a_token_bills_an_owner_not_an_empty_address(
    app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
) -> None:
    # A token is nobody's sign-in: its caller has no email. The Stripe customer its first
    # card creates gets the email of the account's first Owner, where Stripe sends receipts.
    owner = await make_user()
    secret, _ = await make_token(client, owner, ["billing:write"])
    added = await client.post(
        "/web/subscription/payment", json={"cardToken": card_token(stack)}, headers=bearer(secret)
    )
    assert added.status_code == 200, added.text
    async with app.state.resources.sessionmaker() as db:
        account = await db.get(Account, owner.account.id)
        assert account is not None and account.stripe_customer_id is not None
    customer = stripe_get(stack, f"customers/{account.stripe_customer_id}")
    assert customer["email"] == owner.user.email


async def test_a_token_never_lifts_the_google_sign_in_requirement(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    # Whether people must sign in with Google is a sign-in policy, decided by a person: a
    # leaked token with sso:write (domains) must not open the account to password sign-in.
    owner = await make_user()
    secret, _ = await make_token(client, owner, ["sso:write", "sso:read"])
    await require_google_sso(app, owner.account)
    for required in (False, True):
        refused = await client.post(
            "/web/sso", json={"requireGoogleSSO": required}, headers=bearer(secret)
        )
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "AccessTokenNotAccepted"
    async with app.state.resources.sessionmaker() as db:
        account = await db.get(Account, owner.account.id)
        assert account is not None and account.require_google_sso
    # The domains stay the token's to read.
    assert (await client.get("/web/sso/domains", headers=bearer(secret))).status_code == 200
