"""What Cognito allows a SAML identity provider's identifiers (README "SAML single sign-on",
Limits): at most 50 ``IdpIdentifiers``, each 1 to 40 characters (botocore's service model of
``cognito-idp``, ``IdpIdentifiersListType``), where a verified domain may have 253. moto accepts
any list, so every identifier list Cognito holds here is checked against that model; a domain
that cannot be an identifier is named on the set-up, still signs in through 'Sign in with SSO',
and the hourly upkeep never tries to send it."""

from __future__ import annotations

import re
import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import botocore.session
import httpx
import respx
from fastapi import FastAPI
from sqlalchemy import update

from api.adapters.cognito import CognitoClient
from api.identity.sso.saml import IDENTIFIER_MAX_LENGTH, IDENTIFIERS_MAX, provider_name_of
from api.identity.sso.saml_refresh import resync_identifiers
from api.models import DomainState, SamlConnection, SsoDomain
from devstack.saml_idp import Person
from tests.api.cognito_model import CognitoModelCheck
from tests.api.conftest import MakeUser, SignedIn, unique_domain, verified_domain
from tests.api.identity.sso.test_saml_connection import connect, saml_owner
from tests.api.identity.sso.test_saml_sign_in import connected_account, sign_in_with_sso

_MODEL = botocore.session.get_session().get_service_model("cognito-idp")
_LIST = _MODEL.shape_for("IdpIdentifiersListType")
_ONE = _MODEL.shape_for("IdpIdentifierType")


def allowed_by_cognito(identifiers: list[str]) -> bool:
    """Whether Cognito's own model accepts ``identifiers`` (its ``min``/``max`` and
    ``pattern``, which botocore's client-side validation does not check)."""
    pattern = re.compile(_ONE.metadata["pattern"])
    return _LIST.metadata.get("min", 0) <= len(identifiers) <= _LIST.metadata["max"] and all(
        _ONE.metadata["min"] <= len(i) <= _ONE.metadata["max"] and pattern.fullmatch(i)
        for i in identifiers
    )


def long_domain() -> str:
    """A verified-domain-shaped name longer than Cognito's 40 characters (45)."""
    return f"a-very-long-company-name-{secrets.token_hex(8)}.dev"


async def identifiers(cognito: CognitoClient, owner: SignedIn) -> list[str]:
    provider = await cognito.describe_identity_provider(provider_name_of(owner.account.id))
    found: list[str] = provider["IdpIdentifiers"]
    return found


async def shown(client: httpx.AsyncClient, owner: SignedIn) -> dict[str, Any]:
    connection: dict[str, Any] = (await client.get("/web/sso/saml", headers=owner.headers)).json()[
        "connection"
    ]
    return connection


def too_long(domain: str) -> str:
    return (
        f"{domain} is longer than the 40 characters Cognito allows for a SAML identifier: "
        "Cognito does not route it by itself, and people at it still sign in with 'Sign in "
        "with SSO', which sends them to this connection by its name."
    )


def test_the_limits_are_cognitos() -> None:
    assert IDENTIFIERS_MAX == _LIST.metadata["max"] == 50
    assert IDENTIFIER_MAX_LENGTH == _ONE.metadata["max"] == 40


def test_the_tests_cognito_refuses_what_the_real_one_does() -> None:
    # moto stores any identifiers; every request of the adapter is checked against Cognito's
    # model in every API test (tests/api/cognito_model.py), as the real service checks them.
    check = CognitoModelCheck()
    base = {"UserPoolId": "us-east-1_x", "ProviderName": "saml-x"}
    [long] = check.violations("UpdateIdentityProvider", {**base, "IdpIdentifiers": [long_domain()]})
    assert long.startswith(
        "UpdateIdentityProvider IdpIdentifiers[0]: length 45, more than the max of 40"
    )
    too_many = [f"d{i}.dev" for i in range(51)]
    assert check.violations("UpdateIdentityProvider", {**base, "IdpIdentifiers": too_many}) == [
        "UpdateIdentityProvider IdpIdentifiers: 51 items, more than the max of 50"
    ]


class TestLongDomains:
    async def test_a_domain_longer_than_40_is_named_and_not_sent(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner, domain = await saml_owner(client, make_user)
        long = long_domain()
        await verified_domain(client, owner.headers, long)
        saved = await connect(client, owner)
        assert saved.status_code == 200, saved.text
        assert saved.json()["domains"] == [domain]
        assert saved.json()["identifierNotices"] == [too_long(long)]
        assert await identifiers(cognito, owner) == [domain]
        assert allowed_by_cognito(await identifiers(cognito, owner))
        assert (await shown(client, owner))["identifierNotices"] == [too_long(long)]

    async def test_verifying_one_later_keeps_it_out(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        # The Verify of a domain once a connection exists sends the identifiers too.
        owner, domain = await saml_owner(client, make_user)
        assert (await connect(client, owner)).status_code == 200
        long = long_domain()
        await verified_domain(client, owner.headers, long)
        assert await identifiers(cognito, owner) == [domain]
        assert (await shown(client, owner))["identifierNotices"] == [too_long(long)]

    async def test_its_people_still_sign_in_with_sso(
        self, client: httpx.AsyncClient, make_user: MakeUser, hosted_ui: respx.MockRouter
    ) -> None:
        owner, _ = await connected_account(client, make_user)
        long = long_domain()
        await verified_domain(client, owner.headers, long)
        started = await client.post(
            "/web/session/authorize/sso",
            json={"email": f"jane@{long}", "redirectUri": "http://testserver/oauth/sso"},
        )
        assert started.status_code == 200, started.text
        query = httpx.URL(started.json()["authorizeUrl"]).params
        assert query["identity_provider"] == provider_name_of(owner.account.id)
        assert "idp_identifier" not in query
        exchanged = await sign_in_with_sso(client, Person(f"jane@{long}", "Jane", "Long"))
        assert exchanged.status_code == 200, exchanged.text
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]
        assert f"jane@{long}" in [u["email"] for u in users["users"]]

    async def test_the_upkeep_does_not_try_to_send_it(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        cognito: CognitoClient,
    ) -> None:
        owner, domain = await saml_owner(client, make_user)
        await verified_domain(client, owner.headers, long_domain())
        assert (await connect(client, owner)).status_code == 200
        await resync_identifiers(app.state.resources.sessionmaker, cognito)
        # In step as the upkeep sees it: nothing to send at the next passes.
        assert await resync_identifiers(app.state.resources.sessionmaker, cognito) == 0
        assert await identifiers(cognito, owner) == [domain]


class TestMoreThanFifty:
    async def test_the_first_50_in_alphabetical_order_are_sent_and_the_rest_named(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        cognito: CognitoClient,
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        # Verified as the Verify button would (the DNS checks themselves are tested apart).
        tag = secrets.token_hex(3)
        names = [f"d{i:02d}-{tag}.dev" for i in range(52)]
        async with app.state.resources.sessionmaker() as db, db.begin():
            for name in names:
                db.add(
                    SsoDomain(
                        id=uuid.uuid4(),
                        account_id=owner.account.id,
                        domain=name,
                        token=secrets.token_hex(16),
                        state=DomainState.VERIFIED,
                        checked_at=datetime.now(UTC),
                        verified_at=datetime.now(UTC),
                    )
                )
        saved = await connect(client, owner)
        assert saved.status_code == 200, saved.text
        everything = sorted([*names, owner.user.email.split("@")[1]])
        sent = await identifiers(cognito, owner)
        assert sent == everything[:50]
        assert allowed_by_cognito(sent)
        left = everything[50:]
        assert saved.json()["identifierNotices"] == [
            f"{name} is past the 50 identifiers Cognito allows for a SAML identity provider "
            "(the first 50 verified domains in alphabetical order are sent): people at it "
            "still sign in with 'Sign in with SSO', which sends them to this connection by "
            "its name."
            for name in left
        ]
        await resync_identifiers(app.state.resources.sessionmaker, cognito)
        assert await resync_identifiers(app.state.resources.sessionmaker, cognito) == 0
        assert await identifiers(cognito, owner) == everything[:50]


class TestCognitoRefusingIdentifiers:
    async def test_is_recorded_on_the_connection_and_not_retried_every_hour(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        cognito: CognitoClient,
    ) -> None:
        owner, domain = await saml_owner(client, make_user)
        assert (await connect(client, owner)).status_code == 200
        sessions = app.state.resources.sessionmaker
        # The daily re-check found the domain Lost: the upkeep drops it from the identifiers.
        async with sessions() as db, db.begin():
            await db.execute(
                update(SsoDomain)
                .where(SsoDomain.account_id == owner.account.id)
                .values(state=DomainState.LOST)
            )
        refused = {"__type": "InvalidParameterException", "message": "Not today."}
        target = "AWSCognitoIdentityProviderService.UpdateIdentityProvider"
        with respx.mock(assert_all_called=False) as router:
            updates = router.post(headers={"X-Amz-Target": target}).respond(400, json=refused)
            router.route().pass_through()
            await resync_identifiers(sessions, cognito)
            assert updates.called
            calls = updates.call_count
            # The next hourly passes leave it alone: Cognito said no.
            await resync_identifiers(sessions, cognito)
            assert updates.call_count == calls
        error = (await shown(client, owner))["identifiersError"]
        assert error == (
            "Cognito refused the connection's domains (InvalidParameterException: Not "
            "today.); they are sent again a day after the refusal, or at the next change of "
            "the verified domains."
        )
        assert await identifiers(cognito, owner) == [domain]
        # A day later it is tried again, works, and the error goes.
        async with sessions() as db, db.begin():
            await db.execute(
                update(SamlConnection)
                .where(SamlConnection.account_id == owner.account.id)
                .values(identifiers_failed_at=datetime.now(UTC) - timedelta(days=1, minutes=1))
            )
        await resync_identifiers(sessions, cognito)
        assert await identifiers(cognito, owner) == []
        assert (await shown(client, owner))["identifiersError"] is None


async def test_a_domain_of_40_is_sent(
    client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
) -> None:
    owner, _ = await saml_owner(client, make_user)
    forty = unique_domain("x" * 27)
    assert len(forty) == 40
    await verified_domain(client, owner.headers, forty)
    assert (await connect(client, owner)).status_code == 200
    assert forty in await identifiers(cognito, owner)
    assert (await shown(client, owner))["identifierNotices"] == []
