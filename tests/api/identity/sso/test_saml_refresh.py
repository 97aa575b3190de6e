"""The daily upkeep of SAML connections (README "SAML single sign-on"): metadata set up by URL
is fetched again a day later and sent to Cognito when it changed; a failed fetch keeps the
connection as it was and says why; a signing certificate expiring within 30 days emails the
account's Owners and Admins once per certificate, through the job engine."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import respx
from fastapi import FastAPI
from sqlalchemy import select, update

from api.adapters.cognito import CognitoClient
from api.adapters.metadata_url import MetadataFetcher
from api.app.worker import create_job_app
from api.identity.sso.saml import provider_name_of
from api.identity.sso.saml_metadata import MAX_METADATA_BYTES
from api.identity.sso.saml_refresh import UNFORESEEN, RefreshReport, notify_expiring, refresh_due
from api.kernel.config import SsoSettings
from api.models import Role, SamlConnection
from tests.api.conftest import MakeUser, SignedIn, mails_to, unique_domain, verified_domain
from tests.api.identity.sso.saml_support import idp_metadata

METADATA_URL = "https://idp.example-idp.com/app/refresh/metadata"


async def refresh(app: FastAPI, cognito: CognitoClient) -> RefreshReport:
    """One pass, fetching as with the stand-ins on (the identity provider here is respx's)."""
    fetcher = MetadataFetcher(max_bytes=MAX_METADATA_BYTES, allow_loopback=True)
    return await refresh_due(app.state.resources.sessionmaker, cognito, fetcher)


def identity_provider(router: respx.MockRouter) -> respx.Route:
    """The identity provider's metadata URL (its answer set by each test); everything else
    goes out as usual."""
    route = router.get(METADATA_URL)
    router.route().pass_through()
    return route


async def connected_by_url(
    client: httpx.AsyncClient, make_user: MakeUser, served: respx.Route, document: str
) -> SignedIn:
    domain = unique_domain("refresh")
    owner = await make_user(email=f"owner@{domain}")
    await verified_domain(client, owner.headers, domain)
    served.respond(200, text=document)
    saved = await client.put(
        "/web/sso/saml", headers=owner.headers, json={"metadataUrl": METADATA_URL}
    )
    assert saved.status_code == 200, saved.text
    return owner


async def a_day_passes(app: FastAPI, owner: SignedIn) -> None:
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(SamlConnection)
            .where(SamlConnection.account_id == owner.account.id)
            .values(metadata_checked_at=datetime.now(UTC) - timedelta(days=1, minutes=1))
        )


async def connection(app: FastAPI, owner: SignedIn) -> SamlConnection:
    async with app.state.resources.sessionmaker() as db:
        row = await db.scalar(
            select(SamlConnection).where(SamlConnection.account_id == owner.account.id)
        )
    assert row is not None
    return row


class TestMetadataRefresh:
    async def test_new_metadata_reaches_cognito(
        self,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        app: FastAPI,
        cognito: CognitoClient,
    ) -> None:
        with respx.mock(assert_all_called=False) as router:
            served = identity_provider(router)
            owner = await connected_by_url(client, make_user, served, idp_metadata())
            # Not due yet: nothing is fetched.
            report = await refresh(app, cognito)
            assert report.changed == report.unchanged == report.failed == 0

            rolled = idp_metadata(days_left=400, entity_id="https://idp.example-idp.com/rolled")
            served.respond(200, text=rolled)
            await a_day_passes(app, owner)
            report = await refresh(app, cognito)
        assert report.changed == 1
        row = await connection(app, owner)
        assert row.idp_entity_id == "https://idp.example-idp.com/rolled"
        assert row.metadata_checked_at > datetime.now(UTC) - timedelta(minutes=1)
        provider = await cognito.describe_identity_provider(provider_name_of(owner.account.id))
        assert provider["ProviderDetails"]["MetadataFile"] == rolled

    async def test_the_same_metadata_changes_nothing(
        self,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        app: FastAPI,
        cognito: CognitoClient,
    ) -> None:
        with respx.mock(assert_all_called=False) as router:
            served = identity_provider(router)
            owner = await connected_by_url(client, make_user, served, idp_metadata())
            await a_day_passes(app, owner)
            report = await refresh(app, cognito)
        assert (report.changed, report.unchanged) == (0, 1)

    async def test_a_failed_fetch_keeps_the_connection_and_says_why(
        self,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        app: FastAPI,
        cognito: CognitoClient,
    ) -> None:
        with respx.mock(assert_all_called=False) as router:
            served = identity_provider(router)
            owner = await connected_by_url(client, make_user, served, idp_metadata())
            served.respond(500)
            await a_day_passes(app, owner)
            report = await refresh(app, cognito)
        assert report.failed == 1
        shown = (await client.get("/web/sso/saml", headers=owner.headers)).json()["connection"]
        assert shown["metadataError"] == "The metadata URL answered HTTP 500."
        assert shown["idpEntityId"] == "https://idp.example-idp.com/app/metadata"
        provider = await cognito.describe_identity_provider(provider_name_of(owner.account.id))
        assert provider["ProviderDetails"]["MetadataFile"] == idp_metadata()


def _expiry(box: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The certificate-expiry emails of a mailbox (the Owners' notices of the change aside)."""
    return [m for m in box if str(m["subject"]).startswith("Your SAML signing certificate")]


OTHER_URL = "https://idp.example-idp.com/app/refresh/other-metadata"

NESTED = (
    '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x">'
    + "<a>" * 30_000
    + "</a>" * 30_000
    + "</md:EntityDescriptor>"
)
"""A hostile document: small, and nested deep enough for pysaml2's recursion to fail."""


async def two_tenants_due(
    client: httpx.AsyncClient, make_user: MakeUser, app: FastAPI, router: respx.MockRouter
) -> tuple[SignedIn, SignedIn, respx.Route, respx.Route]:
    """Two accounts connected by URL, both due; the first one's fetch comes first."""
    hostile_route = router.get(OTHER_URL)
    served = identity_provider(router)
    served.respond(200, text=idp_metadata())
    hostile_route.respond(200, text=idp_metadata())
    domain = unique_domain("hostile")
    hostile = await make_user(email=f"owner@{domain}")
    await verified_domain(client, hostile.headers, domain)
    saved = await client.put(
        "/web/sso/saml", headers=hostile.headers, json={"metadataUrl": OTHER_URL}
    )
    assert saved.status_code == 200, saved.text
    good = await connected_by_url(client, make_user, served, idp_metadata())
    await a_day_passes(app, good)
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(SamlConnection)
            .where(SamlConnection.account_id == hostile.account.id)
            .values(metadata_checked_at=datetime.now(UTC) - timedelta(days=30))
        )
    return hostile, good, hostile_route, served


class TestOneTenantCannotStopTheOthers:
    async def test_a_hostile_document_fails_alone_and_says_why(
        self,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        app: FastAPI,
        cognito: CognitoClient,
    ) -> None:
        with respx.mock(assert_all_called=False) as router:
            hostile, good, hostile_route, served = await two_tenants_due(
                client, make_user, app, router
            )
            hostile_route.respond(200, text=NESTED)
            rolled = idp_metadata(days_left=400, entity_id="https://idp.example-idp.com/next")
            served.respond(200, text=rolled)
            report = await refresh(app, cognito)
        assert report.failed >= 1 and report.changed >= 1
        assert (await connection(app, good)).idp_entity_id == "https://idp.example-idp.com/next"
        shown = (await client.get("/web/sso/saml", headers=hostile.headers)).json()["connection"]
        assert shown["metadataError"] == (
            "The metadata nests its elements more than 64 deep: it is not an identity "
            "provider's metadata."
        )

    async def test_an_unforeseen_failure_fails_alone_and_says_so(
        self,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        app: FastAPI,
        cognito: CognitoClient,
    ) -> None:
        with respx.mock(assert_all_called=False) as router:
            hostile, good, hostile_route, served = await two_tenants_due(
                client, make_user, app, router
            )
            # Something no rule foresaw (a library's own bug on what that server sends).
            hostile_route.mock(side_effect=RuntimeError("unforeseen"))
            rolled = idp_metadata(days_left=400, entity_id="https://idp.example-idp.com/after")
            served.respond(200, text=rolled)
            report = await refresh(app, cognito)
        assert report.failed >= 1 and report.changed >= 1
        assert (await connection(app, good)).idp_entity_id == "https://idp.example-idp.com/after"
        row = await connection(app, hostile)
        assert row.metadata_error == UNFORESEEN
        assert row.metadata_checked_at > datetime.now(UTC) - timedelta(minutes=1)


class TestExpiryEmail:
    async def test_owners_and_admins_are_told_once_per_certificate(
        self, client: httpx.AsyncClient, make_user: MakeUser, app: FastAPI
    ) -> None:
        domain = unique_domain("expiring")
        owner = await make_user(email=f"owner@{domain}")
        admin = await make_user(account=owner.account, email=f"admin@{domain}", role=Role.ADMIN)
        member = await make_user(account=owner.account, email=f"member@{domain}", role=Role.MEMBER)
        await verified_domain(client, owner.headers, domain)
        saved = await client.put(
            "/web/sso/saml", headers=owner.headers, json={"metadataXml": idp_metadata(days_left=10)}
        )
        assert saved.status_code == 200

        # (The Owner is also told the connection was made: README "Roles and invitations".)
        owner_mails = 2
        await notify_expiring(app.state.resources.sessionmaker)
        for who, expected in ((owner, owner_mails), (admin, 1)):
            mails = _expiry(await mails_to(client, who.user.email, expected=expected))
            assert len(mails) == 1
            assert mails[0]["subject"].startswith("Your SAML signing certificate expires on")
            assert "Update metadata" in mails[0]["body"]
        assert await mails_to(client, member.user.email, expected=1, wait_s=1) == []

        # A second pass sends nothing more about the same certificate.
        await notify_expiring(app.state.resources.sessionmaker)
        box = await mails_to(client, owner.user.email, expected=owner_mails + 1, wait_s=2)
        assert len(_expiry(box)) == 1

        # A new certificate, expiring soon too, is worth a new email.
        renewed = await client.put(
            "/web/sso/saml", headers=owner.headers, json={"metadataXml": idp_metadata(days_left=20)}
        )
        assert renewed.status_code == 200
        await notify_expiring(app.state.resources.sessionmaker)
        box = await mails_to(client, owner.user.email, expected=owner_mails + 2)
        assert len(_expiry(box)) == 2

    async def test_a_distant_expiry_sends_nothing(
        self, client: httpx.AsyncClient, make_user: MakeUser, app: FastAPI
    ) -> None:
        domain = unique_domain("distant")
        owner = await make_user(email=f"owner@{domain}")
        await verified_domain(client, owner.headers, domain)
        saved = await client.put(
            "/web/sso/saml", headers=owner.headers, json={"metadataXml": idp_metadata()}
        )
        assert saved.status_code == 200
        await notify_expiring(app.state.resources.sessionmaker)
        assert _expiry(await mails_to(client, owner.user.email, expected=2, wait_s=1)) == []


async def test_the_worker_runs_it_every_hour(
    client: httpx.AsyncClient, make_user: MakeUser, app: FastAPI
) -> None:
    # The tests' stack schedules no periodic task; a worker of the default settings does.
    default = SsoSettings.model_fields["saml_upkeep_cron"].default
    jobs = create_job_app(app.state.settings.updated(saml_upkeep_cron=default))
    periodic = {task.periodic_id: task for task in jobs.periodic_registry.periodic_tasks.values()}
    assert periodic["saml_upkeep"].cron == "23 * * * *"
    task = periodic["saml_upkeep"].task
    assert task.name == "saml_upkeep"
    # The task itself, as a worker runs it at a tick, on the settings' own database and pool.
    domain = unique_domain("tick")
    owner = await make_user(email=f"owner@{domain}")
    await verified_domain(client, owner.headers, domain)
    saved = await client.put(
        "/web/sso/saml", headers=owner.headers, json={"metadataXml": idp_metadata(days_left=5)}
    )
    assert saved.status_code == 200
    await task.func(timestamp=int(datetime.now(UTC).timestamp()))
    # Two messages, in either order: the Owners' notice of the new connection, and the one
    # warning of the certificate's end that the task sends.
    box = await mails_to(client, owner.user.email, expected=2)
    warnings = [m for m in box if m["subject"].startswith("Your SAML signing certificate")]
    assert len(box) == 2
    assert len(warnings) == 1
