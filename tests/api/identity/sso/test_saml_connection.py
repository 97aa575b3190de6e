"""Setting up SAML single sign-on (README "SAML single sign-on"): GET/PUT/DELETE
/web/sso/saml, POST /web/sso/saml/requirement, and what Cognito holds after each."""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime

import httpx
import pytest
import respx
from fastapi import FastAPI
from sqlalchemy import event, select, text, update
from sqlalchemy.exc import DBAPIError

from api.adapters.cognito import CognitoClient, ResourceNotFoundError
from api.identity.sso import repository as sso_repository
from api.identity.sso import saml
from api.identity.sso.saml import provider_name_of
from api.identity.sso.saml_refresh import resync_identifiers
from api.models import Account, AuthType, DomainState, Role, SamlConnection, SsoDomain, User
from tests.api.conftest import (
    PASSWORD,
    MakeUser,
    SignedIn,
    publish_txt,
    unique_domain,
    verified_domain,
)
from tests.api.identity.sso.saml_support import IDP_ENTITY_ID, IDP_SSO_URL, idp_metadata

METADATA_URL = "https://idp.example-idp.com/app/metadata"


async def saml_owner(
    client: httpx.AsyncClient, make_user: MakeUser, auth_type: AuthType = AuthType.EMAIL
) -> tuple[SignedIn, str]:
    """An Owner of a new account with a verified domain, and the domain."""
    domain = unique_domain("saml")
    owner = await make_user(email=f"owner@{domain}", auth_type=auth_type)
    await verified_domain(client, owner.headers, domain)
    return owner, domain


async def connect(
    client: httpx.AsyncClient, who: SignedIn, metadata: str | None = None
) -> httpx.Response:
    return await client.put(
        "/web/sso/saml", headers=who.headers, json={"metadataXml": metadata or idp_metadata()}
    )


async def audit_actions(client: httpx.AsyncClient, who: SignedIn) -> list[str]:
    events = (await client.get("/web/audit-events", headers=who.headers)).json()["events"]
    return [event["action"] for event in events]


class TestServiceProvider:
    async def test_values_for_the_identity_provider(
        self, client: httpx.AsyncClient, make_user: MakeUser, app: FastAPI
    ) -> None:
        me = await make_user(role=Role.MEMBER)
        response = await client.get("/web/sso/saml", headers=me.headers)
        assert response.status_code == 200
        settings = app.state.settings
        assert response.json() == {
            "serviceProvider": {
                "entityId": f"urn:amazon:cognito:sp:{settings.cognito.user_pool_id}",
                "acsUrl": "http://testserver/saml2/idpresponse",
                "nameIdFormat": "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
                "emailAttribute": "email",
                "firstNameAttribute": "firstName",
                "lastNameAttribute": "lastName",
            },
            "connection": None,
        }

    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        assert (await client.get("/web/sso/saml")).status_code == 401
        assert (await client.put("/web/sso/saml", json={"metadataXml": "x"})).status_code == 401
        assert (await client.delete("/web/sso/saml")).status_code == 401


class TestSetUp:
    async def test_from_the_xml_file(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner, domain = await saml_owner(client, make_user)
        response = await connect(client, owner)
        assert response.status_code == 200, response.text
        connection = response.json()
        name = provider_name_of(owner.account.id)
        assert connection["providerName"] == name
        assert connection["metadataUrl"] is None
        assert connection["idpEntityId"] == IDP_ENTITY_ID
        assert connection["ssoUrl"] == IDP_SSO_URL
        assert connection["domains"] == [domain]
        assert connection["certificateExpiresSoon"] is False
        assert connection["lastTest"] is None

        # Cognito holds it as the pool's SAML identity provider, routed to by the domain.
        provider = await cognito.describe_identity_provider(name)
        assert provider["ProviderType"] == "SAML"
        assert provider["ProviderDetails"]["MetadataFile"] == idp_metadata()
        assert provider["IdpIdentifiers"] == [domain]
        assert provider["AttributeMapping"] == {
            "email": "email",
            "given_name": "firstName",
            "family_name": "lastName",
        }
        client_settings = await cognito.describe_app_client()
        assert name in client_settings["SupportedIdentityProviders"]
        # The rest of the client is as it was (UpdateUserPoolClient resets what it is not sent).
        assert {"Google", "Github"} <= set(client_settings["SupportedIdentityProviders"])
        assert client_settings["ExplicitAuthFlows"] == [
            "ALLOW_ADMIN_USER_PASSWORD_AUTH",
            "ALLOW_REFRESH_TOKEN_AUTH",
        ]

        shown = (await client.get("/web/sso/saml", headers=owner.headers)).json()["connection"]
        assert shown == connection
        assert (await audit_actions(client, owner))[0] == "sso.saml_connected"

    async def test_from_the_metadata_url(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        with respx.mock(assert_all_called=False) as router:
            router.get(METADATA_URL).respond(200, text=idp_metadata(days_left=20))
            router.route().pass_through()
            response = await client.put(
                "/web/sso/saml", headers=owner.headers, json={"metadataUrl": METADATA_URL}
            )
        assert response.status_code == 200, response.text
        assert response.json()["metadataUrl"] == METADATA_URL
        assert response.json()["certificateExpiresSoon"] is True

    async def test_a_metadata_url_that_fails(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        with respx.mock(assert_all_called=False) as router:
            router.get(METADATA_URL).respond(404)
            router.route().pass_through()
            response = await client.put(
                "/web/sso/saml", headers=owner.headers, json={"metadataUrl": METADATA_URL}
            )
        assert response.status_code == 400
        assert response.json() == {
            "code": "SamlMetadataUnreachable",
            "message": "The metadata URL answered HTTP 404.",
        }

    async def test_bad_metadata_changes_nothing(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        without_endpoint = idp_metadata().replace("HTTP-Redirect", "SOAP")
        response = await connect(client, owner, without_endpoint.replace("HTTP-POST", "SOAP"))
        assert response.status_code == 400
        assert response.json() == {
            "code": "InvalidSamlMetadata",
            "message": (
                "The metadata has no SingleSignOnService with the HTTP-Redirect or HTTP-POST "
                "binding."
            ),
        }
        assert (await client.get("/web/sso/saml", headers=owner.headers)).json()[
            "connection"
        ] is None
        with pytest.raises(ResourceNotFoundError):
            await cognito.describe_identity_provider(provider_name_of(owner.account.id))

    async def test_needs_a_verified_domain(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        response = await connect(client, owner)
        assert response.status_code == 400
        assert response.json() == {
            "code": "VerifiedDomainRequired",
            "message": "Verify your company's domain before setting up SAML single sign-on.",
        }

    async def test_both_sources_at_once_is_422(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        response = await client.put(
            "/web/sso/saml",
            headers=owner.headers,
            json={"metadataUrl": METADATA_URL, "metadataXml": idp_metadata()},
        )
        assert response.status_code == 422

    async def test_members_cannot(self, client: httpx.AsyncClient, make_user: MakeUser) -> None:
        owner, _ = await saml_owner(client, make_user)
        member = await make_user(account=owner.account, role=Role.MEMBER)
        assert (await connect(client, member)).status_code == 403
        assert (await connect(client, owner)).status_code == 200
        removed = await client.delete("/web/sso/saml", headers=member.headers)
        assert removed.status_code == 403

    async def test_update_replaces_the_metadata(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        assert (await connect(client, owner)).status_code == 200
        newer = idp_metadata(days_left=10, entity_id="https://idp.example-idp.com/v2")
        response = await connect(client, owner, newer)
        assert response.status_code == 200
        assert response.json()["idpEntityId"] == "https://idp.example-idp.com/v2"
        assert response.json()["certificateExpiresSoon"] is True
        provider = await cognito.describe_identity_provider(provider_name_of(owner.account.id))
        assert provider["ProviderDetails"]["MetadataFile"] == newer
        actions = await audit_actions(client, owner)
        assert actions[:2] == ["sso.saml_updated", "sso.saml_connected"]

    async def test_two_accounts_saving_at_once_lose_nothing(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        # UpdateUserPoolClient replaces the whole list: without the lock, the second writer
        # would drop the first one's provider.
        owners = [await saml_owner(client, make_user) for _ in range(3)]
        answers = await asyncio.gather(*(connect(client, owner) for owner, _ in owners))
        assert [a.status_code for a in answers] == [200, 200, 200]
        listed = (await cognito.describe_app_client())["SupportedIdentityProviders"]
        for owner, _ in owners:
            assert provider_name_of(owner.account.id) in listed

    async def test_a_cognito_failure_leaves_nothing_behind(
        self,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        cognito: CognitoClient,
        app: FastAPI,
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        update_client = "AWSCognitoIdentityProviderService.UpdateUserPoolClient"
        with respx.mock(assert_all_called=False) as router:
            router.post(headers={"X-Amz-Target": update_client}).respond(500)
            router.route().pass_through()
            response = await connect(client, owner)
        assert response.status_code == 503
        assert response.json()["code"] == "VendorUnavailable"
        # The provider Cognito created is deleted again; our row was never committed.
        with pytest.raises(ResourceNotFoundError):
            await cognito.describe_identity_provider(provider_name_of(owner.account.id))
        assert (await client.get("/web/sso/saml", headers=owner.headers)).json()[
            "connection"
        ] is None


class TestWhatASaveHolds:
    """A metadata URL answers in its own time: no pooled connection, no row lock and no
    advisory lock are held while it does; the app client's lock is waited for a bounded
    time."""

    async def test_the_url_is_fetched_before_anything_is_held(
        self, client: httpx.AsyncClient, make_user: MakeUser, app: FastAPI
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        resources = app.state.resources
        seen: dict[str, object] = {}

        async def slow_identity_provider(request: httpx.Request) -> httpx.Response:
            seen["pooled connections in use"] = resources.engine.pool.checkedout()
            # Another request (a Verify, an invitation) may lock the account meanwhile.
            async with resources.side_engine.connect() as other:
                try:
                    await other.execute(
                        text("SELECT 1 FROM account WHERE id = :id FOR UPDATE NOWAIT"),
                        {"id": owner.account.id},
                    )
                    seen["account row"] = "free"
                except DBAPIError:
                    seen["account row"] = "locked"
            return httpx.Response(200, text=idp_metadata())

        with respx.mock(assert_all_called=False) as router:
            router.get(METADATA_URL).mock(side_effect=slow_identity_provider)
            router.route().pass_through()
            response = await client.put(
                "/web/sso/saml", headers=owner.headers, json={"metadataUrl": METADATA_URL}
            )
        assert response.status_code == 200, response.text
        assert seen == {"pooled connections in use": 0, "account row": "free"}

    async def test_a_url_is_not_fetched_for_an_account_without_a_verified_domain(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user()
        with respx.mock(assert_all_called=False) as router:
            served = router.get(METADATA_URL).respond(200, text=idp_metadata())
            router.route().pass_through()
            response = await client.put(
                "/web/sso/saml", headers=owner.headers, json={"metadataUrl": METADATA_URL}
            )
        assert response.json()["code"] == "VerifiedDomainRequired"
        assert not served.called

    async def test_the_app_clients_lock_is_waited_for_a_bounded_time(
        self,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        app: FastAPI,
        cognito: CognitoClient,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        monkeypatch.setattr(saml, "APP_CLIENT_LOCK_TIMEOUT_MS", 300)
        owner, _ = await saml_owner(client, make_user)
        # Another replica holds the app client's lock (a stuck save, a long Cognito call).
        async with app.state.resources.side_engine.connect() as other:
            await other.execute(
                text("SELECT pg_advisory_lock(:key)"), {"key": saml.APP_CLIENT_LOCK}
            )
            try:
                response = await asyncio.wait_for(connect(client, owner), timeout=20)
            finally:
                await other.execute(
                    text("SELECT pg_advisory_unlock(:key)"), {"key": saml.APP_CLIENT_LOCK}
                )
        assert response.status_code == 503
        assert response.json() == {
            "code": "SsoChangeBusy",
            "message": (
                "Another single sign-on change is being saved right now. Please try again in "
                "a few seconds."
            ),
        }
        # Nothing is left behind: the provider Cognito created is deleted again.
        with pytest.raises(ResourceNotFoundError):
            await cognito.describe_identity_provider(provider_name_of(owner.account.id))
        assert (await connect(client, owner)).status_code == 200


class TestIdentifiers:
    async def test_a_domain_moves_with_its_verification(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        holder, domain = await saml_owner(client, make_user)
        assert (await connect(client, holder)).status_code == 200
        # The holder's record is gone, another account proves the domain: it takes it over.
        taker = await make_user(email=f"taker@{secrets.token_hex(3)}-{domain}")
        added = await client.post(
            "/web/sso/domains", headers=taker.headers, json={"domain": domain}
        )
        record = added.json()["domain"]["record"]
        await publish_txt(client, domain, record["value"])
        verify = await client.post(
            f"/web/sso/domains/{added.json()['domain']['id']}/verify", headers=taker.headers
        )
        assert verify.json()["domain"]["state"] == "Verified"
        # Identifiers are unique in the pool: the old connection gives the domain up first.
        assert (await connect(client, taker)).status_code == 200
        taker_provider = await cognito.describe_identity_provider(
            provider_name_of(taker.account.id)
        )
        holder_provider = await cognito.describe_identity_provider(
            provider_name_of(holder.account.id)
        )
        assert taker_provider["IdpIdentifiers"] == [domain]
        assert holder_provider["IdpIdentifiers"] == []
        shown = (await client.get("/web/sso/saml", headers=holder.headers)).json()
        assert shown["connection"]["domains"] == []

    async def test_a_domain_verified_or_removed_later_follows_at_once(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner, domain = await saml_owner(client, make_user)
        assert (await connect(client, owner)).status_code == 200
        name = provider_name_of(owner.account.id)
        later = unique_domain("later")
        added = await verified_domain(client, owner.headers, later)
        # 'Sign in with SSO' reaches the connection for the new domain too.
        provider = await cognito.describe_identity_provider(name)
        assert provider["IdpIdentifiers"] == sorted([domain, later])
        started = await client.post(
            "/web/session/authorize/sso",
            json={"email": f"new@{later}", "redirectUri": "http://testserver/oauth/sso"},
        )
        assert started.status_code == 200, started.text
        removed = await client.delete(f"/web/sso/domains/{added['id']}", headers=owner.headers)
        assert removed.status_code == 204
        assert (await cognito.describe_identity_provider(name))["IdpIdentifiers"] == [domain]

    async def test_a_domain_the_recheck_found_lost_leaves_at_the_upkeep(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner, domain = await saml_owner(client, make_user)
        assert (await connect(client, owner)).status_code == 200
        async with app.state.resources.sessionmaker() as db, db.begin():
            # What the daily re-check does when the TXT record is gone (no Cognito there).
            await db.execute(
                update(SsoDomain)
                .where(SsoDomain.account_id == owner.account.id)
                .values(state=DomainState.LOST)
            )
        name = provider_name_of(owner.account.id)
        assert (await cognito.describe_identity_provider(name))["IdpIdentifiers"] == [domain]
        resynced = await resync_identifiers(app.state.resources.sessionmaker, cognito)
        assert resynced >= 1
        assert (await cognito.describe_identity_provider(name))["IdpIdentifiers"] == []
        assert await resync_identifiers(app.state.resources.sessionmaker, cognito) == 0

    async def test_identifiers_in_code_point_order_are_in_step(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        # 'x-zone.dev' sorts before 'x.dev' by code point ('-' < '.'), as Python's sorted() that
        # writes the identifiers; en_US.utf8 ignores punctuation first and puts it after
        # ('xdev' < 'xzonedev'). An aggregate in the database's collation would see this
        # connection out of step at every pass.
        owner, domain = await saml_owner(client, make_user)
        zone = domain.removesuffix(".dev") + "-zone.dev"
        await verified_domain(client, owner.headers, zone)
        assert (await connect(client, owner)).status_code == 200
        name = provider_name_of(owner.account.id)
        assert (await cognito.describe_identity_provider(name))["IdpIdentifiers"] == [zone, domain]
        await resync_identifiers(app.state.resources.sessionmaker, cognito)
        assert await resync_identifiers(app.state.resources.sessionmaker, cognito) == 0
        assert (await cognito.describe_identity_provider(name))["IdpIdentifiers"] == [zone, domain]
        # The test database's collation may be C, which cannot show the difference: the query
        # itself must sort the verified domains by code point.
        statements: list[str] = []

        def seen(*args: object) -> None:
            statements.append(str(args[2]))

        async with app.state.resources.sessionmaker() as db, db.begin():
            others = set(
                await db.scalars(
                    select(SamlConnection.id).where(SamlConnection.account_id != owner.account.id)
                )
            )
            connection = (await db.connection()).sync_connection
            assert connection is not None
            event.listen(connection, "before_cursor_execute", seen)
            try:
                assert (
                    await sso_repository.next_connection_out_of_step(
                        db,
                        others,
                        max_length=saml.IDENTIFIER_MAX_LENGTH,
                        max_count=saml.IDENTIFIERS_MAX,
                        refused_before=datetime.now(UTC),
                    )
                    is None
                )
            finally:
                event.remove(connection, "before_cursor_execute", seen)
        aggregated = [sql for sql in statements if "array_agg" in sql]
        assert len(aggregated) == 1, statements
        assert 'ORDER BY sso_domain.domain COLLATE "C"' in aggregated[0], aggregated[0]


class TestRemove:
    async def test_removes_it_everywhere_and_people_fall_back_to_passwords(
        self,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        cognito: CognitoClient,
        app: FastAPI,
    ) -> None:
        owner, domain = await saml_owner(client, make_user, AuthType.SAML_SSO)
        assert (await connect(client, owner)).status_code == 200
        required = await client.post(
            "/web/sso/saml/requirement", headers=owner.headers, json={"requireSamlSSO": True}
        )
        assert required.status_code == 200
        response = await client.delete("/web/sso/saml", headers=owner.headers)
        assert response.status_code == 204
        name = provider_name_of(owner.account.id)
        with pytest.raises(ResourceNotFoundError):
            await cognito.describe_identity_provider(name)
        assert name not in (await cognito.describe_app_client())["SupportedIdentityProviders"]
        async with app.state.resources.sessionmaker() as db:
            account = await db.get_one(Account, owner.account.id)
            user = await db.scalar(select(User).where(User.id == owner.user.id))
        assert account.require_saml_sso is False
        assert user is not None
        assert user.auth_type is AuthType.EMAIL
        assert user.identity_id == f"owner@{domain}"
        # Their SAML identity is nobody's any more: its tokens open no account, and say why.
        for path in ("/web/session", "/web/account"):
            refused = await client.get(path, headers=owner.headers)
            assert refused.status_code == 401
            assert refused.json() == {
                "code": "SamlConnectionRemoved",
                "message": "Your account no longer uses SAML single sign-on. Sign in with "
                "your email and password; if you have no password yet, use 'Forgot your "
                "password?' to set one.",
            }

    async def test_another_accounts_connection_is_404(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        assert (await connect(client, owner)).status_code == 200
        stranger = await make_user()
        response = await client.delete("/web/sso/saml", headers=stranger.headers)
        assert response.status_code == 404
        shown = (await client.get("/web/sso/saml", headers=stranger.headers)).json()
        assert shown["connection"] is None
        kept = (await client.get("/web/sso/saml", headers=owner.headers)).json()
        assert kept["connection"] is not None


class TestRequirement:
    async def test_needs_the_connection(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, _ = await saml_owner(client, make_user, AuthType.SAML_SSO)
        response = await client.post(
            "/web/sso/saml/requirement", headers=owner.headers, json={"requireSamlSSO": True}
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "SamlConnectionRequired",
            "message": "Set up the SAML connection first.",
        }

    async def test_only_a_saml_user_can_require_it(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        assert (await connect(client, owner)).status_code == 200
        response = await client.post(
            "/web/sso/saml/requirement", headers=owner.headers, json={"requireSamlSSO": True}
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "SamlSsoAuthTypeRequired",
            "message": "You must have a SAML SSO auth type to require SAML SSO.",
        }

    async def test_requiring_it_shuts_everyone_else_out(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, domain = await saml_owner(client, make_user, AuthType.SAML_SSO)
        password_user = await make_user(account=owner.account, email=f"pw@{domain}")
        google_user = await make_user(
            account=owner.account, email=f"g@{domain}", auth_type=AuthType.GOOGLE_SSO
        )
        assert (await connect(client, owner)).status_code == 200
        response = await client.post(
            "/web/sso/saml/requirement", headers=owner.headers, json={"requireSamlSSO": True}
        )
        assert response.status_code == 200
        assert response.json() == {
            "sso": {"isGoogleSSO": False, "isSamlSSO": True, "domains": [domain]}
        }
        account = (await client.get("/web/account", headers=owner.headers)).json()["account"]
        assert account["sso"]["isSamlSSO"] is True

        for other in (password_user, google_user):
            refused = await client.get("/web/session", headers=other.headers)
            assert refused.status_code == 401
            assert refused.json() == {
                "code": "SamlSignInRequired",
                "message": "This user must sign in with SSO",
            }
        # A password sign-in is refused before Cognito is asked.
        sign_in = await client.post(
            "/web/session/sign-in", json={"email": f"pw@{domain}", "password": PASSWORD}
        )
        assert sign_in.status_code == 400
        assert sign_in.json() == {
            "code": "MustSignInWithSso",
            "message": "This user must sign in with SSO",
        }
        # Inviting stops too: people arrive through the identity provider.
        invite = await client.post(
            "/web/users",
            headers=owner.headers,
            json={"firstName": "New", "lastName": "Person", "email": f"new@{domain}"},
        )
        assert invite.status_code == 400
        assert invite.json()["code"] == "InviteRefusedWithSso"

        events = await client.get(
            "/web/audit-events", headers=owner.headers, params={"action": "sso.changed"}
        )
        changed = events.json()["events"]
        assert changed[0]["changes"] == {"requireSamlSSO": {"from": False, "to": True}}

        off = await client.post(
            "/web/sso/saml/requirement", headers=owner.headers, json={"requireSamlSSO": False}
        )
        assert off.json()["sso"]["isSamlSSO"] is False


class TestSignInWithSso:
    async def test_a_domain_without_a_connection(self, client: httpx.AsyncClient) -> None:
        domain = unique_domain("nosso")
        response = await client.post(
            "/web/session/authorize/sso",
            json={"email": f"jane@{domain}", "redirectUri": "http://testserver/oauth/sso"},
        )
        assert response.status_code == 400
        assert response.json() == {
            "code": "SsoNotConfigured",
            "message": f"No single sign-on is set up for {domain}.",
        }

    async def test_sends_the_browser_to_the_connection(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, domain = await saml_owner(client, make_user)
        assert (await connect(client, owner)).status_code == 200
        response = await client.post(
            "/web/session/authorize/sso",
            json={"email": f"Jane@{domain.upper()}", "redirectUri": "http://testserver/oauth/sso"},
        )
        assert response.status_code == 200, response.text
        url = httpx.URL(response.json()["authorizeUrl"])
        assert url.params["idp_identifier"] == domain
        assert "identity_provider" not in url.params
        assert url.params["code_challenge_method"] == "S256"
        assert url.params["state"]
        assert "oauth_flow" in response.cookies
