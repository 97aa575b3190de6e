"""Who SAML connections speak for (README "Security model", "Who someone is"; "SAML single
sign-on"): connecting, replacing, removing and requiring an identity provider are an Owner's,
and a first sign-in links an existing user only through a connection an Owner made or
confirmed. Attacks first: an Admin who connects her own identity provider to sign in as the
Owner."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, update

from api.models import AuthType, Role, SamlConnection, User
from api.principal.roles import OWNER_REQUIRED
from devstack.saml_idp import Person
from tests.api.conftest import (
    REDIRECT_URI,
    MakeUser,
    SignedIn,
    mails_to,
    unique_domain,
    verified_domain,
)
from tests.api.identity.sso.test_saml_sign_in import connected_account, sign_in_with_sso

DEV_IDP_METADATA = "http://testserver/dev/saml-idp/metadata"
FORBIDDEN = {"code": "Forbidden", "message": OWNER_REQUIRED}


@pytest.fixture(autouse=True)
def _stand_ins_reachable(hosted_ui: object) -> None:
    """The API's calls to http://testserver (the metadata URL, the token endpoint) reach
    the in-process stand-ins."""


async def _owner_and_admin(
    client: httpx.AsyncClient, make_user: MakeUser
) -> tuple[SignedIn, SignedIn, str]:
    """An Owner and an Admin (Grace) of a new account; Grace verified its domain (Admins
    may: README "Verified domains")."""
    domain = unique_domain("takeover")
    owner = await make_user(email=f"owner@{domain}", first_name="Olive", last_name="Owner")
    grace = await make_user(
        account=owner.account, email=f"grace@{domain}", role=Role.ADMIN, first_name="Grace"
    )
    await verified_domain(client, grace.headers, domain)
    return owner, grace, domain


async def _user(app: FastAPI, user_id: object) -> User:
    async with app.state.resources.sessionmaker() as db:
        found = await db.scalar(select(User).where(User.id == user_id))
        assert found is not None
        return found


async def _as_legacy_admin_connection(app: FastAPI, owner: SignedIn, admin: SignedIn) -> None:
    """What the migration makes of a connection an Admin saved before connecting was an
    Owner's: its creator the Admin, its linking not confirmed."""
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(SamlConnection)
            .where(SamlConnection.account_id == owner.account.id)
            .values(
                created_by_user_id=admin.user.id,
                linking_confirmed_at=None,
                linking_confirmed_by_user_id=None,
            )
        )


class TestOnlyOwners:
    async def test_an_admin_cannot_connect_remove_or_require_saml(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, grace, _ = await _owner_and_admin(client, make_user)
        saved = await client.put(
            "/web/sso/saml", headers=grace.headers, json={"metadataUrl": DEV_IDP_METADATA}
        )
        assert saved.status_code == 403, saved.text
        assert saved.json() == FORBIDDEN
        assert (await client.get("/web/sso/saml", headers=owner.headers)).json()[
            "connection"
        ] is None
        # The Owner connects it; the Admin can neither replace, remove nor require it.
        ours = await client.put(
            "/web/sso/saml", headers=owner.headers, json={"metadataUrl": DEV_IDP_METADATA}
        )
        assert ours.status_code == 200, ours.text
        replaced = await client.put(
            "/web/sso/saml", headers=grace.headers, json={"metadataUrl": DEV_IDP_METADATA}
        )
        assert (replaced.status_code, replaced.json()) == (403, FORBIDDEN)
        removed = await client.delete("/web/sso/saml", headers=grace.headers)
        assert (removed.status_code, removed.json()) == (403, FORBIDDEN)
        required = await client.post(
            "/web/sso/saml/requirement", headers=grace.headers, json={"requireSamlSSO": True}
        )
        assert (required.status_code, required.json()) == (403, FORBIDDEN)
        confirmed = await client.post("/web/sso/saml/confirm-linking", headers=grace.headers)
        assert (confirmed.status_code, confirmed.json()) == (403, FORBIDDEN)
        assert (await client.get("/web/sso/saml", headers=owner.headers)).json()["connection"]

    async def test_an_admin_cannot_take_over_the_owner_through_her_own_identity_provider(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        # Grace (Admin) verifies the domain, connects her own identity provider (the dev
        # stand-in signs anyone in) and signs in through it asserting the Owner's address.
        owner, grace, domain = await _owner_and_admin(client, make_user)
        saved = await client.put(
            "/web/sso/saml", headers=grace.headers, json={"metadataUrl": DEV_IDP_METADATA}
        )
        assert (saved.status_code, saved.json()) == (403, FORBIDDEN)
        # Nothing routes the domain to an identity provider of hers.
        start = await client.post(
            "/web/session/authorize/sso",
            json={"email": owner.user.email, "redirectUri": REDIRECT_URI},
        )
        assert start.status_code == 400, start.text
        assert start.json()["message"] == f"No single sign-on is set up for {domain}."
        # The Owner is still a password user, their sessions alive.
        assert (await _user(app, owner.user.id)).auth_type is AuthType.EMAIL
        assert (await client.get("/web/account", headers=owner.headers)).status_code == 200


class TestLinkingNeedsAnOwner:
    async def test_an_owners_connection_links_existing_users(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, _ = await connected_account(client, make_user)
        shown = (await client.get("/web/sso/saml", headers=owner.headers)).json()["connection"]
        assert shown["linkingConfirmedAt"] is not None
        assert shown["linkingConfirmedBy"] == f"Test User <{owner.user.email}>"
        async with app.state.resources.sessionmaker() as db:
            row = await db.scalar(
                select(SamlConnection).where(SamlConnection.account_id == owner.account.id)
            )
            assert row is not None
            assert row.created_by_user_id == owner.user.id
            assert row.linking_confirmed_by_user_id == owner.user.id
        exchanged = await sign_in_with_sso(client, Person(owner.user.email, "Olive", "Owner"))
        assert exchanged.status_code == 200, exchanged.text
        assert (await _user(app, owner.user.id)).auth_type is AuthType.SAML_SSO

    async def test_a_legacy_admin_connection_links_nobody_existing_until_an_owner_confirms(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, domain = await connected_account(client, make_user)
        grace = await make_user(account=owner.account, email=f"grace@{domain}", role=Role.ADMIN)
        await _as_legacy_admin_connection(app, owner, grace)
        shown = (await client.get("/web/sso/saml", headers=owner.headers)).json()["connection"]
        assert shown["linkingConfirmedAt"] is None
        assert shown["linkingConfirmedBy"] is None

        # Grace's identity provider asserts the Owner's address: refused, the Owner untouched.
        exchanged = await sign_in_with_sso(client, Person(owner.user.email, "Olive", "Owner"))
        assert exchanged.status_code == 400, exchanged.text
        assert exchanged.json() == {
            "code": "SsoSignInRefused",
            "message": (
                f"{owner.user.email} already has a user in {owner.account.name}, and this "
                "single sign-on connection has not been confirmed by an Owner of the account, "
                "so it signs in only people who are new to the account. Ask an Owner to "
                "confirm it under User Management, Security."
            ),
        }
        assert "refresh_token" not in exchanged.cookies
        kept = await _user(app, owner.user.id)
        assert (kept.auth_type, kept.role) == (AuthType.EMAIL, Role.OWNER)
        assert (await client.get("/web/account", headers=owner.headers)).status_code == 200

        # Someone new to the account still arrives, as a Member.
        newcomer = await sign_in_with_sso(client, Person(f"nia@{domain}", "Nia", "New"))
        assert newcomer.status_code == 200, newcomer.text
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]["users"]
        assert next(u for u in users if u["email"] == f"nia@{domain}")["role"] == "Member"

        # An Admin cannot confirm it; the Owner does, and existing users link from then on.
        refused = await client.post("/web/sso/saml/confirm-linking", headers=grace.headers)
        assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
        confirmed = await client.post("/web/sso/saml/confirm-linking", headers=owner.headers)
        assert confirmed.status_code == 200, confirmed.text
        assert confirmed.json()["linkingConfirmedAt"] is not None
        assert confirmed.json()["linkingConfirmedBy"] == f"Test User <{owner.user.email}>"
        events = (await client.get("/web/audit-events", headers=owner.headers)).json()["events"]
        assert events[0]["action"] == "sso.saml_linking_confirmed"
        assert events[0]["actor"]["email"] == owner.user.email
        linked = await sign_in_with_sso(client, Person(owner.user.email, "Olive", "Owner"))
        assert linked.status_code == 200, linked.text
        assert (await _user(app, owner.user.id)).auth_type is AuthType.SAML_SSO

    async def test_confirming_without_a_connection_is_404(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        response = await client.post("/web/sso/saml/confirm-linking", headers=owner.headers)
        assert response.status_code == 404


def _notices(box: list[dict[str, object]], subject: str) -> list[dict[str, object]]:
    return [m for m in box if m["subject"] == subject]


class TestOwnersAreTold:
    """Connecting, replacing, removing and requiring an identity provider, and requiring
    Google sign-in, email every Owner of the account (README "Roles and invitations")."""

    async def test_each_change_of_the_saml_connection(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        domain = unique_domain("told")
        owner = await make_user(email=f"owner@{domain}", first_name="Olive", last_name="Owner")
        other = await make_user(account=owner.account, email=f"otto@{domain}")
        admin = await make_user(account=owner.account, email=f"adam@{domain}", role=Role.ADMIN)
        await verified_domain(client, owner.headers, domain)
        owners = (owner.user.email, other.user.email)
        name = owner.account.name

        async def told(subject: str, count: int) -> None:
            for email in owners:
                box = await mails_to(client, email, expected=count)
                notices = _notices(box, f"{subject} ({name})")
                assert len(notices) == 1, [m["subject"] for m in box]
                assert f"Done by: Olive Owner <{owner.user.email}>" in str(notices[0]["body"])
                assert f"Every Owner of {name} receives this message." in str(notices[0]["body"])
            admins = await mails_to(client, admin.user.email, wait_s=0)
            assert _notices(admins, f"{subject} ({name})") == []

        saved = await client.put(
            "/web/sso/saml", headers=owner.headers, json={"metadataUrl": DEV_IDP_METADATA}
        )
        assert saved.status_code == 200, saved.text
        await told("A SAML identity provider was connected", 1)
        saved = await client.put(
            "/web/sso/saml", headers=owner.headers, json={"metadataUrl": DEV_IDP_METADATA}
        )
        assert saved.status_code == 200, saved.text
        await told("The SAML identity provider was replaced", 2)

        # Requiring it (as the Owner, signed in through it), then removing it.
        exchanged = await sign_in_with_sso(client, Person(owner.user.email, "Olive", "Owner"))
        as_saml = {"Authorization": f"Bearer {exchanged.json()['tokens']['accessToken']}"}
        required = await client.post(
            "/web/sso/saml/requirement", headers=as_saml, json={"requireSamlSSO": True}
        )
        assert required.status_code == 200, required.text
        await told("SAML single sign-on is now required", 3)
        removed = await client.delete("/web/sso/saml", headers=as_saml)
        assert removed.status_code == 204, removed.text
        await told("The SAML identity provider was removed", 4)

    async def test_a_refused_change_tells_nobody(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, grace, _ = await _owner_and_admin(client, make_user)
        saved = await client.put(
            "/web/sso/saml", headers=grace.headers, json={"metadataXml": "<not-metadata/>"}
        )
        assert saved.status_code == 403
        bad = await client.put(
            "/web/sso/saml", headers=owner.headers, json={"metadataXml": "<not-metadata/>"}
        )
        assert bad.status_code == 400
        assert await mails_to(client, owner.user.email, wait_s=1) == []

    async def test_an_admin_requiring_google_sign_in(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        domain = unique_domain("google")
        owner = await make_user(email=f"owner@{domain}")
        admin = await make_user(
            account=owner.account,
            email=f"gail@{domain}",
            first_name="Gail",
            last_name="Admin",
            auth_type=AuthType.GOOGLE_SSO,
            role=Role.ADMIN,
        )
        await verified_domain(client, owner.headers, domain)
        required = await client.post(
            "/web/sso", headers=admin.headers, json={"requireGoogleSSO": True}
        )
        assert required.status_code == 200, required.text
        [notice] = await mails_to(client, owner.user.email)
        assert notice["subject"] == f"Google sign-in is now required ({owner.account.name})"
        assert f"Done by: Gail Admin <{admin.user.email}>" in str(notice["body"])
        stopped = await client.post(
            "/web/sso", headers=admin.headers, json={"requireGoogleSSO": False}
        )
        assert stopped.status_code == 200, stopped.text
        box = await mails_to(client, owner.user.email, expected=2)
        assert box[0]["subject"] == f"Google sign-in is no longer required ({owner.account.name})"
        # The Admin is no Owner: not told.
        assert await mails_to(client, admin.user.email, wait_s=0) == []
